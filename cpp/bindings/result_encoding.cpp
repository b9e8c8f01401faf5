#include "result_encoding.h"

#include <algorithm>
#include <cstdlib>
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

ResultBuffer::~ResultBuffer() {
  std::free(numbers_);
  std::free(text_);
}

int ResultBuffer::encode(bool copied, Writer write, const void* data) {
  measuring_ = true;
  slots_ = 0;
  textBytes_ = 0;
  write(*this, data);
  measuring_ = false;
  if (!reserve(copied)) return failureCode(gcl::Status::kOutOfMemory);
  write(*this, data);
  return count();
}

bool ResultBuffer::reserve(bool copied) {
  count_ = 0;
  textSize_ = 0;
  if (slots_ <= numbersRoom_ && textBytes_ <= textRoom_) return true;
  // Sizes are 32-bit in WebAssembly: each step is checked against the ceiling, no sum wraps.
  const size_t max = heap_->ceiling();
  if (slots_ > max / sizeof(double) || textBytes_ > max - slots_ * sizeof(double)) return false;
  const size_t bytes = slots_ * sizeof(double) + textBytes_;
  if (!heap_->allowsTransient(bytes, copied ? bytes : 0)) return false;
  // The old room goes first; then the new, at least a small result's (kKeptSlots).
  std::free(numbers_);
  std::free(text_);
  numbersRoom_ = std::max(slots_, kKeptSlots);
  textRoom_ = std::max(textBytes_, kKeptSlots);
  numbers_ = static_cast<double*>(std::malloc(numbersRoom_ * sizeof(double)));
  text_ = static_cast<char*>(std::malloc(textRoom_));
  if (numbers_ != nullptr && text_ != nullptr) return true;
  std::free(numbers_);  // one of the two failed: neither is kept
  std::free(text_);
  numbers_ = nullptr;
  text_ = nullptr;
  numbersRoom_ = textRoom_ = 0;
  return false;
}

__attribute__((noinline)) ResultBuffer& ResultBuffer::add(double number) {
  if (measuring_) {
    ++slots_;
    return *this;
  }
  numbers_[count_++] = number;  // room reserved by encode for every slot measured
  return *this;
}

__attribute__((noinline)) ResultBuffer& ResultBuffer::add(std::string_view id) {
  if (measuring_) {
    ++slots_;
    textBytes_ += id.size();
    return *this;
  }
  numbers_[count_++] = utf16Length(id);
  std::memcpy(text_ + textSize_, id.data(), id.size());
  textSize_ += id.size();
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

ResultBuffer& ResultBuffer::addAllocations(const std::vector<gcl::IndexedDraw>& draws,
                                           const gcl::Ledger& ledger) {
  for (const gcl::IndexedDraw& draw : draws) add(ledger.grant(draw.grant).grantId).add(draw.amount);
  return *this;
}

ResultBuffer& ResultBuffer::addDrawnConsumption(const gcl::ConsumptionRecord& consumption,
                                                const gcl::Ledger& ledger) {
  ledger.allocationIndexes(consumption.eventId, &draws_);
  addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  return add(static_cast<double>(draws_.size())).addAllocations(draws_, ledger);
}

void ResultBuffer::release() {
  if (numbersRoom_ > kKeptSlots) {
    std::free(numbers_);
    numbers_ = nullptr;
    numbersRoom_ = 0;
  }
  if (textRoom_ > kKeptSlots) {
    std::free(text_);
    text_ = nullptr;
    textRoom_ = 0;
  }
  count_ = 0;
  textSize_ = 0;
}

int failureCode(gcl::Status status) { return -static_cast<int>(status); }

// Each encoder's writer reads its data through `const void*` (ResultBuffer::encode).
template <class T>
const T& as(const void* data) {
  return *static_cast<const T*>(data);
}

// A list whose entries the writer completes from the ledger (their ids, read in place).
template <class List>
struct WithLedger {
  const List& list;
  const gcl::Ledger& ledger;
};

int encodeAllocations(const std::vector<gcl::IndexedDraw>& draws, const gcl::Ledger& ledger,
                      ResultBuffer* out) {
  using Data = WithLedger<std::vector<gcl::IndexedDraw>>;
  const Data both{draws, ledger};
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& both = as<Data>(data);
        r.addAllocations(both.list, both.ledger);
      },
      &both);
}

