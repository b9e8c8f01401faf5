// Shared by the customer routes: run an operation in the customer's turn and answer with
// its status and body; convert a query-string time.
import { ServiceError } from '../../../errors.js';

export async function answer(fastify, request, reply, op, input) {
  const { status, body } = await fastify.ledgers.run(request.params.customerId, op, input);
  reply.code(status);
  return body;
}

/** A query value that passed the schema's digit pattern, as a safe integer (400 above 2^53 - 1). */
export function queryTime(request, name) {
  const value = Number(request.query[name]);
  if (!Number.isSafeInteger(value)) {
    throw new ServiceError(400, 'INVALID_ARGUMENT', `querystring.${name} must be an integer in [0, 2^53 - 1], got ${request.query[name]}`);
  }
  return value;
}
