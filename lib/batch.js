// Bulk loading: many grants and consumptions in one crossing into WASM per chunk
// (WasmLedger::applyBatch, cpp/bindings/wasm_ledger.h, through the plain exports `raw`).
// Ids travel as one UTF-8 buffer with end offsets, numbers as a Float64Array, results as
// an Int32Array; each event is applied exactly as its single call would apply it. Events
// come as objects (BatchRun: applyBatch, fromJSON) or as columns already in that shape
// (runColumns: applyColumns), which are copied in whole.
import { Utf8Decoder, Utf8Encoder } from './text.js';

const encoder = new Utf8Encoder();
const decoder = new Utf8Decoder('utf-8', { ignoreBOM: true }); // ids may start with U+FEFF

// Event kinds as WasmLedger::BatchKind numbers them.
export const BATCH_GRANT = 0;
export const BATCH_CONSUME = 1;
export const BATCH_RESTORE_GRANT = 2;
export const BATCH_SKIP = 3;

// Events per crossing: bounds the batch buffers (ids at most 3 bytes per UTF-16 unit).
// Small enough that the first crossings, which V8 runs as baseline code, are short.
export const CHUNK = 4096;

// A chunk staged in JavaScript before it crosses: kinds, UTF-8 ids with their end
// offsets, numbers (amount, time1, time2 per event). Allocated when the module loads and
// taken by each run (a run inside a run, from an event's getter, gets one of its own),
// not one per call: V8 runs a young-generation collection for each new typed array with
// storage of its own while a grown WASM memory's new ArrayBuffer is still young (two in a
// row), and that collection copies whatever the application has just allocated (for
// fromJSON, often the parsed snapshot: 40 ms for one of 10^5 events).
function newStage() {
  return {
    kinds: new Uint8Array(CHUNK),
    ids: new Uint8Array(16 * CHUNK), // grows when a chunk's ids need more
    idEnds: new Uint32Array(CHUNK),
    numbers: new Float64Array(3 * CHUNK),
  };
}
/** @type {ReturnType<typeof newStage> | null} */
let spareStage = newStage();
// Room for `need` bytes of ids in `stage` after its first `at`, which are kept.
function growIds(stage, at, need) {
  const grown = new Uint8Array(Math.max(2 * stage.ids.length, at + need));
  grown.set(stage.ids.subarray(0, at));
  stage.ids = grown;
}

function takeStage() {
  const stage = spareStage ?? newStage();
  spareStage = null;
  return stage;
}

// Copies a staged or given chunk of `size` events into the batch buffers of the ledger at
// `self` (reserved first: reserving may grow the heap, which replaces the views), applies
// it, and returns its raw results (a view of WASM memory, valid until the next call).
function crossChunk(module, raw, self, size, kinds, ids, idEnds, idBase, numbers) {
  const idBytes = size === 0 ? 0 : idEnds[size - 1] - idBase;
  raw.reserveBatch(self, size, idBytes);
  const heap = module.HEAPU8;
  heap.set(kinds, raw.batchKinds(self));
  heap.set(ids.subarray(idBase, idBase + idBytes), raw.batchIds(self));
  const ends = new Uint32Array(heap.buffer, raw.batchIdEnds(self), size);
  if (idBase === 0) ends.set(idEnds);
  else for (let k = 0; k < size; k++) ends[k] = idEnds[k] - idBase;
  new Float64Array(heap.buffer, raw.batchNumbers(self), 3 * size).set(numbers);
  raw.applyBatch(self, size);
  return new Int32Array(module.HEAPU8.buffer, raw.batchResults(self), size);
}

/**
 * A load of `count` events through the ledger at address `self` (`raw`: the module's plain
 * exports, module.exports), a chunk of at most CHUNK events at a time. The caller's own
 * loop stages the events in order (`put`, or `skip` for an event left out) and calls
 * `flush()` when `size` reaches CHUNK and after the last event; `flush` applies the staged
 * events and hands their raw results to `settle(first, results, size)` (first: the index of
 * the chunk's first event in the load; results[k]: 1, 0 or minus a status code, nothing for
 * a skipped event; `kind(k)` and `id(k)` tell what was staged), then `end()`. No callback
 * runs per event: the caller calls the staging methods directly, and V8 inlines them into
 * its loop. An event's getters run once and before any view of WASM memory is taken; a
 * call they make into the same ledger flushes the events staged before it first
 * (GPULedger's #at), as one call per event would have. Nothing here allocates per event.
 */
export class BatchRun {
  constructor(module, raw, self, maxIdBytes, count, settle) {
    this.module = module;
    this.raw = raw;
    this.self = self;
    this.maxIdBytes = maxIdBytes;
    this.settle = settle;
    this.stage = takeStage();
    this.first = 0; // the load's index of the first staged event
    this.size = 0; // events staged
    this.idBytes = 0; // their id bytes
    // The queued consumptions the applied events let in, taken from the core whenever a call
    // from an event's getter comes after them (GPULedger's #at), so that it does not report
    // them as its own; applyBatch hands them to the listeners with the rest at its end.
    this.acceptedPending = [];
    // Room for every event at once (a hint the core declines when the heap budget is
    // short): the core's arrays and the WASM memory then grow once, not step by step, and
    // V8 runs one garbage collection for the memory's growth instead of one per step.
    raw.reserveEvents(self, count);
  }

