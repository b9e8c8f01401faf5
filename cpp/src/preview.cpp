// Ledger previews: what a customer can still spend (headroom), what a consumption would do
// before it is made (tryConsume), and where credit stands per grant (grantsAt, burnDown)
// and over time (nextBelow). Nothing here changes the ledger except an accepted,
// non-dry tryConsume, which is consume().
#include <algorithm>

#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"
#include "headroom.h"
#include "replay_check.h"
#include "time_mirror.h"
#include "value_checks.h"

namespace gcl {
namespace {

struct Remaining {
  uint32_t grant;
  int64_t remaining;
};

// Grants valid at `timestamp` in draw order, with what the consumptions at or before it
// left in each. A new consumption at `timestamp` comes after all of those in replay order,
// so this is exactly what it would draw from.
std::vector<Remaining> remainingAt(const GrantTable& grants, const Engine& engine,
                                   int64_t timestamp) {
  DrawOrderHeap valid(&grants);  // the replay's heap: no sort of its own
  for (uint32_t g = 0; g < grants.size(); ++g) {
    if (grants.validAt(g, timestamp)) {
      valid.push(g, grants.amount[g] - engine.drawnThrough(g, timestamp));
    }
  }
  std::vector<Remaining> out;
  out.reserve(valid.size());
  for (; !valid.empty(); valid.pop()) out.push_back({valid.top().grant, valid.top().remaining});
  return out;
}

}  // namespace

Status Ledger::headroomWithoutRoom(int64_t timestamp, int64_t* amount, bool* answered) const {
  *answered = false;
  if (!isValidTime(timestamp)) return Status::kInvalidTime;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  // At or after every accepted consumption, a new one is last in replay order and sees
  // every grant's leftover there: the headroom is the balance, O(log n), no index.
  if (timestamp >= engine_->latestTimestamp()) {
    *amount = engine_->balance(timestamp);
    *answered = true;
  }
  return Status::kOk;
}

Status Ledger::headroom(int64_t timestamp, int64_t* amount) const {
  bool answered = false;
  const Status status = headroomWithoutRoom(timestamp, amount, &answered);
  if (status != Status::kOk || answered) return status;
  if (headroomFromMirror()) {
    *amount = mirror_->headroom(timestamp, engine_->balance(timestamp));
    return Status::kOk;
  }
  // The engine keeps the index (the incremental engine's also bounds its rejections,
  // docs/algorithms.md, fact 18).
  *amount = engine_->headroomAt(timestamp);
  return Status::kOk;
}

bool Ledger::headroomFromMirror() const {
  if (mirror_) return true;
  if (engine_->kind() != EngineKind::kIncremental) return false;  // the reference stays plain
  // One query after writes is answered as before (the engine's index or suffix sweep); when
  // they keep coming back, a mirror makes each O(log n). It weighs about what the ledger
  // does: built only where the heap's allowance for indexes holds that.
  if (writes_ != writesAtQuery_) {
    writesAtQuery_ = writes_;
    ++queriesAfterWrites_;
  }
  if (queriesAfterWrites_ < mirrorAfter_ || memoryBytes() > indexAllowance_) return false;
  queriesAfterWrites_ = 0;
  mirror_ =
      std::make_unique<TimeMirror>(*grants_, *engine_, static_cast<uint32_t>(consumptionCount()),
                                   4 * engine_->minimumRedrawBudget());
  return true;
}

GCL_COLD_CODE_BEGIN

Status Ledger::tryConsume(std::string_view eventId, int64_t amount, int64_t timestamp, bool dryRun,
                          ConsumeResult* out) {
  *out = {};
  Status status = Status::kOk;
  if (dryRun) {
    // consume()'s own checks, then the engine's answer without the change.
    bool retry = false;
    status = admitConsumption(eventId, amount, timestamp, &retry);
    if (status != Status::kOk) return status;
    if (retry) {
      out->accepted = true;
      return allocations(eventId, &out->allocations);
    }
    out->accepted = engine_->wouldAccept(amount, timestamp);
  } else {
    status = consume(eventId, amount, timestamp, &out->accepted);
    if (status != Status::kOk) return status;
    if (out->accepted) return allocations(eventId, &out->allocations);
  }
  if (out->accepted) {
    int64_t need = amount;
    for (const Remaining& grant : remainingAt(*grants_, *engine_, timestamp)) {
      const int64_t take = std::min(need, grant.remaining);
      if (take == 0) continue;
      out->allocations.push_back({std::string(grants_->ids.at(grant.grant)), take});
      need -= take;
      if (need == 0) break;
    }
    return Status::kOk;
  }
  // Everything before the new consumption in replay order is unchanged and funded, so it
  // is itself the first unfunded one exactly when the balance it sees is too small.
  if (engine_->balance(timestamp) < amount) {
    out->reason = RejectReason::kInsufficientCredit;
    return Status::kOk;
  }
  // Otherwise the engine usually knows the blocker from its own re-draw (fact 13 stops at
  // it), kept until a change reaches the blocker's time (fact 18); else replay everything.
  uint32_t blocker = 0;
  if (engine_->blockerOf(amount, timestamp, &blocker)) {
    out->reason = RejectReason::kWouldUnfund;
    out->blockingEventId = std::string(eventIds_->at(blocker));
    return Status::kOk;
  }
  const std::vector<uint32_t> order = replayOrder(*engine_, consumptionCount());
  std::vector<TimedAmount> ordered;
  ordered.reserve(order.size() + 1);
  size_t inserted = order.size();
  for (uint32_t c : order) {
    if (inserted == order.size() && engine_->timestampOf(c) > timestamp) {
      inserted = ordered.size();
      ordered.push_back({timestamp, amount});
    }
    ordered.push_back({engine_->timestampOf(c), engine_->amountOf(c)});
  }
  if (inserted == order.size()) ordered.push_back({timestamp, amount});
  const size_t blocked = firstUnfunded(*grants_, ordered);
  if (blocked == inserted || blocked == ordered.size()) {
    out->reason = RejectReason::kInsufficientCredit;  // unreachable: the check above decides
    return Status::kOk;
  }
  out->reason = RejectReason::kWouldUnfund;
  out->blockingEventId =
      std::string(eventIds_->at(order[blocked < inserted ? blocked : blocked - 1]));
  return Status::kOk;
}

Status Ledger::grantsAt(int64_t timestamp, std::vector<GrantState>* out) const {
  out->clear();
  if (!isValidTime(timestamp)) return Status::kInvalidTime;
  if (timestamp < horizon_) return Status::kBeforeHorizon;
  for (const Remaining& grant : remainingAt(*grants_, *engine_, timestamp)) {
    const uint32_t g = grant.grant;
    // A grant carried across the horizon starts there (see horizon.cpp).
    out->push_back({std::string(grants_->ids.at(g)), grants_->amount[g],
                    std::max(grants_->startTime[g], horizon_), grants_->endTime[g],
                    grant.remaining});
  }
  return Status::kOk;
}

Status Ledger::burnDown(std::string_view grantId, BurnDown* out) const {
  *out = {};
  if (!isValidId(grantId)) return Status::kInvalidId;
  const uint32_t g = grants_->ids.find(grantId);
  if (g == IdIndex::kNotFound) return Status::kUnknownId;
  out->grantId = std::string(grantId);
  out->amount = grants_->amount[g];
  out->startTime = std::max(grants_->startTime[g], horizon_);  // carried grants start there
  out->endTime = grants_->endTime[g];
  std::vector<GrantDraw> draws;
  engine_->drawsOn(g, &draws);
  // Every draw lies in the grant's window; the first point is its start, then one point
  // per distinct draw time after it (each lowers what remains).
  int64_t remaining = out->amount;
  out->remaining.push_back({out->startTime, remaining});
  for (const GrantDraw& draw : draws) {
    const int64_t t = engine_->timestampOf(draw.consumption);
    out->draws.push_back({t, std::string(eventIds_->at(draw.consumption)), draw.amount});
    remaining -= draw.amount;
    if (out->remaining.back().time == t) {
      out->remaining.back().remaining = remaining;
    } else {
      out->remaining.push_back({t, remaining});
    }
  }
  return Status::kOk;
}

Status Ledger::nextBelow(int64_t threshold, int64_t from, std::optional<int64_t>* time) const {
  time->reset();
  if (!isValidAmount(threshold)) return Status::kInvalidAmount;
  if (!isValidTime(from)) return Status::kInvalidTime;
  if (from < horizon_) return Status::kBeforeHorizon;
  const int64_t found = engine_->nextBelow(threshold, from);
  if (found >= 0) *time = found;
  return Status::kOk;
}

GCL_COLD_CODE_END

}  // namespace gcl
