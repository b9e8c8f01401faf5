#include "gpu_credit_ledger/ledger.h"

#include <algorithm>

#include "engine.h"
#include "incremental_engine.h"
#include "pending_queue.h"
#include "time_mirror.h"
#include "value_checks.h"
#ifndef GCL_NO_REPLAY_ENGINE
#include "replay_engine.h"
#endif

namespace gcl {

// A draw list tells a grant index from its array tag by one bit (draw_list.h).
static_assert(Ledger::kMaxEvents < DrawList::kMaxGrants, "grant indexes below the tag bit");

// The WebAssembly module is compiled with GCL_NO_REPLAY_ENGINE: no JavaScript API chooses
// an engine, so the reference engine (tests and the fuzzer hold the fast one to it) is
// left out of its link and every ledger there is incremental.
std::unique_ptr<Engine> makeEngine(EngineKind kind, const GrantTable& grants) {
#ifndef GCL_NO_REPLAY_ENGINE
  if (kind == EngineKind::kReplay) return std::make_unique<ReplayEngine>(grants);
#else
  static_cast<void>(kind);
#endif
  return std::make_unique<IncrementalEngine>(grants);
}

const char* statusName(Status status) {
  switch (status) {
    case Status::kOk:
      return "OK";
    case Status::kDuplicateId:
      return "DUPLICATE_ID";
    case Status::kInvalidId:
      return "INVALID_ID";
    case Status::kInvalidAmount:
      return "INVALID_AMOUNT";
    case Status::kInvalidTime:
      return "INVALID_TIME";
    case Status::kInvalidWindow:
      return "INVALID_WINDOW";
    case Status::kTotalOverflow:
      return "TOTAL_OVERFLOW";
    case Status::kUnknownId:
      return "UNKNOWN_ID";
    case Status::kLimitExceeded:
      return "LIMIT_EXCEEDED";
    case Status::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case Status::kBeforeHorizon:
      return "BEFORE_HORIZON";
  }
  return "UNKNOWN_STATUS";
}

bool isValidId(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes) return false;
  size_t i = 0;
  while (i < id.size()) {
    const auto lead = static_cast<unsigned char>(id[i]);
    size_t length;
    uint32_t codePoint;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2, codePoint = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3, codePoint = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4, codePoint = lead & 0x07;
    } else {
      return false;
    }
    if (i + length > id.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(id[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      codePoint = (codePoint << 6) | (next & 0x3F);
    }
    const bool overlong =
        (length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000);
    const bool surrogate = codePoint >= 0xD800 && codePoint <= 0xDFFF;
    if (overlong || surrogate || codePoint > 0x10FFFF) return false;
    i += length;
  }
  return true;
}

Ledger::Ledger(EngineKind kind)
    : grants_(std::make_unique<GrantTable>()),
      eventIds_(std::make_unique<IdIndex>()),
      engine_(makeEngine(kind, *grants_)),
      redrawLog_(std::make_unique<RedrawLog>()) {
  engine_->setRedrawLog(redrawLog_.get());
}

Ledger::~Ledger() = default;

Status Ledger::addGrant(std::string_view grantId, int64_t amount, int64_t startTime,
                        int64_t endTime) {
  const Status valid = checkGrant(grantId, amount, startTime, endTime);
  if (valid != Status::kOk) return valid;
  return insertGrant(grantId, amount, startTime, endTime);
}

Status Ledger::checkGrant(std::string_view grantId, int64_t amount, int64_t startTime,
                          int64_t endTime) const {
  if (!isValidId(grantId)) return Status::kInvalidId;
  if (!isValidAmount(amount)) return Status::kInvalidAmount;
  if (!isValidTime(startTime) || !isValidTime(endTime)) return Status::kInvalidTime;
  if (startTime > endTime) return Status::kInvalidWindow;
  if (startTime < horizon_) return Status::kBeforeHorizon;
  return Status::kOk;
}

Status Ledger::admitGrant(std::string_view grantId, uint32_t idHash, int64_t amount,
                          int64_t startTime, int64_t endTime, bool* retry) const {
  *retry = false;
  const uint32_t existing = grants_->ids.find(grantId, idHash);
  if (existing != IdIndex::kNotFound) {
    // Compared as the fresh ledger of compact() holds them: a carried grant keeps its own
    // start in the table (horizon.cpp) but starts at the horizon there, with the credit
    // left at it as its amount (what grantsAt and burnDown show), and that add is its
    // identical retry. Before any horizon (0) the starts compare as they are.
    const bool same =
        grants_->amount[existing] == amount &&
        std::max(grants_->startTime[existing], horizon_) == std::max(startTime, horizon_) &&
        grants_->endTime[existing] == endTime;
    if (!same) return Status::kDuplicateId;
    *retry = true;
    return Status::kOk;
  }
  if (amount > kMaxSafeInteger - grantTotal_) return Status::kTotalOverflow;
  return roomForEvent();
}

Status Ledger::insertGrant(std::string_view grantId, int64_t amount, int64_t startTime,
                           int64_t endTime) {
  const uint32_t idHash = IdIndex::hash(grantId);
  bool retry = false;
  const Status admitted = admitGrant(grantId, idHash, amount, startTime, endTime, &retry);
  if (admitted != Status::kOk) return admitted;
  startReallocations();
  if (retry) return Status::kOk;  // an identical retry: changes nothing
  const uint32_t grant = grants_->ids.add(grantId, idHash);
  grants_->amount.push_back(amount);
  grants_->startTime.push_back(startTime);
  grants_->endTime.push_back(endTime);
  grantTotal_ += amount;
  engine_->addGrant(grant);
  mirrorGrant(grant);
  retryPending();
  return Status::kOk;
}

Status Ledger::consume(std::string_view eventId, int64_t amount, int64_t timestamp,
                       bool* accepted) {
  bool retry = false;
  uint32_t idHash = 0;
  const Status admitted = admitConsumption(eventId, amount, timestamp, &retry, &idHash);
  if (admitted != Status::kOk) return admitted;
  startReallocations();
  if (retry) {
    *accepted = true;
    return Status::kOk;
  }
  *accepted = engine_->consume(amount, timestamp);
  if (*accepted) {
    acceptEventId(eventId, idHash);
    mirrorConsumption(amount, timestamp);
  }
  return Status::kOk;
}

Status Ledger::admitConsumption(std::string_view eventId, int64_t amount, int64_t timestamp,
                                bool* retry, uint32_t* idHash) const {
  *retry = false;
  const Status valid = checkConsumption(eventId, amount, timestamp);
  if (valid != Status::kOk) return valid;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  const uint32_t hash = IdIndex::hash(eventId);
  if (idHash != nullptr) *idHash = hash;
  const uint32_t existing = eventIds_->find(eventId, hash);
  if (existing != IdIndex::kNotFound) {
    const bool same =
        engine_->amountOf(existing) == amount && engine_->timestampOf(existing) == timestamp;
    if (!same) return Status::kDuplicateId;
    *retry = true;
    return Status::kOk;
  }
  const Status pendingStatus = checkPending(eventId, amount, timestamp);
  if (pendingStatus != Status::kOk) return pendingStatus;
  return roomForEvent();
}

Status Ledger::roomForEvent(size_t queued) const {
  return grantCount() + consumptionCount() + queued >= kMaxEvents ? Status::kLimitExceeded
                                                                  : Status::kOk;
}

Status Ledger::getBalance(int64_t timestamp, int64_t* balance) const {
  if (!isValidTime(timestamp)) return Status::kInvalidTime;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  *balance = engine_->balance(timestamp);
  return Status::kOk;
}

Status Ledger::allocations(std::string_view eventId, std::vector<Allocation>* out) const {
  out->clear();
  std::vector<IndexedDraw> draws;
  const Status status = allocationIndexes(eventId, &draws);
  if (status != Status::kOk) return status;
  out->reserve(draws.size());
  for (const IndexedDraw& draw : draws) {
    out->push_back({std::string(grants_->ids.at(draw.grant)), draw.amount});
  }
  return Status::kOk;
}

Status Ledger::allocationIndexes(std::string_view eventId, std::vector<IndexedDraw>* out) const {
  out->clear();
  if (!isValidId(eventId)) return Status::kInvalidId;
  const uint32_t handle = eventIds_->find(eventId);
  if (handle == IdIndex::kNotFound) return Status::kUnknownId;
  std::vector<Draw> draws;
  engine_->draws(handle, &draws);
  out->reserve(draws.size());
  for (const Draw& draw : draws) out->push_back({draw.grant, draw.amount});
  return Status::kOk;
}

Status Ledger::balanceCurveWithoutRoom(int64_t from, int64_t to) const {
  if (!isValidTime(from) || !isValidTime(to)) return Status::kInvalidTime;
  if (from > to) return Status::kInvalidWindow;
  if (from < horizon_) return Status::kBeforeHorizon;
  return Status::kOk;
}

Status Ledger::balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const {
  out->clear();
  const Status status = balanceCurveWithoutRoom(from, to);
  if (status != Status::kOk) return status;
  engine_->balanceCurve(from, to, out);
  return Status::kOk;
}

size_t Ledger::grantCount() const { return grants_->size(); }
size_t Ledger::consumptionCount() const { return eventIds_->size(); }

GrantRecord Ledger::grant(size_t index) const {
  const auto g = static_cast<uint32_t>(index);
  return {grants_->ids.at(g), grants_->amount[g], grants_->startTime[g], grants_->endTime[g]};
}

ConsumptionRecord Ledger::consumption(size_t index) const {
  const auto c = static_cast<uint32_t>(index);
  return {eventIds_->at(c), engine_->amountOf(c), engine_->timestampOf(c)};
}

void Ledger::setIndexAllowance(size_t bytes) {
  indexAllowance_ = bytes;
  engine_->setIndexAllowance(bytes);
}

void Ledger::setMinimumRedrawBudget(size_t budget) { engine_->setMinimumRedrawBudget(budget); }

size_t Ledger::eventRoom(size_t count) const {
  return std::min(count, kMaxEvents - std::min(kMaxEvents, grantCount() + consumptionCount()));
}

void Ledger::reserve(size_t consumptions) {
  // Never past the event limit: the ids beyond it could not be accepted anyway.
  const size_t count = eventRoom(consumptions);
  if (count == 0) return;
  eventIds_->reserve(count, 0);
  engine_->reserve(count);
}

void Ledger::prefetchIds(const std::string_view* ids, const bool* grant, size_t count) const {
  uint32_t hashes[kPrefetchRun];
  for (size_t from = 0; from < count; from += kPrefetchRun) {
    const size_t run = std::min(kPrefetchRun, count - from);
    for (size_t k = 0; k < run; ++k) hashes[k] = IdIndex::hash(ids[from + k]);
    uint32_t sum = 0;
    for (size_t k = 0; k < run; ++k) {
      sum += (grant[from + k] ? grants_->ids : *eventIds_).touch(hashes[k]);
    }
    prefetched_ += sum;
  }
}

size_t Ledger::reserveBytes(size_t consumptions) const {
  return eventIds_->reserveBytes(consumptions, 0) + engine_->reserveBytes(consumptions);
}

size_t Ledger::memoryBytes() const {
  return grants_->ids.bytes() + grants_->amount.capacity() * 3 * sizeof(int64_t) +
         eventIds_->bytes() + engine_->bytes() + (pending_ ? pending_->bytes() : 0) +
         redrawLog_->bytes() + (mirror_ ? mirror_->bytes() : 0);
}

void Ledger::giveUpMirror() {
  mirror_.reset();
  ++mirrorsGivenUp_;
  mirrorAfter_ = std::min<uint32_t>(mirrorAfter_ * 2, 1u << 20);
}

void Ledger::mirrorGrant(uint32_t grant) {
  ++writes_;
  if (mirror_ && !mirror_->addGrant(*grants_, grant)) {
    giveUpMirror();
  }
}

void Ledger::mirrorConsumption(int64_t amount, int64_t timestamp) {
  ++writes_;
  if (mirror_ && !mirror_->consume(amount, timestamp)) {
    giveUpMirror();
  }
}

}  // namespace gcl
