// Readers of the results the bindings write into a ledger's result buffer in WebAssembly
// memory (cpp/bindings/result_encoding.h): one reader per result shape, each the mirror
// of one encoder there (same name with "encode"). A result is read in place: its numbers
// through a Float64Array view, where an id's slot holds the id's length in UTF-16 units
// (-1 for null), and its ids, decoded from UTF-8 at once, in the order their slots come.
// Each returns the type lib/index.d.ts declares for it (checked by tsconfig.lib.json).
import { Utf8Decoder } from './text.js';

/** @typedef {import('./index.js').Allocation} Allocation */

// ignoreBOM: an id may start with U+FEFF, which a default decoder drops as a byte-order mark.
const decoder = new Utf8Decoder('utf-8', { ignoreBOM: true });

// Past this many bytes a result's ids are decoded a window at a time: one string of all
// of them could pass the longest string V8 makes (2^29 - 24 characters), which a snapshot
// of half a million ids of 1 kB does.
const WINDOW_BYTES = 1 << 26;

/** The ids of a result, handed out in slot order. */
class Ids {
  /**
   * @param {Uint8Array} bytes every id of the result, one after another, as UTF-8 (a view
   *   of WebAssembly memory, read before the next call into the module)
   */
  constructor(bytes) {
    this.bytes = bytes;
    this.read = 0; // bytes decoded so far
    this.text = '';
    this.at = 0;
    this.nextWindow();
  }

  /**
   * The next id, given its slot's number (its length; -1 for null).
   * @param {number} units
   * @returns {string | null}
   */
  next(units) {
    return units < 0 ? null : this.nextId(units);
  }

  /**
   * The next id, which is never null.
   * @param {number} units
   * @returns {string}
   */
  nextId(units) {
    while (this.at + units > this.text.length && this.read < this.bytes.length) this.nextWindow();
    const id = this.text.slice(this.at, this.at + units);
    this.at += units;
    return id;
  }

  // Drops what was handed out and decodes the next window, cut before a character's first
  // byte (a UTF-8 continuation byte is 10xxxxxx), so that no character spans two windows.
  nextWindow() {
    const bytes = this.bytes;
    let end = Math.min(bytes.length, this.read + WINDOW_BYTES);
    while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
    const decoded = end === this.read ? '' : decoder.decode(bytes.subarray(this.read, end));
    this.text = this.at === 0 && this.text === '' ? decoded : this.text.slice(this.at) + decoded;
    this.at = 0;
    this.read = end;
  }
}

/** @typedef {{ numbers: Float64Array, ids: Ids }} Result a result as it sits in memory */

/**
 * A result of `count` slots: its numbers at `numbersAddress` and its ids' `textBytes`
 * UTF-8 bytes at `textAddress`, in `heap` (the module's memory, as bytes).
 * @param {Uint8Array} heap
 * @returns {Result}
 */
export function viewResult(heap, numbersAddress, count, textAddress, textBytes) {
  return {
    numbers: new Float64Array(heap.buffer, numbersAddress, count),
    ids: new Ids(heap.subarray(textAddress, textAddress + textBytes)),
  };
}

/**
 * `count` allocations from [grantId, amount, ...], starting at `start`.
 * @param {Result} result
 * @returns {Allocation[]}
 */
export function readAllocations({ numbers, ids }, start = 0, count = (numbers.length - start) / 2) {
  const allocations = new Array(count);
  for (let i = 0, k = start; i < count; i++, k += 2) {
    allocations[i] = { grantId: ids.nextId(numbers[k]), amount: numbers[k + 1] };
  }
  return allocations;
}

/**
 * tryConsume's result; `reasons[code]` names a reject reason.
 * @param {Result} result
 * @param {ReadonlyArray<import('./index.js').RejectReason | null>} reasons
 * @returns {import('./index.js').ConsumeResult}
 */
export function readConsumeResult(result, reasons) {
  const { numbers, ids } = result;
  const blockingEventId = ids.next(numbers[2]);
  return {
    accepted: numbers[0] === 1,
    allocations: readAllocations(result, 3),
    reason: reasons[numbers[1]],
    blockingEventId,
  };
}

