// One ledger plus what the demo shows about it: grants, consumption attempts (accepted,
// rejected or queued), allocations per accepted consumption (hence credit drawn per
// grant), the pending queue and the log.

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
  /** queued consumptions a call let in, as the ledger's onPendingAccepted listener hands them over */
  #letIn = [];

  /** @param ledger a ledger to track from empty (a new one by default) */
  constructor(GPULedger, ledger = new GPULedger()) {
    this.ledger = ledger;
    /** grantId -> { grantId, amount, startTime, endTime } */
    this.grants = new Map();
    /** bumped whenever the set of grants or a grant's window changes (the grant picker rebuilds then) */
    this.grantsVersion = 0;
    /** grantId -> credits drawn from it by the accepted consumptions */
    this.drawn = new Map();
    /** eventId -> { eventId, amount, timestamp, allocations } */
    this.accepted = new Map();
    /** every consume / submit that reached a verdict, for the markers: { eventId, amount, timestamp, status } */
    this.attempts = [];
    /** eventId -> its attempt, for the consumptions waiting in the ledger's queue */
    this.queued = new Map();
    this.rejectedCount = 0;
    this.acceptedTimes = [];
    this.log = [];
    /** the calls made since the preset (what the URL and the export carry) */
    this.ops = [];
    this.maxGrantNumber = 0;
    this.maxEventNumber = 0;
    this.bulk = false;
    this.ledger.onPendingAccepted((accepted) => this.#letIn.push(...accepted));
  }

  dispose() {
    this.ledger.dispose();
  }

  /**
   * What this session knows beside its ledger, as plain data (structured-clonable): with
   * the ledger's snapshot, `fromRecords` rebuilds the same session elsewhere. A snapshot
   * has no pending queue, so a session with queued consumptions cannot be moved.
   */
  toRecords() {
    if (this.queued.size > 0) throw new Error('a session with queued consumptions cannot be moved (snapshots hold no queue)');
    return {
      grants: [...this.grants.values()],
      grantsVersion: this.grantsVersion,
      drawn: [...this.drawn],
      accepted: [...this.accepted.values()],
      attempts: this.attempts,
      rejectedCount: this.rejectedCount,
      acceptedTimes: this.acceptedTimes,
      log: this.log,
      ops: this.ops,
      maxGrantNumber: this.maxGrantNumber,
      maxEventNumber: this.maxEventNumber,
    };
  }

  /** The session `toRecords` described, over `ledger` (rebuilt with GPULedger.fromJSON from the same session's snapshot). */
  static fromRecords(GPULedger, ledger, records) {
    const session = new LedgerSession(GPULedger, ledger);
    session.grants = new Map(records.grants.map((g) => [g.grantId, g]));
    session.grantsVersion = records.grantsVersion;
    session.drawn = new Map(records.drawn);
    session.accepted = new Map(records.accepted.map((c) => [c.eventId, c]));
    Object.assign(session, {
      attempts: records.attempts,
      rejectedCount: records.rejectedCount,
      acceptedTimes: records.acceptedTimes,
      log: records.log,
      ops: records.ops,
      maxGrantNumber: records.maxGrantNumber,
      maxEventNumber: records.maxEventNumber,
    });
    return session;
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
    if (calls.length === 0) return;
    this.bulk = true;
    try {
      for (const call of calls) this.run(call, { record });
    } finally {
      this.bulk = false;
    }
    this.drawn = new Map([...this.grants.keys()].map((id) => [id, 0]));
    for (const c of this.accepted.values()) {
      c.allocations = this.ledger.allocations(c.eventId) ?? [];
      for (const a of c.allocations) addTo(this.drawn, a.grantId, a.amount);
    }
  }

  /**
   * Makes one call on the ledger and logs it; returns the log entry. Queued consumptions
   * the call let in get log entries of their own (op 'acceptPending') right after it.
   */
  run(call, { record = true } = {}) {
    const entry = { seq: this.log.length + 1, call, outcome: 'accepted' };
    let letIn = [];
    try {
      switch (call.op) {
        case 'addGrant':
          letIn = this.#addGrant(call, entry);
          break;
        case 'consume':
        case 'submit':
          this.#consume(call, entry);
          break;
        case 'cancelPending':
          this.#cancelPending(call, entry);
          break;
        case 'voidGrant':
          this.#voidGrant(call, entry);
          break;
        case 'setGrantEnd':
          letIn = this.#setGrantEnd(call, entry);
          break;
        case 'getBalance':
          this.#getBalance(call, entry);
          break;
        default:
          throw new TypeError(`unknown call ${JSON.stringify(call.op)}`);
      }
      if (record) this.ops.push(call);
    } catch (error) {
      entry.outcome = 'error';
      entry.error = { name: error.name, code: error.code, message: error.message };
      this.#letIn.length = 0;
    }
    if ('expect' in call && entry.outcome !== 'error') {
      const actual = call.op === 'getBalance' ? entry.value : entry.outcome === 'accepted';
      entry.expect = { expected: call.expect, ok: actual === call.expect };
    }
    this.log.push(entry);
    const trigger = { op: call.op, grantId: call.grantId };
    for (const c of letIn) {
      this.log.push({
        seq: this.log.length + 1,
        call: { op: 'acceptPending', eventId: c.eventId, amount: c.amount, timestamp: c.timestamp },
        outcome: 'accepted',
        trigger,
        allocations: c.allocations,
      });
    }
    entry.letIn = letIn.map((c) => c.eventId);
    return entry;
  }

  #addGrant(call, entry) {
    const { grantId, amount, startTime, endTime } = call;
    const known = this.grants.has(grantId);
    this.ledger.addGrant(grantId, amount, startTime, endTime);
    if (known) {
      entry.note = 'identical retry: nothing changed';
      return this.#takeLetIn();
    }
    this.grants.set(grantId, { grantId, amount, startTime, endTime });
    this.grantsVersion++;
    this.drawn.set(grantId, 0);
    this.maxGrantNumber = Math.max(this.maxGrantNumber, idSuffix('g', grantId));
    const letIn = this.#takeLetIn();
    // Draws from startTime on may now come from this grant (or shift because of it), and
    // each consumption let in can move the draws after it.
    const from = letIn.reduce((min, c) => Math.min(min, c.timestamp), startTime);
    if (from <= this.latestAcceptedTime) this.#refreshFrom(from, entry, new Set(letIn.map((c) => c.eventId)));
    return letIn;
  }

  #consume(call, entry) {
    const { op, eventId, amount, timestamp } = call;
    const retry = this.accepted.has(eventId);
    const queuedAttempt = this.queued.get(eventId);
    const latestBefore = this.latestAcceptedTime;
    let ok;
    if (op === 'submit') {
      ok = this.ledger.submit(eventId, amount, timestamp) === 'accepted';
    } else {
      const result = this.ledger.tryConsume(eventId, amount, timestamp);
      ok = result.accepted;
      entry.reason = result.reason;
      entry.blockingEventId = result.blockingEventId;
    }
    this.maxEventNumber = Math.max(this.maxEventNumber, idSuffix('c', eventId));
    if (retry) {
      entry.note = 'identical retry: not charged twice';
      entry.allocations = this.accepted.get(eventId).allocations;
      return;
    }
    if (!ok && op === 'submit') {
      entry.outcome = 'queued';
      if (queuedAttempt) {
        entry.note = 'identical retry: still queued once';
        return;
      }
      const attempt = { eventId, amount, timestamp, status: 'queued' };
      this.attempts.push(attempt);
      this.queued.set(eventId, attempt);
      return;
    }
    if (!ok) {
      entry.outcome = 'rejected';
      if (entry.reason === 'INSUFFICIENT_CREDIT') entry.available = this.ledger.getBalance(timestamp);
      else entry.blocking = this.#consumptionInfo(entry.blockingEventId);
      if (queuedAttempt) {
        entry.note = 'it stays queued';
      } else {
        this.attempts.push({ eventId, amount, timestamp, status: 'rejected' });
        this.rejectedCount++;
      }
      return;
    }
    if (queuedAttempt) {
      queuedAttempt.status = 'accepted';
      this.queued.delete(eventId);
      entry.note = 'it was queued: accepted now, and out of the queue';
    } else {
      this.attempts.push({ eventId, amount, timestamp, status: 'accepted' });
    }
    const consumption = this.#addAccepted({ eventId, amount, timestamp });
    if (this.bulk) return;
    // Replay order is (timestamp, acceptance): a draw at or after every other one
    // changes nothing before it; a backdated one can move later draws.
    entry.allocations = consumption.allocations;
    if (timestamp < latestBefore) this.#refreshFrom(timestamp + 1, entry, new Set([eventId]));
  }

  #cancelPending({ eventId }, entry) {
    const cancelled = this.ledger.cancelPending(eventId);
    if (!cancelled) {
      entry.outcome = 'refused';
      entry.note = this.accepted.has(eventId) ? 'accepted consumptions cannot be cancelled' : 'nothing with this id is queued';
      return;
    }
    entry.outcome = 'cancelled';
    const attempt = this.queued.get(eventId);
    if (attempt) {
      this.queued.delete(eventId);
      this.attempts.splice(this.attempts.lastIndexOf(attempt), 1);
      entry.was = attempt;
    }
  }

  #voidGrant({ grantId }, entry) {
    const grant = this.grants.get(grantId);
    const result = this.ledger.voidGrant(grantId);
    if (!result.applied) {
      this.#refused(entry, result.blockingEventId);
      return;
    }
    entry.outcome = 'applied';
    entry.grant = grant;
    this.grants.delete(grantId);
    this.grantsVersion++;
    // Every draw on it is at or after its start; those and the ones after them may move.
    if (grant) this.#refreshFrom(grant.startTime, entry, new Set());
    this.drawn.delete(grantId);
  }

  #setGrantEnd({ grantId, endTime }, entry) {
    const grant = this.grants.get(grantId);
    const result = this.ledger.setGrantEnd(grantId, endTime);
    if (!result.applied) {
      this.#refused(entry, result.blockingEventId);
      this.#letIn.length = 0;
      return [];
    }
    entry.outcome = 'applied';
    if (!grant || grant.endTime === endTime) {
      entry.note = 'same end time: nothing changed';
      return this.#takeLetIn();
    }
    entry.previousEnd = grant.endTime;
    this.grants.set(grantId, { ...grant, endTime });
    this.grantsVersion++;
    const letIn = this.#takeLetIn();
    const from = letIn.reduce((min, c) => Math.min(min, c.timestamp), grant.startTime);
    this.#refreshFrom(from, entry, new Set(letIn.map((c) => c.eventId)));
    return letIn;
  }

  #getBalance(call, entry) {
    entry.outcome = 'result';
    entry.value = this.ledger.getBalance(call.timestamp);
  }

  #refused(entry, blockingEventId) {
    entry.outcome = 'refused';
    entry.blockingEventId = blockingEventId;
    entry.blocking = this.#consumptionInfo(blockingEventId);
  }

  #consumptionInfo(eventId) {
    const c = this.accepted.get(eventId);
    return c ? { eventId, amount: c.amount, timestamp: c.timestamp } : { eventId };
  }

  #addAccepted({ eventId, amount, timestamp }) {
    const consumption = { eventId, amount, timestamp, allocations: [] };
    this.accepted.set(eventId, consumption);
    this.acceptedTimes.splice(upperBound(this.acceptedTimes, timestamp), 0, timestamp);
    if (!this.bulk) this.#rereadAllocations([consumption]);
    return consumption;
  }

  /** Moves the queued consumptions the last call let in to the accepted ones. */
  #takeLetIn() {
    const letIn = this.#letIn.splice(0);
    for (const c of letIn) {
      const attempt = this.queued.get(c.eventId);
      if (attempt) {
        attempt.status = 'accepted';
        this.queued.delete(c.eventId);
      }
      const consumption = this.#addAccepted(c);
      c.allocations = this.bulk ? c.allocations : consumption.allocations;
    }
    return letIn;
  }

  /** Re-reads allocations of accepted draws at or after `time` (but those in `skip`), noting in the entry which changed. */
  #refreshFrom(time, entry, skip) {
    if (this.bulk) return;
    const affected = [];
    for (const c of this.accepted.values()) if (c.timestamp >= time && !skip.has(c.eventId)) affected.push(c);
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
