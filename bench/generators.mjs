// Deterministic inputs shared by the JavaScript benchmarks (and a Vitest bound): one
// generator, the seed-scale mixed workload, and the bulk-loading ledger.

/** mulberry32: a small, fast 32-bit generator; uniform floats in [0, 1). */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The shape of the native bench's mixed workload (bench/workloads.cpp): 20% grants, 70%
 * consumptions (one in ten backdated by up to 200), 10% balance queries, as
 * { kind: 'grant' | 'consume', ... } events (applyBatch's form) and { kind: 'balance', at }.
 * Returns { calls, end } (end: the last time reached).
 */
export function mixedCalls(count, seed) {
  const random = mulberry32(seed);
  const between = (low, high) => low + Math.floor(random() * (high - low + 1));
  const calls = [];
  let now = 0;
  let grants = 0;
  let consumptions = 0;
  for (let i = 0; i < count; i++) {
    now += between(0, 3);
    const roll = between(0, 9);
    if (roll < 2) {
      const start = now + between(0, 10);
      calls.push({
        kind: 'grant',
        grantId: `g${grants++}`,
        amount: between(2000, 6000),
        startTime: start,
        endTime: start + between(1000, 3000),
      });
    } else if (roll < 9) {
      const at = random() < 0.1 ? Math.max(0, now - between(1, 200)) : now;
      calls.push({ kind: 'consume', eventId: `c${consumptions++}`, amount: between(1, 1999), timestamp: at });
    } else {
      calls.push({ kind: 'balance', at: between(0, now) });
    }
  }
  return { calls, end: now };
}

/**
 * The bulk-loading ledger of n events as its snapshot: one grant in ten (1,000 credits
 * over 500 time units), the rest unit consumptions in time order, all fundable.
 */
export function snapshotOf(n) {
  const grants = [];
  const consumptions = [];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 0) grants.push({ grantId: `g${i}`, amount: 1000, startTime: i, endTime: i + 500 });
    else consumptions.push({ eventId: `c${i}`, amount: 1, timestamp: i });
  }
  return { format: 'gpu-credit-ledger', version: 2, horizon: 0, grants, consumptions };
}

/** The same events in arrival order, as applyBatch takes them. */
export function eventsOf(n) {
  const events = [];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 0) events.push({ kind: 'grant', grantId: `g${i}`, amount: 1000, startTime: i, endTime: i + 500 });
    else events.push({ kind: 'consume', eventId: `c${i}`, amount: 1, timestamp: i });
  }
  return events;
}

/** The same events as applyColumns takes them (typed-array columns, ids as UTF-8). */
export function columnsOf(events) {
  const n = events.length;
  const ids = events.map((e) => (e.kind === 'grant' ? e.grantId : e.eventId));
  const columns = {
    kinds: new Uint8Array(n),
    ids: new TextEncoder().encode(ids.join('')),
    idEnds: new Uint32Array(n),
    amounts: new Float64Array(n),
    times: new Float64Array(n),
    endTimes: new Float64Array(n),
  };
  let end = 0;
  events.forEach((e, i) => {
    const grant = e.kind === 'grant';
    columns.kinds[i] = grant ? 0 : 1;
    end += new TextEncoder().encode(ids[i]).length;
    columns.idEnds[i] = end;
    columns.amounts[i] = e.amount;
    columns.times[i] = grant ? e.startTime : e.timestamp;
    columns.endTimes[i] = grant ? e.endTime : 0;
  });
  return columns;
}

/** Events from..to - 1 of columnsOf's result, as their own columns (a part of a log). */
export function columnsPart(columns, from, to) {
  const base = from === 0 ? 0 : columns.idEnds[from - 1];
  return {
    kinds: columns.kinds.subarray(from, to),
    ids: columns.ids.subarray(base, columns.idEnds[to - 1]),
    idEnds: columns.idEnds.slice(from, to).map((end) => end - base),
    amounts: columns.amounts.subarray(from, to),
    times: columns.times.subarray(from, to),
    endTimes: columns.endTimes.subarray(from, to),
  };
}
