// The customer's ledger as the package's snapshot document (toJSON), for exact previews.
import * as schemas from '../../../schemas/reads.js';
import * as ops from '../../../ledger/operations.js';
import { answer } from './answer.js';

const document = ops.read((ledger) => ledger.toJSON());

export default async function ledgerRoute(fastify) {
  fastify.get('/ledger', { schema: schemas.ledgerDocument, config: { access: 'read' } }, (request, reply) =>
    answer(fastify, request, reply, document, null),
  );
}
