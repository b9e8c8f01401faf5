// The core's rules as the WebAssembly module states them (cpp/bindings/core_table.cpp):
// every status code, reject reason and limit the package uses comes from here, so each
// is written once, in C++ (cpp/include/gpu_credit_ledger/ledger.h).
import { Utf8Decoder } from './text.js';

/**
 * Reads the table once per module from its JSON text, NUL-terminated at `address` in
 * `heap` (the module's memory, as bytes): `{ Status, REJECT_REASONS, MAX_ID_BYTES,
 * MAX_EVENTS, MAX_SAFE }`, where `Status` maps names ('OK', 'DUPLICATE_ID', ...) to codes
 * and `REJECT_REASONS[code]` is a reason's name (null for an accepted consumption).
 * @param {Uint8Array} heap
 * @param {number} address
 */
export function readCoreTable(heap, address) {
  const end = heap.indexOf(0, address);
  const table = JSON.parse(new Utf8Decoder().decode(heap.subarray(address, end)));
  return Object.freeze({
    Status: Object.freeze({ ...table.status }),
    REJECT_REASONS: Object.freeze([...table.rejectReasons]),
    MAX_ID_BYTES: table.maxIdBytes,
    MAX_EVENTS: table.maxEvents,
    MAX_SAFE: table.maxSafeInteger,
  });
}
