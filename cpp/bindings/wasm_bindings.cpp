// The only file that knows about Emscripten. Raw methods for lib/ledger.js, which
// validates every argument first and turns status codes into JS errors: nothing here
// throws, so no C++ exception or abort ever crosses into JS.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace {

using emscripten::val;

// JS numbers arrive as doubles; the wrapper has already checked they are safe integers,
// this keeps a direct caller of the raw class from reaching undefined behaviour.
int64_t toInt64(double value) {
  if (!std::isfinite(value) || value < -9007199254740991.0 || value > 9007199254740991.0) {
    return -1;
  }
  return static_cast<int64_t>(value);
}

// Every ledger of the module shares one heap that can grow to MAXIMUM_MEMORY. A failed
// allocation would abort the instance (no exceptions here), so a call that might need more
// than the heap can still give is refused up front with kOutOfMemory. The worst a call can
// do is double the ledger's largest structures; other ledgers count as they are.
constexpr size_t kHeadroomBytes = size_t{64} << 20;  // buffers, curves, the JS glue's needs
size_t reservedBytes = 0;  // sum over live ledgers of memoryBytes() after their last call

bool heapCouldRefuse(size_t ledgerBytes) {
  return reservedBytes + ledgerBytes + kHeadroomBytes > emscripten_get_heap_max();
}

// Bytes of the WASM heap in use, for leak tests and diagnostics (walks the heap: slow).
double heapBytes() { return static_cast<double>(mallinfo().uordblks); }

// Appends [grantId, amount, ...] at *index: how every result carries its allocations.
void appendAllocations(const std::vector<gcl::Allocation>& allocations, val* out, unsigned* index) {
  for (const gcl::Allocation& allocation : allocations) {
    out->set((*index)++, allocation.grantId);
    out->set((*index)++, static_cast<double>(allocation.amount));
  }
}

// Ids travel through a per-ledger buffer in WASM memory that the wrapper writes UTF-8
// into directly: an embind std::string argument costs a malloc, a copy and a free per call,
// which was most of the time of a consume.
class WasmLedger {
 public:
  WasmLedger() : idBuffer_(gcl::kMaxIdBytes, '\0') { account(); }
  ~WasmLedger() { reservedBytes -= accounted_; }
  WasmLedger(const WasmLedger&) = delete;
  WasmLedger& operator=(const WasmLedger&) = delete;

  // Address of the id buffer (kMaxIdBytes long); the wrapper keeps it for the ledger's life.
  double idBuffer() { return static_cast<double>(reinterpret_cast<uintptr_t>(idBuffer_.data())); }

  // Status code (0 = ok). The grant id is the first idLength bytes of the id buffer.
  int addGrant(int idLength, double amount, double startTime, double endTime) {
    if (heapCouldRefuse(accounted_)) return static_cast<int>(gcl::Status::kOutOfMemory);
    const gcl::Status status =
        ledger_.addGrant(id(idLength), toInt64(amount), toInt64(startTime), toInt64(endTime));
    account();
    return static_cast<int>(status);
  }

  // 1 accepted, 0 rejected, negative: minus a status code.
  int consume(int idLength, double amount, double timestamp) {
    if (heapCouldRefuse(accounted_)) return -static_cast<int>(gcl::Status::kOutOfMemory);
    bool accepted = false;
    const gcl::Status status = ledger_.consume(id(idLength), toInt64(amount), toInt64(timestamp), &accepted);
    account();
    if (status != gcl::Status::kOk) return -static_cast<int>(status);
    return accepted ? 1 : 0;
  }

  // The balance, or minus a status code.
  double getBalance(double timestamp) const {
    int64_t balance = 0;
    const gcl::Status status = ledger_.getBalance(toInt64(timestamp), &balance);
    if (status != gcl::Status::kOk) return -static_cast<double>(status);
    return static_cast<double>(balance);
  }

  // [grantId, amount, grantId, amount, ...] in draw order, or null for an unknown id.
  val allocations(int idLength) const {
    if (ledger_.allocations(id(idLength), &allocations_) != gcl::Status::kOk) return val::null();
    val out = val::array();
    unsigned index = 0;
    appendAllocations(allocations_, &out, &index);
    return out;
  }

  // Fills the curve buffer with [time, balance, time, balance, ...]; returns the point
  // count or minus a status code. The wrapper copies it out with curveView().slice().
  int balanceCurve(double from, double to) {
    curve_.clear();
    if (heapCouldRefuse(2 * accounted_)) return -static_cast<int>(gcl::Status::kOutOfMemory);
    const gcl::Status status = ledger_.balanceCurve(toInt64(from), toInt64(to), &points_);
    if (status != gcl::Status::kOk) return -static_cast<int>(status);
    curve_.reserve(points_.size() * 2);
    for (const gcl::BalancePoint& point : points_) {
      curve_.push_back(static_cast<double>(point.time));
      curve_.push_back(static_cast<double>(point.balance));
    }
    return static_cast<int>(points_.size());
  }
  val curveView() const { return val(emscripten::typed_memory_view(curve_.size(), curve_.data())); }

