// The batch route: up to 1,000 grants and consumptions in one request and one commit.
import * as schemas from '../../../schemas/events.js';
import * as ops from '../../../ledger/operations.js';
import { answer } from './answer.js';

export default async function events(fastify) {
  fastify.post('/events', { schema: schemas.applyEvents, config: { access: 'consume' } }, (request, reply) =>
    answer(fastify, request, reply, ops.applyEvents, request.body),
  );
}
