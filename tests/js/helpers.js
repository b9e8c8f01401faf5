// Shared test helpers: a seeded PRNG, error capture, and a ledger snapshot.
import { afterEach, expect } from 'vitest';
import { GPULedger } from 'gpu-credit-ledger';

export const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

export function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Runs fn and returns what it threw (failing the test if it did not throw).
export function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, it returned normally');
}

// Awaits promise and returns its rejection (failing the test if it resolved).
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject, it resolved');
}

// Runs fn and returns { value } or { error }, so two ledgers can be compared.
export function outcome(fn) {
  try {
    return { value: fn() };
  } catch (error) {
    return { error };
  }
}

// Everything observable about a ledger, for "nothing changed" assertions.
export function snapshot(ledger, { times, eventIds, from = 0, to = 100 }) {
  return {
    grantCount: ledger.grantCount,
    consumptionCount: ledger.consumptionCount,
    balances: times.map((t) => [t, ledger.getBalance(t)]),
    allocations: eventIds.map((id) => [id, ledger.allocations(id)]),
    curve: ledger.balanceCurve(from, to),
  };
}

// snapshot() plus the preview views, for "nothing changed" checks around previews,
// the grant lifecycle and the queue.
export function fullState(ledger, probe) {
  return {
    ...snapshot(ledger, probe),
    headroom: probe.times.map((t) => ledger.headroom(t)),
    grantsAt: probe.times.map((t) => ledger.grantsAt(t)),
    pending: ledger.pending(),
  };
}

export function expectUnchanged(ledger, before, options) {
  expect(snapshot(ledger, options)).toEqual(before);
}

// Returns newLedger(): a GPULedger disposed after each test of the calling file.
export function trackedLedgers() {
  let ledgers = [];
  afterEach(() => {
    for (const ledger of ledgers) ledger.dispose();
    ledgers = [];
  });
  return function newLedger() {
    const ledger = new GPULedger();
    ledgers.push(ledger);
    return ledger;
  };
} /** Times, event ids and a curve range that fullState reads: enough to see any change the example tests make. */
export const PROBE = {
  times: [0, 1, 2, 5, 6, 8, 10, 11, 15, 16, 30],
  eventIds: ['c1', 'c2', 'c3', 'c_late', 'c_early', 'x', 'p'],
  from: 0,
  to: 40,
};

// What reallocated() must say after a call, from full reads before and after it: the
// consumptions accepted before whose allocations differ now, in replay order.
export function expectedReallocations(oracle, before) {
  const moved = [];
  for (const c of oracle.accepted) {
    const was = before.get(c.eventId);
    const now = oracle.allocations(c.eventId);
    if (was !== undefined && JSON.stringify(was) !== JSON.stringify(now)) moved.push({ ...c, allocations: now });
  }
  return moved.sort((a, b) => a.timestamp - b.timestamp); // stable: ties stay in acceptance order
}
