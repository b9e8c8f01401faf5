// Brute-force replay oracle, written from docs/semantics.md alone.
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
    return this.fullReplay()
      .draws.get(eventId)
      .map((draw) => ({ ...draw }));
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

  // --- Previews and grant lifecycle, each by brute force. ---

  // Would these consumptions (acceptance order) all be funded? Also which one is the
  // first unfunded in replay order.
  trialReplay(consumptions, grants = this.grants) {
    return replayWithFirstUnfunded(grants, consumptions);
  }

  // The largest amount consume(_, amount, t) would accept: a binary search over trial
  // replays (fundability is monotone in the amount), bounded by the balance at t.
  headroom(timestamp) {
    let lo = 0;
    let hi = this.getBalance(timestamp);
    while (lo < hi) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      if (this.trialReplay([...this.accepted, { eventId: '\u0000trial', amount: mid, timestamp }]).allFunded) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  tryConsume(eventId, amount, timestamp, { dryRun = false } = {}) {
    const existing = this.accepted.find((c) => c.eventId === eventId);
    if (existing) {
      if (existing.amount !== amount || existing.timestamp !== timestamp) {
        throw new OracleError('DUPLICATE_ID', `eventId ${eventId} exists with different parameters`);
      }
      return { accepted: true, allocations: this.allocations(eventId), reason: null, blockingEventId: null };
    }
    const candidate = [...this.accepted, { eventId, amount, timestamp }];
    const trial = this.trialReplay(candidate);
    if (trial.allFunded) {
      if (!dryRun) {
        this.accepted = candidate;
        this.cachedReplay = null;
      }
      return { accepted: true, allocations: trial.draws.get(eventId), reason: null, blockingEventId: null };
    }
    if (trial.firstUnfunded === eventId) {
      return { accepted: false, allocations: [], reason: 'INSUFFICIENT_CREDIT', blockingEventId: null };
    }
    return { accepted: false, allocations: [], reason: 'WOULD_UNFUND', blockingEventId: trial.firstUnfunded };
  }

  // Replays only what happened up to t, then reads each valid grant.
  grantsAt(timestamp) {
    const { remaining } = replay(
      this.grants,
      this.accepted.filter((c) => c.timestamp <= timestamp),
    );
    return [...this.grants.values()]
      .filter((g) => isValidAt(g, timestamp))
      .sort((a, b) => a.endTime - b.endTime || compareCodePoints(a.grantId, b.grantId))
      .map((g) => ({ ...g, remaining: remaining.get(g.grantId) }));
  }

  burnDown(grantId) {
    const grant = this.grants.get(grantId);
    if (!grant) return null;
    const { draws } = this.fullReplay();
    const ordered = [...this.accepted].sort((a, b) => a.timestamp - b.timestamp);
    const onGrant = [];
    for (const c of ordered) {
      for (const draw of draws.get(c.eventId)) {
        if (draw.grantId === grantId) onGrant.push({ timestamp: c.timestamp, eventId: c.eventId, amount: draw.amount });
      }
    }
    const remainingAt = (t) => onGrant.reduce((left, d) => (d.timestamp <= t ? left - d.amount : left), grant.amount);
    const remaining = [[grant.startTime, remainingAt(grant.startTime)]];
    for (const { timestamp } of onGrant) {
      const value = remainingAt(timestamp);
      if (timestamp > grant.startTime && value !== remaining[remaining.length - 1][1]) remaining.push([timestamp, value]);
    }
    return { ...grant, draws: onGrant, remaining };
  }

  // The balance only changes at grant starts, just after grant ends and at consumption
  // timestamps: test `from` and every such time after it.
  nextBelow(threshold, from) {
    const times = new Set([from]);
    for (const g of this.grants.values()) times.add(g.startTime).add(g.endTime + 1);
    for (const c of this.accepted) times.add(c.timestamp);
    for (const t of [...times].filter((t) => t >= from).sort((a, b) => a - b)) {
      if (this.getBalance(t) < threshold) return t;
    }
    return null;
  }

  // Applies `grants` if every accepted consumption stays funded under them.
  changeGrants(grants) {
    const trial = this.trialReplay(this.accepted, grants);
    if (!trial.allFunded) return { applied: false, blockingEventId: trial.firstUnfunded };
    this.grants = grants;
    this.cachedReplay = null;
    return { applied: true, blockingEventId: null };
  }

  voidGrant(grantId) {
    if (!this.grants.has(grantId)) throw new OracleError('UNKNOWN_ID', `no grant ${grantId}`);
    const grants = new Map(this.grants);
    grants.delete(grantId);
    return this.changeGrants(grants);
  }

  setGrantEnd(grantId, endTime) {
    const grant = this.grants.get(grantId);
    if (!grant) throw new OracleError('UNKNOWN_ID', `no grant ${grantId}`);
    if (endTime < grant.startTime) throw new RangeError('endTime < startTime');
    const grants = new Map(this.grants);
    grants.set(grantId, { ...grant, endTime });
    return { ...this.changeGrants(grants), acceptedPending: [] };
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
  const byExpiry = [...grants.values()].sort((a, b) => a.endTime - b.endTime || compareCodePoints(a.grantId, b.grantId));
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

// replay() plus the first unfunded consumption in replay order (its eventId, or null).
function replayWithFirstUnfunded(grants, consumptions) {
  const result = replay(grants, consumptions);
  if (result.allFunded) return { ...result, firstUnfunded: null };
  const ordered = [...consumptions].sort((a, b) => a.timestamp - b.timestamp);
  const short = ordered.find((c) => result.draws.get(c.eventId).reduce((sum, d) => sum + d.amount, 0) < c.amount);
  return { ...result, firstUnfunded: short.eventId };
}
