// One customer's cached ledger: the package's GPULedger plus what the service must know
// beside it (the seq of the last log entry applied, queued ids, voided grant ids), and
// the replay that rebuilds it from the store.
import { GPULedger } from 'gpu-credit-ledger';
import { KINDS } from '../store/interface.js';
import { idByteEnds, orNull } from '../store/packs.js';

// Entries per applyBatch call of a replay: one batch chunk of the package. Short runs let
// the store's rows and the results die young (a run of 65,536 kept them alive into V8's
// old generation: 1.4-1.8 s of garbage collection in a 10^6-entry rebuild).
const RUN_ENTRIES = 4096;

const GRANT = KINDS.indexOf('grant');
const CONSUME = KINDS.indexOf('consume');
// applyColumns' codes per event, and its kinds: the log's (KINDS) for grants and consumptions.
const COLUMN_REJECTED = 0;
const COLUMN_FAILED = 2;
if (GRANT !== 0 || CONSUME !== 1) throw new Error('applyColumns takes kinds 0 (grant) and 1 (consume)');
const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // ids may start with U+FEFF

// The grants and consumptions of a replay waiting for one applyBatch call, with each
// entry's seq. The event objects are reused, one per slot: applyBatch reads its events
// only during the call, and replays run one at a time on this thread, so one set serves
// every run of every replay (no garbage per entry), whether the entries came as rows or
// from a pack.
class BatchRun {
  events = [];
  seqs = [];
  #grants = [];
  #consumptions = [];

  get size() {
    return this.events.length;
  }

