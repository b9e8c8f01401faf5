// Reads of the balance function: balance and headroom at a time, the curve on [from, to].
import * as schemas from '../../../schemas/reads.js';
import * as ops from '../../../ledger/operations.js';
import { ServiceError } from '../../../errors.js';
import { answer, answerLongRead, queryTime } from './answer.js';

const balance = ops.read((ledger, at) => ledger.getBalance(at));
const headroom = ops.read((ledger, at) => ledger.headroom(at));
const curve = (ledger, [from, to]) => ({ points: ledger.balanceCurve(from, to) });

export default async function balanceRoutes(fastify) {
  fastify.get('/balance', { schema: schemas.balance, config: { access: 'read' } }, async (request, reply) => {
    const at = queryTime(request, 'at');
    return { customerId: request.params.customerId, at, balance: await answer(fastify, request, reply, balance, at) };
  });

  fastify.get('/headroom', { schema: schemas.headroom, config: { access: 'read' } }, async (request, reply) => {
    const at = queryTime(request, 'at');
    return { customerId: request.params.customerId, at, headroom: await answer(fastify, request, reply, headroom, at) };
  });

  fastify.get('/balance-curve', { schema: schemas.balanceCurve, config: { access: 'read' } }, (request, reply) => {
    const from = queryTime(request, 'from');
    const to = queryTime(request, 'to');
    if (from > to) throw new ServiceError(400, 'INVALID_ARGUMENT', `querystring.from must be <= querystring.to, got ${from} > ${to}`);
    return answerLongRead(fastify, request, reply, curve, [from, to]);
  });
}
