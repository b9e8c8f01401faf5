// What each request does to a customer's cached ledger. An operation runs synchronously
// inside the customer's turn and returns { result, entries }: the answer, and the log
// entries to commit before the answer may be sent ([kind, id, amount, t1, t2], see
// store/interface.js). Nothing is logged for rejections, dry runs, identical retries
// and reads. Package errors leave the ledger unchanged; they are converted here.
import { LedgerError } from 'gpu-credit-ledger';
import { fromLibrary, notFound } from '../errors.js';
import { encodeAllocations } from '../store/allocations.js';
import { loggedConsumptionAnswer, loggedGrantAnswer, loggedSubmissionAnswer } from '../cleanup/archived-retries.js';

const NONE = [];

function guarded(fn) {
  return (state, input) => {
    try {
      return fn(state, input);
    } catch (error) {
      throw fromLibrary(error);
    }
  };
}

/**
 * The [kind, id] pairs ('grant', 'consume' or 'submit') of the ids `input` would add whose
 * logged entries decide its answer, for the service to look up in the store before the
 * request runs (LedgerService, `state.archived`):
 * - after compaction, the ids the ledger no longer holds: the store does (log or archive),
 *   and they stay taken;
 * - a grant the ledger holds (or voided) with other parameters than the add's: a late retry
 *   of its first add, made before an end change (or a void), is still an identical retry;
 * - the grant of an end change or a void that the compacted ledger no longer holds: if the
 *   store has its add, it ended before the horizon (BEFORE_HORIZON, not NOT_FOUND).
 */
export function unheldIds(op, state, input) {
  const compacted = state.ledger.horizon !== 0;
  const out = [];
  // An id the package refuses (empty, too long, malformed) needs no lookup: the request
  // itself gets the package's error.
  const grant = (event) => {
    const id = event.grantId;
    const burnDown = unlessRefused(() => state.ledger.burnDown(id));
    if (burnDown === undefined) return;
    const held = state.voided.get(id) ?? grantParameters(burnDown);
    // A grant carried across the horizon shows what was left of it then, from the horizon
    // on (burnDown): its add is in the log.
    const carried = compacted && held !== null && held[1] <= state.ledger.horizon;
    if (held === null ? compacted : carried || !sameGrant(held, event)) out.push(['grant', id]);
  };
  // A cancelled submission (not queued again nor accepted since) leaves its id free, as it
  // is before a compaction: what the cleanup job archived must not change that answer.
  const consumption = (id) => {
    if (!compacted || state.queued.has(id) || state.cancelled.has(id)) return;
    if (unlessRefused(() => state.ledger.allocations(id)) === null) out.push(['consume', id], ['submit', id]);
  };
  if (op === addGrant) grant(input);
  else if (op === consume) consumption(input.eventId);
  else if ((op === setGrantEnd || op === voidGrant) && compacted && !state.voided.has(input.grantId)) {
    if (unlessRefused(() => state.ledger.burnDown(input.grantId)) === null) out.push(['grant', input.grantId]);
  } else if (op === applyEvents) for (const event of input.events) event.type === 'grant' ? grant(event) : consumption(event.eventId);
  return out;
}