  addGrant(seq, grantId, amount, startTime, endTime) {
    const slot = this.events.length;
    const event = (this.#grants[slot] ??= { kind: 'grant', grantId: '', amount: 0, startTime: 0, endTime: 0 });
    event.grantId = grantId;
    event.amount = amount;
    event.startTime = startTime;
    event.endTime = endTime;
    this.events.push(event);
    this.seqs[slot] = seq;
  }

  addConsume(seq, eventId, amount, timestamp) {
    const slot = this.events.length;
    const event = (this.#consumptions[slot] ??= { kind: 'consume', eventId: '', amount: 0, timestamp: 0 });
    event.eventId = eventId;
    event.amount = amount;
    event.timestamp = timestamp;
    this.events.push(event);
    this.seqs[slot] = seq;
  }

  clear() {
    this.events.length = 0;
  }
}

const run = new BatchRun();

export class LogDivergedError extends Error {
  constructor(customer, seq, what) {
    super(`replaying the log of ${JSON.stringify(customer)} at seq ${seq}: ${what}`);
    this.name = 'LogDivergedError';
  }
}

export class CustomerLedger {
  /** The seq of the last committed log entry this ledger reflects. */
  seq = 0;
  /**
   * Log entries applied to this ledger by its own requests, committed or not: moves with every
   * change a request makes at once, where `seq` waits for the commit (the read cache keys on both).
   */
  applied = 0;
  /** Queued consumptions: eventId → [amount, timestamp]. Tells a new queue entry from a retry. */
  queued = new Map();
  /** Voided grants: grantId → [amount, startTime, endTime]. Their ids stay taken: a retried add must not revive them. */
  voided = new Map();
  /**
   * Event ids whose latest logged change is a cancel of their queued consumption (not
   * queued again or accepted since): a retried cancel answers as the first did.
   */
  cancelled = new Set();
  /**
   * Grants a compaction carried across the horizon (valid there, started before it):
   * grantId → [amount, startTime] as added. The package shows such a grant from the
   * horizon on, holding what was left of it there (its definition of compact); the
   * service answers with the grant as added (asAdded), so that reads at or after the
   * horizon answer as they did before the cleanup.
   */
  carried = new Map();
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

  /**
   * The store's `load` of a customer, for rebuild. A snapshot written before snapshot
   * documents kept carriedGrants is completed: the grants it holds that started before its
   * horizon (the package's toJSON keeps their start; their amount is what was left there)
   * were carried, and their logged adds (log or archive: a compaction archives, never
   * deletes) say what they were added with. Without this, reads would show such grants from
   * the horizon on, and the next compaction would keep that view as their "as added". The
   * lookup is a store call, and a load's entries are read when iterated, right after it
   * (store/interface.js): the customer is loaded again after the lookup, and the lookup's
   * answer used if the snapshot is still the one it was made for.
   */
  static async load(store, customer) {
    let known = null; // { seq, carriedGrants } of the snapshot last completed
    for (;;) {
      const loaded = await store.load(customer);
      const snapshot = loaded.snapshot;
      if (snapshot === null || snapshot.document.carriedGrants !== undefined) return loaded;
      if (known !== null && known.seq === snapshot.seq) {
        snapshot.document.carriedGrants = known.carriedGrants;
        return loaded;
      }
      const { horizon, grants = [] } = snapshot.document.ledger;
      const ids = typeof horizon === 'number' ? grants.filter((grant) => grant.startTime < horizon).map((grant) => grant.grantId) : [];
      const logged = ids.length === 0 ? new Map() : await store.findEntries(customer, 'grant', ids);
      const carriedGrants = [];
      for (const id of ids) {
        const add = logged.get(id);
        if (add !== undefined) carriedGrants.push([id, add.amount, add.t1]);
      }
      known = { seq: snapshot.seq, carriedGrants };
    }
  }

  /** Rebuilds a customer from what the store returned by `load` (snapshot, then log entries in seq order, up to lastSeq). */
  static rebuild(customer, { snapshot, entries, lastSeq }) {
    let state;
    if (snapshot === null) {
      state = new CustomerLedger(customer);
    } else {
      const { ledger, pending, voidedGrants, cancelled = [], carriedGrants = [] } = snapshot.document;
      state = new CustomerLedger(customer, GPULedger.fromJSON(ledger));
      state.seq = snapshot.seq;
      for (const { eventId, amount, timestamp } of pending) state.apply([snapshot.seq, 'submit', eventId, amount, timestamp, null]);
      for (const [grantId, amount, startTime, endTime] of voidedGrants) state.voided.set(grantId, [amount, startTime, endTime]);
      for (const eventId of cancelled) state.cancelled.add(eventId);
      for (const [grantId, amount, startTime] of carriedGrants) state.carried.set(grantId, [amount, startTime]);
    }
    try {
      // Room for the whole log after the snapshot at once (a bound: not every entry is an
      // event): the replay's arrays and the WebAssembly memory then grow once.
      if (lastSeq > state.seq) state.ledger.reserveEvents(lastSeq - state.seq);
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
    for (const entry of entries) {
      if (!Array.isArray(entry)) {
        this.applyPack(entry);
        continue;
      }
      const kind = entry[1];
      if (kind === 'grant') run.addGrant(entry[0], entry[2], entry[3], entry[4], entry[5]);
      else if (kind === 'consume') run.addConsume(entry[0], entry[2], entry[3], entry[4]);
      else {
        this.#flushRun();
        this.apply(entry);
        continue;
      }
      if (run.size >= RUN_ENTRIES) this.#flushRun();
    }
    this.#flushRun();
  }

  /**
   * Applies a pack's entries (store/packs.js) in seq order, as applyEntries applies the
   * same entries as rows: each run of grants and consumptions goes from the pack's
   * columns to the package's applyColumns in one call (the ids as the pack's UTF-8 bytes,
   * no string or object per entry), every other kind through apply(), in its place.
   */
  applyPack(pack) {
    const { firstSeq, kinds, amounts, t1s, t2s, idLengths, idText } = pack;
    this.#flushRun(); // the rows before the pack come first
    const idEnds = idByteEnds(pack);
    let at = 0; // where entry i's id starts in idText
    for (let i = 0; i < kinds.length;) {
      if (kinds[i] === GRANT || kinds[i] === CONSUME) {
        const from = i;
        while (i < kinds.length && (kinds[i] === GRANT || kinds[i] === CONSUME)) at += idLengths[i++];
        this.#applyColumns(pack, idEnds, from, i);
        continue;
      }
      const id = idText.slice(at, (at += idLengths[i]));
      this.apply([firstSeq + i, KINDS[kinds[i]], id, orNull(amounts[i]), orNull(t1s[i]), orNull(t2s[i])]);
      i++;
    }
  }

  // Entries from … to - 1 of a pack, all grants and consumptions, through one
  // applyColumns call; throws what the first failing one would have thrown.
  #applyColumns(pack, idEnds, from, to) {
    const { firstSeq, kinds, amounts, t1s, t2s, idBytes } = pack;
    const base = from === 0 ? 0 : idEnds[from - 1];
    let ends = idEnds;
    if (from !== 0 || to !== idEnds.length) {
      ends = new Uint32Array(to - from);
      for (let k = 0; k < ends.length; k++) ends[k] = idEnds[from + k] - base;
    }
    const { results, errors } = this.ledger.applyColumns({
      kinds: kinds.subarray(from, to),
      ids: idBytes.subarray(base, idEnds[to - 1]),
      idEnds: ends,
      amounts: amounts.subarray(from, to),
      times: t1s.subarray(from, to),
      endTimes: t2s.subarray(from, to),
    });
    const idOf = (i) => decoder.decode(idBytes.subarray(i === 0 ? 0 : idEnds[i - 1], idEnds[i]));
    for (let k = 0; k < results.length; k++) {
      const i = from + k;
      if (results[k] === COLUMN_FAILED) throw errors.get(k);
      if (kinds[i] === CONSUME) {
        if (results[k] === COLUMN_REJECTED)
          throw new LogDivergedError(this.customer, firstSeq + i, `consumption ${JSON.stringify(idOf(i))} was not accepted`);
        if (this.queued.size > 0 || this.cancelled.size > 0) this.#accepted(idOf(i));
      }
      this.seq = firstSeq + i;
    }
  }

  // Applies the waiting run through one applyBatch call and empties it (also when an
  // entry fails, so that the next replay starts with an empty run).
  #flushRun() {
    if (run.size === 0) return;
    try {
      const { events, seqs } = run;
      const results = this.ledger.applyBatch(events);
      for (let k = 0; k < events.length; k++) {
        const result = results[k];
        if (result instanceof Error) throw result;
        const event = events[k];
        if (event.kind === 'consume') {
          if (!result) throw new LogDivergedError(this.customer, seqs[k], `consumption ${JSON.stringify(event.eventId)} was not accepted`);
          this.#accepted(event.eventId);
        }
        this.seq = seqs[k];
      }
    } finally {
      run.clear();
    }
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
        this.#accepted(id);
        break;
      case 'submit':
        if (ledger.submit(id, amount, t1) === 'queued') this.queued.set(id, [amount, t1]);
        this.cancelled.delete(id);
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
        this.cancelled.add(id);
        break;
      case 'compact':
        this.compactTo(t1);
        break;
      default:
        throw new LogDivergedError(this.customer, seq, `unknown entry kind ${JSON.stringify(kind)}`);
    }
    this.seq = seq;
  }