/**
 * grantsAt's grants with what remains of each.
 * @param {Result} result
 * @returns {import('./index.js').GrantState[]}
 */
export function readGrantStates({ numbers, ids }) {
  const out = [];
  for (let i = 0; i < numbers.length; i += 5) {
    out.push({
      grantId: ids.nextId(numbers[i]),
      amount: numbers[i + 1],
      startTime: numbers[i + 2],
      endTime: numbers[i + 3],
      remaining: numbers[i + 4],
    });
  }
  return out;
}

/**
 * One grant's burn-down (its id is the caller's).
 * @param {Result} result
 * @param {string} grantId
 * @returns {import('./index.js').BurnDown}
 */
export function readBurnDown({ numbers, ids }, grantId) {
  const amount = numbers[0];
  const startTime = numbers[1];
  const endTime = numbers[2];
  const drawCount = numbers[3];
  const draws = new Array(drawCount);
  let i = 4;
  for (let k = 0; k < drawCount; k++, i += 3) {
    draws[k] = { timestamp: numbers[i], eventId: ids.nextId(numbers[i + 1]), amount: numbers[i + 2] };
  }
  /** @type {import('./index.js').RemainingPoint[]} */
  const remaining = [];
  for (; i < numbers.length; i += 2) remaining.push([numbers[i], numbers[i + 1]]);
  return { grantId, amount, startTime, endTime, draws, remaining };
}

/**
 * voidGrant's / setGrantEnd's outcome.
 * @param {Result} result
 * @returns {import('./index.js').GrantChangeResult}
 */
export function readGrantChange({ numbers, ids }) {
  return { applied: numbers[0] === 1, blockingEventId: ids.next(numbers[1]) };
}

/**
 * Grants as added.
 * @param {Result} result
 * @returns {import('./index.js').LedgerSnapshot['grants']}
 */
export function readGrants({ numbers, ids }) {
  const out = [];
  for (let i = 0; i < numbers.length; i += 4) {
    out.push({ grantId: ids.nextId(numbers[i]), amount: numbers[i + 1], startTime: numbers[i + 2], endTime: numbers[i + 3] });
  }
  return out;
}

/**
 * Consumptions (accepted ones, or queued ones) as submitted.
 * @param {Result} result
 * @returns {import('./index.js').PendingConsumption[]}
 */
export function readConsumptions({ numbers, ids }) {
  const out = [];
  for (let i = 0; i < numbers.length; i += 3) {
    out.push({ eventId: ids.nextId(numbers[i]), amount: numbers[i + 1], timestamp: numbers[i + 2] });
  }
  return out;
}

/**
 * Consumptions with their allocations now: the queued ones a call let in, or the ones it re-routed.
 * @param {Result} result
 * @returns {import('./index.js').Reallocation[]}
 */
export function readDrawnConsumptions(result) {
  const { numbers, ids } = result;
  const out = [];
  for (let i = 0; i < numbers.length;) {
    const eventId = ids.nextId(numbers[i]);
    const count = numbers[i + 3];
    out.push({ eventId, amount: numbers[i + 1], timestamp: numbers[i + 2], allocations: readAllocations(result, i + 4, count) });
    i += 4 + 2 * count;
  }
  return out;
}

/**
 * `count` [time, balance] points from a typed view of [time, balance, ...].
 * @param {Float64Array} view
 * @param {number} count
 * @returns {import('./index.js').BalancePoint[]}
 */
export function readCurve(view, count) {
  /** @type {import('./index.js').BalancePoint[]} */
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = [view[2 * i], view[2 * i + 1]];
  return out;
}

/**
 * What compact() made final: [horizon, droppedGrants, droppedConsumptions, (eventId,
 * amount, timestamp) per dropped queued consumption].
 * @param {Result} result
 * @returns {import('./index.js').CompactResult}
 */
export function readCompactResult({ numbers, ids }) {
  const droppedPending = [];
  for (let i = 3; i < numbers.length; i += 3) {
    droppedPending.push({ eventId: ids.nextId(numbers[i]), amount: numbers[i + 1], timestamp: numbers[i + 2] });
  }
  return { horizon: numbers[0], droppedGrants: numbers[1], droppedConsumptions: numbers[2], droppedPending };
}
