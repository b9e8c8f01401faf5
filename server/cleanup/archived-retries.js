// After compaction a ledger has forgotten the events before its horizon, and refuses a
// call that needs them with BEFORE_HORIZON. A client retrying such an event must still get
// its original answer, and another event under an id the store holds must still get
// DUPLICATE_ID: the store keeps every logged id (log or archive). So when an add or a
// consumption is refused with BEFORE_HORIZON, look its id up there:
// - same parameters: the identical-retry answer (200; a consumption before the horizon
//   is final, its draws are no longer itemised: allocations []);
// - other parameters: 409 DUPLICATE_ID;
// - not found: the refusal stands (409 BEFORE_HORIZON).

/** The answer for a grant add refused BEFORE_HORIZON, or null if the refusal stands. */
export async function retriedGrant(store, customer, { grantId, amount, startTime, endTime }) {
  const logged = await store.findEntry(customer, 'grant', grantId);
  if (logged === null) return null;
  if (logged.amount !== amount || logged.t1 !== startTime || logged.t2 !== endTime) return duplicate('addGrant', 'grant', grantId);
  return { status: 200, body: { grantId, amount, startTime, endTime, acceptedPending: [] } };
}

/**
 * The answer for a consumption refused BEFORE_HORIZON, or null if the refusal stands. Only
 * accepted (`consume`) entries are answered: a queued one (`submit`) before the horizon
 * was either let in or dropped by compact, and the log alone cannot tell which.
 */
export async function retriedConsumption(store, customer, { eventId, amount, timestamp }) {
  const logged = await store.findEntry(customer, 'consume', eventId);
  if (logged === null) return null;
  if (logged.amount !== amount || logged.t1 !== timestamp) return duplicate('consume', 'consumption', eventId);
  return { status: 200, body: { eventId, accepted: true, queued: false, allocations: [], reason: null, blockingEventId: null } };
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
  if (kind === 'grant') return retriedGrant(store, customer, body);
  if (kind === 'consumption' && body.dryRun !== true) return retriedConsumption(store, customer, body);
  return null;
}