  // An accepted consumption is neither queued nor cancelled.
  #accepted(eventId) {
    this.queued.delete(eventId);
    this.cancelled.delete(eventId);
  }

  /** compact(horizon) (the cleanup job, or its log entry): what it dropped (queued consumptions by id). */
  compactTo(horizon) {
    // The grants this compaction carries, as added (one carried before keeps its entry).
    const carried = new Map();
    for (const grant of this.ledger.grantsAt(horizon)) {
      if (grant.startTime < horizon) carried.set(grant.grantId, this.carried.get(grant.grantId) ?? [grant.amount, grant.startTime]);
    }
    const r = this.ledger.compact(horizon);
    this.carried = carried;
    for (const p of r.droppedPending) this.queued.delete(p.eventId);
    return {
      droppedGrants: r.droppedGrants,
      droppedConsumptions: r.droppedConsumptions,
      droppedPending: r.droppedPending.map((p) => p.eventId),
    };
  }

  /**
   * A grant as the package shows it (grantsAt's, burnDown's), with the amount and start it
   * was added with when a compaction carried it across the horizon.
   */
  asAdded(grant) {
    const added = grant === null ? undefined : this.carried.get(grant.grantId);
    return added === undefined ? grant : { ...grant, amount: added[0], startTime: added[1] };
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
