// Brute-force replay oracle, written from /work/shared/SEMANTICS.md alone.
// It favours being obviously right over being fast: every answer comes from a
// replay of all accepted consumptions from scratch (kept until the next change).
// Valid input only.

const MAX_TOTAL = Number.MAX_SAFE_INTEGER;

export class OracleError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Unicode code point order (equals UTF-8 byte order), not JS UTF-16 `<`.
export function compareCodePoints(a, b) {
  const as = Array.from(a, (ch) => ch.codePointAt(0));
  const bs = Array.from(b, (ch) => ch.codePointAt(0));
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] !== bs[i]) return as[i] - bs[i];
  }
  return as.length - bs.length;
}

const isValidAt = (grant, time) => grant.startTime <= time && time <= grant.endTime;

export class OracleLedger {
  constructor() {
    this.grants = new Map(); // grantId -> { grantId, amount, startTime, endTime }
    this.accepted = []; // consumptions in acceptance order: { eventId, amount, timestamp }
    this.cachedReplay = null;
  }

  addGrant(grantId, amount, startTime, endTime) {
    const existing = this.grants.get(grantId);
    if (existing) {
      if (existing.amount === amount && existing.startTime === startTime && existing.endTime === endTime) return;
      throw new OracleError('DUPLICATE_ID', `grantId ${grantId} exists with different parameters`);
    }
    const total = [...this.grants.values()].reduce((sum, g) => sum + g.amount, 0);
    if (total + amount > MAX_TOTAL) throw new RangeError('total of grant amounts would exceed 2^53-1');
    this.grants.set(grantId, { grantId, amount, startTime, endTime });
    this.cachedReplay = null;
  }

  consume(eventId, amount, timestamp) {
    const existing = this.accepted.find((c) => c.eventId === eventId);
    if (existing) {
      if (existing.amount === amount && existing.timestamp === timestamp) return true;
      throw new OracleError('DUPLICATE_ID', `eventId ${eventId} exists with different parameters`);
    }
    const candidate = [...this.accepted, { eventId, amount, timestamp }];
    if (!replay(this.grants, candidate).allFunded) return false;
    this.accepted = candidate;
    this.cachedReplay = null;
    return true;
  }

  // The definition, literally: replay only what happened up to `timestamp`.
  getBalanceByPrefixReplay(timestamp) {
    const past = this.accepted.filter((c) => c.timestamp <= timestamp);
    const { remaining } = replay(this.grants, past);
    let balance = 0;
    for (const grant of this.grants.values()) {
      if (isValidAt(grant, timestamp)) balance += remaining.get(grant.grantId);
    }
    return balance;
  }

  // Same value from the full replay: consumptions are replayed in timestamp
  // order, so those at or before `timestamp` are a prefix of the full replay and
  // draw exactly what they draw there. The self-test checks the two agree.
  getBalance(timestamp) {
    const { draws } = this.fullReplay();
    const drawn = new Map();
    for (const c of this.accepted) {
      if (c.timestamp > timestamp) continue;
      for (const { grantId, amount } of draws.get(c.eventId)) {
        drawn.set(grantId, (drawn.get(grantId) ?? 0) + amount);
      }
    }
    let balance = 0;
    for (const grant of this.grants.values()) {
      if (isValidAt(grant, timestamp)) balance += grant.amount - (drawn.get(grant.grantId) ?? 0);
    }
    return balance;
  }

  allocations(eventId) {
    if (!this.accepted.some((c) => c.eventId === eventId)) return null;
    return this.fullReplay().draws.get(eventId).map((draw) => ({ ...draw }));
  }

  // The balance only changes where a grant starts, just after a grant ends, or at
  // a consumption timestamp; between those times it is constant.
  balanceCurve(from, to) {
    if (from > to) throw new RangeError('from > to');
    const candidates = new Set();
    for (const g of this.grants.values()) candidates.add(g.startTime).add(g.endTime + 1);
    for (const c of this.accepted) candidates.add(c.timestamp);
    const times = [...candidates].filter((t) => t > from && t <= to).sort((a, b) => a - b);
    const curve = [[from, this.getBalance(from)]];
    for (const t of times) {
      const balance = this.getBalance(t);
      if (balance !== curve[curve.length - 1][1]) curve.push([t, balance]);
    }
    return curve;
  }

  fullReplay() {
    this.cachedReplay ??= replay(this.grants, this.accepted);
    return this.cachedReplay;
  }

  get grantCount() {
    return this.grants.size;
  }

  get consumptionCount() {
    return this.accepted.length;
  }
}

// Replays `consumptions` (given in acceptance order) against `grants`.
// Returns the remaining credits per grant, the draws per event, and whether
// every consumption was funded.
function replay(grants, consumptions) {
  const remaining = new Map([...grants.values()].map((g) => [g.grantId, g.amount]));
  const byExpiry = [...grants.values()].sort(
    (a, b) => a.endTime - b.endTime || compareCodePoints(a.grantId, b.grantId),
  );
  // Array.prototype.sort is stable, so equal timestamps keep acceptance order.
  const ordered = [...consumptions].sort((a, b) => a.timestamp - b.timestamp);
  const draws = new Map();
  let allFunded = true;
  for (const c of ordered) {
    let needed = c.amount;
    const taken = [];
    for (const g of byExpiry) {
      if (needed === 0) break;
      if (!isValidAt(g, c.timestamp)) continue;
      const take = Math.min(needed, remaining.get(g.grantId));
      if (take === 0) continue;
      remaining.set(g.grantId, remaining.get(g.grantId) - take);
      taken.push({ grantId: g.grantId, amount: take });
      needed -= take;
    }
    if (needed > 0) allFunded = false;
    draws.set(c.eventId, taken);
  }
  return { remaining, draws, allFunded };
}
