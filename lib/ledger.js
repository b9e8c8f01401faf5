// GPULedger: the package's one class. Every method is defined here; each validates its
// arguments (lib/validate.js), calls the raw WASM ledger (cpp/bindings/wasm_ledger.h,
// through the plain exports of cpp/bindings/wasm_bindings.cpp), turns a status code into
// an error (lib/status.js) and a result from the ledger's result buffer into objects
// (lib/decode.js). Nothing reaches WASM unchecked, and no error is thrown after a change.
import { Utf8Decoder, Utf8Encoder } from './text.js';
import { BATCH_CONSUME, BATCH_GRANT, BATCH_SKIP, BatchRun, CHUNK, COLUMN_FAILED, runColumns } from './batch.js';
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
  viewResult,
} from './decode.js';
import { LedgerError } from './errors.js';
import { PendingListeners } from './pending.js';
import { makeEntryReaders, parseSnapshot, readSnapshotHead, refuse, throwFirstError, writeSnapshot } from './snapshot.js';
import { makeStatusErrors } from './status.js';
import { isWellFormed, makeChecks, maxSafeText } from './validate.js';

const encoder = new Utf8Encoder();
const decoder = new Utf8Decoder('utf-8', { ignoreBOM: true }); // ids may start with U+FEFF

// applyColumns' columns and their types.
const COLUMN_TYPES = Object.entries({
  kinds: Uint8Array,
  ids: Uint8Array,
  idEnds: Uint32Array,
  amounts: Float64Array,
  times: Float64Array,
  endTimes: Float64Array,
});