  double grantCount() const { return static_cast<double>(ledger_.grantCount()); }
  double consumptionCount() const { return static_cast<double>(ledger_.consumptionCount()); }

  // Snapshots: [grantId, amount, startTime, endTime, ...] in the order added, and
  // [eventId, amount, timestamp, ...] in acceptance order.
  val grants() const {
    val out = val::array();
    unsigned index = 0;
    for (size_t i = 0; i < ledger_.grantCount(); ++i) {
      const gcl::GrantRecord grant = ledger_.grant(i);
      out.set(index++, std::string(grant.grantId));
      out.set(index++, static_cast<double>(grant.amount));
      out.set(index++, static_cast<double>(grant.startTime));
      out.set(index++, static_cast<double>(grant.endTime));
    }
    return out;
  }
  val consumptions() const {
    val out = val::array();
    unsigned index = 0;
    for (size_t i = 0; i < ledger_.consumptionCount(); ++i) {
      const gcl::ConsumptionRecord consumption = ledger_.consumption(i);
      out.set(index++, std::string(consumption.eventId));
      out.set(index++, static_cast<double>(consumption.amount));
      out.set(index++, static_cast<double>(consumption.timestamp));
    }
    return out;
  }

  // --- Previews, grant lifecycle and pending consumptions. Errors come back as
  // minus a status code; ids and results travel as flat arrays the wrapper turns into objects.

  // The first query after a change builds the headroom index (kept, so it is accounted).
  double headroom(double timestamp) {
    if (heapCouldRefuse(2 * accounted_)) return -static_cast<double>(gcl::Status::kOutOfMemory);
    int64_t amount = 0;
    const gcl::Status status = ledger_.headroom(toInt64(timestamp), &amount);
    account();
    if (status != gcl::Status::kOk) return -static_cast<double>(status);
    return static_cast<double>(amount);
  }

  // [accepted (1/0), reason (gcl::RejectReason), blockingEventId or null, grantId, amount, ...].
  val tryConsume(int idLength, double amount, double timestamp, bool dryRun) {
    if (heapCouldRefuse(2 * accounted_)) return val(-static_cast<int>(gcl::Status::kOutOfMemory));
    gcl::ConsumeResult result;
    const gcl::Status status =
        ledger_.tryConsume(id(idLength), toInt64(amount), toInt64(timestamp), dryRun, &result);
    account();
    if (status != gcl::Status::kOk) return val(-static_cast<int>(status));
    val out = val::array();
    out.set(0, result.accepted ? 1 : 0);
    out.set(1, static_cast<int>(result.reason));
    out.set(2, result.blockingEventId.empty() ? val::null() : val(result.blockingEventId));
    unsigned index = 3;
    appendAllocations(result.allocations, &out, &index);
    return out;
  }

  // [grantId, amount, startTime, endTime, remaining, ...] in draw order.
  val grantsAt(double timestamp) const {
    if (heapCouldRefuse(accounted_)) return val(-static_cast<int>(gcl::Status::kOutOfMemory));
    std::vector<gcl::GrantState> states;
    const gcl::Status status = ledger_.grantsAt(toInt64(timestamp), &states);
    if (status != gcl::Status::kOk) return val(-static_cast<int>(status));
    val out = val::array();
    unsigned index = 0;
    for (const gcl::GrantState& state : states) {
      out.set(index++, state.grantId);
      out.set(index++, static_cast<double>(state.amount));
      out.set(index++, static_cast<double>(state.startTime));
      out.set(index++, static_cast<double>(state.endTime));
      out.set(index++, static_cast<double>(state.remaining));
    }
    return out;
  }

  // null for an unknown grant, else [amount, startTime, endTime, drawCount,
  // (timestamp, eventId, amount) per draw, (time, remaining) per curve point].
  val burnDown(int idLength) const {
    if (heapCouldRefuse(accounted_)) return val(-static_cast<int>(gcl::Status::kOutOfMemory));
    gcl::BurnDown burn;
    const gcl::Status status = ledger_.burnDown(id(idLength), &burn);
    if (status == gcl::Status::kUnknownId) return val::null();
    if (status != gcl::Status::kOk) return val(-static_cast<int>(status));
    val out = val::array();
    unsigned index = 0;
    out.set(index++, static_cast<double>(burn.amount));
    out.set(index++, static_cast<double>(burn.startTime));
    out.set(index++, static_cast<double>(burn.endTime));
    out.set(index++, static_cast<double>(burn.draws.size()));
    for (const gcl::BurnDownDraw& draw : burn.draws) {
      out.set(index++, static_cast<double>(draw.timestamp));
      out.set(index++, draw.eventId);
      out.set(index++, static_cast<double>(draw.amount));
    }
    for (const gcl::RemainingPoint& point : burn.remaining) {
      out.set(index++, static_cast<double>(point.time));
      out.set(index++, static_cast<double>(point.remaining));
    }
    return out;
  }

