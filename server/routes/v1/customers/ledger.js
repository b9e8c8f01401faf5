// The customer's ledger as the package's snapshot document (toJSON), for exact previews.
import * as schemas from '../../../schemas/reads.js';
import { answerLongRead } from './answer.js';

const document = (ledger) => ledger.toJSON();

export default async function ledgerRoute(fastify) {
  fastify.get('/ledger', { schema: schemas.ledgerDocument, config: { access: 'read' } }, (request, reply) =>
    answerLongRead(fastify, request, reply, document, null),
  );
}
