// GPULedger: the package's one class. Every method is defined here; each validates its
// arguments (lib/validate.js), calls the raw WASM ledger (cpp/bindings/wasm_ledger.h:
// the numeric methods as plain exports, the others through the embind class _Ledger),
// turns a status code into an error (lib/status.js) and a flat result into objects
// (lib/decode.js). Nothing reaches WASM unchecked, and no error is thrown after a change.
import { BATCH_CONSUME, BATCH_GRANT, BATCH_RESTORE_GRANT, BATCH_SKIP, runBatch } from './batch.js';
import { readCoreTable } from './core-table.js';
import {
  readAllocations,
  readBurnDown,
  readCompactResult,
  readConsumeResult,
  readConsumptions,
  readCurve,
  readDrawnConsumptions,
  readGrantChange,
  readGrants,
  readGrantStates,
} from './decode.js';
import { LedgerError } from './errors.js';
import { PendingListeners } from './pending.js';
import { parseSnapshot, readSnapshot, writeSnapshot } from './snapshot.js';
import { makeStatusErrors } from './status.js';
import { makeChecks, maxSafeText } from './validate.js';

const encoder = new TextEncoder();

/**
 * Symbol.dispose where the runtime has it, else the registered symbol polyfills use.
 * @type {typeof Symbol.dispose}
 */
