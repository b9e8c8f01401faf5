// The module's JS face: binds the raw ledger class (wasm_ledger.h), the core's table of
// status codes, reasons and limits (core_table.h), and the heap diagnostics
// (heap_budget.h). Nothing but bindings here.
#include <emscripten/bind.h>

#include "core_table.h"
#include "heap_budget.h"
#include "wasm_ledger.h"

EMSCRIPTEN_BINDINGS(gpu_credit_ledger) {
  using gcl_wasm::WasmLedger;
  emscripten::class_<WasmLedger>("_Ledger")
      .constructor<>()
      .function("idBuffer", &WasmLedger::idBuffer)
      .function("addGrant", &WasmLedger::addGrant)
      .function("consume", &WasmLedger::consume)
      .function("getBalance", &WasmLedger::getBalance)
      .function("allocations", &WasmLedger::allocations)
      .function("balanceCurve", &WasmLedger::balanceCurve)
      .function("curveView", &WasmLedger::curveView)
      .function("grantCount", &WasmLedger::grantCount)
      .function("consumptionCount", &WasmLedger::consumptionCount)
      .function("grants", &WasmLedger::grants)
      .function("consumptions", &WasmLedger::consumptions)
      .function("headroom", &WasmLedger::headroom)
      .function("tryConsume", &WasmLedger::tryConsume)
      .function("grantsAt", &WasmLedger::grantsAt)
      .function("burnDown", &WasmLedger::burnDown)
      .function("nextBelow", &WasmLedger::nextBelow)
      .function("voidGrant", &WasmLedger::voidGrant)
      .function("setGrantEnd", &WasmLedger::setGrantEnd)
      .function("submit", &WasmLedger::submit)
      .function("pending", &WasmLedger::pending)
      .function("cancelPending", &WasmLedger::cancelPending)
      .function("takeAcceptedPending", &WasmLedger::takeAcceptedPending)
      .function("reallocated", &WasmLedger::reallocated)
      .function("clearReallocated", &WasmLedger::clearReallocated)
      .function("compact", &WasmLedger::compact)
      .function("horizon", &WasmLedger::horizon)
      .function("restoreGrant", &WasmLedger::restoreGrant)
      .function("reserveBatch", &WasmLedger::reserveBatch)
      .function("reserveEvents", &WasmLedger::reserveEvents)
      .function("batchKinds", &WasmLedger::batchKinds)
      .function("batchIdEnds", &WasmLedger::batchIdEnds)
      .function("batchIds", &WasmLedger::batchIds)
      .function("batchNumbers", &WasmLedger::batchNumbers)
      .function("batchResults", &WasmLedger::batchResults)
      .function("applyBatch", &WasmLedger::applyBatch);
  emscripten::function("_coreTable", &gcl_wasm::coreTable);
  emscripten::function("_heapBytes", &gcl_wasm::heapBytesInUse);
  emscripten::function("_heapMax", &gcl_wasm::heapMaxBytes);
}
