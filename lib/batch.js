// Bulk loading: many grants and consumptions in one crossing into WASM per chunk
// (WasmLedger::applyBatch, cpp/bindings/wasm_ledger.h, through the plain exports `raw`).
// Ids travel as one UTF-8 buffer with end offsets, numbers as a Float64Array, results as
// an Int32Array; each event is applied exactly as its single call would apply it. Events
// come as objects (runBatch: applyBatch, fromJSON) or as columns already in that shape
// (runColumns: applyColumns), which are copied in whole.

const encoder = new TextEncoder();

// Event kinds as WasmLedger::BatchKind numbers them.
export const BATCH_GRANT = 0;
export const BATCH_CONSUME = 1;
export const BATCH_RESTORE_GRANT = 2;
export const BATCH_SKIP = 3;

// Events per crossing: bounds the batch buffers (ids at most 3 bytes per UTF-16 unit).
// Small enough that the first crossings, which V8 runs as baseline code, are short.
const CHUNK = 4096;

// The chunk's kinds, before it has a buffer in WASM memory: one array, allocated when
// the module loads and taken by each run (a run inside a run, from an event's getter,
// gets one of its own). Not one per call: V8 runs a young-generation collection for each
// new typed array with storage of its own while a grown WASM memory's new ArrayBuffer is
// still young (two in a row), and that collection copies whatever the application has
// just allocated (for fromJSON, often the parsed snapshot: 40 ms for one of 10^5 events).
/** @type {Uint8Array | null} */
let spareKinds = new Uint8Array(CHUNK);
function takeKinds() {
  const kinds = spareKinds ?? new Uint8Array(CHUNK);
  spareKinds = null;
  return kinds;
}

/**
 * Runs `count` events through the ledger at address `self` in chunks (`raw`: the module's
 * plain exports, module.exports). `describe(i, slot, first)` writes the event's
 * [kind, id, amount, time1, time2] into `slot` (kind BATCH_SKIP leaves it out); it is
 * called twice per event, `first` true the first time (where it validates);
 * `settle(i, result)` receives each event's raw result (1, 0 or minus a status code).
 * Nothing here allocates per event.
 */
export function runBatch(module, raw, self, maxIdBytes, count, describe, settle) {
  /** @type {[kind: number, id: string, amount: number, a: number, b: number]} */
  const slot = [BATCH_SKIP, '', 0, 0, 0];
  const kinds = takeKinds();
  // Room for every event at once (a hint the core declines when the heap budget is
  // short): the core's arrays and the WASM memory then grow once, not step by step, and
  // V8 runs one garbage collection for the memory's growth instead of one per step.
  raw.reserveEvents(self, count);
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    // First pass: the kinds, and a bound on the id bytes.
    let idBound = 0;
    for (let k = 0; k < size; k++) {
      describe(start + k, slot, true);
      kinds[k] = slot[0];
      if (slot[0] !== BATCH_SKIP) idBound += Math.min(3 * slot[1].length, maxIdBytes);
    }
    raw.reserveBatch(self, size, idBound);
    // Reserving may grow the heap, which replaces the views: take them after it.
    const heap = module.HEAPU8;
    const kindAddress = raw.batchKinds(self);
    const ends = new Uint32Array(heap.buffer, raw.batchIdEnds(self), size);
    const numbers = new Float64Array(heap.buffer, raw.batchNumbers(self), 3 * size);
    const idAddress = raw.batchIds(self);
    heap.set(size === CHUNK ? kinds : kinds.subarray(0, size), kindAddress);
    let at = 0;
    for (let k = 0; k < size; k++) {
      if (kinds[k] !== BATCH_SKIP) {
        describe(start + k, slot, false);
        const id = slot[1];
        const base = idAddress + at;
        let ascii = true;
        for (let i = 0; i < id.length; i++) {
          const unit = id.charCodeAt(i);
          if (unit >= 0x80) {
            ascii = false;
            break;
          }
          heap[base + i] = unit;
        }
        at += ascii ? id.length : encoder.encodeInto(id, heap.subarray(base, idAddress + idBound)).written;
        numbers[3 * k] = slot[2];
        numbers[3 * k + 1] = slot[3];
        numbers[3 * k + 2] = slot[4];
      }
      ends[k] = at;
    }
    raw.applyBatch(self, size);
    const results = new Int32Array(module.HEAPU8.buffer, raw.batchResults(self), size);
    for (let k = 0; k < size; k++) {
      if (kinds[k] !== BATCH_SKIP) settle(start + k, results[k]);
    }
  }
  raw.reserveBatch(self, 0, 0); // frees the buffers: a ledger keeps no batch memory between calls
  spareKinds = kinds;
}

// applyColumns' result codes, one byte per event.
export const COLUMN_REJECTED = 0; // a consumption the ledger rejected
export const COLUMN_APPLIED = 1; // a grant added (or an identical retry), a consumption accepted
export const COLUMN_FAILED = 2; // the event's single call would have thrown

/**
 * Runs the events of `columns` (GPULedger.applyColumns, checked there: kinds 0 and 1 are
 * BATCH_GRANT and BATCH_CONSUME) through the ledger at `self` in the chunks of runBatch,
 * writing each event's code into `results`. Events already COLUMN_FAILED there stay out
 * (`anyFailed` false: none is); `fail(i, status)` gets each event the core refused.
 * The ids and kinds are copied into WASM memory in whole, the numbers interleaved as the
 * batch buffer holds them.
 */
export function runColumns(module, raw, self, columns, results, anyFailed, fail) {
  const { kinds, ids, idEnds, amounts, times, endTimes } = columns;
  const count = kinds.length;
  const chunkKinds = takeKinds();
  raw.reserveEvents(self, count);
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const idStart = start === 0 ? 0 : idEnds[start - 1];
    raw.reserveBatch(self, size, idEnds[start + size - 1] - idStart);
    // Reserving may grow the heap, which replaces the views: take them after it.
    const heap = module.HEAPU8;
    if (anyFailed) {
      for (let k = 0; k < size; k++) chunkKinds[k] = results[start + k] === COLUMN_FAILED ? BATCH_SKIP : kinds[start + k];
      heap.set(size === CHUNK ? chunkKinds : chunkKinds.subarray(0, size), raw.batchKinds(self));
    } else {
      heap.set(kinds.subarray(start, start + size), raw.batchKinds(self));
    }
    heap.set(ids.subarray(idStart, idEnds[start + size - 1]), raw.batchIds(self));
    const ends = new Uint32Array(heap.buffer, raw.batchIdEnds(self), size);
    const numbers = new Float64Array(heap.buffer, raw.batchNumbers(self), 3 * size);
    for (let k = 0; k < size; k++) {
      const i = start + k;
      ends[k] = idEnds[i] - idStart;
      numbers[3 * k] = amounts[i];
      numbers[3 * k + 1] = times[i];
      numbers[3 * k + 2] = endTimes[i];
    }
    raw.applyBatch(self, size);
    const out = new Int32Array(module.HEAPU8.buffer, raw.batchResults(self), size);
    for (let k = 0; k < size; k++) {
      const i = start + k;
      if (anyFailed && results[i] === COLUMN_FAILED) continue;
      const result = out[k];
      if (result >= 0) results[i] = result;
      else fail(i, -result);
    }
  }
  raw.reserveBatch(self, 0, 0); // frees the buffers: a ledger keeps no batch memory between calls
  spareKinds = chunkKinds;
}
