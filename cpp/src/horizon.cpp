// The finality horizon (docs/semantics.md, "Finality horizon"): compact(h) makes
// everything strictly before h final and frees it. The ledger is rebuilt from what stays:
// each grant that has not ended by h with the credit the consumptions before h left in it,
// then the consumptions at or after h in replay order. Under the replay those later
// consumptions come after every earlier one, so they see exactly that credit: the rebuilt
// ledger draws them exactly as before.
//
// A carried grant (one that started before h and ends at or after it) keeps its own
// startTime in the table: no call at a time before h is accepted any more, so its window
// before h is never observed, and startTime < horizon_ is what marks it as carried.
#include <algorithm>
#include <memory>
#include <string>

#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"
#include "pending_queue.h"
#include "replay_check.h"
#include "value_checks.h"

GCL_COLD_CODE_BEGIN

namespace gcl {

Status Ledger::compactWithoutRoom(int64_t horizon, bool* unchanged) const {
  *unchanged = false;
  if (!isValidTime(horizon)) return Status::kInvalidTime;
  *unchanged = horizon <= horizon_;  // the horizon only moves forward
  return Status::kOk;
}

Status Ledger::compact(int64_t horizon, CompactResult* out) {
  *out = {};
  bool unchanged = false;
  const Status status = compactWithoutRoom(horizon, &unchanged);
  if (status != Status::kOk) return status;
  startReallocations();
  if (unchanged) {
    out->horizon = horizon_;
    return Status::kOk;
  }
  const std::vector<uint32_t> order = replayOrder(*engine_, consumptionCount());
  const auto firstKept = std::partition_point(
      order.begin(), order.end(), [&](uint32_t c) { return engine_->timestampOf(c) < horizon; });
  out->droppedConsumptions = static_cast<size_t>(firstKept - order.begin());
  for (uint32_t g = 0; g < grants_->size(); ++g) {
    if (grants_->endTime[g] < horizon) ++out->droppedGrants;
  }
  if (pending_) pending_->dropBefore(horizon, &out->droppedPending);
  horizon_ = horizon;
  out->horizon = horizon;
  // Nothing dropped: no grant lost credit either, and carried grants stay as they are.
  if (out->droppedGrants == 0 && out->droppedConsumptions == 0) return Status::kOk;

  auto table = std::make_unique<GrantTable>();
  const size_t keptGrants = grants_->size() - out->droppedGrants;
  table->amount.reserve(keptGrants);
  table->startTime.reserve(keptGrants);
  table->endTime.reserve(keptGrants);
  int64_t total = 0;
  for (uint32_t g = 0; g < grants_->size(); ++g) {
    if (grants_->endTime[g] < horizon) continue;
    // horizon > 0 here, so horizon - 1 is a valid time.
    const int64_t left = grants_->amount[g] - engine_->drawnThrough(g, horizon - 1);
    table->ids.add(grants_->ids.at(g));
    table->amount.push_back(left);
    table->startTime.push_back(grants_->startTime[g]);
    table->endTime.push_back(grants_->endTime[g]);
    total += left;
  }
  const std::vector<uint32_t> kept(firstKept, order.end());
  replaceWith(std::move(table), kept, total);
  return Status::kOk;
}

Status Ledger::restoreGrant(std::string_view grantId, int64_t amount, int64_t startTime,
                            int64_t endTime) {
  const bool carried =
      isValidTime(startTime) && isValidTime(endTime) && startTime < horizon_ && horizon_ <= endTime;
  if (!carried) return addGrant(grantId, amount, startTime, endTime);
  // addGrant's checks, except that the credit left may be 0 and the start is before the
  // horizon (the times and the window hold: startTime < horizon_ <= endTime).
  if (!isValidId(grantId)) return Status::kInvalidId;
  if (amount < 0 || amount > kMaxSafeInteger) return Status::kInvalidAmount;
  return insertGrant(grantId, amount, startTime, endTime);
}

bool Ledger::startedBeforeHorizon(uint32_t grant) const {
  return grants_->startTime[grant] < horizon_;
}

bool Ledger::endChangeReordersFinalDraws(uint32_t grant, int64_t endTime) const {
  // The draws before the horizon are the replay of the consumptions before it over the
  // grants valid then, each drawing in (endTime, grantId) order. With both the old and the
  // new end at or after the horizon, the grant's validity before the horizon does not
  // change; only its place in that order can. The grants valid before the horizon that are
  // still here are the carried ones (the others ended before the horizon, so they come
  // before this grant either way). If no carried grant lies strictly between the old and
  // the new place, the order among grants valid before the horizon is unchanged, and so
  // is every final draw (docs/semantics.md has the whole argument).
  const int64_t oldEnd = grants_->endTime[grant];
  const std::string_view id = grants_->ids.at(grant);
  auto key = [&](uint32_t g) { return std::make_pair(grants_->endTime[g], grants_->ids.at(g)); };
  const auto lo = std::make_pair(std::min(oldEnd, endTime), id);
  const auto hi = std::make_pair(std::max(oldEnd, endTime), id);
  for (uint32_t k = 0; k < grants_->size(); ++k) {
    if (k == grant || !startedBeforeHorizon(k)) continue;
    if (lo < key(k) && key(k) < hi) return true;
  }
  return false;
}

std::string Ledger::checkInvariants() const {
  int64_t total = 0;
  for (uint32_t g = 0; g < grants_->size(); ++g) {
    const std::string id(grants_->ids.at(g));
    if (grants_->ids.find(id) != g) return "grant " + id + " is not found under its own id";
    if (grants_->endTime[g] < horizon_) return "grant " + id + " ended before the horizon";
    const int64_t floor = startedBeforeHorizon(g) ? 0 : 1;  // only carried grants may hold 0
    if (grants_->amount[g] < floor)
      return "grant " + id + " holds " + std::to_string(grants_->amount[g]);
    total += grants_->amount[g];
  }
  if (total != grantTotal_)
    return "grant total " + std::to_string(grantTotal_) + " != " + std::to_string(total);
  for (uint32_t c = 0; c < consumptionCount(); ++c) {
    const std::string id(eventIds_->at(c));
    if (eventIds_->find(id) != c) return "consumption " + id + " is not found under its own id";
    if (engine_->timestampOf(c) < horizon_) return "consumption " + id + " is before the horizon";
  }
  std::vector<PendingConsumption> queued;
  pending(&queued);
  for (const PendingConsumption& p : queued) {
    if (p.timestamp < horizon_) return "queued " + p.eventId + " is before the horizon";
    if (eventIds_->find(p.eventId) != IdIndex::kNotFound)
      return "queued " + p.eventId + " is also accepted";
  }
  return engine_->checkInvariants();
}

}  // namespace gcl

GCL_COLD_CODE_END