// What `read()` answers, or undefined when the package refuses its id.
function unlessRefused(read) {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function grantParameters(burnDown) {
  return burnDown === null ? null : [burnDown.amount, burnDown.startTime, burnDown.endTime];
}

function sameGrant([amount, startTime, endTime], event) {
  return amount === event.amount && startTime === event.startTime && endTime === event.endTime;
}

// The answer for an id the store logged and the compacted ledger dropped: the identical
// retry's answer, or DUPLICATE_ID (the refusal leaves the ledger as it was).
function archivedOutcome(answer) {
  if (answer.status >= 400) throw new LedgerError(answer.body.error.code, answer.body.error.message);
  return { result: answer, entries: NONE };
}

// An end change or a void of a grant that compaction dropped (the store holds its add):
// its whole window is before the horizon, whose history is final.
function droppedGrant(state, method, grantId) {
  if (state.archived?.grant.get(grantId) === undefined) return null;
  // The package's own error for a call that needs final history (fromLibrary: 409).
  return new LedgerError(
    'BEFORE_HORIZON',
    `${method}: grant ${JSON.stringify(grantId)} ended before the horizon ${state.ledger.horizon}; its history is final`,
  );
}

/**
 * POST grants. status 201 for a first add, 200 for an identical retry: the same
 * parameters as the logged add, or as the grant has now.
 */
function addGrantUnguarded(state, input) {
  const { grantId, amount, startTime, endTime } = input;
  const logged = state.archived?.grant.get(grantId);
  if (logged !== undefined && sameGrant([logged.amount, logged.t1, logged.t2], input)) {
    return archivedOutcome(loggedGrantAnswer(logged, input));
  }
  const voided = state.voided.get(grantId);
  if (voided !== undefined) {
    if (sameGrant(voided, input)) {
      return { result: { status: 200, body: { grantId, amount, startTime, endTime, acceptedPending: [] } }, entries: NONE };
    }
    throw new LedgerError('DUPLICATE_ID', `addGrant: grant ${JSON.stringify(grantId)} was voided; its id stays taken`);
  }
  const ledger = state.ledger;
  if (logged !== undefined) {
    const now = grantParameters(ledger.burnDown(grantId));
    if (now === null) return archivedOutcome(loggedGrantAnswer(logged, input));
    // A grant carried across the horizon (the package shows it from the horizon on, and
    // refuses any add before it): the first add's amount and start with the end it has now
    // is an identical retry too (for a grant that starts at the horizon, the package's own
    // rule). The grant as the package shows it (start at the horizon, the credit left
    // there, which the package takes as an identical retry) is not: before the cleanup it
    // was another grant's parameters (409), and every read answers with the grant as added
    // (CustomerLedger.asAdded), so a cleanup changes no answer.
    if (ledger.horizon !== 0 && now[1] <= ledger.horizon) {
      const same = sameGrant([logged.amount, logged.t1, now[2]], input);
      return archivedOutcome(same ? loggedGrantAnswer({ ...logged, t2: endTime }, input) : loggedGrantAnswer(logged, input));
    }
  }
  const before = ledger.grantCount;
  state.letIn = [];
  ledger.addGrant(grantId, amount, startTime, endTime);
  const added = ledger.grantCount > before;
  const letIn = state.takeLetIn();
  return {
    result: {
      status: added ? 201 : 200,
      body: { grantId, amount, startTime, endTime, acceptedPending: letIn.map((c) => c.eventId) },
    },
    entries: added ? [['grant', grantId, amount, startTime, endTime], ...letInEntries(letIn)] : NONE,
  };
}

/**
 * The log entries of the queued consumptions a change let in: a `consume` entry each,
 * after the change's own, without allocations (their first answer was "queued"; a retry
 * answers with their draws as they are then). Replayed, each is an identical retry of a
 * consumption the change already let in, and charges nothing; it is what tells, after a
 * compaction, that the consumption was accepted (GET, retries), where the `submit` entry
 * alone cannot.
 */
function letInEntries(consumptions) {
  return consumptions.map(({ eventId, amount, timestamp }) => ['consume', eventId, amount, timestamp, null]);
}

/**
 * Runs `call` (a tryConsume) for the call the request makes: a plain consumption is a
 * consume and a queued one a submit, whose checks are tryConsume's (the same input, id and
 * horizon rules), so a refusal names the call the client made. A dry run is tryConsume's.
 */
function asCall(method, call) {
  try {
    return call();
  } catch (error) {
    if (typeof error?.message === 'string' && error.message.startsWith('tryConsume: ')) {
      error.message = `${method}: ${error.message.slice('tryConsume: '.length)}`;
    }
    throw error;
  }
}

/** POST consumptions: tryConsume, or submit when `queue` is set and it cannot be funded now. */
function consumeUnguarded(state, input) {
  const { eventId, amount, timestamp, dryRun = false, queue = false } = input;
  const archived = state.archived?.consume.get(eventId);
  if (archived !== undefined) {
    return archivedOutcome(loggedConsumptionAnswer(archived, input));
  } else {
    const submitted = state.archived?.submit.get(eventId);
    const answer = submitted === undefined ? null : loggedSubmissionAnswer(submitted, input);
    if (answer !== null) return archivedOutcome(answer);
  }
  const ledger = state.ledger;
  const wasQueued = state.queued.has(eventId);
  const before = ledger.consumptionCount;
  const tryConsume = () => ledger.tryConsume(eventId, amount, timestamp, dryRun ? { dryRun: true } : undefined);
  const r = dryRun ? tryConsume() : asCall(queue ? 'submit' : 'consume', tryConsume);
  const body = {
    eventId,
    accepted: r.accepted,
    queued: false,
    allocations: r.allocations,
    reason: r.reason,
    blockingEventId: r.blockingEventId,
  };
  let entries = NONE;
  let result = { status: 200, body };
  if (dryRun) {
    body.queued = !r.accepted && (wasQueued || queue);
    // A dry run answers as the real call would: an identical retry repeats the first answer.
    if (r.accepted && ledger.allocations(eventId) !== null) result = { status: 200, body, firstAnswers: [body] };
  } else if (r.accepted) {
    if (ledger.consumptionCount > before) {
      // The first answer's allocations are logged with it: its identical retries repeat them.
      entries = [['consume', eventId, amount, timestamp, null, encodeAllocations(r.allocations)]];
      state.queued.delete(eventId);
      state.cancelled.delete(eventId);
    } else {
      // An identical retry: the service answers with the logged allocations (a backdated
      // change since may have moved the draws; the package reports them as they are now).
      result = { status: 200, body, firstAnswers: [body] };
    }
  } else if (queue) {
    // The same state as the rejection just computed: submit queues it.
    ledger.submit(eventId, amount, timestamp);
    body.queued = true;
    if (!wasQueued) {
      state.queued.set(eventId, [amount, timestamp]);
      state.cancelled.delete(eventId);
      entries = [['submit', eventId, amount, timestamp, null]];
    }
  } else {
    body.queued = wasQueued;
  }
  return { result, entries };
}

/** POST grants/{grantId}/void. A grant voided before answers as applied again (retries). */
function voidGrantUnguarded(state, { grantId }) {
  if (state.voided.has(grantId)) return { result: { status: 200, body: { applied: true, blockingEventId: null } }, entries: NONE };
  const ledger = state.ledger;
  // An id the package refuses (empty, too long, malformed): both calls check it first, with
  // the same check; the void's own call names the void in the 400 (the read would name
  // burnDown), and changes nothing.
  const grant = unlessRefused(() => ledger.burnDown(grantId));
  if (grant === undefined) ledger.voidGrant(grantId);
  if (grant == null) throw droppedGrant(state, 'voidGrant', grantId) ?? notFound(`voidGrant: no grant ${JSON.stringify(grantId)}`);
  const r = ledger.voidGrant(grantId);
  let entries = NONE;
  if (r.applied) {
    state.voided.set(grantId, [grant.amount, grant.startTime, grant.endTime]);
    entries = [['void', grantId, grant.amount, grant.startTime, grant.endTime]];
  }
  return { result: { status: 200, body: { applied: r.applied, blockingEventId: r.blockingEventId } }, entries };
}

/** PATCH grants/{grantId} {endTime}. */
function setGrantEndUnguarded(state, { grantId, endTime }) {
  if (state.voided.has(grantId)) throw notFound(`setGrantEnd: grant ${JSON.stringify(grantId)} was voided`);
  const dropped = droppedGrant(state, 'setGrantEnd', grantId);
  if (dropped !== null) throw dropped;
  state.letIn = [];
  const r = state.ledger.setGrantEnd(grantId, endTime);
  const letIn = state.takeLetIn();
  return {
    result: { status: 200, body: { applied: r.applied, blockingEventId: r.blockingEventId, acceptedPending: r.acceptedPending } },
    entries: r.applied ? [['end', grantId, null, null, endTime], ...letInEntries(letIn)] : NONE,
  };
}

/**
 * DELETE pending/{eventId}: drops a queued consumption. A cancel retried (its answer lost,
 * a restart) answers as the first did, while the id was neither queued again nor accepted.
 */
function cancelPendingUnguarded(state, { eventId }) {
  const body = { eventId, cancelled: true };
  if (!state.ledger.cancelPending(eventId)) {
    if (state.cancelled.has(eventId)) return { result: { status: 200, body }, entries: NONE };
    throw notFound(`cancelPending: no queued consumption ${JSON.stringify(eventId)}`);
  }
  state.queued.delete(eventId);
  state.cancelled.add(eventId);
  return { result: { status: 200, body }, entries: [['cancel', eventId, null, null, null]] };
}

export const addGrant = guarded(addGrantUnguarded);
export const consume = guarded(consumeUnguarded);
export const voidGrant = guarded(voidGrantUnguarded);
export const setGrantEnd = guarded(setGrantEndUnguarded);
export const cancelPending = guarded(cancelPendingUnguarded);

/**
 * POST events: each event as its single call would answer, in order. An event the
 * ledger refuses gets its own error result; the others still apply. All entries are
 * committed together.
 */
export function applyEvents(state, { events }) {
  const results = new Array(events.length);
  const entries = [];
  const firstAnswers = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    try {
      const out = event.type === 'grant' ? addGrantUnguarded(state, event) : consumeUnguarded(state, event);
      for (const entry of out.entries) entries.push(entry);
      results[i] = { status: out.result.status, ...out.result.body };
      if (out.result.firstAnswers !== undefined) firstAnswers.push(results[i]);
    } catch (raw) {
      const error = fromLibrary(raw);
      if (error.statusCode === undefined) throw error;
      results[i] = { status: error.statusCode, error: { code: error.code, message: error.message } };
    }
  }
  const result = { status: 200, body: { results } };
  if (firstAnswers.length > 0) result.firstAnswers = firstAnswers;
  return { result, entries };
}

/** A read: runs `fn(ledger, state)` in the customer's turn and answers 200 with what it returns. */
export function read(fn) {
  return guarded((state, input) => ({
    result: { status: 200, body: fn(state.ledger, input, state), view: { seq: state.seq, syncedAt: state.syncedAt } },
    entries: NONE,
  }));
}
