// Grant lifecycle: voiding a grant and moving its end. Both take credit away (or, for an
// extension, move it), so both are vetted by a replay under the changed grants and then
// applied by rebuilding the engine: simple, exact, O((n + G) log(n + G)) per call.
#include <cassert>
#include <memory>
#include <optional>

#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"
#include "replay_check.h"
#include "time_mirror.h"
#include "value_checks.h"

GCL_COLD_CODE_BEGIN

namespace gcl {

Status Ledger::checkGrantChange(std::string_view grantId, std::optional<int64_t> endTime,
                                uint32_t* grant) const {
  if (!isValidId(grantId)) return Status::kInvalidId;
  if (endTime) {
    if (!isValidTime(*endTime)) return Status::kInvalidTime;
    if (*endTime < horizon_) return Status::kBeforeHorizon;  // before the id lookup, as every call
  }
  const uint32_t g = grants_->ids.find(grantId);
  if (g == IdIndex::kNotFound) return Status::kUnknownId;
  *grant = g;
  // Voided, its draws before the horizon (final) would be re-routed.
  if (!endTime) return startedBeforeHorizon(g) ? Status::kBeforeHorizon : Status::kOk;
  if (*endTime < grants_->startTime[g]) return Status::kInvalidWindow;
  if (*endTime != grants_->endTime[g] && startedBeforeHorizon(g) &&
      endChangeReordersFinalDraws(g, *endTime)) {
    return Status::kBeforeHorizon;
  }
  return Status::kOk;
}

Status Ledger::grantChangeWithoutRoom(std::string_view grantId, std::optional<int64_t> endTime,
                                      bool* unchanged) const {
  uint32_t g = 0;
  const Status status = checkGrantChange(grantId, endTime, &g);
  *unchanged = status == Status::kOk && endTime && *endTime == grants_->endTime[g];
  return status;
}

Status Ledger::voidGrant(std::string_view grantId, GrantChange* out) {
  *out = {};
  uint32_t voided = 0;
  const Status status = checkGrantChange(grantId, std::nullopt, &voided);
  if (status != Status::kOk) return status;
  startReallocations();
  // The other grants keep their arrival order; the voided id is simply gone.
  auto table = std::make_unique<GrantTable>();
  for (uint32_t g = 0; g < grants_->size(); ++g) {
    if (g == voided) continue;
    table->ids.add(grants_->ids.at(g));
    table->amount.push_back(grants_->amount[g]);
    table->startTime.push_back(grants_->startTime[g]);
    table->endTime.push_back(grants_->endTime[g]);
  }
  rebuildWith(std::move(table), grantTotal_ - grants_->amount[voided], out);
  return Status::kOk;
}

Status Ledger::setGrantEnd(std::string_view grantId, int64_t endTime, GrantChange* out) {
  *out = {};
  uint32_t g = 0;
  const Status status = checkGrantChange(grantId, endTime, &g);
  if (status != Status::kOk) return status;
  startReallocations();
  const int64_t oldEnd = grants_->endTime[g];
  if (endTime == oldEnd) {
    out->applied = true;
    return Status::kOk;
  }
  auto table = std::make_unique<GrantTable>(*grants_);
  table->endTime[g] = endTime;
  rebuildWith(std::move(table), grantTotal_, out);
  if (out->applied && endTime > oldEnd) retryPending();
  return Status::kOk;
}

void Ledger::rebuildWith(std::unique_ptr<GrantTable> table, int64_t total, GrantChange* out) {
  const std::vector<uint32_t> order = replayOrder(*engine_, consumptionCount());
  std::vector<TimedAmount> ordered;
  ordered.reserve(order.size());
  for (uint32_t c : order) ordered.push_back({engine_->timestampOf(c), engine_->amountOf(c)});
  const size_t blocked = firstUnfunded(*table, ordered);
  if (blocked < order.size()) {
    out->blockingEventId = std::string(eventIds_->at(order[blocked]));
    return;
  }
  replaceWith(std::move(table), order, total);
  out->applied = true;
}

void Ledger::replaceWith(std::unique_ptr<GrantTable> table, const std::vector<uint32_t>& order,
                         int64_t total) {
  // Fed in replay order, every consumption is an in-order append (cheap for the
  // incremental engine) and keeps its place: equal timestamps stay in acceptance order.
  // The callers make sure the set is fundable, and each prefix of a fundable set is
  // fundable, so all are accepted again.
  auto engine = makeEngine(engine_->kind(), *table);
  auto ids = std::make_unique<IdIndex>();
  for (uint32_t g = 0; g < table->size(); ++g) engine->addGrant(g);
  for (uint32_t c : order) {
    const bool accepted = engine->consume(engine_->amountOf(c), engine_->timestampOf(c));
    assert(accepted);
    (void)accepted;
    ids->add(eventIds_->at(c));
  }
  noteRebuildRedraws(*table, *engine, order);
  engine->setRedrawLog(redrawLog_.get());
  engine->setIndexAllowance(indexAllowance_);
  engine->setMinimumRedrawBudget(engine_->minimumRedrawBudget());
  engine_ = std::move(engine);
  eventIds_ = std::move(ids);
  grants_ = std::move(table);
  grantTotal_ = total;
  mirror_.reset();  // mirrors the old grants; the next previews build one again
  ++writes_;
}

}  // namespace gcl

GCL_COLD_CODE_END