int encodeConsumeResult(const gcl::ConsumeResult& result, ResultBuffer* out) {
  return out->encode(
      true,
      [](ResultBuffer& r, const void* data) {
        const auto& result = as<gcl::ConsumeResult>(data);
        r.add(result.accepted ? 1.0 : 0.0).add(static_cast<double>(result.reason));
        r.addIdOrNull(result.blockingEventId).addAllocations(result.allocations);
      },
      &result);
}

int encodeGrantStates(const std::vector<gcl::GrantState>& states, ResultBuffer* out) {
  return out->encode(
      true,
      [](ResultBuffer& r, const void* data) {
        for (const gcl::GrantState& state : as<std::vector<gcl::GrantState>>(data)) {
          r.add(std::string_view(state.grantId))
              .add(state.amount)
              .add(state.startTime)
              .add(state.endTime)
              .add(state.remaining);
        }
      },
      &states);
}

int encodeBurnDown(const gcl::BurnDown& burn, ResultBuffer* out) {
  return out->encode(
      true,
      [](ResultBuffer& r, const void* data) {
        const auto& burn = as<gcl::BurnDown>(data);
        r.add(burn.amount)
            .add(burn.startTime)
            .add(burn.endTime)
            .add(static_cast<double>(burn.draws.size()));
        for (const gcl::BurnDownDraw& draw : burn.draws) {
          r.add(draw.timestamp).add(std::string_view(draw.eventId)).add(draw.amount);
        }
        for (const gcl::RemainingPoint& point : burn.remaining) {
          r.add(point.time).add(point.remaining);
        }
      },
      &burn);
}

int encodeGrantChange(const gcl::GrantChange& change, ResultBuffer* out) {
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& change = as<gcl::GrantChange>(data);
        r.add(change.applied ? 1.0 : 0.0).addIdOrNull(change.blockingEventId);
      },
      &change);
}

// The ledger's own lists: read in place, no copy beside the result.
int encodeGrants(const gcl::Ledger& ledger, ResultBuffer* out) {
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& ledger = as<gcl::Ledger>(data);
        for (size_t i = 0; i < ledger.grantCount(); ++i) {
          const gcl::GrantRecord grant = ledger.grant(i);
          r.add(grant.grantId).add(grant.amount).add(grant.startTime).add(grant.endTime);
        }
      },
      &ledger);
}

int encodeConsumptions(const gcl::Ledger& ledger, ResultBuffer* out) {
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& ledger = as<gcl::Ledger>(data);
        for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
          const gcl::ConsumptionRecord consumption = ledger.consumption(i);
          r.addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
        }
      },
      &ledger);
}

void writeConsumptions(ResultBuffer& r, const void* data) {
  for (const gcl::PendingConsumption& consumption :
       as<std::vector<gcl::PendingConsumption>>(data)) {
    r.addConsumption(consumption.eventId, consumption.amount, consumption.timestamp);
  }
}

int encodeConsumptions(const std::vector<gcl::PendingConsumption>& queued, ResultBuffer* out) {
  return out->encode(true, writeConsumptions, &queued);
}

int encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger, ResultBuffer* out) {
  using Data = WithLedger<std::vector<gcl::PendingConsumption>>;
  const Data both{accepted, ledger};
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& both = as<Data>(data);
        for (const gcl::PendingConsumption& consumption : both.list) {
          r.addDrawnConsumption({consumption.eventId, consumption.amount, consumption.timestamp},
                                both.ledger);
        }
      },
      &both);
}

int encodeDrawnConsumptions(const std::vector<uint32_t>& moved, const gcl::Ledger& ledger,
                            ResultBuffer* out) {
  using Data = WithLedger<std::vector<uint32_t>>;
  const Data both{moved, ledger};
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& both = as<Data>(data);
        for (const uint32_t c : both.list)
          r.addDrawnConsumption(both.ledger.consumption(c), both.ledger);
      },
      &both);
}

int encodeTime(const std::optional<int64_t>& time, ResultBuffer* out) {
  return out->encode(
      false,
      [](ResultBuffer& r, const void* data) {
        const auto& time = as<std::optional<int64_t>>(data);
        if (time) r.add(*time);
      },
      &time);
}

int encodeCompactResult(const gcl::CompactResult& result, ResultBuffer* out) {
  return out->encode(
      true,
      [](ResultBuffer& r, const void* data) {
        const auto& result = as<gcl::CompactResult>(data);
        r.add(result.horizon)
            .add(static_cast<double>(result.droppedGrants))
            .add(static_cast<double>(result.droppedConsumptions));
        writeConsumptions(r, &result.droppedPending);
      },
      &result);
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
