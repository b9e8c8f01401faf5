// Consumptions: consume (or dry-run, or queue), look one up, the queue and its cancel.
import * as schemas from '../../../schemas/consumptions.js';
import * as ops from '../../../ledger/operations.js';
import { notFound } from '../../../errors.js';
import { answer, checkNoBody } from './answer.js';

const allocations = ops.read((ledger, eventId) => ledger.allocations(eventId));
const pending = ops.read((ledger) => ({ pending: ledger.pending() }));

export default async function consumptions(fastify) {
  fastify.post('/consumptions', { schema: schemas.consume, config: { access: 'consume' } }, (request, reply) =>
    answer(fastify, request, reply, ops.consume, request.body),
  );

  fastify.get('/consumptions/:eventId', { schema: schemas.getConsumption, config: { access: 'read' } }, async (request, reply) => {
    const { customerId, eventId } = request.params;
    const draws = await answer(fastify, request, reply, allocations, eventId);
    if (draws === null) {
      // An accepted consumption that a compaction dropped is final; its draws are no longer
      // itemised (its retry repeats its first answer, which the log kept). A queued one
      // let in by a change was logged as `consume` with it (operations.js, letInEntries);
      // one dropped while still queued has only its `submit`, and is not found.
      const archived = await fastify.store.findEntry(customerId, 'consume', eventId);
      if (archived === null) throw notFound(`no accepted consumption ${JSON.stringify(eventId)}`);
      return { eventId, amount: archived.amount, timestamp: archived.t1, allocations: [] };
    }
    // The ledger knows the draws; the committed log knows amount and timestamp (an
    // accepted consumption's parameters never change).
    const logged = await fastify.store.findConsumption(customerId, eventId);
    if (logged === null) throw notFound(`no accepted consumption ${JSON.stringify(eventId)}`);
    return { eventId, amount: logged.amount, timestamp: logged.timestamp, allocations: draws };
  });

  fastify.get('/pending', { schema: schemas.listPending, config: { access: 'read' } }, (request, reply) =>
    answer(fastify, request, reply, pending, null),
  );

  fastify.delete('/pending/:eventId', { schema: schemas.cancelPending, config: { access: 'write' } }, (request, reply) => {
    checkNoBody(request.body);
    return answer(fastify, request, reply, ops.cancelPending, { eventId: request.params.eventId });
  });
}