const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** Builds the public classes around one instantiated WASM module. */
export function makeApi(module) {
  const { Status, REJECT_REASONS, MAX_ID_BYTES, MAX_SAFE } = readCoreTable(module);
  const checks = makeChecks({ MAX_ID_BYTES, MAX_SAFE });
  const { checkId, checkAmount, checkTime, checkWindow, checkTryConsumeOptions, checkListener } = checks;
  const statusError = makeStatusErrors(Status, maxSafeText(MAX_SAFE));
  // The plain exports (cpp/bindings/wasm_bindings.cpp): one call into WebAssembly each,
  // the ledger's address first.
  const raw = module.gclExports();

  // Frees the WASM object of a ledger that was garbage-collected without dispose().
  const finalizer = new FinalizationRegistry((handle) => handle.delete());

  // Writes a validated id as UTF-8 into a ledger's id buffer; returns its byte length.
  function writeId(address, text) {
    const heap = module.HEAPU8; // re-read: growing memory replaces the view
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x80) return encoder.encodeInto(text, heap.subarray(address, address + MAX_ID_BYTES)).written;
      heap[address + i] = unit;
    }
    return text.length;
  }

  // An applyBatch event: the checks of its single call, in the same order.
  function checkBatchEvent(event, i) {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      throw new TypeError(
        `applyBatch: events[${i}] must be an object, got ${event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event}`,
      );
    }
    if (event.kind === 'grant') {
      checkId('addGrant', 'grantId', event.grantId);
      checkAmount('addGrant', 'amount', event.amount);
      checkTime('addGrant', 'startTime', event.startTime);
      checkTime('addGrant', 'endTime', event.endTime);
      checkWindow('addGrant', 'startTime', event.startTime, 'endTime', event.endTime);
    } else if (event.kind === 'consume') {
      checkId('consume', 'eventId', event.eventId);
      checkAmount('consume', 'amount', event.amount);
      checkTime('consume', 'timestamp', event.timestamp);
    } else {
      throw new TypeError(`applyBatch: events[${i}].kind must be "grant" or "consume", got ${JSON.stringify(String(event.kind))}`);
    }
  }

  // A raw result that is a number is minus a status code (result_encoding.h).
  const failed = (result) => typeof result === 'number';

  class GPULedger {
    #handle;
    #self; // the WASM ledger's address, for the plain exports
    #idAddress;
    #pendingListeners = new PendingListeners();

    constructor() {
      this.#handle = new module._Ledger();
      this.#self = this.#handle.self();
      this.#idAddress = raw.idBuffer(this.#self);
      finalizer.register(this, this.#handle, this);
    }

    #live(method) {
      if (this.#handle === null) {
        throw new LedgerError('DISPOSED', `${method}: this ledger was disposed`);
      }
      return this.#handle;
    }

    // The address for the plain exports, once #live has checked the ledger.
    #at(method) {
      this.#live(method);
      return this.#self;
    }

    #id(text) {
      return writeId(this.#idAddress, text);
    }

    /**
     * The one route by which queued consumptions leave the queue: after every call that
     * can add credit, the ones it let in are taken from the core, handed to the
     * onPendingAccepted listeners, and returned.
     */
    #takeAcceptedPending() {
      if (raw.hasAcceptedPending(this.#self) === 0) return [];
      const flat = this.#handle.takeAcceptedPending();
      if (flat === null) return [];
      const accepted = readDrawnConsumptions(flat);
      this.#pendingListeners.notify(accepted);
      return accepted;
    }

    // --- Grants and consumptions ---

    addGrant(grantId, amount, startTime, endTime) {
      const self = this.#at('addGrant');
      checkId('addGrant', 'grantId', grantId);
      checkAmount('addGrant', 'amount', amount);
      checkTime('addGrant', 'startTime', startTime);
      checkTime('addGrant', 'endTime', endTime);
      checkWindow('addGrant', 'startTime', startTime, 'endTime', endTime);
      const status = raw.addGrant(self, this.#id(grantId), amount, startTime, endTime);
      if (status !== Status.OK) throw statusError('addGrant', status, `grant ${JSON.stringify(grantId)}`);
      this.#takeAcceptedPending();
    }

    consume(eventId, amount, timestamp) {
      const self = this.#at('consume');
      checkId('consume', 'eventId', eventId);
      checkAmount('consume', 'amount', amount);
      checkTime('consume', 'timestamp', timestamp);
      const result = raw.consume(self, this.#id(eventId), amount, timestamp);
      if (result < 0) throw statusError('consume', -result, `consumption ${JSON.stringify(eventId)}`);
      return result === 1;
    }

    getBalance(timestamp) {
      const self = this.#at('getBalance');
      checkTime('getBalance', 'timestamp', timestamp);
      const balance = raw.getBalance(self, timestamp);
      if (balance < 0) throw statusError('getBalance', -balance, `timestamp ${timestamp}`);
      return balance;
    }

    allocations(eventId) {
      const handle = this.#live('allocations');
      checkId('allocations', 'eventId', eventId);
      const flat = handle.allocations(this.#id(eventId));
      return flat === null ? null : readAllocations(flat);
    }

    balanceCurve(from, to) {
      const handle = this.#live('balanceCurve');
      checkTime('balanceCurve', 'from', from);
      checkTime('balanceCurve', 'to', to);
      checkWindow('balanceCurve', 'from', from, 'to', to);
      const count = raw.balanceCurve(this.#self, from, to);
      if (count < 0) throw statusError('balanceCurve', -count);
      return readCurve(handle.curveView(), count);
    }

    // --- Bulk loading ---

    /**
     * Applies grants and consumptions in order, each exactly as addGrant or consume would,
     * in a few crossings into WASM. `events`: `{ kind: 'grant', grantId, amount, startTime,
     * endTime }` or `{ kind: 'consume', eventId, amount, timestamp }`. Returns one result per
     * event: `true` (grant added, consumption accepted), `false` (consumption rejected), or
     * the error its single call would have thrown; an event with an error changes nothing
     * and the batch goes on. onPendingAccepted listeners are called once, after the batch,
     * with every queued consumption it let in; reallocated() is as after its last event.
     */
    applyBatch(events) {
      this.#live('applyBatch');
      if (!Array.isArray(events)) {
        throw new TypeError(`applyBatch: events must be an array, got ${events === null ? 'null' : typeof events}`);
      }
      const results = new Array(events.length);
      const describe = (i, slot, first) => {
        const event = events[i];
        if (first) {
          try {
            checkBatchEvent(event, i);
          } catch (error) {
            results[i] = error;
            slot[0] = BATCH_SKIP;
            return;
          }
        }
        if (event.kind === 'grant') {
          slot[0] = BATCH_GRANT;
          slot[1] = event.grantId;
          slot[3] = event.startTime;
          slot[4] = event.endTime;
        } else {
          slot[0] = BATCH_CONSUME;
          slot[1] = event.eventId;
          slot[3] = event.timestamp;
        }
        slot[2] = event.amount;
      };
      const settle = (i, result) => {
        if (result >= 0) {
          results[i] = result === 1;
          return;
        }
        const event = events[i];
        results[i] =
          event.kind === 'grant'
            ? statusError('addGrant', -result, `grant ${JSON.stringify(event.grantId)}`)
            : statusError('consume', -result, `consumption ${JSON.stringify(event.eventId)}`);
      };
      runBatch(module, raw, this.#self, MAX_ID_BYTES, events.length, describe, settle);
      this.#takeAcceptedPending();
      return results;
    }

    // --- Previews ---

    headroom(timestamp) {
      const self = this.#at('headroom');
      checkTime('headroom', 'timestamp', timestamp);
      const amount = raw.headroom(self, timestamp);
      if (amount < 0) throw statusError('headroom', -amount);
      return amount;
    }

    tryConsume(eventId, amount, timestamp, options) {
      const handle = this.#live('tryConsume');
      checkId('tryConsume', 'eventId', eventId);
      checkAmount('tryConsume', 'amount', amount);
      checkTime('tryConsume', 'timestamp', timestamp);
      const { dryRun = false } = checkTryConsumeOptions('tryConsume', options);
      const flat = handle.tryConsume(this.#id(eventId), amount, timestamp, dryRun);
      if (failed(flat)) throw statusError('tryConsume', -flat, `consumption ${JSON.stringify(eventId)}`);
      return readConsumeResult(flat, REJECT_REASONS);
    }

    grantsAt(timestamp) {
      const handle = this.#live('grantsAt');
      checkTime('grantsAt', 'timestamp', timestamp);
      const flat = handle.grantsAt(timestamp);
      if (failed(flat)) throw statusError('grantsAt', -flat);
      return readGrantStates(flat);
    }

    burnDown(grantId) {
      const handle = this.#live('burnDown');
      checkId('burnDown', 'grantId', grantId);
      const flat = handle.burnDown(this.#id(grantId));
      if (flat === null) return null;
      if (failed(flat)) throw statusError('burnDown', -flat);
      return readBurnDown(flat, grantId);
    }

    nextBelow(threshold, from) {
      const handle = this.#live('nextBelow');
      checkAmount('nextBelow', 'threshold', threshold);
      checkTime('nextBelow', 'from', from);
      const time = handle.nextBelow(threshold, from);
      if (time !== null && time < 0) throw statusError('nextBelow', -time);
      return time;
    }

    // --- Grant lifecycle ---

    voidGrant(grantId) {
      const handle = this.#live('voidGrant');
      checkId('voidGrant', 'grantId', grantId);
      const flat = handle.voidGrant(this.#id(grantId));
      if (failed(flat)) throw statusError('voidGrant', -flat, `grant ${JSON.stringify(grantId)}`);
      return readGrantChange(flat);
    }

    setGrantEnd(grantId, endTime) {
      const handle = this.#live('setGrantEnd');
      checkId('setGrantEnd', 'grantId', grantId);
      checkTime('setGrantEnd', 'endTime', endTime);
      const flat = handle.setGrantEnd(this.#id(grantId), endTime);
      if (flat === -Status.INVALID_WINDOW) {
        // Only the core knows the grant's start.
        throw new RangeError(`setGrantEnd: endTime must be >= the startTime of grant ${JSON.stringify(grantId)}, got ${endTime}`);
      }
      if (failed(flat)) throw statusError('setGrantEnd', -flat, `grant ${JSON.stringify(grantId)}`);
      const accepted = this.#takeAcceptedPending();
      return { ...readGrantChange(flat), acceptedPending: accepted.map((consumption) => consumption.eventId) };
    }

    // --- Pending consumptions ---

    submit(eventId, amount, timestamp) {
      const self = this.#at('submit');
      checkId('submit', 'eventId', eventId);
      checkAmount('submit', 'amount', amount);
      checkTime('submit', 'timestamp', timestamp);
      const result = raw.submit(self, this.#id(eventId), amount, timestamp);
      if (result < 0) throw statusError('submit', -result, `consumption ${JSON.stringify(eventId)}`);
      return result === 1 ? 'accepted' : 'queued';
    }

    pending() {
      return readConsumptions(this.#live('pending').pending());
    }

    cancelPending(eventId) {
      const self = this.#at('cancelPending');
      checkId('cancelPending', 'eventId', eventId);
      const result = raw.cancelPending(self, this.#id(eventId));
      if (result < 0) throw statusError('cancelPending', -result);
      return result === 1;
    }

    onPendingAccepted(listener) {
      this.#live('onPendingAccepted');
      checkListener('onPendingAccepted', listener);
      return this.#pendingListeners.add(listener);
    }

    // --- Reallocations ---

    /**
     * The accepted consumptions whose allocations the last call changed, in replay order,
     * with their allocations now (docs/semantics.md). The last call: the most recent
     * addGrant, consume, tryConsume (not a dry run), submit, voidGrant, setGrantEnd,
     * cancelPending or compact that returned normally (applyBatch: its last event that did
     * not fail); a call that throws leaves the answer as it was.
     */
    reallocated() {
      return readDrawnConsumptions(this.#live('reallocated').reallocated());
    }

    // --- Finality horizon ---

    /**
     * Makes everything strictly before `horizon` final and frees it (README, "Finality
     * horizon"). Returns the horizon now in force and what was dropped; a horizon at or
     * below the current one changes nothing.
     */
    compact(horizon) {
      const handle = this.#live('compact');
      checkTime('compact', 'horizon', horizon);
      const flat = handle.compact(horizon);
      if (failed(flat)) throw statusError('compact', -flat);
      return readCompactResult(flat);
    }

    /** Everything strictly before it is final (0 until the first compact). */
    get horizon() {
      return raw.horizon(this.#at('horizon'));
    }

    // --- Snapshots ---

    /**
     * The snapshot document (version 2): the horizon, grants in the order added (one that
     * started before the horizon holds what was left of it there), consumptions in
     * acceptance order.
     */
    toJSON() {
      const handle = this.#live('toJSON');
      return writeSnapshot(readGrants(handle.grants()), readConsumptions(handle.consumptions()), raw.horizon(this.#self));
    }

    /**
     * Rebuilds a ledger from a snapshot (object or JSON text). Refuses, with nothing
     * built, a document that is malformed or that the rules would not have accepted.
     * A snapshot's grant that started before the horizon was carried across it and holds
     * what was left of it there (possibly 0): it is restored as it is; any other is
     * addGrant's. Everything is loaded through the batch path (lib/batch.js).
     */
    static fromJSON(snapshot) {
      const doc = parseSnapshot(snapshot);
      // The fast read leaves repeated ids to the core's counts; the full read, which
      // defines the first error of a document, runs only when something failed.
      const strict = () => readSnapshot(doc, checks);
      let read;
      try {
        read = readSnapshot(doc, checks, false);
      } catch (error) {
        strict();
        throw error;
      }
      const { horizon, grants, consumptions, refuse } = read;
      const ledger = new GPULedger();
      try {
        if (horizon > 0) ledger.compact(horizon); // an empty ledger: only sets the horizon
        /** @type {Error | null} */
        let failure = null;
        const describe = (i, slot) => {
          if (i < grants.length) {
            const grant = grants[i];
            slot[0] = BATCH_RESTORE_GRANT;
            slot[1] = grant.grantId;
            slot[2] = grant.amount;
            slot[3] = grant.startTime;
            slot[4] = grant.endTime;
          } else {
            const consumption = consumptions[i - grants.length];
            slot[0] = BATCH_CONSUME;
            slot[1] = consumption.eventId;
            slot[2] = consumption.amount;
            slot[3] = consumption.timestamp;
          }
        };
        const settle = (i, result) => {
          if (result === 1 || failure !== null) return; // the first failure is the answer
          if (i < grants.length) {
            failure = statusError('fromJSON', -result, `grant ${JSON.stringify(grants[i].grantId)}`);
            return;
          }
          const c = i - grants.length;
          const { eventId } = consumptions[c];
          failure =
            result === 0
              ? refuse(`consumptions[${c}] (${JSON.stringify(eventId)}) cannot be funded: the rules would have rejected it`)
              : statusError('consume', -result, `consumption ${JSON.stringify(eventId)}`);
        };
        const self = ledger.#at('fromJSON');
        runBatch(module, raw, self, MAX_ID_BYTES, grants.length + consumptions.length, describe, settle);
        if (failure !== null || raw.grantCount(self) !== grants.length || raw.consumptionCount(self) !== consumptions.length) {
          strict(); // an id that appears twice
          throw failure ?? refuse('an id appears twice');
        }
      } catch (error) {
        ledger.dispose();
        if (error instanceof RangeError) throw refuse(error.message);
        throw error;
      }
      // The rebuild's own calls are not the caller's: a restored ledger has moved nothing.
      raw.clearReallocated(ledger.#at('fromJSON'));
      return ledger;
    }

    // --- Sizes, memory and lifetime ---

    /** Bytes in use on the WebAssembly heap shared by all ledgers (walks the heap: for diagnostics and leak tests). */
    static wasmHeapBytes() {
      return module._heapBytes();
    }

    /** The size the WebAssembly heap may grow to; calls that could need more fail with `OUT_OF_MEMORY`. */
    static get maxHeapBytes() {
      return module._heapMax();
    }

    get grantCount() {
      return raw.grantCount(this.#at('grantCount'));
    }

    get consumptionCount() {
      return raw.consumptionCount(this.#at('consumptionCount'));
    }

    get disposed() {
      return this.#handle === null;
    }

    dispose() {
      if (this.#handle === null) return;
      finalizer.unregister(this);
      this.#handle.delete();
      this.#handle = null;
    }

    [disposeSymbol]() {
      this.dispose();
    }
  }

  return { GPULedger, LedgerError };
}
