// One customer's cached ledger: the package's GPULedger plus what the service must know
// beside it (the seq of the last log entry applied, queued ids, voided grant ids), and
// the replay that rebuilds it from the store.
import { GPULedger } from 'gpu-credit-ledger';
import { KINDS } from '../store/interface.js';
import { orNull } from '../store/packs.js';

// Entries per applyBatch call of a replay: one batch chunk of the package. Short runs let
// the store's rows and the results die young (a run of 65,536 kept them alive into V8's
// old generation: 1.4-1.8 s of garbage collection in a 10^6-entry rebuild).
const RUN_ENTRIES = 4096;

// applyPack's reused event objects and ids, one per slot of a run: applyBatch reads its
// events only during the call, and replays run one at a time on this thread.
const GRANT = KINDS.indexOf('grant');
const CONSUME = KINDS.indexOf('consume');
const packEvents = [];
const packGrants = [];
const packConsumptions = [];
const packIds = [];

export class LogDivergedError extends Error {
  constructor(customer, seq, what) {
    super(`replaying the log of ${JSON.stringify(customer)} at seq ${seq}: ${what}`);
    this.name = 'LogDivergedError';
  }
}

export class CustomerLedger {
  /** The seq of the last committed log entry this ledger reflects. */
  seq = 0;
  /** Queued consumptions: eventId → [amount, timestamp]. Tells a new queue entry from a retry. */
  queued = new Map();
  /** Voided grants: grantId → [amount, startTime, endTime]. Their ids stay taken: a retried add must not revive them. */
  voided = new Map();
  /** Date.now() when this ledger was last known to reflect the whole log (load, catch-up, commit). */
  syncedAt = 0;
  /** Queued consumptions let in by the current call (filled by the pending listener). */
  letIn = [];
  /**
   * While a request runs: what the store logged under the ids it adds that this compacted
   * ledger dropped ({ grant: Map, consume: Map } of { amount, t1, t2 }), or null.
   */
  archived = null;

  constructor(customer, ledger = new GPULedger()) {
    this.customer = customer;
    this.ledger = ledger;
    ledger.onPendingAccepted((accepted) => {
      for (const consumption of accepted) {
        this.queued.delete(consumption.eventId);
        this.letIn.push(consumption);
      }
    });
  }

  /** Rebuilds a customer from what the store returned by `load` (snapshot, then log entries in seq order). */
  static rebuild(customer, { snapshot, entries }) {
    let state;
    if (snapshot === null) {
      state = new CustomerLedger(customer);
    } else {
      const { ledger, pending, voidedGrants } = snapshot.document;
      state = new CustomerLedger(customer, GPULedger.fromJSON(ledger));
      state.seq = snapshot.seq;
      for (const { eventId, amount, timestamp } of pending) state.apply([snapshot.seq, 'submit', eventId, amount, timestamp, null]);
      for (const [grantId, amount, startTime, endTime] of voidedGrants) state.voided.set(grantId, [amount, startTime, endTime]);
    }
    try {
      state.applyEntries(entries);
    } catch (error) {
      state.dispose();
      throw error;
    }
    state.letIn = [];
    return state;
  }

  /**
   * Applies committed log entries in seq order: runs of grants and consumptions go through
   * the package's applyBatch (one crossing into WASM per chunk, each entry exactly as its
   * single call), every other kind through apply(). Throws what the first failing entry
   * would have thrown. `entries` may also hold packs (as `load` returns them, see
   * store/interface.js): each goes through applyPack, in its place.
   */
  applyEntries(entries) {
    // The run's entries, and reused event objects for them: applyBatch reads its events
    // only during the call, so one object per slot serves every run (no garbage per entry).
    const run = [];
    const events = [];
    const grants = [];
    const consumptions = [];
    const flush = () => {
      if (run.length === 0) return;
      events.length = run.length;
      const results = this.ledger.applyBatch(events);
      for (let i = 0; i < run.length; i++) {
        const [seq, kind, id] = run[i];
        const result = results[i];
        if (result instanceof Error) throw result;
        if (kind === 'consume') {
          if (!result) throw new LogDivergedError(this.customer, seq, `consumption ${JSON.stringify(id)} was not accepted`);
          this.queued.delete(id);
        }
        this.seq = seq;
      }
      run.length = 0;
    };
    for (const entry of entries) {
      if (!Array.isArray(entry)) {
        flush();
        this.applyPack(entry);
        continue;
      }
      const kind = entry[1];
      const slot = run.length;
      if (kind === 'grant') {
        const event = (grants[slot] ??= { kind: 'grant', grantId: '', amount: 0, startTime: 0, endTime: 0 });
        event.grantId = entry[2];
        event.amount = entry[3];
        event.startTime = entry[4];
        event.endTime = entry[5];
        events[slot] = event;
      } else if (kind === 'consume') {
        const event = (consumptions[slot] ??= { kind: 'consume', eventId: '', amount: 0, timestamp: 0 });
        event.eventId = entry[2];
        event.amount = entry[3];
        event.timestamp = entry[4];
        events[slot] = event;
      } else {
        flush();
        this.apply(entry);
        continue;
      }
      run.push(entry);
      if (run.length >= RUN_ENTRIES) flush();
    }
    flush();
  }

