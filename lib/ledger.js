import { LedgerError } from './errors.js';
import { installPreviews, notifyAcceptedPending, readAllocations } from './previews.js';
import { readSnapshot, writeSnapshot } from './snapshot.js';
import { MAX_ID_BYTES, checkAmount, checkId, checkTime, checkWindow } from './validate.js';

// C++ gcl::Status codes (cpp/include/gpu_credit_ledger/ledger.h).
const Status = Object.freeze({
  OK: 0,
  DUPLICATE_ID: 1,
  INVALID_ID: 2,
  INVALID_AMOUNT: 3,
  INVALID_TIME: 4,
  INVALID_WINDOW: 5,
  TOTAL_OVERFLOW: 6,
  UNKNOWN_ID: 7,
  LIMIT_EXCEEDED: 8,
  OUT_OF_MEMORY: 9,
});

function statusError(method, status, what) {
  switch (status) {
    case Status.DUPLICATE_ID:
      return new LedgerError('DUPLICATE_ID', `${method}: ${what} already exists with different parameters`);
    case Status.TOTAL_OVERFLOW:
      return new RangeError(`${method}: amount would bring the total of all grants above 2^53 - 1`);
    case Status.LIMIT_EXCEEDED:
      return new LedgerError('LIMIT_EXCEEDED', `${method}: the ledger holds the maximum number of events`);
    case Status.OUT_OF_MEMORY:
      return new LedgerError('OUT_OF_MEMORY', `${method}: the WebAssembly heap cannot grow enough for this call`);
    default:
      // Unreachable after validation; kept so that a gap between the two layers is loud.
      return new RangeError(`${method}: rejected by the core with status ${status}`);
  }
}

const encoder = new TextEncoder();

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

/** Builds the public classes around one instantiated WASM module. */
export function makeApi(module) {
  // Frees the WASM object of a ledger that was garbage-collected without dispose().
  const finalizer = new FinalizationRegistry((handle) => handle.delete());

  // Writes a validated id as UTF-8 into the ledger's id buffer; returns its byte length.
  function writeId(address, text) {
    const heap = module.HEAPU8; // re-read: growing memory replaces the view
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x80) return encoder.encodeInto(text, heap.subarray(address, address + MAX_ID_BYTES)).written;
      heap[address + i] = unit;
    }
    return text.length;
  }

  class GPULedger {
    #handle;
    #idAddress;

    constructor() {
      this.#handle = new module._Ledger();
      this.#idAddress = this.#handle.idBuffer();
      finalizer.register(this, this.#handle, this);
    }

    #live(method) {
      if (this.#handle === null) {
        throw new LedgerError('DISPOSED', `${method}: this ledger was disposed`);
      }
      return this.#handle;
    }

    static {
      // Previews, grant lifecycle and pending consumptions (lib/previews.js).
      installPreviews(this, {
        live: (ledger, method) => ledger.#live(method),
        writeId: (ledger, text) => writeId(ledger.#idAddress, text),
        statusError,
      });
    }

    addGrant(grantId, amount, startTime, endTime) {
      const handle = this.#live('addGrant');
      checkId('addGrant', 'grantId', grantId);
      checkAmount('addGrant', 'amount', amount);
      checkTime('addGrant', 'startTime', startTime);
      checkTime('addGrant', 'endTime', endTime);
      checkWindow('addGrant', 'startTime', startTime, 'endTime', endTime);
      const status = handle.addGrant(writeId(this.#idAddress, grantId), amount, startTime, endTime);
      if (status !== Status.OK) throw statusError('addGrant', status, `grant ${JSON.stringify(grantId)}`);
      notifyAcceptedPending(this, handle);
    }

    consume(eventId, amount, timestamp) {
      const handle = this.#live('consume');
      checkId('consume', 'eventId', eventId);
      checkAmount('consume', 'amount', amount);
      checkTime('consume', 'timestamp', timestamp);
      const result = handle.consume(writeId(this.#idAddress, eventId), amount, timestamp);
      if (result < 0) throw statusError('consume', -result, `consumption ${JSON.stringify(eventId)}`);
      return result === 1;
    }

    getBalance(timestamp) {
      const handle = this.#live('getBalance');
      checkTime('getBalance', 'timestamp', timestamp);
      return handle.getBalance(timestamp);
    }

    allocations(eventId) {
      const handle = this.#live('allocations');
      checkId('allocations', 'eventId', eventId);
      const flat = handle.allocations(writeId(this.#idAddress, eventId));
      if (flat === null) return null;
      return readAllocations(flat, 0, flat.length / 2);
    }

    balanceCurve(from, to) {
      const handle = this.#live('balanceCurve');
      checkTime('balanceCurve', 'from', from);
      checkTime('balanceCurve', 'to', to);
      checkWindow('balanceCurve', 'from', from, 'to', to);
      const count = handle.balanceCurve(from, to);
      if (count < 0) throw statusError('balanceCurve', -count);
      const flat = handle.curveView();
      const out = new Array(count);
      for (let i = 0; i < count; i++) out[i] = [flat[2 * i], flat[2 * i + 1]];
      return out;
    }

    /** The snapshot document: grants in the order added, consumptions in acceptance order. */
    toJSON() {
      const handle = this.#live('toJSON');
      return writeSnapshot(handle.grants(), handle.consumptions());
    }

    /**
     * Rebuilds a ledger from a snapshot (object or JSON text). Refuses, with nothing
     * built, a document that is malformed or that the rules would not have accepted.
     */
    static fromJSON(snapshot) {
      const { grants, consumptions, refuse } = readSnapshot(snapshot);
      const ledger = new GPULedger();
      try {
        for (const grant of grants) ledger.addGrant(grant.grantId, grant.amount, grant.startTime, grant.endTime);
        consumptions.forEach((consumption, i) => {
          if (!ledger.consume(consumption.eventId, consumption.amount, consumption.timestamp)) {
            throw refuse(`consumptions[${i}] (${JSON.stringify(consumption.eventId)}) cannot be funded: the rules would have rejected it`);
          }
        });
      } catch (error) {
        ledger.dispose();
        if (error instanceof RangeError) throw refuse(error.message);
        throw error;
      }
      return ledger;
    }

    /** Bytes in use on the WebAssembly heap shared by all ledgers (walks the heap: for diagnostics and leak tests). */
    static wasmHeapBytes() {
      return module._heapBytes();
    }

    /** The size the WebAssembly heap may grow to; calls that could need more fail with `OUT_OF_MEMORY`. */
    static get maxHeapBytes() {
      return module._heapMax();
    }

    get grantCount() {
      return this.#live('grantCount').grantCount();
    }

    get consumptionCount() {
      return this.#live('consumptionCount').consumptionCount();
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
