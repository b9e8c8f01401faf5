// The module's JS face: plain WebAssembly exports (extern "C", gcl_ prefix) for the raw
// ledger (wasm_ledger.h), the core's table of status codes, reasons and limits
// (core_table.h), and the heap diagnostics (heap_budget.h). Nothing but bindings here.
//
// Every argument and result is a number: a call is one call into WebAssembly, with no
// conversion layer and no generated invoker for V8 to warm up. A ledger is its address
// (gcl_create), the first argument of its methods; results longer than a number are
// written into the ledger's result buffer (result_encoding.h), which lib/decode.js reads
// in place through gcl_resultNumbers / gcl_resultText / gcl_resultTextBytes.
// lib/instantiate.js hands lib/ledger.js the exports by their gcl_ prefix (no glue).
#include <emscripten/em_macros.h>

#include <cstdint>

#include "core_table.h"
#include "gpu_credit_ledger/cold_code.h"
#include "heap_budget.h"
#include "wasm_ledger.h"

// `self` is the address gcl_create returned, of a ledger the wrapper has not destroyed
// (lib/ledger.js checks that before every call).
namespace {
using gcl_wasm::address;
using gcl_wasm::WasmLedger;
WasmLedger* at(uintptr_t self) { return reinterpret_cast<WasmLedger*>(self); }
}  // namespace

