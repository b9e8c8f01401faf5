#include "wasm_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "gpu_credit_ledger/cold_code.h"
#include "result_encoding.h"

namespace gcl_wasm {
namespace {

// JS numbers arrive as doubles; the wrapper has already checked they are safe integers,
// this keeps a direct caller of the raw class from reaching undefined behaviour (-1 is
// invalid everywhere, so the core refuses it).
int64_t toInt64(double value) {
  constexpr auto kMax = static_cast<double>(gcl::kMaxSafeInteger);
  if (!std::isfinite(value) || value < -kMax || value > kMax) return -1;
  return static_cast<int64_t>(value);
}

// Draws whose list allocations() keeps between calls.
constexpr size_t kKeptDraws = 64;

}  // namespace

WasmLedger::WasmLedger() : idBuffer_(gcl::kMaxIdBytes, '\0'), result_(&heap_) { account(); }

double WasmLedger::idBuffer() { return address(idBuffer_.data()); }

int WasmLedger::addGrant(int idLength, double amount, double startTime, double endTime) {
  if (!admit(CallCost::kGrow))
    return withoutRoom(Call::kAddGrant, id(idLength), amount, startTime, endTime);
  const gcl::Status status =
      ledger_.addGrant(id(idLength), toInt64(amount), toInt64(startTime), toInt64(endTime));
  account();
  return static_cast<int>(status);
}

int WasmLedger::consume(int idLength, double amount, double timestamp) {
  if (!admit(CallCost::kGrow))
    return withoutRoom(Call::kConsume, id(idLength), amount, timestamp, 0);
  bool accepted = false;
  const gcl::Status status =
      ledger_.consume(id(idLength), toInt64(amount), toInt64(timestamp), &accepted);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return accepted ? 1 : 0;
}

double WasmLedger::getBalance(double timestamp) const {
  int64_t balance = 0;
  const gcl::Status status = ledger_.getBalance(toInt64(timestamp), &balance);
  if (status != gcl::Status::kOk) return failureCode(status);
  return static_cast<double>(balance);
}

int WasmLedger::allocations(int idLength) {
  // By grant index: no copy of the ids beside the result.
  const gcl::Status status = ledger_.allocationIndexes(id(idLength), &draws_);
  if (status != gcl::Status::kOk) return failureCode(status);
  const int count = encodeAllocations(draws_, ledger_, &result_);
  // Kept for the next call when small; a long list (a consumption drawing from thousands
  // of grants) is not held between calls.
  if (draws_.capacity() > kKeptDraws) std::vector<gcl::IndexedDraw>().swap(draws_);
  return count;
}

int WasmLedger::balanceCurve(double from, double to) {
  curve_.clear();
  if (!admit(CallCost::kRebuild)) {  // its refusal for its range still answers
    const gcl::Status refused = ledger_.balanceCurveWithoutRoom(toInt64(from), toInt64(to));
    return failureCode(refused != gcl::Status::kOk ? refused : gcl::Status::kOutOfMemory);
  }
  const gcl::Status status = ledger_.balanceCurve(toInt64(from), toInt64(to), &points_);
  if (status != gcl::Status::kOk) return failureCode(status);
  encodeCurve(points_, &curve_);
  return static_cast<int>(points_.size());
}

double WasmLedger::grantCount() const { return static_cast<double>(ledger_.grantCount()); }
double WasmLedger::consumptionCount() const {
  return static_cast<double>(ledger_.consumptionCount());
}
int WasmLedger::grants() { return encodeGrants(ledger_, &result_); }
int WasmLedger::consumptions() { return encodeConsumptions(ledger_, &result_); }

double WasmLedger::headroom(double timestamp) {
  int64_t amount = 0;
  if (!admit(CallCost::kRebuild)) {  // its refusal, and the balance where it answers, need no index
    bool answered = false;
    const gcl::Status status = ledger_.headroomWithoutRoom(toInt64(timestamp), &amount, &answered);
    if (status != gcl::Status::kOk) return failureCode(status);
    return answered ? static_cast<double>(amount) : failureCode(gcl::Status::kOutOfMemory);
  }
  const gcl::Status status = ledger_.headroom(toInt64(timestamp), &amount);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return static_cast<double>(amount);
}

GCL_COLD_CODE_BEGIN

int WasmLedger::tryConsume(int idLength, double amount, double timestamp, bool dryRun) {
  gcl::ConsumeResult result;
  if (!admit(CallCost::kRebuild)) {  // its refusal, and an identical retry, as consume answers them
    bool unchanged = false;
    const gcl::Status status = ledger_.consumptionWithoutRoom(
        id(idLength), toInt64(amount), toInt64(timestamp), false, &unchanged, &result.accepted);
    if (status != gcl::Status::kOk) return failureCode(status);
    if (!unchanged) return failureCode(gcl::Status::kOutOfMemory);
    if (!dryRun) ledger_.clearReallocated();  // as consume's own retry answers it
    const gcl::Status drawn = ledger_.allocations(id(idLength), &result.allocations);
    if (drawn != gcl::Status::kOk) return failureCode(drawn);
    return encodeConsumeResult(result, &result_);
  }
  const gcl::Status status =
      ledger_.tryConsume(id(idLength), toInt64(amount), toInt64(timestamp), dryRun, &result);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeConsumeResult(result, &result_);
}

int WasmLedger::grantsAt(double timestamp) {
  if (!heap_.allows(CallCost::kGrow)) return failureCode(gcl::Status::kOutOfMemory);
  std::vector<gcl::GrantState> states;
  const gcl::Status status = ledger_.grantsAt(toInt64(timestamp), &states);
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeGrantStates(states, &result_);
}

int WasmLedger::burnDown(int idLength) {
  if (!heap_.allows(CallCost::kGrow)) return failureCode(gcl::Status::kOutOfMemory);
  gcl::BurnDown burn;
  const gcl::Status status = ledger_.burnDown(id(idLength), &burn);
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeBurnDown(burn, &result_);
}

int WasmLedger::nextBelow(double threshold, double from) {
  std::optional<int64_t> time;
  const gcl::Status status = ledger_.nextBelow(toInt64(threshold), toInt64(from), &time);
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeTime(time, &result_);
}

int WasmLedger::voidGrant(int idLength) {
  if (!admit(CallCost::kRebuild)) return grantChangeWithoutRoom(id(idLength), std::nullopt);
  gcl::GrantChange change;
  const gcl::Status status = ledger_.voidGrant(id(idLength), &change);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeGrantChange(change, &result_);
}

int WasmLedger::setGrantEnd(int idLength, double endTime) {
  if (!admit(CallCost::kRebuild)) return grantChangeWithoutRoom(id(idLength), toInt64(endTime));
  gcl::GrantChange change;
  const gcl::Status status = ledger_.setGrantEnd(id(idLength), toInt64(endTime), &change);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeGrantChange(change, &result_);
}

int WasmLedger::submit(int idLength, double amount, double timestamp) {
  if (!admit(CallCost::kGrow))
    return withoutRoom(Call::kSubmit, id(idLength), amount, timestamp, 0);
  gcl::SubmitOutcome outcome = gcl::SubmitOutcome::kQueued;
  const gcl::Status status =
      ledger_.submit(id(idLength), toInt64(amount), toInt64(timestamp), &outcome);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return outcome == gcl::SubmitOutcome::kAccepted ? 1 : 0;
}

int WasmLedger::pending() {
  if (!heap_.allows(CallCost::kGrow)) return failureCode(gcl::Status::kOutOfMemory);
  std::vector<gcl::PendingConsumption> queued;
  ledger_.pending(&queued);
  return encodeConsumptions(queued, &result_);
}

int WasmLedger::cancelPending(int idLength) {
  bool cancelled = false;
  const gcl::Status status = ledger_.cancelPending(id(idLength), &cancelled);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return cancelled ? 1 : 0;
}

bool WasmLedger::hasAcceptedPending() {
  if (acceptedPending_.empty()) {
    ledger_.takeAcceptedPending(&acceptedPending_);
  } else {  // taken before and not handed over yet: keep the order
    std::vector<gcl::PendingConsumption> more;
    ledger_.takeAcceptedPending(&more);
    for (gcl::PendingConsumption& consumption : more)
      acceptedPending_.push_back(std::move(consumption));
  }
  return !acceptedPending_.empty();
}

int WasmLedger::takeAcceptedPending() {
  if (!hasAcceptedPending()) return encodeDrawnConsumptions(acceptedPending_, ledger_, &result_);
  const int count = encodeDrawnConsumptions(acceptedPending_, ledger_, &result_);
  if (count >= 0) acceptedPending_.clear();  // else kept for the next call to hand over
  return count;
}

int WasmLedger::reallocated() {
  // By index: no copy of the ids beside the result (the same grant id may be in the draws
  // of every consumption listed).
  std::vector<uint32_t> moved;
  ledger_.reallocatedIndexes(&moved);
  return encodeDrawnConsumptions(moved, ledger_, &result_);
}

void WasmLedger::clearReallocated() { ledger_.clearReallocated(); }

int WasmLedger::compact(double horizon) {
  gcl::CompactResult result;
  // Rebuilds the kept state beside the old one before freeing it.
  if (!admit(CallCost::kRebuild)) {  // its refusal, or a horizon that does not move
    bool unchanged = false;
    const gcl::Status status = ledger_.compactWithoutRoom(toInt64(horizon), &unchanged);
    if (status != gcl::Status::kOk) return failureCode(status);
    if (!unchanged) return failureCode(gcl::Status::kOutOfMemory);
    ledger_.clearReallocated();  // as compact's own answer
    result.horizon = ledger_.horizon();
    return encodeCompactResult(result, &result_);
  }
  const gcl::Status status = ledger_.compact(toInt64(horizon), &result);
  account();
  if (status != gcl::Status::kOk) return failureCode(status);
  return encodeCompactResult(result, &result_);
}

double WasmLedger::horizon() const { return static_cast<double>(ledger_.horizon()); }

int WasmLedger::withoutRoom(Call call, std::string_view id, double amount, double a, double b) {
  bool unchanged = false;
  bool accepted = false;
  const gcl::Status status =
      call == Call::kAddGrant
          ? ledger_.grantWithoutRoom(id, toInt64(amount), toInt64(a), toInt64(b), &unchanged)
          : ledger_.consumptionWithoutRoom(id, toInt64(amount), toInt64(a), call == Call::kSubmit,
                                           &unchanged, &accepted);
  // addGrant answers a status; consume and submit 1 or 0, or minus a status.
  const auto refused = [&](gcl::Status why) {
    return call == Call::kAddGrant ? static_cast<int>(why) : failureCode(why);
  };
  if (status != gcl::Status::kOk) return refused(status);
  if (!unchanged) return refused(gcl::Status::kOutOfMemory);
  ledger_.clearReallocated();  // an identical retry: as Ledger's own call answers it
  if (call == Call::kAddGrant) return static_cast<int>(gcl::Status::kOk);
  return accepted ? 1 : 0;
}

int WasmLedger::grantChangeWithoutRoom(std::string_view id, std::optional<int64_t> endTime) {
  bool unchanged = false;
  const gcl::Status status = ledger_.grantChangeWithoutRoom(id, endTime, &unchanged);
  if (status != gcl::Status::kOk) return failureCode(status);
  if (!unchanged) return failureCode(gcl::Status::kOutOfMemory);
  ledger_.clearReallocated();  // an end the grant already has: as setGrantEnd answers it
  gcl::GrantChange change;
  change.applied = true;
  return encodeGrantChange(change, &result_);
}

GCL_COLD_CODE_END

int WasmLedger::restoreGrant(int idLength, double amount, double startTime, double endTime) {
  if (!admit(CallCost::kGrow)) return static_cast<int>(gcl::Status::kOutOfMemory);
  const gcl::Status status =
      ledger_.restoreGrant(id(idLength), toInt64(amount), toInt64(startTime), toInt64(endTime));
  account();
  return static_cast<int>(status);
}

void WasmLedger::reserveBatch(int count, int idBytes) {
  batchCount_ = count < 0 ? 0 : static_cast<size_t>(count);
  batchIdBytes_ = idBytes < 0 ? 0 : static_cast<size_t>(idBytes);
  if (batchCount_ == 0) {  // the end of a batch: keep nothing between calls
    std::vector<double>().swap(batch_);
    batchIdBytes_ = 0;
    return;
  }
  // 24 bytes of numbers, 4 of id end, 4 of result and 1 of kind per event, then the ids.
  const size_t bytes = 33 * batchCount_ + batchIdBytes_;
  batch_.assign((bytes + sizeof(double) - 1) / sizeof(double), 0.0);
  std::fill_n(batchKinds_(), batchCount_, kBatchSkip);
}

// Bytes per event a loaded ledger holds beyond the arrays Ledger::reserve sizes (measured
// natively: 114-199 bytes per event in all, docs/performance.md, "Engine bytes per event").
constexpr size_t kUnreservedBytesPerEvent = 160;
// What a ledger loaded by applyBatch holds per event in WebAssembly (32-bit pointers),
// about: 90-96 bytes in all (docs/performance.md, "The heap grown for a load"), with a
// margin. The memory grows ahead of a load by this much, not by the bound above: that grew
// it past what a disposed ledger had left free (and for each batch of a load in runs,
// whose reservation was already made), and V8 answers each 64 MB of growth with a full
// collection of the JavaScript heap.
constexpr size_t kLoadedBytesPerEvent = 104;

void WasmLedger::reserveEvents(int count) {
  if (count <= 0) return;
  // Never past the event limit, where Ledger::reserve stops too: the events beyond it
  // could not be accepted, and the estimate below stays within 32 bits before its last
  // product, which is taken in 64.
  const size_t n = ledger_.eventRoom(static_cast<size_t>(count));
  if (n == 0) return;
  // What the ledger will hold after the batch, about: the engine's per-event structures
  // that reserve() does not size (balance tree, draw lists of the grants, ids) included.
  const uint64_t expected =
      uint64_t{ledger_.reserveBytes(n)} + uint64_t{n} * kUnreservedBytesPerEvent;
  if (expected > SIZE_MAX || !heap_.allowsBytes(static_cast<size_t>(expected))) return;
  heap_.growHeapFor(static_cast<size_t>(uint64_t{n} * kLoadedBytesPerEvent));  // < expected
  ledger_.reserve(n);
  account();
}

// Events whose ids applyBatch looks up ahead in one go (Ledger::prefetchIds).
constexpr size_t kPrefetchRun = gcl::Ledger::kPrefetchRun;
// Events between two takes of the ledger's share of the heap in a batch (applyBatch).
constexpr size_t kAccountRun = 32;

void WasmLedger::applyBatch(int count) {
  const size_t n = std::min(count < 0 ? size_t{0} : static_cast<size_t>(count), batchCount_);
  const auto idSize = static_cast<uint32_t>(batchIdBytes_);
  const double* numbers = batchNumbers_();
  const uint32_t* ends = batchIdEnds_();
  int32_t* results = batchResults_();
  const uint8_t* kinds = batchKinds_();
  const char* ids = batchIds_();
  auto idAt = [&](size_t i) {
    const uint32_t begin = i == 0 ? 0 : std::min(ends[i - 1], idSize);
    const uint32_t end = std::min(ends[i], idSize);
    return std::string_view(ids + begin, end < begin ? 0 : end - begin);
  };
  std::string_view runIds[kPrefetchRun];
  bool runGrants[kPrefetchRun];
  for (size_t i = 0; i < n; ++i) {
    // Every kPrefetchRun events, look where the next run's ids sit in the id tables first:
    // the misses of one tight loop overlap, those of separate calls would not.
    if (i % kPrefetchRun == 0) {
      size_t run = 0;
      for (size_t k = i; k < std::min(n, i + kPrefetchRun); ++k) {
        if (kinds[k] == kBatchSkip) continue;
        runIds[run] = idAt(k);
        runGrants[run++] = kinds[k] != kBatchConsume;
      }
      ledger_.prefetchIds(runIds, runGrants, run);
    }
    if (kinds[i] != kBatchSkip) results[i] = applyBatchEvent(kinds[i], idAt(i), &numbers[3 * i]);
    // The ledger's share of the heap is taken again every kAccountRun events and at the
    // end, rather than after each (summing its arrays was 8-15% of a bulk load). In
    // between, each event's budget check sees the share of up to kAccountRun events ago:
    // an array that doubled since cannot double again so soon, so the doubling it allows
    // for still covers what may yet double; what those events added otherwise (ids, tree
    // nodes: a few kB) is well inside the heap's slack (kHeapSlackBytes).
    if (i % kAccountRun == kAccountRun - 1 || i + 1 == n) account();
  }
}

// Kept out of applyBatch's loop on purpose: V8 first runs a WASM function as baseline
// code and swaps in optimised code only for later calls, so a long loop must call its
// work rather than inline it, or a whole chunk runs unoptimised.
__attribute__((noinline)) int32_t WasmLedger::applyBatchEvent(uint8_t kind, std::string_view id,
                                                              const double* numbers) {
  // The same budget check as each single call (the accounting: applyBatch), and at the
  // heap's ceiling the same answers: an identical retry of an add or a consumption is still
  // answered, and so is its refusal for its input (a restored grant is never a retry).
  if (!admit(CallCost::kGrow)) {
    if (kind == kBatchRestoreGrant) return failureCode(gcl::Status::kOutOfMemory);
    if (kind == kBatchConsume) return withoutRoom(Call::kConsume, id, numbers[0], numbers[1], 0);
    const auto status = static_cast<gcl::Status>(
        withoutRoom(Call::kAddGrant, id, numbers[0], numbers[1], numbers[2]));
    return status == gcl::Status::kOk ? 1 : failureCode(status);
  }
  const int64_t amount = toInt64(numbers[0]);
  gcl::Status status = gcl::Status::kOk;
  bool accepted = true;
  if (kind == kBatchGrant) {
    status = ledger_.addGrant(id, amount, toInt64(numbers[1]), toInt64(numbers[2]));
  } else if (kind == kBatchRestoreGrant) {
    status = ledger_.restoreGrant(id, amount, toInt64(numbers[1]), toInt64(numbers[2]));
  } else {
    status = ledger_.consume(id, amount, toInt64(numbers[1]), &accepted);
  }
  if (status != gcl::Status::kOk) return failureCode(status);
  return accepted ? 1 : 0;
}

bool WasmLedger::admit(CallCost cost) {
  if (!heap_.allows(cost)) return false;
  // What the call may take beyond its worst case goes to the optional headroom index.
  ledger_.setIndexAllowance(heap_.spareBytes(cost));
  return true;
}

void WasmLedger::account() {
  heap_.update(ledger_.memoryBytes() + idBuffer_.capacity() + sizeof(*this));
}

std::string_view WasmLedger::id(int length) const {
  const size_t size = length < 0 ? 0 : std::min(static_cast<size_t>(length), idBuffer_.size());
  return std::string_view(idBuffer_.data(), size);
}

}  // namespace gcl_wasm
