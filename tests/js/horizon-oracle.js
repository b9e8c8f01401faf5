// The finality horizon by brute force, written from the contract alone (README, "Finality
// horizon"): compact(h) literally rebuilds the oracle as the fresh ledger the definition
// describes (each grant that has not ended by h, starting at max(start, h) with what the
// consumptions before h left in it; then the consumptions at or after h in replay order),
// and every call that needs the past throws BEFORE_HORIZON. Valid input only.
import { OracleError, compareCodePoints } from './oracle.js';
import { PendingOracle } from './pending-oracle.js';

const before = (method) => new OracleError('BEFORE_HORIZON', `${method}: before the horizon`);

export class HorizonOracle extends PendingOracle {
  constructor() {
    super();
    this.horizon = 0;
    this.startedBefore = new Set(); // ids of grants that started before the horizon
  }

  compact(horizon) {
    if (horizon <= this.horizon) return { horizon: this.horizon, droppedGrants: 0, droppedConsumptions: 0, droppedPending: [] };
    const { draws } = this.fullReplay();
    const drawnBefore = new Map();
    const past = this.accepted.filter((c) => c.timestamp < horizon);
    for (const c of past) {
      for (const { grantId, amount } of draws.get(c.eventId)) drawnBefore.set(grantId, (drawnBefore.get(grantId) ?? 0) + amount);
    }
    const grants = new Map();
    let droppedGrants = 0;
    for (const g of this.grants.values()) {
      if (g.endTime < horizon) {
        droppedGrants++;
        this.startedBefore.delete(g.grantId);
        continue;
      }
      if (g.startTime < horizon) this.startedBefore.add(g.grantId);
      const amount = g.amount - (drawnBefore.get(g.grantId) ?? 0);
      grants.set(g.grantId, { ...g, amount, startTime: Math.max(g.startTime, horizon) });
    }
    const droppedPending = this.queue.filter((p) => p.timestamp < horizon);
    this.queue = this.queue.filter((p) => p.timestamp >= horizon);
    this.grants = grants;
    // Replay order, which becomes the acceptance order (Array.prototype.sort is stable).
    this.accepted = this.accepted.filter((c) => c.timestamp >= horizon).sort((a, b) => a.timestamp - b.timestamp);
    this.cachedReplay = null;
    this.horizon = horizon;
    return { horizon, droppedGrants, droppedConsumptions: past.length, droppedPending };
  }

  addGrant(grantId, amount, startTime, endTime) {
    if (startTime < this.horizon) throw before('addGrant');
    return super.addGrant(grantId, amount, startTime, endTime);
  }

  consume(eventId, amount, timestamp) {
    if (timestamp < this.horizon) throw before('consume');
    return super.consume(eventId, amount, timestamp);
  }

  tryConsume(eventId, amount, timestamp, options) {
    if (timestamp < this.horizon) throw before('tryConsume');
    return super.tryConsume(eventId, amount, timestamp, options);
  }

  submit(eventId, amount, timestamp) {
    if (timestamp < this.horizon) throw before('submit');
    return super.submit(eventId, amount, timestamp);
  }

  getBalance(timestamp) {
    if (timestamp < this.horizon) throw before('getBalance');
    return super.getBalance(timestamp);
  }

  headroom(timestamp) {
    if (timestamp < this.horizon) throw before('headroom');
    return super.headroom(timestamp);
  }

  grantsAt(timestamp) {
    if (timestamp < this.horizon) throw before('grantsAt');
    return super.grantsAt(timestamp);
  }

  balanceCurve(from, to) {
    if (from > to) throw new RangeError('from > to');
    if (from < this.horizon) throw before('balanceCurve');
    return super.balanceCurve(from, to);
  }

  nextBelow(threshold, from) {
    if (from < this.horizon) throw before('nextBelow');
    return super.nextBelow(threshold, from);
  }

  voidGrant(grantId) {
    if (!this.grants.has(grantId)) throw new OracleError('UNKNOWN_ID', `no grant ${grantId}`);
    // Its draws before the horizon are final.
    if (this.startedBefore.has(grantId)) throw before('voidGrant');
    return super.voidGrant(grantId);
  }

  // An end change of a grant that started before the horizon is refused when another such
  // grant lies strictly between its old and its new place in (endTime, grantId) order: the
  // final draws were made in that order.
  setGrantEnd(grantId, endTime) {
    // An end before the horizon is refused before the id is looked up.
    if (endTime < this.horizon) throw before('setGrantEnd');
    const grant = this.grants.get(grantId);
    if (!grant) throw new OracleError('UNKNOWN_ID', `no grant ${grantId}`);
    if (endTime !== grant.endTime && this.startedBefore.has(grantId)) {
      const order = (end, id) => (a) => a.endTime - end || compareCodePoints(a.grantId, id);
      const [lo, hi] = endTime < grant.endTime ? [endTime, grant.endTime] : [grant.endTime, endTime];
      for (const other of this.grants.values()) {
        if (other.grantId === grantId || !this.startedBefore.has(other.grantId)) continue;
        if (order(lo, grantId)(other) > 0 && order(hi, grantId)(other) < 0) throw before('setGrantEnd');
      }
    }
    return super.setGrantEnd(grantId, endTime);
  }
}
