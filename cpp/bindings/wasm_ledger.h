// The raw ledger that lib/ledger.js drives through the plain exports of wasm_bindings.cpp
// (gcl_create makes one). Each method checks the heap budget, calls gcl::Ledger and
// returns a number, or encodes a longer result into the ledger's result buffer
// (result_encoding.h) and returns its slot count.
// lib/ledger.js validates every argument first and turns status codes into JS errors:
// nothing here throws, so no C++ exception or abort ever crosses into JS.
#ifndef GPU_CREDIT_LEDGER_WASM_LEDGER_H_
#define GPU_CREDIT_LEDGER_WASM_LEDGER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "heap_budget.h"
#include "result_encoding.h"

namespace gcl_wasm {

// A pointer into WebAssembly memory as JS receives it: a number (an address below 2^32).
inline double address(const void* p) { return static_cast<double>(reinterpret_cast<uintptr_t>(p)); }

// Ids travel through a per-ledger buffer in WASM memory that the wrapper writes UTF-8
// into directly: a string argument converted per call costs a malloc, a copy and a free,
// which was most of the time of a consume. Every idLength below is the length of the id
// the wrapper just wrote there. "A result" below: the slot count of what the call wrote
// into the result buffer (result()), or minus a status code.
class WasmLedger {
 public:
  WasmLedger();
  WasmLedger(const WasmLedger&) = delete;
  WasmLedger& operator=(const WasmLedger&) = delete;

  // Address of the id buffer (kMaxIdBytes long); the wrapper keeps it for the ledger's life.
  double idBuffer();

  // Status code (0 = ok).
  int addGrant(int idLength, double amount, double startTime, double endTime);
  // 1 accepted, 0 rejected, or minus a status code.
  int consume(int idLength, double amount, double timestamp);
  // The balance, or minus a status code.
  double getBalance(double timestamp) const;
  // A result (readAllocations); minus a status code for an unknown id.
  int allocations(int idLength);
  // Fills the curve buffer; returns the point count or minus a status code. The wrapper
  // copies the points out from curve().
  int balanceCurve(double from, double to);
  double curve() const { return address(curve_.data()); }

  double grantCount() const;
  double consumptionCount() const;
  int grants();
  int consumptions();

  // The amount, or minus a status code. The first query after a change builds the
  // headroom index (kept, so it is accounted).
  double headroom(double timestamp);
  int tryConsume(int idLength, double amount, double timestamp, bool dryRun);
  int grantsAt(double timestamp);
  // A result; minus kUnknownId's code for an unknown grant.
  int burnDown(int idLength);
  // A result: [time], none when the balance never drops below the threshold.
  int nextBelow(double threshold, double from);
  int voidGrant(int idLength);
  int setGrantEnd(int idLength, double endTime);

  // 1 accepted, 0 queued, or minus a status code.
  int submit(int idLength, double amount, double timestamp);
  int pending();
  // 1 cancelled, 0 not queued, or minus a status code.
  int cancelPending(int idLength);
  // Whether queued consumptions were accepted since they were last taken, so that the
  // wrapper asks for the list below only then.
  bool hasAcceptedPending();
  // A result: the queued consumptions accepted since the last call (none: 0 slots).
  int takeAcceptedPending();

  // The consumptions the last call re-routed (gcl::Ledger::reallocated).
  int reallocated();
  void clearReallocated();

  // The finality horizon: what compact() dropped (a result, encodeCompactResult); the
  // horizon now; restoreGrant's status code (a version-2 snapshot's grants).
  int compact(double horizon);
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
  // The batch buffers, one allocation: numbers (3 per event), id ends and results (4
  // bytes per event each), kinds (1 byte per event), then the id bytes.
  double batchNumbers() { return address(batchNumbers_()); }
  double batchIdEnds() { return address(batchIdEnds_()); }
  double batchResults() { return address(batchResults_()); }
  double batchKinds() { return address(batchKinds_()); }
  double batchIds() { return address(batchIds_()); }
  void applyBatch(int count);

  // The result buffer the last call that returned a result wrote.
  const ResultBuffer& result() const { return result_; }
  // Called by the wrapper once it has read a result: frees a large one.
  void releaseResult() { result_.release(); }

 private:
  // Whether a call of this cost fits the heap budget; if so, hands the ledger what is
  // left beyond it for optional indexes.
  bool admit(CallCost cost);
  // addGrant, consume or submit refused room for its worst case (the heap's ceiling): an
  // identical retry, which changes nothing, is still answered, and a refusal of its input,
  // id or horizon is still that refusal (Ledger::grantWithoutRoom and
  // consumptionWithoutRoom); anything else is OUT_OF_MEMORY. Reads only. One function out
  // of line for the three (a, b: a grant's start and end, a consumption's timestamp): the
  // hot calls stay small, and the link inlines a function with one caller whatever it is told.
  // applyBatch's events answer through it too (a grant's status as the batch's code).
  enum class Call { kAddGrant, kConsume, kSubmit };
  __attribute__((noinline)) int withoutRoom(Call call, std::string_view id, double amount, double a,
                                            double b);
  // The same for voidGrant (no endTime) and setGrantEnd: the refusal, an end the grant
  // already has, or OUT_OF_MEMORY.
  int grantChangeWithoutRoom(std::string_view id, std::optional<int64_t> endTime);
  // Records the ledger's size in the heap budget after a call that may have changed it.
  void account();
  // One event of applyBatch: its result.
  int32_t applyBatchEvent(uint8_t kind, std::string_view id, const double* numbers);
  std::string_view id(int length) const;

  gcl::Ledger ledger_;
  std::string idBuffer_;
  HeapShare heap_;
  ResultBuffer result_;
  std::vector<gcl::IndexedDraw> draws_;  // allocations()' scratch
  std::vector<gcl::BalancePoint> points_;
  // Accepted queued consumptions taken from the ledger and not yet handed to the wrapper.
  std::vector<gcl::PendingConsumption> acceptedPending_;
  std::vector<double> curve_;
  double* batchNumbers_() { return batch_.data(); }
  uint32_t* batchIdEnds_() {
    return reinterpret_cast<uint32_t*>(batchNumbers_() + 3 * batchCount_);
  }
  int32_t* batchResults_() { return reinterpret_cast<int32_t*>(batchIdEnds_() + batchCount_); }
  uint8_t* batchKinds_() { return reinterpret_cast<uint8_t*>(batchResults_() + batchCount_); }
  char* batchIds_() { return reinterpret_cast<char*>(batchKinds_() + batchCount_); }
  std::vector<double> batch_;  // doubles, so that the numbers are aligned
  size_t batchCount_ = 0;
  size_t batchIdBytes_ = 0;
};

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_WASM_LEDGER_H_