extern "C" {
// The calls a workload makes many times, and those that only hand back a number kept
// in the ledger: compiled for speed.
EMSCRIPTEN_KEEPALIVE double gcl_idBuffer(uintptr_t self) { return at(self)->idBuffer(); }
EMSCRIPTEN_KEEPALIVE int gcl_addGrant(uintptr_t self, int idLength, double amount, double startTime,
                                      double endTime) {
  return at(self)->addGrant(idLength, amount, startTime, endTime);
}
EMSCRIPTEN_KEEPALIVE int gcl_consume(uintptr_t self, int idLength, double amount,
                                     double timestamp) {
  return at(self)->consume(idLength, amount, timestamp);
}
EMSCRIPTEN_KEEPALIVE double gcl_getBalance(uintptr_t self, double timestamp) {
  return at(self)->getBalance(timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_allocations(uintptr_t self, int idLength) {
  return at(self)->allocations(idLength);
}
EMSCRIPTEN_KEEPALIVE double gcl_grantCount(uintptr_t self) { return at(self)->grantCount(); }
EMSCRIPTEN_KEEPALIVE double gcl_consumptionCount(uintptr_t self) {
  return at(self)->consumptionCount();
}
EMSCRIPTEN_KEEPALIVE double gcl_headroom(uintptr_t self, double timestamp) {
  return at(self)->headroom(timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_hasAcceptedPending(uintptr_t self) {
  return at(self)->hasAcceptedPending() ? 1 : 0;
}
EMSCRIPTEN_KEEPALIVE void gcl_applyBatch(uintptr_t self, int count) { at(self)->applyBatch(count); }

// Everything else (lifetime, the core's table, the heap, the result buffer, previews,
// the grant lifecycle, the pending queue, reallocations, compaction, a bulk load's
// buffers) is compiled for size, as the methods behind it are (cold_code.h).
GCL_COLD_CODE_BEGIN
// 0 when the heap has no room for one more ledger (an empty one holds under 8 KiB; new
// would abort the instance if malloc failed).
EMSCRIPTEN_KEEPALIVE double gcl_create() {
  constexpr size_t kNewLedgerBytes = size_t{16} << 10;
  if (!gcl_wasm::HeapShare::allowsNew(kNewLedgerBytes)) return 0;
  return address(new WasmLedger());
}
EMSCRIPTEN_KEEPALIVE void gcl_destroy(uintptr_t self) { delete at(self); }
EMSCRIPTEN_KEEPALIVE double gcl_coreTable() { return address(gcl_wasm::coreTable()); }
EMSCRIPTEN_KEEPALIVE double gcl_heapBytes() { return gcl_wasm::heapBytesInUse(); }
EMSCRIPTEN_KEEPALIVE double gcl_heapMax() { return gcl_wasm::heapMaxBytes(); }
EMSCRIPTEN_KEEPALIVE double gcl_resultNumbers(uintptr_t self) {
  return address(at(self)->result().numbers());
}
EMSCRIPTEN_KEEPALIVE double gcl_resultText(uintptr_t self) {
  return address(at(self)->result().text());
}
EMSCRIPTEN_KEEPALIVE int gcl_resultTextBytes(uintptr_t self) {
  return at(self)->result().textBytes();
}
EMSCRIPTEN_KEEPALIVE void gcl_releaseResult(uintptr_t self) { at(self)->releaseResult(); }
EMSCRIPTEN_KEEPALIVE int gcl_balanceCurve(uintptr_t self, double from, double to) {
  return at(self)->balanceCurve(from, to);
}
EMSCRIPTEN_KEEPALIVE double gcl_curve(uintptr_t self) { return at(self)->curve(); }
EMSCRIPTEN_KEEPALIVE int gcl_grants(uintptr_t self) { return at(self)->grants(); }
EMSCRIPTEN_KEEPALIVE int gcl_consumptions(uintptr_t self) { return at(self)->consumptions(); }
EMSCRIPTEN_KEEPALIVE int gcl_tryConsume(uintptr_t self, int idLength, double amount,
                                        double timestamp, int dryRun) {
  return at(self)->tryConsume(idLength, amount, timestamp, dryRun != 0);
}
EMSCRIPTEN_KEEPALIVE int gcl_grantsAt(uintptr_t self, double timestamp) {
  return at(self)->grantsAt(timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_burnDown(uintptr_t self, int idLength) {
  return at(self)->burnDown(idLength);
}
EMSCRIPTEN_KEEPALIVE int gcl_nextBelow(uintptr_t self, double threshold, double from) {
  return at(self)->nextBelow(threshold, from);
}
EMSCRIPTEN_KEEPALIVE int gcl_voidGrant(uintptr_t self, int idLength) {
  return at(self)->voidGrant(idLength);
}
EMSCRIPTEN_KEEPALIVE int gcl_setGrantEnd(uintptr_t self, int idLength, double endTime) {
  return at(self)->setGrantEnd(idLength, endTime);
}
EMSCRIPTEN_KEEPALIVE int gcl_submit(uintptr_t self, int idLength, double amount, double timestamp) {
  return at(self)->submit(idLength, amount, timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_pending(uintptr_t self) { return at(self)->pending(); }
EMSCRIPTEN_KEEPALIVE int gcl_cancelPending(uintptr_t self, int idLength) {
  return at(self)->cancelPending(idLength);
}
EMSCRIPTEN_KEEPALIVE int gcl_takeAcceptedPending(uintptr_t self) {
  return at(self)->takeAcceptedPending();
}
EMSCRIPTEN_KEEPALIVE int gcl_reallocated(uintptr_t self) { return at(self)->reallocated(); }
EMSCRIPTEN_KEEPALIVE void gcl_clearReallocated(uintptr_t self) { at(self)->clearReallocated(); }
EMSCRIPTEN_KEEPALIVE int gcl_compact(uintptr_t self, double horizon) {
  return at(self)->compact(horizon);
}
EMSCRIPTEN_KEEPALIVE double gcl_horizon(uintptr_t self) { return at(self)->horizon(); }
EMSCRIPTEN_KEEPALIVE void gcl_reserveBatch(uintptr_t self, int count, int idBytes) {
  at(self)->reserveBatch(count, idBytes);
}
EMSCRIPTEN_KEEPALIVE void gcl_reserveEvents(uintptr_t self, int count) {
  at(self)->reserveEvents(count);
}
EMSCRIPTEN_KEEPALIVE double gcl_batchKinds(uintptr_t self) { return at(self)->batchKinds(); }
EMSCRIPTEN_KEEPALIVE double gcl_batchIdEnds(uintptr_t self) { return at(self)->batchIdEnds(); }
EMSCRIPTEN_KEEPALIVE double gcl_batchIds(uintptr_t self) { return at(self)->batchIds(); }
EMSCRIPTEN_KEEPALIVE double gcl_batchNumbers(uintptr_t self) { return at(self)->batchNumbers(); }
EMSCRIPTEN_KEEPALIVE double gcl_batchResults(uintptr_t self) { return at(self)->batchResults(); }
GCL_COLD_CODE_END
}