  // The time, null when the balance never drops below the threshold, or minus a status.
  val nextBelow(double threshold, double from) const {
    std::optional<int64_t> time;
    const gcl::Status status = ledger_.nextBelow(toInt64(threshold), toInt64(from), &time);
    if (status != gcl::Status::kOk) return val(-static_cast<int>(status));
    return time ? val(static_cast<double>(*time)) : val::null();
  }

  // [applied (1/0), blockingEventId or null, acceptedPending ids...].
  val voidGrant(int idLength) {
    if (heapCouldRefuse(2 * accounted_)) return val(-static_cast<int>(gcl::Status::kOutOfMemory));
    gcl::GrantChange change;
    const gcl::Status status = ledger_.voidGrant(id(idLength), &change);
    account();
    return grantChange(status, change);
  }
  val setGrantEnd(int idLength, double endTime) {
    if (heapCouldRefuse(2 * accounted_)) return val(-static_cast<int>(gcl::Status::kOutOfMemory));
    gcl::GrantChange change;
    const gcl::Status status = ledger_.setGrantEnd(id(idLength), toInt64(endTime), &change);
    account();
    return grantChange(status, change);
  }

  // 1 accepted, 0 queued, negative: minus a status code.
  int submit(int idLength, double amount, double timestamp) {
    if (heapCouldRefuse(accounted_)) return -static_cast<int>(gcl::Status::kOutOfMemory);
    gcl::SubmitOutcome outcome = gcl::SubmitOutcome::kQueued;
    const gcl::Status status =
        ledger_.submit(id(idLength), toInt64(amount), toInt64(timestamp), &outcome);
    account();
    if (status != gcl::Status::kOk) return -static_cast<int>(status);
    return outcome == gcl::SubmitOutcome::kAccepted ? 1 : 0;
  }

  // [eventId, amount, timestamp, ...] in retry order.
  val pending() const {
    std::vector<gcl::PendingConsumption> queued;
    ledger_.pending(&queued);
    return pendingArray(queued, false);
  }
  double pendingCount() const { return static_cast<double>(ledger_.pendingCount()); }

  // 1 cancelled, 0 not queued, negative: minus a status code.
  int cancelPending(int idLength) {
    bool cancelled = false;
    const gcl::Status status = ledger_.cancelPending(id(idLength), &cancelled);
    account();
    if (status != gcl::Status::kOk) return -static_cast<int>(status);
    return cancelled ? 1 : 0;
  }

  // null when no queued consumption was accepted since the last call, else
  // [eventId, amount, timestamp, allocationCount, grantId, amount, ..., eventId, ...].
  val takeAcceptedPending() {
    std::vector<gcl::PendingConsumption> accepted;
    ledger_.takeAcceptedPending(&accepted);
    if (accepted.empty()) return val::null();
    return pendingArray(accepted, true);
  }

 private:
  static val grantChange(gcl::Status status, const gcl::GrantChange& change) {
    if (status != gcl::Status::kOk) return val(-static_cast<int>(status));
    val out = val::array();
    out.set(0, change.applied ? 1 : 0);
    out.set(1, change.blockingEventId.empty() ? val::null() : val(change.blockingEventId));
    unsigned index = 2;
    for (const std::string& eventId : change.acceptedPending) out.set(index++, eventId);
    return out;
  }

  val pendingArray(const std::vector<gcl::PendingConsumption>& list, bool withAllocations) const {
    val out = val::array();
    unsigned index = 0;
    for (const gcl::PendingConsumption& consumption : list) {
      out.set(index++, consumption.eventId);
      out.set(index++, static_cast<double>(consumption.amount));
      out.set(index++, static_cast<double>(consumption.timestamp));
      if (!withAllocations) continue;
      ledger_.allocations(consumption.eventId, &allocations_);
      out.set(index++, static_cast<double>(allocations_.size()));
      appendAllocations(allocations_, &out, &index);
    }
    return out;
  }

  void account() {
    const size_t now = ledger_.memoryBytes() + idBuffer_.capacity() + sizeof(*this);
    reservedBytes = reservedBytes - accounted_ + now;
    accounted_ = now;
  }

  std::string_view id(int length) const {
    const size_t size = length < 0 ? 0 : std::min(static_cast<size_t>(length), idBuffer_.size());
    return std::string_view(idBuffer_.data(), size);
  }

  gcl::Ledger ledger_;
  std::string idBuffer_;
  size_t accounted_ = 0;
  mutable std::vector<gcl::Allocation> allocations_;
  std::vector<gcl::BalancePoint> points_;
  std::vector<double> curve_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(gpu_credit_ledger) {
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
      .function("pendingCount", &WasmLedger::pendingCount)
      .function("cancelPending", &WasmLedger::cancelPending)
      .function("takeAcceptedPending", &WasmLedger::takeAcceptedPending);
  emscripten::function("_heapBytes", &heapBytes);
  emscripten::function("_heapMax", &emscripten_get_heap_max);
}
