// One ledger plus what the demo shows about it: grants, consumption attempts (accepted,
// rejected or queued), allocations per accepted consumption (hence credit drawn per
// grant), the pending queue and the log. Which earlier draws a call moved comes from
// the ledger itself (reallocated()).

const addTo = (map, key, delta) => map.set(key, (map.get(key) ?? 0) + delta);

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
      log: records.log,
      ops: records.ops,
      maxGrantNumber: records.maxGrantNumber,
      maxEventNumber: records.maxEventNumber,
    });
    return session;
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
  runAll(calls, { record, bulk = true }) {
    if (calls.length === 0) return;
    // bulk: each call's allocations and moved draws are not read as it runs (a preset's
    // thousands of calls), only all at the end; otherwise each call is logged as on the page.
    this.bulk = bulk;
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
        case 'compact':
          this.#compact(call, entry);
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
    this.#noteReallocations(entry);
    return letIn;
  }

  #consume(call, entry) {
    const { op, eventId, amount, timestamp } = call;
    const retry = this.accepted.has(eventId);
    const queuedAttempt = this.queued.get(eventId);
    let ok;
    if (op === 'submit') {
      ok = this.ledger.submit(eventId, amount, timestamp) === 'accepted';
    } else {
      // The call the user made; a rejection changed nothing, so a dry run of the same call
      // says why (tryConsume's reason and blocker).
      ok = this.ledger.consume(eventId, amount, timestamp);
      if (!ok) {
        const why = this.ledger.tryConsume(eventId, amount, timestamp, { dryRun: true });
        entry.reason = why.reason;
        entry.blockingEventId = why.blockingEventId;
      }
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
    entry.allocations = consumption.allocations;
    // A backdated consumption can move the draws after it.
    this.#noteReallocations(entry);
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
    this.#noteReallocations(entry);
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
    this.#noteReallocations(entry);
    return letIn;
  }

  /**
   * Finalizes before `horizon`: the ledger drops the grants that ended and the
   * consumptions (accepted or queued) before it; a grant valid at the horizon keeps what
   * was left of it. The session then forgets the same, and takes the grants as the
   * ledger now holds them.
   */
  #compact({ horizon }, entry) {
    const previous = this.ledger.horizon;
    const grants = [...this.grants.values()].filter((g) => g.endTime < horizon).map((g) => g.grantId);
    const consumptions = [...this.accepted.values()].filter((c) => c.timestamp < horizon).map((c) => c.eventId);
    const result = this.ledger.compact(horizon);
    entry.outcome = 'applied';
    if (result.horizon <= previous) {
      entry.note = `the horizon is already t = ${result.horizon}: nothing changed`;
      return;
    }
    entry.dropped = { grants, consumptions, pending: result.droppedPending.map((p) => p.eventId) };
    for (const id of consumptions) this.accepted.delete(id);
    for (const id of entry.dropped.pending) this.queued.delete(id);
    this.attempts = this.attempts.filter((a) => a.timestamp >= horizon);
    this.rejectedCount = this.attempts.reduce((n, a) => n + (a.status === 'rejected' ? 1 : 0), 0);
    // A grant carried across the horizon now starts there, holding what was left of it.
    this.grants = new Map(
      this.ledger
        .toJSON()
        .grants.map(({ grantId, amount, startTime, endTime }) => [
          grantId,
          { grantId, amount, startTime: Math.max(startTime, horizon), endTime },
        ]),
    );
    this.grantsVersion++;
    this.drawn = new Map([...this.grants.keys()].map((id) => [id, 0]));
    for (const c of this.accepted.values()) c.allocations = [];
    this.#rereadAllocations([...this.accepted.values()]);
  }

  get horizon() {
    return this.ledger.horizon;
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

  /**
   * Takes the new allocations of the accepted consumptions the last call re-routed, as
   * the ledger reports them, and notes in the log entry which moved, from what to what.
   */
  #noteReallocations(entry) {
    if (this.bulk) return; // runAll reads every allocation once at the end
    const moved = this.ledger.reallocated();
    if (moved.length === 0) return;
    entry.changes = moved.map(({ eventId, timestamp, allocations }) => {
      const consumption = this.accepted.get(eventId);
      const before = consumption.allocations;
      for (const a of before) addTo(this.drawn, a.grantId, -a.amount);
      for (const a of allocations) addTo(this.drawn, a.grantId, a.amount);
      consumption.allocations = allocations;
      return { eventId, timestamp, before, after: allocations };
    });
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
