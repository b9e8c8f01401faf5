// Readers of the flat arrays the bindings return: one reader per result shape, each the
// mirror of one encoder in cpp/bindings/result_encoding.h (same name with "encode").
// Each returns the type lib/index.d.ts declares for it (checked by tsconfig.lib.json).
/** @typedef {import('./index.js').Allocation} Allocation */
/** @typedef {ArrayLike<any>} Flat a flat result array from the bindings */

/**
 * `count` allocations from [grantId, amount, ...], starting at `start`.
 * @param {Flat} flat
 * @returns {Allocation[]}
 */
export function readAllocations(flat, start = 0, count = (flat.length - start) / 2) {
  const allocations = new Array(count);
  for (let i = 0; i < count; i++) allocations[i] = { grantId: flat[start + 2 * i], amount: flat[start + 2 * i + 1] };
  return allocations;
}

/**
 * tryConsume's result; `reasons[code]` names a reject reason.
 * @param {Flat} flat
 * @param {ReadonlyArray<import('./index.js').RejectReason | null>} reasons
 * @returns {import('./index.js').ConsumeResult}
 */
export function readConsumeResult(flat, reasons) {
  return {
    accepted: flat[0] === 1,
    allocations: readAllocations(flat, 3),
    reason: reasons[flat[1]],
    blockingEventId: flat[2],
  };
}

/**
 * grantsAt's grants with what remains of each.
 * @param {Flat} flat
 * @returns {import('./index.js').GrantState[]}
 */
export function readGrantStates(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 5) {
    out.push({ grantId: flat[i], amount: flat[i + 1], startTime: flat[i + 2], endTime: flat[i + 3], remaining: flat[i + 4] });
  }
  return out;
}

/**
 * One grant's burn-down (its id is the caller's).
 * @param {Flat} flat
 * @param {string} grantId
 * @returns {import('./index.js').BurnDown}
 */
export function readBurnDown(flat, grantId) {
  const amount = flat[0];
  const startTime = flat[1];
  const endTime = flat[2];
  const drawCount = flat[3];
  const draws = new Array(drawCount);
  let i = 4;
  for (let k = 0; k < drawCount; k++, i += 3) draws[k] = { timestamp: flat[i], eventId: flat[i + 1], amount: flat[i + 2] };
  /** @type {import('./index.js').RemainingPoint[]} */
  const remaining = [];
  for (; i < flat.length; i += 2) remaining.push([flat[i], flat[i + 1]]);
  return { grantId, amount, startTime, endTime, draws, remaining };
}

/**
 * voidGrant's / setGrantEnd's outcome.
 * @param {Flat} flat
 * @returns {import('./index.js').GrantChangeResult}
 */
export function readGrantChange(flat) {
  return { applied: flat[0] === 1, blockingEventId: flat[1] };
}

/**
 * Grants as added.
 * @param {Flat} flat
 * @returns {import('./index.js').LedgerSnapshot['grants']}
 */
export function readGrants(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 4) {
    out.push({ grantId: flat[i], amount: flat[i + 1], startTime: flat[i + 2], endTime: flat[i + 3] });
  }
  return out;
}

/**
 * Consumptions (accepted ones, or queued ones) as submitted.
 * @param {Flat} flat
 * @returns {import('./index.js').PendingConsumption[]}
 */
export function readConsumptions(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 3) out.push({ eventId: flat[i], amount: flat[i + 1], timestamp: flat[i + 2] });
  return out;
}

/**
 * Consumptions with their allocations now: the queued ones a call let in, or the ones it re-routed.
 * @param {Flat} flat
 * @returns {import('./index.js').Reallocation[]}
 */
export function readDrawnConsumptions(flat) {
  const out = [];
  for (let i = 0; i < flat.length;) {
    const count = flat[i + 3];
    out.push({ eventId: flat[i], amount: flat[i + 1], timestamp: flat[i + 2], allocations: readAllocations(flat, i + 4, count) });
    i += 4 + 2 * count;
  }
  return out;
}

/**
 * `count` [time, balance] points from a typed view of [time, balance, ...].
 * @param {Float64Array} view
 * @param {number} count
 * @returns {import('./index.js').BalancePoint[]}
 */
export function readCurve(view, count) {
  /** @type {import('./index.js').BalancePoint[]} */
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = [view[2 * i], view[2 * i + 1]];
  return out;
}

/**
 * What compact() made final: [horizon, droppedGrants, droppedConsumptions, (eventId,
 * amount, timestamp) per dropped queued consumption].
 * @param {ArrayLike<any>} flat
 * @returns {import('./index.js').CompactResult}
 */
export function readCompactResult(flat) {
  const droppedPending = [];
  for (let i = 3; i < flat.length; i += 3) droppedPending.push({ eventId: flat[i], amount: flat[i + 1], timestamp: flat[i + 2] });
  return { horizon: flat[0], droppedGrants: flat[1], droppedConsumptions: flat[2], droppedPending };
}
