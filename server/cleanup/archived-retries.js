// After compaction a ledger has forgotten the events before its horizon, and refuses a
// call that needs them with BEFORE_HORIZON. A client retrying such an event must still get
// its original answer, and another event under an id the store holds must still get
// DUPLICATE_ID: the store keeps every logged id (log or archive). The id is looked up there
// when an add or a consumption is refused with BEFORE_HORIZON (below), and before a
// request adds an id a compacted ledger does not hold (LedgerService, at or after the
// horizon too):
// - same parameters: the identical-retry answer (200; a consumption before the horizon
//   is final, its draws are no longer itemised: allocations []);
// - other parameters: 409 DUPLICATE_ID;
// - not found: the refusal (409 BEFORE_HORIZON) or the request stands.

/**
 * The answer to a grant add whose id the store logged as `logged` ({ amount, t1, t2 }):
 * the identical-retry answer, or 409 DUPLICATE_ID for other parameters.
 */
export function loggedGrantAnswer(logged, { grantId, amount, startTime, endTime }) {
  if (logged.amount !== amount || logged.t1 !== startTime || logged.t2 !== endTime) return duplicate('addGrant', 'grant', grantId);
  return { status: 200, body: { grantId, amount, startTime, endTime, acceptedPending: [] } };
}

/**
 * The answer to a consumption whose id the store logged as accepted (`consume`, `logged`
 * = { amount, t1, allocations }): its first answer's allocations, or [] for an entry
 * logged without them (a compacted consumption's draws are no longer itemised, and a
 * consumption let in from the queue is logged without them). Only accepted entries are
 * answered here; loggedSubmissionAnswer answers an id logged only as queued.
 */
export function loggedConsumptionAnswer(logged, { eventId, amount, timestamp }) {
  if (logged.amount !== amount || logged.t1 !== timestamp) return duplicate('consume', 'consumption', eventId);
  const allocations = logged.allocations ?? [];
  return { status: 200, body: { eventId, accepted: true, queued: false, allocations, reason: null, blockingEventId: null } };
}

/**
 * The answer to a consumption whose id the store logged only as queued (`submit`,
 * `logged` = { amount, t1 }) and the compacted ledger no longer holds (still queued before
 * the horizon, or cancelled; one let in was logged as `consume` too, and is answered by
 * loggedConsumptionAnswer, except in logs written before those entries): other parameters
 * get 409 DUPLICATE_ID, the id staying taken; for the same parameters, null: the request
 * stands as the ledger answers it (before the horizon, BEFORE_HORIZON).
 */
export function loggedSubmissionAnswer(logged, { eventId, amount, timestamp }) {
  if (logged.amount !== amount || logged.t1 !== timestamp) return duplicate('consume', 'consumption', eventId);
  return null;
}

function duplicate(method, what, id) {
  return {
    status: 409,
    body: { error: { code: 'DUPLICATE_ID', message: `${method}: ${what} ${JSON.stringify(id)} was logged with other parameters` } },
  };
}

/**
 * The answer to a request refused with BEFORE_HORIZON when the store remembers its id;
 * null when the refusal stands. `kind` is 'grant' or 'consumption'; dry runs are previews
 * and keep their refusal.
 */
export async function archivedAnswer(store, customer, kind, body) {
  if (kind === 'grant') {
    const logged = await store.findEntry(customer, 'grant', body.grantId);
    return logged === null ? null : loggedGrantAnswer(logged, body);
  }
  if (kind === 'consumption') {
    const logged = await store.findEntry(customer, 'consume', body.eventId);
    if (logged !== null) return loggedConsumptionAnswer(logged, body);
    const submitted = await store.findEntry(customer, 'submit', body.eventId);
    return submitted === null ? null : loggedSubmissionAnswer(submitted, body);
  }
  return null;
}