  /**
   * Applies a pack's entries (store/packs.js) in seq order, as applyEntries applies the
   * same entries as rows: runs of grants and consumptions are written from the pack's
   * columns straight into reused event objects for applyBatch (no tuple per entry), every
   * other kind goes through apply(), in its place.
   */
  applyPack(pack) {
    const { firstSeq, kinds, amounts, t1s, t2s, idLengths, idText } = pack;
    const n = kinds.length;
    const events = packEvents;
    const ids = packIds;
    let at = 0; // where the next id starts in idText
    let i = 0;
    while (i < n) {
      const code = kinds[i];
      if (code !== GRANT && code !== CONSUME) {
        const id = idText.slice(at, (at += idLengths[i]));
        this.apply([firstSeq + i, KINDS[code], id, orNull(amounts[i]), orNull(t1s[i]), orNull(t2s[i])]);
        i++;
        continue;
      }
      // A run of grants and consumptions, up to RUN_ENTRIES.
      const start = i;
      let slot = 0;
      for (; i < n && slot < RUN_ENTRIES; i++, slot++) {
        const kind = kinds[i];
        if (kind !== GRANT && kind !== CONSUME) break;
        const id = idText.slice(at, (at += idLengths[i]));
        ids[slot] = id;
        if (kind === GRANT) {
          const event = (packGrants[slot] ??= { kind: 'grant', grantId: '', amount: 0, startTime: 0, endTime: 0 });
          event.grantId = id;
          event.amount = orNull(amounts[i]);
          event.startTime = orNull(t1s[i]);
          event.endTime = orNull(t2s[i]);
          events[slot] = event;
        } else {
          const event = (packConsumptions[slot] ??= { kind: 'consume', eventId: '', amount: 0, timestamp: 0 });
          event.eventId = id;
          event.amount = orNull(amounts[i]);
          event.timestamp = orNull(t1s[i]);
          events[slot] = event;
        }
      }
      events.length = slot;
      const results = this.ledger.applyBatch(events);
      for (let k = 0; k < slot; k++) {
        const result = results[k];
        if (result instanceof Error) throw result;
        if (kinds[start + k] === CONSUME) {
          if (!result)
            throw new LogDivergedError(this.customer, firstSeq + start + k, `consumption ${JSON.stringify(ids[k])} was not accepted`);
          this.queued.delete(ids[k]);
        }
        this.seq = firstSeq + start + k;
      }
    }
    events.length = 0;
    ids.length = 0;
  }

  /** Applies one committed log entry (see store/interface.js for what each kind means). */
  apply([seq, kind, id, amount, t1, t2]) {
    const ledger = this.ledger;
    switch (kind) {
      case 'grant':
        ledger.addGrant(id, amount, t1, t2);
        break;
      case 'consume':
        if (!ledger.consume(id, amount, t1))
          throw new LogDivergedError(this.customer, seq, `consumption ${JSON.stringify(id)} was not accepted`);
        this.queued.delete(id);
        break;
      case 'submit':
        if (ledger.submit(id, amount, t1) === 'queued') this.queued.set(id, [amount, t1]);
        break;
      case 'void':
        if (!ledger.voidGrant(id).applied) throw new LogDivergedError(this.customer, seq, `void of ${JSON.stringify(id)} was refused`);
        this.voided.set(id, [amount, t1, t2]);
        break;
      case 'end':
        if (!ledger.setGrantEnd(id, t2).applied)
          throw new LogDivergedError(this.customer, seq, `end change of ${JSON.stringify(id)} was refused`);
        break;
      case 'cancel':
        ledger.cancelPending(id);
        this.queued.delete(id);
        break;
      case 'compact':
        this.compactTo(t1);
        break;
      default:
        throw new LogDivergedError(this.customer, seq, `unknown entry kind ${JSON.stringify(kind)}`);
    }
    this.seq = seq;
  }

  /** compact(horizon) (the cleanup job, or its log entry): what it dropped (queued consumptions by id). */
  compactTo(horizon) {
    const r = this.ledger.compact(horizon);
    for (const p of r.droppedPending) this.queued.delete(p.eventId);
    return {
      droppedGrants: r.droppedGrants,
      droppedConsumptions: r.droppedConsumptions,
      droppedPending: r.droppedPending.map((p) => p.eventId),
    };
  }

  /** The queued consumptions let in since the last call, and forgets them. */
  takeLetIn() {
    const list = this.letIn;
    this.letIn = [];
    return list;
  }

  dispose() {
    this.ledger.dispose();
  }
}