// What a value that should have been a plain object is, for the messages that say so.
function notAnObject(value) {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

// The typed arrays' own accessors, taken when the module loads: a column's methods and
// accessors (a subclass's, a Proxy's) never run after its check, so the values checked are
// the values loaded.
const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayGetter = (name) => /** @type {(this: unknown) => any} */ (Object.getOwnPropertyDescriptor(typedArrayPrototype, name)?.get);
const typedArrayName = typedArrayGetter(Symbol.toStringTag);
const viewBuffer = typedArrayGetter('buffer');
const viewByteOffset = typedArrayGetter('byteOffset');
const viewLength = typedArrayGetter('length');
const sharedByteLength =
  typeof SharedArrayBuffer === 'function' ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength')?.get : undefined;

/**
 * A plain view of `column` if it is a typed array of `type` (a subclass's included), else
 * null; a copy if it lies over a SharedArrayBuffer, which another thread could change
 * between the checks and the load.
 */
function ownView(column, type) {
  if (typedArrayName.call(column) !== type.name) return null;
  const buffer = viewBuffer.call(column);
  let shared = false;
  try {
    sharedByteLength?.call(buffer);
    shared = sharedByteLength !== undefined;
  } catch {
    // an ArrayBuffer
  }
  const view = new type(buffer, viewByteOffset.call(column), viewLength.call(column));
  return shared ? new type(view) : view;
}

function describeColumn(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return typeof value;
  return Array.isArray(value) ? 'an array' : (value.constructor?.name ?? 'an object');
}

/**
 * Symbol.dispose where the runtime has it, else the registered symbol polyfills use.
 * @type {typeof Symbol.dispose}
 */
const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** Builds the public classes around one instantiated WASM module (lib/instantiate.js). */
export function makeApi(module) {
  // The plain exports (cpp/bindings/wasm_bindings.cpp): one call into WebAssembly each,
  // a ledger's address first.
  const raw = module.exports;
  const { Status, REJECT_REASONS, MAX_ID_BYTES, MAX_SAFE } = readCoreTable(module.HEAPU8, raw.coreTable());
  const checks = makeChecks({ MAX_ID_BYTES, MAX_SAFE });
  const { checkId, checkIdBytes, checkCount, checkAmount, checkTime, checkWindow, checkTryConsumeOptions, checkListener } = checks;
  const statusError = makeStatusErrors(Status, maxSafeText(MAX_SAFE));

  // Frees the WASM object of a ledger that was garbage-collected without dispose().
  const finalizer = new FinalizationRegistry(raw.destroy);

  // Reads the result of `count` slots (count >= 0) that the last call of the ledger at
  // `self` wrote, with `reader` (lib/decode.js), then lets the ledger free a large one.
  function readResult(self, count, reader, extra) {
    if (count < 0) throw new Error('readResult: a failed call has no result'); // callers check first
    const heap = module.HEAPU8; // re-read: growing memory replaces the view
    const result = viewResult(heap, raw.resultNumbers(self), count, raw.resultText(self), raw.resultTextBytes(self));
    const value = reader(result, extra);
    raw.releaseResult(self);
    return value;
  }

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

  // addGrant's and consume's checks after their id's, for the single calls and both batch
  // forms (applyBatch's objects, applyColumns' columns).
  function checkGrantValues(amount, startTime, endTime) {
    checkAmount('addGrant', 'amount', amount);
    checkTime('addGrant', 'startTime', startTime);
    checkTime('addGrant', 'endTime', endTime);
    checkWindow('addGrant', 'startTime', startTime, 'endTime', endTime);
  }
  function checkConsumeValues(amount, timestamp) {
    checkAmount('consume', 'amount', amount);
    checkTime('consume', 'timestamp', timestamp);
  }

  // An applyBatch event, staged in `run` (BatchRun): each field read once (a getter cannot
  // hand the checks one value and the load another) and checked as its single call checks
  // it, in the same order. As fromJSON's readers do (lib/snapshot.js), the common case is
  // tested inline and the checks run only for an event that fails the test: each test
  // implies its checks pass.
  const maxIdUnits = MAX_ID_BYTES / 3; // a UTF-16 unit is at most 3 UTF-8 bytes
  function readBatchEvent(event, i, run) {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) {
      throw new TypeError(`applyBatch: events[${i}] must be an object, got ${notAnObject(event)}`);
    }
    const kind = event.kind;
    if (kind === 'grant') {
      const grantId = event.grantId;
      if (!(typeof grantId === 'string' && grantId.length > 0 && grantId.length <= maxIdUnits && isWellFormed(grantId))) {
        checkId('addGrant', 'grantId', grantId);
      }
      const amount = event.amount;
      const startTime = event.startTime;
      const endTime = event.endTime;
      const fits =
        Number.isSafeInteger(amount) &&
        amount >= 1 &&
        amount <= MAX_SAFE &&
        Number.isSafeInteger(startTime) &&
        Number.isSafeInteger(endTime) &&
        startTime >= 0 &&
        startTime <= endTime &&
        endTime <= MAX_SAFE;
      if (!fits) checkGrantValues(amount, startTime, endTime);
      run.put(BATCH_GRANT, grantId, amount, startTime, endTime);
    } else if (kind === 'consume') {
      const eventId = event.eventId;
      if (!(typeof eventId === 'string' && eventId.length > 0 && eventId.length <= maxIdUnits && isWellFormed(eventId))) {
        checkId('consume', 'eventId', eventId);
      }
      const amount = event.amount;
      const timestamp = event.timestamp;
      const fits =
        Number.isSafeInteger(amount) &&
        amount >= 1 &&
        amount <= MAX_SAFE &&
        Number.isSafeInteger(timestamp) &&
        timestamp >= 0 &&
        timestamp <= MAX_SAFE;
      if (!fits) checkConsumeValues(amount, timestamp);
      run.put(BATCH_CONSUME, eventId, amount, timestamp, 0);
    } else {
      throw new TypeError(`applyBatch: events[${i}].kind must be "grant" or "consume", got ${JSON.stringify(String(kind))}`);
    }
  }

  // applyColumns' columns, each read once (a getter cannot hand the checks one array and
  // the load another), after the whole call's checks (nothing is applied when one fails).
  function readColumns(columns) {
    if (typeof columns !== 'object' || columns === null || Array.isArray(columns)) {
      throw new TypeError(`applyColumns: columns must be an object, got ${notAnObject(columns)}`);
    }
    /** @type {Record<string, any>} */
    const read = {};
    for (const [name, type] of COLUMN_TYPES) {
      const column = columns[name];
      // By the array's own kind, not instanceof: a column made in another realm (an iframe,
      // a test environment such as jsdom, Node's vm) is a typed array all the same.
      const view = ownView(column, type);
      if (view === null) {
        const got = column instanceof type ? 'an object that only looks like one' : describeColumn(column);
        throw new TypeError(`applyColumns: columns.${name} must be a ${type.name}, got ${got}`);
      }
      read[name] = view;
    }
    const { kinds, ids, idEnds } = read;
    const count = kinds.length;
    for (const name of ['idEnds', 'amounts', 'times', 'endTimes']) {
      if (read[name].length !== count) {
        throw new RangeError(`applyColumns: columns.${name} must have one entry per event (${count}), got ${read[name].length}`);
      }
    }
    for (let i = 0; i < count; i++) {
      if (idEnds[i] < (i === 0 ? 0 : idEnds[i - 1]) || idEnds[i] > ids.length) {
        throw new RangeError(
          `applyColumns: columns.idEnds must not decrease and must end within ids (${ids.length} bytes), got ${idEnds[i]} at ${i}`,
        );
      }
    }
    return read;
  }

  // One event of applyColumns: the checks of its single call, in the same order (the id's
  // bytes are checked by the core: well-formed UTF-8).
  function checkColumnEvent(kind, idBytes, amount, time, endTime, i) {
    if (kind === BATCH_GRANT) {
      checkIdBytes('addGrant', 'grantId', idBytes);
      checkGrantValues(amount, time, endTime);
    } else if (kind === BATCH_CONSUME) {
      checkIdBytes('consume', 'eventId', idBytes);
      checkConsumeValues(amount, time);
    } else {
      throw new RangeError(`applyColumns: kinds[${i}] must be 0 (grant) or 1 (consume), got ${kind}`);
    }
  }

  class GPULedger {
    #self; // the WASM ledger's address, for the plain exports; 0 once disposed
    #idAddress;
    /** @type {BatchRun | null} */
    #run = null; // the applyBatch whose events are being read, if any
    #pendingListeners = new PendingListeners();

    constructor() {
      const self = raw.create();
      if (self === 0) throw statusError('new GPULedger', Status.OUT_OF_MEMORY); // no room for one more
      this.#self = self;
      this.#idAddress = raw.idBuffer(self);
      finalizer.register(this, this.#self, this);
    }

    // The address for the plain exports, once the ledger is checked to be live. A call made
    // while an applyBatch reads its events (from an event's getter) comes after the events
    // before that one, as with one call per event: they are applied first.
    // The queued consumptions the flushed events let in are the batch's, not the call's:
    // they are kept for the batch's notification (#takeAcceptedPending at its end).
    #at(method) {
      if (this.#self === 0) {
        throw new LedgerError('DISPOSED', `${method}: this ledger was disposed`);
      }
      const run = this.#run;
      if (run !== null) {
        run.flush();
        const accepted = this.#acceptedSinceLastTake();
        if (accepted.length > 0) run.acceptedPending.push(...accepted);
      }
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
    #takeAcceptedPending(earlier = []) {
      const taken = this.#acceptedSinceLastTake();
      const accepted = earlier.length === 0 ? taken : [...earlier, ...taken];
      if (accepted.length === 0) return accepted;
      this.#pendingListeners.notify(accepted);
      return accepted;
    }

    // The queued consumptions let in since the last take, taken from the core.
    #acceptedSinceLastTake() {
      const self = this.#self;
      if (raw.hasAcceptedPending(self) === 0) return [];
      const count = raw.takeAcceptedPending(self);
      // Out of memory for the list: the core keeps it, and the next call hands it over.
      if (count < 0) return [];
      return readResult(self, count, readDrawnConsumptions);
    }

    // --- Grants and consumptions ---

    addGrant(grantId, amount, startTime, endTime) {
      const self = this.#at('addGrant');
      checkId('addGrant', 'grantId', grantId);
      checkGrantValues(amount, startTime, endTime);
      const status = raw.addGrant(self, this.#id(grantId), amount, startTime, endTime);
      if (status !== Status.OK) throw statusError('addGrant', status, `grant ${JSON.stringify(grantId)}`);
      this.#takeAcceptedPending();
    }

    consume(eventId, amount, timestamp) {
      const self = this.#at('consume');
      checkId('consume', 'eventId', eventId);
      checkConsumeValues(amount, timestamp);
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
      const self = this.#at('allocations');
      checkId('allocations', 'eventId', eventId);
      const count = raw.allocations(self, this.#id(eventId));
      if (count === -Status.UNKNOWN_ID) return null;
      if (count < 0) throw statusError('allocations', -count);
      return readResult(self, count, readAllocations);
    }

    balanceCurve(from, to) {
      const self = this.#at('balanceCurve');
      checkTime('balanceCurve', 'from', from);
      checkTime('balanceCurve', 'to', to);
      checkWindow('balanceCurve', 'from', from, 'to', to);
      const count = raw.balanceCurve(self, from, to);
      if (count < 0) throw statusError('balanceCurve', -count);
      return readCurve(new Float64Array(module.HEAPU8.buffer, raw.curve(self), 2 * count), count);
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
      this.#at('applyBatch');
      if (!Array.isArray(events)) {
        throw new TypeError(`applyBatch: events must be an array, got ${events === null ? 'null' : typeof events}`);
      }
      const count = events.length;
      const results = new Array(count);
      const settle = (first, out, size) => {
        for (let k = 0; k < size; k++) {
          const kind = run.kind(k);
          if (kind === BATCH_SKIP) continue; // its result is its error, set when it was read
          const result = out[k];
          const i = first + k;
          if (result >= 0) results[i] = result === 1;
          else if (kind === BATCH_GRANT) results[i] = statusError('addGrant', -result, `grant ${JSON.stringify(run.id(k))}`);
          else results[i] = statusError('consume', -result, `consumption ${JSON.stringify(run.id(k))}`);
        }
      };
      const run = new BatchRun(module, raw, this.#self, MAX_ID_BYTES, count, settle);
      const outer = this.#run; // an applyBatch from an event's getter of another, on this ledger
      this.#run = run;
      try {
        for (let i = 0; i < count; i++) {
          try {
            readBatchEvent(events[i], i, run);
          } catch (error) {
            results[i] = error;
            run.skip();
          }
          if (run.size === CHUNK) this.#at('applyBatch'); // flushes run, unless a getter disposed the ledger
        }
        this.#at('applyBatch');
      } finally {
        this.#run = outer;
      }
      run.end();
      this.#takeAcceptedPending(run.acceptedPending);
      return results;
    }

    /**
     * applyBatch for events given as columns, one entry per event: `kinds` (Uint8Array,
     * 0 for addGrant, 1 for consume), `ids` (Uint8Array: every grantId or eventId as
     * UTF-8, one after another) with `idEnds` (Uint32Array: where each ends in `ids`),
     * `amounts`, `times` (a grant's startTime, a consumption's timestamp) and `endTimes`
     * (a grant's endTime; not read for a consumption), each a Float64Array. The columns
     * are copied into WASM memory in whole: the fastest way to load many events. Returns
     * `{ results, errors }`: one code per event in `results` (1 added or accepted, 0
     * rejected, 2 failed) and each failed event's error, the one its single call would
     * have thrown, in `errors` by index (an id that is not well-formed UTF-8: RangeError).
     */
    applyColumns(columns) {
      this.#at('applyColumns');
      const read = readColumns(columns);
      const self = this.#at('applyColumns'); // a getter of `columns` may have disposed the ledger
      const { kinds, ids, idEnds, amounts, times, endTimes } = read;
      const count = kinds.length;
      const results = new Uint8Array(count);
      const errors = new Map();
      for (let i = 0; i < count; i++) {
        try {
          checkColumnEvent(kinds[i], i === 0 ? idEnds[0] : idEnds[i] - idEnds[i - 1], amounts[i], times[i], endTimes[i], i);
        } catch (error) {
          results[i] = COLUMN_FAILED;
          errors.set(i, error);
        }
      }
      const fail = (i, status) => {
        const grant = kinds[i] === BATCH_GRANT;
        const method = grant ? 'addGrant' : 'consume';
        results[i] = COLUMN_FAILED;
        if (status === Status.INVALID_ID) {
          errors.set(i, new RangeError(`${method}: ${grant ? 'grantId' : 'eventId'} must be well-formed UTF-8 (applyColumns: event ${i})`));
          return;
        }
        const id = decoder.decode(ids.subarray(i === 0 ? 0 : idEnds[i - 1], idEnds[i]));
        errors.set(i, statusError(method, status, `${grant ? 'grant' : 'consumption'} ${JSON.stringify(id)}`));
      };
      const checked = errors.size;
      runColumns(module, raw, self, read, results, checked > 0, fail);
      this.#takeAcceptedPending();
      // The checks' errors came first and the core's after them: the Map in index order.
      const ordered = checked > 0 && errors.size > checked ? new Map([...errors].sort((a, b) => a[0] - b[0])) : errors;
      return { results, errors: ordered };
    }

    /**
     * Makes room for `count` more grants and consumptions at once, when the heap allows it
     * (else nothing): a load that arrives in parts (a log replayed one `applyBatch` per
     * page) then grows the ledger's arrays and the WebAssembly memory once instead of step
     * by step. Changes no answer; the room counts in `wasmHeapBytes()`.
     */
    reserveEvents(count) {
      const self = this.#at('reserveEvents');
      checkCount('reserveEvents', 'count', count);
      // The core takes an int32 and never holds 2^31 events: a larger count asks for as much.
      raw.reserveEvents(self, Math.min(count, 0x7fffffff));
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
      const self = this.#at('tryConsume');
      checkId('tryConsume', 'eventId', eventId);
      checkAmount('tryConsume', 'amount', amount);
      checkTime('tryConsume', 'timestamp', timestamp);
      const { dryRun = false } = checkTryConsumeOptions('tryConsume', options);
      this.#at('tryConsume'); // the options' getter may have disposed the ledger
      const count = raw.tryConsume(self, this.#id(eventId), amount, timestamp, dryRun ? 1 : 0);
      if (count < 0) throw statusError('tryConsume', -count, `consumption ${JSON.stringify(eventId)}`);
      return readResult(self, count, readConsumeResult, REJECT_REASONS);
    }

    grantsAt(timestamp) {
      const self = this.#at('grantsAt');
      checkTime('grantsAt', 'timestamp', timestamp);
      const count = raw.grantsAt(self, timestamp);
      if (count < 0) throw statusError('grantsAt', -count);
      return readResult(self, count, readGrantStates);
    }

    burnDown(grantId) {
      const self = this.#at('burnDown');
      checkId('burnDown', 'grantId', grantId);
      const count = raw.burnDown(self, this.#id(grantId));
      if (count === -Status.UNKNOWN_ID) return null;
      if (count < 0) throw statusError('burnDown', -count);
      return readResult(self, count, readBurnDown, grantId);
    }

    nextBelow(threshold, from) {
      const self = this.#at('nextBelow');
      checkAmount('nextBelow', 'threshold', threshold);
      checkTime('nextBelow', 'from', from);
      const count = raw.nextBelow(self, threshold, from);
      if (count < 0) throw statusError('nextBelow', -count);
      return count === 0 ? null : new Float64Array(module.HEAPU8.buffer, raw.resultNumbers(self), 1)[0];
    }

    // --- Grant lifecycle ---

    voidGrant(grantId) {
      const self = this.#at('voidGrant');
      checkId('voidGrant', 'grantId', grantId);
      const count = raw.voidGrant(self, this.#id(grantId));
      if (count < 0) throw statusError('voidGrant', -count, `grant ${JSON.stringify(grantId)}`);
      return readResult(self, count, readGrantChange);
    }

    setGrantEnd(grantId, endTime) {
      const self = this.#at('setGrantEnd');
      checkId('setGrantEnd', 'grantId', grantId);
      checkTime('setGrantEnd', 'endTime', endTime);
      const count = raw.setGrantEnd(self, this.#id(grantId), endTime);
      if (count === -Status.INVALID_WINDOW) {
        // Only the core knows the grant's start.
        throw new RangeError(`setGrantEnd: endTime must be >= the startTime of grant ${JSON.stringify(grantId)}, got ${endTime}`);
      }
      if (count < 0) {
        // An end before the horizon is refused before the grant is looked up: name the end.
        const early = count === -Status.BEFORE_HORIZON && endTime < this.horizon;
        throw statusError('setGrantEnd', -count, early ? `endTime ${endTime}` : `grant ${JSON.stringify(grantId)}`);
      }
      const change = readResult(self, count, readGrantChange); // before the next call reuses the buffer
      const accepted = this.#takeAcceptedPending();
      return { ...change, acceptedPending: accepted.map((consumption) => consumption.eventId) };
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
      const self = this.#at('pending');
      const count = raw.pending(self);
      if (count < 0) throw statusError('pending', -count);
      return readResult(self, count, readConsumptions);
    }

    cancelPending(eventId) {
      const self = this.#at('cancelPending');
      checkId('cancelPending', 'eventId', eventId);
      const result = raw.cancelPending(self, this.#id(eventId));
      if (result < 0) throw statusError('cancelPending', -result);
      return result === 1;
    }

    onPendingAccepted(listener) {
      this.#at('onPendingAccepted');
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
      const self = this.#at('reallocated');
      const count = raw.reallocated(self);
      if (count < 0) throw statusError('reallocated', -count);
      return readResult(self, count, readDrawnConsumptions);
    }

    // --- Finality horizon ---

    /**
     * Makes everything strictly before `horizon` final and frees it (README, "Finality
     * horizon"). Returns the horizon now in force and what was dropped; a horizon at or
     * below the current one changes nothing.
     */
    compact(horizon) {
      const self = this.#at('compact');
      checkTime('compact', 'horizon', horizon);
      const count = raw.compact(self, horizon);
      if (count < 0) throw statusError('compact', -count);
      return readResult(self, count, readCompactResult);
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
      const self = this.#at('toJSON');
      const grantCount = raw.grants(self);
      if (grantCount < 0) throw statusError('toJSON', -grantCount);
      const grants = readResult(self, grantCount, readGrants);
      const consumptionCount = raw.consumptions(self);
      if (consumptionCount < 0) throw statusError('toJSON', -consumptionCount);
      return writeSnapshot(grants, readResult(self, consumptionCount, readConsumptions), raw.horizon(self));
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
      // One pass: each entry is checked as it is staged (makeEntryReaders), and repeated
      // ids are left to the core's counts. When anything fails, the first error of the
      // document, which the order of the full check defines, is found from the ids the
      // pass read, without reading an entry's field again (throwFirstError).
      const horizon = readSnapshotHead(doc, checks);
      const { grants, consumptions } = doc;
      if (!Array.isArray(grants) || !Array.isArray(consumptions)) {
        throwFirstError(doc, [], 0, null); // throws: a list that is not an array is one of its errors
        throw refuse('grants and consumptions must be arrays');
      }
      const read = makeEntryReaders(checks, horizon, { MAX_ID_BYTES, MAX_SAFE });
      let ledger;
      try {
        ledger = new GPULedger();
      } catch {
        throw statusError('fromJSON', Status.OUT_OF_MEMORY); // the only way a new ledger fails
      }
      const count = grants.length + consumptions.length;
      const ids = new Array(count); // the ids read, grants' then consumptions'
      let at = 0; // entries read, and whose fields passed
      /** @type {Error | null} */
      let invalid = null; // an entry's error
      try {
        if (horizon > 0) ledger.compact(horizon); // an empty ledger: only sets the horizon
        /** @type {Error | null} */
        let failure = null;
        // The first entry the core refused: its error, naming the entry.
        const refusal = (i, result, id) => {
          if (i < grants.length) {
            const error = statusError('fromJSON', -result, `grant ${JSON.stringify(id)}`);
            // A RangeError (the grant total) is the document's fault: name the entry.
            return error instanceof RangeError
              ? refuse(`grants[${i}] (${JSON.stringify(id)}): ${error.message.slice('fromJSON: '.length)}`)
              : error;
          }
          return result === 0
            ? refuse(`consumptions[${i - grants.length}] (${JSON.stringify(id)}) cannot be funded: the rules would have rejected it`)
            : statusError('fromJSON', -result, `consumption ${JSON.stringify(id)}`);
        };
        const self = ledger.#at('fromJSON');
        const settle = (first, out, size) => {
          for (let k = 0; k < size && failure === null; k++) {
            if (out[k] !== 1) failure = refusal(first + k, out[k], run.id(k)); // the first failure is the answer
          }
        };
        const run = new BatchRun(module, raw, self, MAX_ID_BYTES, count, settle);
        const invalidEntry = (error) => {
          invalid = /** @type {Error} */ (error);
          return error;
        };
        for (let i = 0; i < grants.length; i++, at++) {
          try {
            ids[at] = read.grant(grants[i], i, run);
          } catch (error) {
            throw invalidEntry(error);
          }
          if (run.size === CHUNK) run.flush();
        }
        for (let i = 0; i < consumptions.length; i++, at++) {
          try {
            ids[at] = read.consumption(consumptions[i], i, run);
          } catch (error) {
            throw invalidEntry(error);
          }
          if (run.size === CHUNK) run.flush();
        }
        run.flush();
        run.end();
        if (failure !== null || raw.grantCount(self) !== grants.length || raw.consumptionCount(self) !== consumptions.length) {
          throwFirstError(doc, ids, count, null); // an id that appears twice
          throw failure ?? refuse('an id appears twice');
        }
      } catch (error) {
        ledger.dispose();
        if (invalid !== null) throwFirstError(doc, ids, at, invalid);
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
      return raw.heapBytes();
    }

    /** The size the WebAssembly heap may grow to; calls that could need more fail with `OUT_OF_MEMORY`. */
    static get maxHeapBytes() {
      return raw.heapMax();
    }

    get grantCount() {
      return raw.grantCount(this.#at('grantCount'));
    }

    get consumptionCount() {
      return raw.consumptionCount(this.#at('consumptionCount'));
    }

    get disposed() {
      return this.#self === 0;
    }

    dispose() {
      if (this.#self === 0) return;
      finalizer.unregister(this);
      raw.destroy(this.#self);
      this.#self = 0;
    }

    [disposeSymbol]() {
      this.dispose();
    }
  }

  return { GPULedger, LedgerError };
}
