// Grants: add, list at a time, burn-down, void, change end.
import * as schemas from '../../../schemas/grants.js';
import * as ops from '../../../ledger/operations.js';
import { notFound } from '../../../errors.js';
import { answer, answerLongRead, checkNoBody, queryTime } from './answer.js';

// A grant a compaction carried across the horizon is answered as it was added (CustomerLedger.asAdded).
const grantsAt = ops.read((ledger, at, state) => ({ grants: ledger.grantsAt(at).map((grant) => state.asAdded(grant)) }));
const burnDown = (ledger, grantId, state) => state.asAdded(ledger.burnDown(grantId));

export default async function grants(fastify) {
  fastify.post('/grants', { schema: schemas.addGrant, config: { access: 'write' } }, (request, reply) =>
    answer(fastify, request, reply, ops.addGrant, request.body),
  );

  fastify.get('/grants', { schema: schemas.grantsAt, config: { access: 'read' } }, (request, reply) =>
    answer(fastify, request, reply, grantsAt, queryTime(request, 'at')),
  );

  fastify.get('/grants/:grantId', { schema: schemas.burnDown, config: { access: 'read' } }, async (request, reply) => {
    const sent = await answerLongRead(fastify, request, reply, burnDown, request.params.grantId);
    if (sent === null) throw notFound(`no grant ${JSON.stringify(request.params.grantId)}`);
    return sent;
  });

  fastify.post('/grants/:grantId/void', { schema: schemas.voidGrant, config: { access: 'write' } }, (request, reply) => {
    checkNoBody(request.body);
    return answer(fastify, request, reply, ops.voidGrant, { grantId: request.params.grantId });
  });

  fastify.patch('/grants/:grantId', { schema: schemas.setGrantEnd, config: { access: 'write' } }, (request, reply) =>
    answer(fastify, request, reply, ops.setGrantEnd, { grantId: request.params.grantId, endTime: request.body.endTime }),
  );
}
