// Shared by the customer routes: run an operation in the customer's turn and answer with
// its status and body; convert a query-string time.
import { ServiceError, invalidArgument } from '../../../errors.js';
import * as ops from '../../../ledger/operations.js';
import { archivedAnswer } from '../../../cleanup/archived-retries.js';

export async function answer(fastify, request, reply, op, input) {
  // Writes catch up too: one that logs nothing (a rejection, an identical retry) is
  // answered without a commit, so only the catch-up makes its answer current.
  const consistency = request.method === 'GET' ? readConsistency(request) : 'strong';
  let out;
  try {
    out = await fastify.ledgers.run(request.params.customerId, op, input, consistency);
  } catch (error) {
    // Refused before the horizon: a retry of an event the store still holds gets its answer.
    const kind = op === ops.addGrant ? 'grant' : op === ops.consume ? 'consumption' : null;
    const archived =
      error?.code === 'BEFORE_HORIZON' && kind !== null
        ? await archivedAnswer(fastify.store, request.params.customerId, kind, input)
        : null;
    if (archived === null) throw error;
    out = archived;
  }
  if (op === ops.applyEvents) await answerArchivedEvents(fastify.store, request.params.customerId, input.events, out.body.results);
  const { status, body, view } = out;
  if (status >= 400) throw new ServiceError(status, body.error.code, body.error.message);
  if (view !== undefined) {
    // What the answer reflects: the last log seq applied, and how long ago the cached
    // ledger was last known current (0 for a store no other instance writes to).
    reply.header('x-ledger-seq', view.seq);
    reply.header('x-ledger-cached-age-ms', fastify.ledgers.shared ? Math.max(0, Date.now() - view.syncedAt) : 0);
  }
  reply.code(status);
  return body;
}

/**
 * `answer` for a read whose answer may be long (a whole history): `read(ledger, input,
 * state)` runs in the customer's turn unless the read cache (ledger/read-cache.js) holds
 * the text answered for this URL of the same ledger as it is now. Sends the JSON text, or returns null when
 * `read` found nothing (the route answers 404).
 */
export async function answerLongRead(fastify, request, reply, read, input) {
  const customer = request.params.customerId;
  const cache = fastify.readCache;
  let stamp = null;
  const op = ops.read((ledger, value, state) => {
    const text = cache.get(customer, request.url, state);
    if (text !== undefined) return { text };
    stamp = cache.stamp(state);
    return { body: read(ledger, value, state) };
  });
  const out = await answer(fastify, request, reply, op, input);
  if (out.body === null) return null;
  let text = out.text;
  if (text === undefined) {
    text = reply.serialize(out.body); // by the route's response schema, as Fastify would
    cache.put(customer, request.url, stamp, text);
  }
  return reply.type('application/json; charset=utf-8').send(text);
}

// A batch event refused with BEFORE_HORIZON, answered as its single call would be: then
// the store held what it held before the batch (looked up before it ran: LedgerService,
// state.archived) and what the batch's earlier events logged. So the store is asked only
// when an earlier event logged the same id; an entry a later event logged must not answer
// it (its single call came first).
async function answerArchivedEvents(store, customer, events, results) {
  const idOf = (event) => (event.type === 'grant' ? event.grantId : event.eventId);
  for (let i = 0; i < results.length; i++) {
    if (results[i].error?.code !== 'BEFORE_HORIZON') continue;
    const event = events[i];
    const loggedBefore = events.slice(0, i).some((earlier, j) => {
      if (earlier.type !== event.type || idOf(earlier) !== idOf(event)) return false;
      const r = results[j];
      return earlier.type === 'grant' ? r.status === 201 : earlier.dryRun !== true && (r.accepted === true || r.queued === true);
    });
    if (!loggedBefore) continue;
    const archived = await archivedAnswer(store, customer, event.type, event);
    if (archived !== null) results[i] = { status: archived.status, ...archived.body };
  }
}

// The void and the cancel take no body: none, an empty one or `{}` (a body that is not JSON
// is refused before, as on every route). Anything else is refused as bad input, and nothing
// is changed.
export function checkNoBody(body) {
  if (body === undefined) return;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidArgument('body must be an empty object or absent');
  const [field] = Object.keys(body);
  if (field !== undefined) throw invalidArgument(`body.${field} is not a known field`);
}

function readConsistency(request) {
  const value = request.query?.consistency;
  if (value === undefined || value === 'strong') return 'strong';
  if (value === 'cached') return 'cached';
  throw new ServiceError(400, 'INVALID_ARGUMENT', `querystring.consistency must be "strong" or "cached", got ${JSON.stringify(value)}`);
}

/** A query value that passed the schema's digit pattern, as a safe integer (400 above 2^53 - 1). */
export function queryTime(request, name) {
  const value = Number(request.query[name]);
  if (!Number.isSafeInteger(value)) {
    throw new ServiceError(400, 'INVALID_ARGUMENT', `querystring.${name} must be an integer in [0, 2^53 - 1], got ${request.query[name]}`);
  }
  return value;
}
