#include "result_encoding.h"

#include <string>

#include "gpu_credit_ledger/cold_code.h"
GCL_COLD_CODE_BEGIN

namespace gcl_wasm {
namespace {

// Appends to a JS array at a running index.
class Writer {
 public:
  Writer() : out_(val::array()) {}
  Writer& add(double number) {
    out_.set(index_++, number);
    return *this;
  }
  Writer& add(int64_t number) { return add(static_cast<double>(number)); }
  Writer& add(std::string_view text) {
    out_.set(index_++, std::string(text));
    return *this;
  }
  // An optional id: null when empty.
  Writer& addIdOrNull(const std::string& id) {
    out_.set(index_++, id.empty() ? val::null() : val(id));
    return *this;
  }
  Writer& addAllocations(const std::vector<gcl::Allocation>& allocations) {
    for (const gcl::Allocation& allocation : allocations)
      add(allocation.grantId).add(allocation.amount);
    return *this;
  }
  Writer& addConsumption(std::string_view eventId, int64_t amount, int64_t timestamp) {
    return add(eventId).add(amount).add(timestamp);
  }
  Writer& addDrawnConsumption(std::string_view eventId, int64_t amount, int64_t timestamp,
                              const std::vector<gcl::Allocation>& allocations) {
    addConsumption(eventId, amount, timestamp).add(static_cast<double>(allocations.size()));
    return addAllocations(allocations);
  }
  val done() { return std::move(out_); }

 private:
  val out_;
  unsigned index_ = 0;
};

}  // namespace

int failureCode(gcl::Status status) { return -static_cast<int>(status); }
val failure(gcl::Status status) { return val(failureCode(status)); }

val encodeAllocations(const std::vector<gcl::Allocation>& allocations) {
  return Writer().addAllocations(allocations).done();
}

val encodeConsumeResult(const gcl::ConsumeResult& result) {
  Writer out;
  out.add(result.accepted ? 1.0 : 0.0).add(static_cast<double>(result.reason));
  out.addIdOrNull(result.blockingEventId);
  return out.addAllocations(result.allocations).done();
}

val encodeGrantStates(const std::vector<gcl::GrantState>& states) {
  Writer out;
  for (const gcl::GrantState& state : states) {
    out.add(state.grantId)
        .add(state.amount)
        .add(state.startTime)
        .add(state.endTime)
        .add(state.remaining);
  }
  return out.done();
}

val encodeBurnDown(const gcl::BurnDown& burn) {
  Writer out;
  out.add(burn.amount)
      .add(burn.startTime)
      .add(burn.endTime)
      .add(static_cast<double>(burn.draws.size()));
  for (const gcl::BurnDownDraw& draw : burn.draws)
    out.add(draw.timestamp).add(draw.eventId).add(draw.amount);
  for (const gcl::RemainingPoint& point : burn.remaining) out.add(point.time).add(point.remaining);
  return out.done();
}

val encodeGrantChange(const gcl::GrantChange& change) {
  Writer out;
  out.add(change.applied ? 1.0 : 0.0).addIdOrNull(change.blockingEventId);
  return out.done();
}

val encodeGrants(const gcl::Ledger& ledger) {
  Writer out;
  for (size_t i = 0; i < ledger.grantCount(); ++i) {
    const gcl::GrantRecord grant = ledger.grant(i);
    out.add(grant.grantId).add(grant.amount).add(grant.startTime).add(grant.endTime);
  }
  return out.done();
}

val encodeConsumptions(const gcl::Ledger& ledger) {
  Writer out;
  for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
    const gcl::ConsumptionRecord consumption = ledger.consumption(i);
    out.addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  }
  return out.done();
}

val encodeConsumptions(const std::vector<gcl::PendingConsumption>& queued) {
  Writer out;
  for (const gcl::PendingConsumption& consumption : queued) {
    out.addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  }
  return out.done();
}

val encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger) {
  Writer out;
  std::vector<gcl::Allocation> allocations;
  for (const gcl::PendingConsumption& consumption : accepted) {
    ledger.allocations(consumption.eventId, &allocations);
    out.addDrawnConsumption(consumption.eventId, consumption.amount, consumption.timestamp,
                            allocations);
  }
  return out.done();
}

val encodeDrawnConsumptions(const std::vector<gcl::Reallocation>& moved) {
  Writer out;
  for (const gcl::Reallocation& consumption : moved) {
    out.addDrawnConsumption(consumption.eventId, consumption.amount, consumption.timestamp,
                            consumption.allocations);
  }
  return out.done();
}

val encodeCompactResult(const gcl::CompactResult& result) {
  Writer out;
  out.add(result.horizon)
      .add(static_cast<double>(result.droppedGrants))
      .add(static_cast<double>(result.droppedConsumptions));
  for (const gcl::PendingConsumption& queued : result.droppedPending) {
    out.addConsumption(queued.eventId, queued.amount, queued.timestamp);
  }
  return out.done();
}

void encodeCurve(const std::vector<gcl::BalancePoint>& points, std::vector<double>* buffer) {
  buffer->clear();
  buffer->reserve(points.size() * 2);
  for (const gcl::BalancePoint& point : points) {
    buffer->push_back(static_cast<double>(point.time));
    buffer->push_back(static_cast<double>(point.balance));
  }
}

}  // namespace gcl_wasm

GCL_COLD_CODE_END
