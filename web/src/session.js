// One ledger plus what the demo shows about it: grants, consumption attempts,
// allocations per accepted consumption (hence credit drawn per grant) and the log.

/** Above this many accepted consumptions to re-read, a call's log entry does not list changed allocations. */
export const CHANGE_REPORT_LIMIT = 500;

const addTo = (map, key, delta) => map.set(key, (map.get(key) ?? 0) + delta);

function sameAllocations(a, b) {
  return a.length === b.length && a.every((x, i) => x.grantId === b[i].grantId && x.amount === b[i].amount);
}

function upperBound(sorted, value) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const idSuffix = (prefix, id) => (typeof id === 'string' && new RegExp(`^${prefix}(\\d{1,9})$`).test(id) ? Number(id.slice(1)) : 0);

export class LedgerSession {
  constructor(GPULedger) {
    this.ledger = new GPULedger();
    /** grantId -> { grantId, amount, startTime, endTime } */
    this.grants = new Map();
    /** grantId -> credits drawn from it by the accepted consumptions */
    this.drawn = new Map();
    /** eventId -> { eventId, amount, timestamp, allocations } */
    this.accepted = new Map();
    /** every consume call that reached a verdict, for the markers */
    this.attempts = [];
    this.acceptedTimes = [];
    this.log = [];
    /** the calls made since the preset (what the URL and the export carry) */
    this.ops = [];
    this.maxGrantNumber = 0;
    this.maxEventNumber = 0;
    this.bulk = false;
  }

  dispose() {
    this.ledger.dispose();
  }

  get latestAcceptedTime() {
    return this.acceptedTimes.length ? this.acceptedTimes[this.acceptedTimes.length - 1] : -Infinity;
  }

  nextGrantId() {
    return `g${this.maxGrantNumber + 1}`;
  }

  nextEventId() {
    return `c${this.maxEventNumber + 1}`;
  }

  /**
   * Replays many calls without per-call allocation reads, then reads every
   * allocation once: this is how presets and imports load.
   */
  runAll(calls, { record }) {
    this.bulk = true;
    try {
      for (const call of calls) this.run(call, { record });
    } finally {
      this.bulk = false;
    }
    this.#rereadAllocations([...this.accepted.values()]);
  }

  /** Makes one call on the ledger and logs it; returns the log entry. */
  run(call, { record = true } = {}) {
    const entry = { seq: this.log.length + 1, call, outcome: 'accepted' };
    try {
      if (call.op === 'addGrant') this.#addGrant(call, entry);
      else if (call.op === 'consume') this.#consume(call, entry);
      else this.#getBalance(call, entry);
      if (record) this.ops.push(call);
    } catch (error) {
      entry.outcome = 'error';
      entry.error = { name: error.name, code: error.code, message: error.message };
    }
    if ('expect' in call && entry.outcome !== 'error') {
      const actual = call.op === 'getBalance' ? entry.value : entry.outcome === 'accepted';
      entry.expect = { expected: call.expect, ok: actual === call.expect };
    }
    this.log.push(entry);
    return entry;
  }

  #addGrant(call, entry) {
    const { grantId, amount, startTime, endTime } = call;
    const known = this.grants.has(grantId);
    this.ledger.addGrant(grantId, amount, startTime, endTime);
    if (known) {
      entry.note = 'identical retry: nothing changed';
      return;
    }
    this.grants.set(grantId, { grantId, amount, startTime, endTime });
    this.drawn.set(grantId, 0);
    this.maxGrantNumber = Math.max(this.maxGrantNumber, idSuffix('g', grantId));
    // Draws from startTime on may now come from this grant (or shift because of it).
    if (startTime <= this.latestAcceptedTime) this.#refreshFrom(startTime, entry, true);
  }

  #consume(call, entry) {
    const { eventId, amount, timestamp } = call;
    const retry = this.accepted.has(eventId);
    const latestBefore = this.latestAcceptedTime;
    const ok = this.ledger.consume(eventId, amount, timestamp);
    this.maxEventNumber = Math.max(this.maxEventNumber, idSuffix('c', eventId));
    if (retry) {
      entry.note = 'identical retry: not charged twice';
      entry.allocations = this.accepted.get(eventId).allocations;
      return;
    }
    this.attempts.push({ eventId, amount, timestamp, accepted: ok });
    if (!ok) {
      entry.outcome = 'rejected';
      this.#explainRejection(call, entry);
      return;
    }
    const consumption = { eventId, amount, timestamp, allocations: [] };
    this.accepted.set(eventId, consumption);
    this.acceptedTimes.splice(upperBound(this.acceptedTimes, timestamp), 0, timestamp);
    if (this.bulk) return;
    // Replay order is (timestamp, acceptance): a draw at or after every other one
    // changes nothing before it; a backdated one can move later draws.
    this.#rereadAllocations([consumption]);
    entry.allocations = consumption.allocations;
    if (timestamp < latestBefore) this.#refreshFrom(timestamp + 1, entry, false);
  }

  #getBalance(call, entry) {
    entry.outcome = 'result';
    entry.value = this.ledger.getBalance(call.timestamp);
  }

  #explainRejection({ amount, timestamp }, entry) {
    // The new draw is replayed after every accepted draw at or before its time, so it
    // is funded itself iff the balance there covers it; if it is, it must be starving
    // a later accepted draw.
    const available = this.ledger.getBalance(timestamp);
    if (amount > available) {
      entry.reason = 'insufficient';
      entry.available = available;
      return;
    }
    entry.reason = 'unfunds-later';
    entry.laterCount = this.acceptedTimes.length - upperBound(this.acceptedTimes, timestamp);
    if (entry.laterCount === 1) {
      for (const c of this.accepted.values()) if (c.timestamp > timestamp) entry.laterConsumption = c;
    }
  }

  /** Re-reads allocations of accepted draws at or after `time`, noting in the entry which changed. */
  #refreshFrom(time, entry, includeAll) {
    if (this.bulk) return;
    const affected = [...this.accepted.values()].filter((c) => c.timestamp >= time && (includeAll || c.eventId !== entry.call.eventId));
    if (affected.length === 0) return;
    if (affected.length > CHANGE_REPORT_LIMIT) {
      this.#rereadAllocations(affected);
      entry.changesUnreported = affected.length;
      return;
    }
    const before = new Map(affected.map((c) => [c.eventId, c.allocations]));
    this.#rereadAllocations(affected);
    entry.changes = affected
      .filter((c) => !sameAllocations(before.get(c.eventId), c.allocations))
      .map((c) => ({ eventId: c.eventId, timestamp: c.timestamp, before: before.get(c.eventId), after: c.allocations }));
  }

  #rereadAllocations(consumptions) {
    for (const c of consumptions) {
      for (const a of c.allocations) addTo(this.drawn, a.grantId, -a.amount);
      c.allocations = this.ledger.allocations(c.eventId) ?? [];
      for (const a of c.allocations) addTo(this.drawn, a.grantId, a.amount);
    }
  }

  /** Time extent of everything in the ledger, as [first, last] integer times. */
  extent() {
    let lo = Infinity;
    let hi = -Infinity;
    for (const g of this.grants.values()) {
      lo = Math.min(lo, g.startTime);
      hi = Math.max(hi, g.endTime);
    }
    for (const a of this.attempts) {
      lo = Math.min(lo, a.timestamp);
      hi = Math.max(hi, a.timestamp);
    }
    return lo <= hi ? [lo, hi] : null;
  }
}
