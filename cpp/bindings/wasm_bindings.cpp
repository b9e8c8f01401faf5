// The module's JS face: binds the raw ledger class (wasm_ledger.h), the core's table of
// status codes, reasons and limits (core_table.h), and the heap diagnostics
// (heap_budget.h). Nothing but bindings here.
//
// Two kinds of binding. The methods whose arguments and result are all numbers are plain
// WebAssembly exports (extern "C" below, gcl_ prefix, the ledger's address first): a call
// is one call into WebAssembly, with none of embind's per-call conversions and no
// generated invoker for V8 to warm up, which is most of what a fresh process spends on
// its first calls. lib/ledger.js reaches them through the glue's gclExports()
// (cpp/bindings/exports_post.js). The methods that return JS values (val) stay on the
// embind class _Ledger.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>

#include "core_table.h"
#include "heap_budget.h"
#include "wasm_ledger.h"

EMSCRIPTEN_BINDINGS(gpu_credit_ledger) {
  using gcl_wasm::WasmLedger;
  emscripten::class_<WasmLedger>("_Ledger")
      .constructor<>()
      .function("self", &WasmLedger::self)
      .function("allocations", &WasmLedger::allocations)
      .function("curveView", &WasmLedger::curveView)
      .function("grants", &WasmLedger::grants)
      .function("consumptions", &WasmLedger::consumptions)
      .function("tryConsume", &WasmLedger::tryConsume)
      .function("grantsAt", &WasmLedger::grantsAt)
      .function("burnDown", &WasmLedger::burnDown)
      .function("nextBelow", &WasmLedger::nextBelow)
      .function("voidGrant", &WasmLedger::voidGrant)
      .function("setGrantEnd", &WasmLedger::setGrantEnd)
      .function("pending", &WasmLedger::pending)
      .function("takeAcceptedPending", &WasmLedger::takeAcceptedPending)
      .function("reallocated", &WasmLedger::reallocated)
      .function("compact", &WasmLedger::compact);
  emscripten::function("_coreTable", &gcl_wasm::coreTable);
  emscripten::function("_heapBytes", &gcl_wasm::heapBytesInUse);
  emscripten::function("_heapMax", &gcl_wasm::heapMaxBytes);
}

// The numeric methods as plain exports. `self` is the address _Ledger.self() returned,
// of a ledger the wrapper has not deleted (lib/ledger.js checks that before every call).
namespace {
using gcl_wasm::WasmLedger;
WasmLedger* at(uintptr_t self) { return reinterpret_cast<WasmLedger*>(self); }
}  // namespace

extern "C" {
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
EMSCRIPTEN_KEEPALIVE int gcl_balanceCurve(uintptr_t self, double from, double to) {
  return at(self)->balanceCurve(from, to);
}
EMSCRIPTEN_KEEPALIVE double gcl_grantCount(uintptr_t self) { return at(self)->grantCount(); }
EMSCRIPTEN_KEEPALIVE double gcl_consumptionCount(uintptr_t self) {
  return at(self)->consumptionCount();
}
EMSCRIPTEN_KEEPALIVE double gcl_headroom(uintptr_t self, double timestamp) {
  return at(self)->headroom(timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_submit(uintptr_t self, int idLength, double amount, double timestamp) {
  return at(self)->submit(idLength, amount, timestamp);
}
EMSCRIPTEN_KEEPALIVE int gcl_cancelPending(uintptr_t self, int idLength) {
  return at(self)->cancelPending(idLength);
}
EMSCRIPTEN_KEEPALIVE int gcl_hasAcceptedPending(uintptr_t self) {
  return at(self)->hasAcceptedPending() ? 1 : 0;
}
EMSCRIPTEN_KEEPALIVE void gcl_clearReallocated(uintptr_t self) { at(self)->clearReallocated(); }
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
EMSCRIPTEN_KEEPALIVE void gcl_applyBatch(uintptr_t self, int count) { at(self)->applyBatch(count); }
}
