// The raw ledger class JS sees as _Ledger (bound in wasm_bindings.cpp). Each method
// checks the heap budget, calls gcl::Ledger and encodes the result (result_encoding.h).
// lib/ledger.js validates every argument first and turns status codes into JS errors:
// nothing here throws, so no C++ exception or abort ever crosses into JS.
#ifndef GPU_CREDIT_LEDGER_WASM_LEDGER_H_
#define GPU_CREDIT_LEDGER_WASM_LEDGER_H_

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "heap_budget.h"

namespace gcl_wasm {

// Ids travel through a per-ledger buffer in WASM memory that the wrapper writes UTF-8
// into directly: an embind std::string argument costs a malloc, a copy and a free per call,
// which was most of the time of a consume. Every idLength below is the length of the id
// the wrapper just wrote there.
class WasmLedger {
 public:
  using val = emscripten::val;

  WasmLedger();
  WasmLedger(const WasmLedger&) = delete;
  WasmLedger& operator=(const WasmLedger&) = delete;

  // This object's address: the first argument of the plain exports (wasm_bindings.cpp).
  double self() const { return address(this); }
  // Address of the id buffer (kMaxIdBytes long); the wrapper keeps it for the ledger's life.
  double idBuffer();

  // Status code (0 = ok).
  int addGrant(int idLength, double amount, double startTime, double endTime);
  // 1 accepted, 0 rejected, or minus a status code.
  int consume(int idLength, double amount, double timestamp);
  // The balance, or minus a status code.
  double getBalance(double timestamp) const;
  // Allocations, or null for an unknown id.
  val allocations(int idLength) const;
  // Fills the curve buffer; returns the point count or minus a status code. The wrapper
  // copies the points out through curveView().
  int balanceCurve(double from, double to);
  val curveView() const;

  double grantCount() const;
  double consumptionCount() const;
  val grants() const;
  val consumptions() const;

  // The amount, or minus a status code. The first query after a change builds the
  // headroom index (kept, so it is accounted).
  double headroom(double timestamp);
  val tryConsume(int idLength, double amount, double timestamp, bool dryRun);
  val grantsAt(double timestamp) const;
  // null for an unknown grant.
  val burnDown(int idLength) const;
  // The time, null when the balance never drops below the threshold, or minus a status.
  val nextBelow(double threshold, double from) const;
  val voidGrant(int idLength);
  val setGrantEnd(int idLength, double endTime);

  // 1 accepted, 0 queued, or minus a status code.
  int submit(int idLength, double amount, double timestamp);
  val pending() const;
  // 1 cancelled, 0 not queued, or minus a status code.
  int cancelPending(int idLength);
  // Whether queued consumptions were accepted since they were last taken: a number
  // for the plain export, so that the wrapper asks the embind method below only then.
  bool hasAcceptedPending();
  // null when no queued consumption was accepted since the last call, else the list.
  val takeAcceptedPending();

  // The consumptions the last call re-routed (gcl::Ledger::reallocated).
  val reallocated() const;
  void clearReallocated();

  // The finality horizon: what compact() dropped (encodeCompactResult) or minus a status
  // code; the horizon now; restoreGrant's status code (a version-2 snapshot's grants).
  val compact(double horizon);
  double horizon() const;
  int restoreGrant(int idLength, double amount, double startTime, double endTime);

  // Bulk loading (lib/batch.js): the wrapper reserves room for `count` events and
  // `idBytes` bytes of ids, writes them into the batch buffers below, and applyBatch runs
  // them in order, each exactly as its single call would, in one crossing. Per event:
  // kind (BatchKind), the end offset of its id in the id bytes, and three numbers
  // (amount, startTime, endTime for a grant; amount, timestamp, unused for a consumption).
  // Results, one per event: a consumption 1 accepted / 0 rejected, a grant 1 added, or
  // minus a status code; a kSkip event (refused by the wrapper's checks) is left as is.
  enum BatchKind : uint8_t {
    kBatchGrant = 0,
    kBatchConsume = 1,
    kBatchRestoreGrant = 2,
    kBatchSkip = 3
  };
  void reserveBatch(int count, int idBytes);
  // Before a batch of `count` events: room for that many consumptions at once
  // (gcl::Ledger::reserve), when the heap budget allows it; otherwise nothing, and the
  // batch grows the ledger step by step as single calls do.
  void reserveEvents(int count);
  double batchKinds() { return address(batchKinds_.data()); }
  double batchIdEnds() { return address(batchIdEnds_.data()); }
  double batchIds() { return address(batchIds_.data()); }
  double batchNumbers() { return address(batchNumbers_.data()); }
  double batchResults() { return address(batchResults_.data()); }
  void applyBatch(int count);

 private:
  static double address(const void* p) {
    return static_cast<double>(reinterpret_cast<uintptr_t>(p));
  }
  // Records the ledger's size in the heap budget after a call that may have changed it.
  // Whether a call of this cost fits the heap budget; if so, hands the ledger what is
  // left beyond it for optional indexes.
  bool admit(CallCost cost);
  void account();
  // One event of applyBatch: its result.
  int32_t applyBatchEvent(uint8_t kind, std::string_view id, const double* numbers);
  std::string_view id(int length) const;

  gcl::Ledger ledger_;
  std::string idBuffer_;
  HeapShare heap_;
  mutable std::vector<gcl::Allocation> allocations_;
  std::vector<gcl::BalancePoint> points_;
  // Accepted queued consumptions taken from the ledger and not yet handed to the wrapper.
  std::vector<gcl::PendingConsumption> acceptedPending_;
  std::vector<double> curve_;
  std::vector<uint8_t> batchKinds_;
  std::vector<uint32_t> batchIdEnds_;
  std::vector<char> batchIds_;
  std::vector<double> batchNumbers_;
  std::vector<int32_t> batchResults_;
};

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_WASM_LEDGER_H_
