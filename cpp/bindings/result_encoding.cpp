#include "result_encoding.h"

#include <cstring>

#include "gpu_credit_ledger/cold_code.h"
GCL_COLD_CODE_BEGIN

namespace gcl_wasm {
namespace {

// Room a ledger keeps for results between calls (slots; text bytes likewise).
constexpr size_t kKeptSlots = 4096;

// The length in UTF-16 units of well-formed UTF-8: one unit per character, two for a
// character beyond the basic plane (a four-byte sequence).
double utf16Length(std::string_view utf8) {
  size_t units = 0;
  for (const char c : utf8) {
    const auto byte = static_cast<unsigned char>(c);
    units += (byte & 0xC0) != 0x80;
    units += byte >= 0xF0;
  }
  return static_cast<double>(units);
}

}  // namespace

void ResultBuffer::clear() {
  numbers_.clear();
  text_.clear();
}

ResultBuffer& ResultBuffer::add(double number) {
  numbers_.push_back(number);
  return *this;
}

ResultBuffer& ResultBuffer::add(std::string_view id) {
  numbers_.push_back(utf16Length(id));
  const size_t at = text_.size();
  text_.resize(at + id.size());
  std::memcpy(text_.data() + at, id.data(), id.size());
  return *this;
}

ResultBuffer& ResultBuffer::addIdOrNull(const std::string& id) {
  if (id.empty()) return add(-1.0);
  return add(std::string_view(id));
}

ResultBuffer& ResultBuffer::addAllocations(const std::vector<gcl::Allocation>& allocations) {
  for (const gcl::Allocation& allocation : allocations) {
    add(std::string_view(allocation.grantId)).add(allocation.amount);
  }
  return *this;
}

ResultBuffer& ResultBuffer::addConsumption(std::string_view eventId, int64_t amount,
                                           int64_t timestamp) {
  return add(eventId).add(amount).add(timestamp);
}

ResultBuffer& ResultBuffer::addDrawnConsumption(std::string_view eventId, int64_t amount,
                                                int64_t timestamp,
                                                const std::vector<gcl::Allocation>& allocations) {
  addConsumption(eventId, amount, timestamp).add(static_cast<double>(allocations.size()));
  return addAllocations(allocations);
}

void ResultBuffer::release() {
  if (numbers_.capacity() > kKeptSlots) std::vector<double>().swap(numbers_);
  if (text_.capacity() > kKeptSlots) std::vector<char>().swap(text_);
}

int failureCode(gcl::Status status) { return -static_cast<int>(status); }

int encodeAllocations(const std::vector<gcl::Allocation>& allocations, ResultBuffer* out) {
  out->clear();
  return out->addAllocations(allocations).count();
}

int encodeConsumeResult(const gcl::ConsumeResult& result, ResultBuffer* out) {
  out->clear();
  out->add(result.accepted ? 1.0 : 0.0).add(static_cast<double>(result.reason));
  out->addIdOrNull(result.blockingEventId);
  return out->addAllocations(result.allocations).count();
}

int encodeGrantStates(const std::vector<gcl::GrantState>& states, ResultBuffer* out) {
  out->clear();
  for (const gcl::GrantState& state : states) {
    out->add(std::string_view(state.grantId))
        .add(state.amount)
        .add(state.startTime)
        .add(state.endTime)
        .add(state.remaining);
  }
  return out->count();
}

int encodeBurnDown(const gcl::BurnDown& burn, ResultBuffer* out) {
  out->clear();
  out->add(burn.amount)
      .add(burn.startTime)
      .add(burn.endTime)
      .add(static_cast<double>(burn.draws.size()));
  for (const gcl::BurnDownDraw& draw : burn.draws) {
    out->add(draw.timestamp).add(std::string_view(draw.eventId)).add(draw.amount);
  }
  for (const gcl::RemainingPoint& point : burn.remaining) {
    out->add(point.time).add(point.remaining);
  }
  return out->count();
}

int encodeGrantChange(const gcl::GrantChange& change, ResultBuffer* out) {
  out->clear();
  out->add(change.applied ? 1.0 : 0.0).addIdOrNull(change.blockingEventId);
  return out->count();
}

int encodeGrants(const gcl::Ledger& ledger, ResultBuffer* out) {
  out->clear();
  for (size_t i = 0; i < ledger.grantCount(); ++i) {
    const gcl::GrantRecord grant = ledger.grant(i);
    out->add(grant.grantId).add(grant.amount).add(grant.startTime).add(grant.endTime);
  }
  return out->count();
}

int encodeConsumptions(const gcl::Ledger& ledger, ResultBuffer* out) {
  out->clear();
  for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
    const gcl::ConsumptionRecord consumption = ledger.consumption(i);
    out->addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  }
  return out->count();
}

int encodeConsumptions(const std::vector<gcl::PendingConsumption>& queued, ResultBuffer* out) {
  out->clear();
  for (const gcl::PendingConsumption& consumption : queued) {
    out->addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  }
  return out->count();
}

int encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger, ResultBuffer* out) {
  out->clear();
  std::vector<gcl::Allocation> allocations;
  for (const gcl::PendingConsumption& consumption : accepted) {
    ledger.allocations(consumption.eventId, &allocations);
    out->addDrawnConsumption(consumption.eventId, consumption.amount, consumption.timestamp,
                             allocations);
  }
  return out->count();
}

int encodeDrawnConsumptions(const std::vector<gcl::Reallocation>& moved, ResultBuffer* out) {
  out->clear();
  for (const gcl::Reallocation& consumption : moved) {
    out->addDrawnConsumption(consumption.eventId, consumption.amount, consumption.timestamp,
                             consumption.allocations);
  }
  return out->count();
}

int encodeCompactResult(const gcl::CompactResult& result, ResultBuffer* out) {
  out->clear();
  out->add(result.horizon)
      .add(static_cast<double>(result.droppedGrants))
      .add(static_cast<double>(result.droppedConsumptions));
  for (const gcl::PendingConsumption& queued : result.droppedPending) {
    out->addConsumption(queued.eventId, queued.amount, queued.timestamp);
  }
  return out->count();
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
