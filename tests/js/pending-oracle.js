// The brute-force oracle with pending consumptions, written from docs/semantics.md alone:
// submit() queues what consume() would reject; every change that adds credit (addGrant,
// an extending setGrantEnd) retries the queue in (timestamp, arrival) order. Queued and
// accepted consumptions share the event id namespace. Valid input only.
import { OracleError, OracleLedger } from './oracle.js';

export class PendingOracle extends OracleLedger {
  constructor() {
    super();
    this.queue = []; // { eventId, amount, timestamp }, in retry order
    this.lastAccepted = []; // what the latest credit-adding call let in, with allocations
  }

  addGrant(grantId, amount, startTime, endTime) {
    const known = this.grants.has(grantId);
    super.addGrant(grantId, amount, startTime, endTime);
    this.lastAccepted = known ? [] : this.retry();
  }

  #queued(eventId, amount, timestamp) {
    const queued = this.queue.find((p) => p.eventId === eventId);
    if (queued && (queued.amount !== amount || queued.timestamp !== timestamp)) {
      throw new OracleError('DUPLICATE_ID', `eventId ${eventId} is queued with different parameters`);
    }
    return queued;
  }

  #dequeue(eventId) {
    const at = this.queue.findIndex((p) => p.eventId === eventId);
    if (at < 0) return false;
    this.queue.splice(at, 1);
    return true;
  }

  consume(eventId, amount, timestamp) {
    this.#queued(eventId, amount, timestamp);
    const accepted = super.consume(eventId, amount, timestamp);
    if (accepted) this.#dequeue(eventId);
    return accepted;
  }

  tryConsume(eventId, amount, timestamp, options) {
    this.#queued(eventId, amount, timestamp);
    const result = super.tryConsume(eventId, amount, timestamp, options);
    if (result.accepted && !options?.dryRun) this.#dequeue(eventId);
    return result;
  }

  submit(eventId, amount, timestamp) {
    if (this.#queued(eventId, amount, timestamp)) return 'queued';
    if (super.consume(eventId, amount, timestamp)) return 'accepted';
    const at = this.queue.findIndex((p) => p.timestamp > timestamp);
    this.queue.splice(at < 0 ? this.queue.length : at, 0, { eventId, amount, timestamp });
    return 'queued';
  }

  pending() {
    return this.queue.map((p) => ({ ...p }));
  }

  cancelPending(eventId) {
    return this.#dequeue(eventId);
  }

  setGrantEnd(grantId, endTime) {
    const before = this.grants.get(grantId)?.endTime;
    const result = super.setGrantEnd(grantId, endTime);
    this.lastAccepted = result.applied && endTime > before ? this.retry() : [];
    return { ...result, acceptedPending: this.lastAccepted.map((p) => p.eventId) };
  }

  // One pass in retry order: accepting one only takes credit away from the rest.
  retry() {
    const letIn = [];
    for (const p of [...this.queue]) {
      if (!super.consume(p.eventId, p.amount, p.timestamp)) continue;
      this.#dequeue(p.eventId);
      letIn.push(p);
    }
    return letIn.map((p) => ({ ...p, allocations: this.allocations(p.eventId) }));
  }
}