  /** Stages the next event: its kind (BATCH_GRANT, BATCH_CONSUME, BATCH_RESTORE_GRANT), id and numbers. */
  put(kind, id, amount, a, b) {
    const stage = this.stage;
    const k = this.size++;
    stage.kinds[k] = kind;
    let at = this.idBytes;
    if (at + 3 * id.length > stage.ids.length) growIds(stage, at, Math.min(3 * id.length, this.maxIdBytes));
    const ids = stage.ids;
    let ascii = true;
    for (let i = 0; i < id.length; i++) {
      const unit = id.charCodeAt(i);
      if (unit >= 0x80) {
        ascii = false;
        break;
      }
      ids[at + i] = unit;
    }
    at += ascii ? id.length : encoder.encodeInto(id, ids.subarray(at)).written;
    this.idBytes = at;
    stage.idEnds[k] = at;
    const numbers = stage.numbers;
    numbers[3 * k] = amount;
    numbers[3 * k + 1] = a;
    numbers[3 * k + 2] = b;
  }

  /** Leaves the next event out: the core does not see it, and it has no result. */
  skip() {
    const k = this.size++;
    this.stage.kinds[k] = BATCH_SKIP;
    this.stage.idEnds[k] = this.idBytes;
  }

  /** Chunk event k's kind as staged, and its id (for settle's error messages). */
  kind(k) {
    return this.stage.kinds[k];
  }
  id(k) {
    const { ids, idEnds } = this.stage;
    return decoder.decode(ids.subarray(k === 0 ? 0 : idEnds[k - 1], idEnds[k]));
  }

  /** Applies the staged events (if any) and settles them. */
  flush() {
    const size = this.size;
    if (size === 0) return;
    const { kinds, ids, idEnds, numbers } = this.stage;
    const full = size === CHUNK;
    const results = crossChunk(
      this.module,
      this.raw,
      this.self,
      size,
      full ? kinds : kinds.subarray(0, size),
      ids,
      full ? idEnds : idEnds.subarray(0, size),
      0,
      full ? numbers : numbers.subarray(0, 3 * size),
    );
    const first = this.first;
    this.first += size;
    this.size = 0;
    this.idBytes = 0;
    this.settle(first, results, size);
  }

  /** After the last flush: frees the batch buffers (a ledger keeps no batch memory between calls). */
  end() {
    this.raw.reserveBatch(this.self, 0, 0);
    spareStage = this.stage;
  }
}

// applyColumns' result codes, one byte per event: 0 a consumption the ledger rejected,
// 1 a grant added (or an identical retry) or a consumption accepted (the core's own
// result codes for both), and:
export const COLUMN_FAILED = 2; // the event's single call would have thrown

/**
 * Runs the events of `columns` (GPULedger.applyColumns, checked there: kinds 0 and 1 are
 * BATCH_GRANT and BATCH_CONSUME) through the ledger at `self` in the chunks of BatchRun,
 * writing each event's code into `results`. Events already COLUMN_FAILED there stay out
 * (`anyFailed` false: none is); `fail(i, status)` gets each event the core refused.
 * The ids and kinds are copied into WASM memory in whole, the numbers interleaved as the
 * batch buffer holds them.
 */
export function runColumns(module, raw, self, columns, results, anyFailed, fail) {
  const { kinds, ids, idEnds, amounts, times, endTimes } = columns;
  const count = kinds.length;
  const stage = takeStage();
  raw.reserveEvents(self, count);
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    const numbers = stage.numbers;
    for (let k = 0; k < size; k++) {
      const i = start + k;
      numbers[3 * k] = amounts[i];
      numbers[3 * k + 1] = times[i];
      numbers[3 * k + 2] = endTimes[i];
    }
    let chunkKinds = kinds.subarray(start, start + size);
    let chunkIds = ids;
    let chunkEnds = idEnds.subarray(start, start + size);
    let idBase = start === 0 ? 0 : idEnds[start - 1];
    if (anyFailed) {
      let failedHere = false;
      for (let k = 0; k < size; k++) {
        const failed = results[start + k] === COLUMN_FAILED;
        failedHere ||= failed;
        stage.kinds[k] = failed ? BATCH_SKIP : chunkKinds[k];
      }
      chunkKinds = stage.kinds.subarray(0, size);
      if (failedHere) {
        // A failed event's id may be of any length (one over the limit fails its check):
        // the chunk's ids cross without the failed events' bytes.
        let at = 0;
        for (let k = 0; k < size; k++) {
          const i = start + k;
          if (results[i] !== COLUMN_FAILED) {
            const from = i === 0 ? 0 : idEnds[i - 1];
            if (at + idEnds[i] - from > stage.ids.length) growIds(stage, at, idEnds[i] - from);
            stage.ids.set(ids.subarray(from, idEnds[i]), at);
            at += idEnds[i] - from;
          }
          stage.idEnds[k] = at;
        }
        chunkIds = stage.ids;
        chunkEnds = stage.idEnds.subarray(0, size);
        idBase = 0;
      }
    }
    const out = crossChunk(
      module,
      raw,
      self,
      size,
      chunkKinds,
      chunkIds,
      chunkEnds,
      idBase,
      size === CHUNK ? numbers : numbers.subarray(0, 3 * size),
    );
    for (let k = 0; k < size; k++) {
      const i = start + k;
      if (anyFailed && results[i] === COLUMN_FAILED) continue;
      const result = out[k];
      if (result >= 0) results[i] = result;
      else fail(i, -result);
    }
  }
  raw.reserveBatch(self, 0, 0);
  spareStage = stage;
}
