// compact() at random points of random sequences, on both engines. After every call the
// ledger is compared with the definition (HorizonModel::fresh, rebuilt literally at each
// compact), with the uncompacted history at and after the horizon, and with a real ledger
// built fresh from the compacted grants and consumptions at the last compact (which then
// takes every later call the compacted ledger accepts). Refusals are checked against the
// rules and must leave the ledger unchanged; the history's draws before the horizon must
// never change; the engine's invariants are recounted after every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "horizon_model.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"

namespace gcl_test {
namespace {

using gcl::Status;

constexpr int64_t kLastTime = 32;  // times are in [0, 30]; nothing changes after 32

struct Coverage {
  int compacts = 0, droppedConsumptions = 0, droppedGrants = 0, droppedPending = 0, zeroGrants = 0,
      refusedByHorizon = 0, endRuleRefusals = 0, carriedEndChanges = 0, accepted = 0;
};

// Everything observable at and after the horizon, as text: equal texts, equal answers.
std::string stateText(const gcl::Ledger& ledger, const std::vector<std::string>& eventIds) {
  std::string text = "grants " + std::to_string(ledger.grantCount()) + " consumptions " +
                     std::to_string(ledger.consumptionCount()) + " horizon " +
                     std::to_string(ledger.horizon()) + "\n";
  for (int64_t t = ledger.horizon(); t <= kLastTime; ++t) {
    int64_t balance = -1;
    ledger.getBalance(t, &balance);
    text += std::to_string(balance) + " ";
  }
  for (const std::string& id : eventIds) {
    std::vector<gcl::Allocation> allocations;
    if (ledger.allocations(id, &allocations) == Status::kOk)
      text += "\n" + id + " " + allocationsText(allocations);
  }
  text += "\npending" + pendingText(ledger);
  for (size_t i = 0; i < ledger.grantCount(); ++i) {
    const gcl::GrantRecord g = ledger.grant(i);
    text += "\n" + std::string(g.grantId) + " " + std::to_string(g.amount) + " " +
            std::to_string(g.startTime) + ".." + std::to_string(g.endTime);
  }
  return text;
}

class Runner {
 public:
  Runner(gcl::EngineKind kind, uint32_t seed, Coverage* coverage)
      : kind_(kind),
        ledger_(kind),
        rebuilt_(std::make_unique<gcl::Ledger>(kind)),
        random_(seed),
        coverage_(coverage) {
    for (int i = 0; i < 12; ++i) eventIds_.push_back("e" + std::to_string(i));
  }

  void run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      this->step();
      compareQueries();
    }
    if (::testing::Test::HasFailure()) {
      std::string calls;
      for (const std::string& line : log_) calls += "  " + line + "\n";
      ADD_FAILURE() << "calls so far:\n" << calls;
    }
  }

 private:
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random_);
  }
  std::string eventId() { return eventIds_[uniform(0, eventIds_.size() - 1)]; }
  HorizonModel& model() { return model_; }
  PreviewModel& fresh() { return model_.fresh; }
  // The real fresh ledger cannot hold a grant with no credit left; calls naming one skip it.
  bool rebuiltLacks(const std::string& grantId) const {
    const PreviewModel::Grant* g = model_.fresh.grant(grantId);
    return g != nullptr && g->amount == 0;
  }

  // A refused call: the rule says BEFORE_HORIZON, and nothing changed.
  void expectRefused(Status status, const std::string& before) {
    EXPECT_EQ(status, Status::kBeforeHorizon);
    EXPECT_EQ(stateText(ledger_, eventIds_), before);
    ++coverage_->refusedByHorizon;
  }

  void step() {
    const std::string before = stateText(ledger_, eventIds_);
    const int64_t roll = uniform(0, 99);
    const int64_t h = model_.horizon;
    if (roll < 20 || fresh().grants.empty()) {
      const std::string id = "g" + std::to_string(nextGrant_++);
      const int64_t start = uniform(0, 30), end = uniform(start, 30), amount = uniform(1, 8);
      log_.push_back("addGrant(" + id + ", " + std::to_string(amount) + ", " +
                     std::to_string(start) + ", " + std::to_string(end) + ")");
      const Status status = ledger_.addGrant(id, amount, start, end);
      if (start < h) return expectRefused(status, before);
      ASSERT_EQ(status, Status::kOk);
      fresh().addGrant(id, amount, start, end);
      model_.history.addGrant(id, amount, start, end);
      EXPECT_EQ(model_.history.lastAccepted, fresh().lastAccepted);
      expectTaken(fresh().lastAccepted);
      EXPECT_EQ(rebuilt_->addGrant(id, amount, start, end), Status::kOk);
      takeRebuilt();
    } else if (roll < 45) {
      const std::string id = eventId();
      const int64_t amount = uniform(1, 6), t = uniform(0, 30);
      const bool dry = uniform(0, 2) == 0;
      log_.push_back("tryConsume(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                     (dry ? ", dry)" : ")"));
      gcl::ConsumeResult result;
      const Status status = ledger_.tryConsume(id, amount, t, dry, &result);
      if (t < h) return expectRefused(status, before);
      const PreviewModel::Consumption* existing = fresh().accepted(id);
      const PreviewModel::Consumption* queued = fresh().queued(id);
      if ((existing && (existing->amount != amount || existing->time != t)) ||
          (queued && (queued->amount != amount || queued->time != t))) {
        EXPECT_EQ(status, Status::kDuplicateId);
        return;
      }
      ASSERT_EQ(status, Status::kOk);
      gcl::ConsumeResult again;
      EXPECT_EQ(rebuilt_->tryConsume(id, amount, t, dry, &again), Status::kOk);
      EXPECT_EQ(again.accepted, result.accepted);
      EXPECT_EQ(again.reason, result.reason);
      EXPECT_EQ(again.blockingEventId, result.blockingEventId);
      EXPECT_EQ(again.allocations, result.allocations);
      if (existing) {
        EXPECT_TRUE(result.accepted);
        return;
      }
      const PreviewModel::Trial trial = fresh().trial(id, amount, t);
      const PreviewModel::Trial past = model_.history.trial(id, amount, t);
      EXPECT_EQ(result.accepted, trial.accepted);
      EXPECT_EQ(result.reason, trial.reason);
      EXPECT_EQ(result.blockingEventId, trial.blocking);
      EXPECT_EQ(result.allocations, trial.allocations);
      EXPECT_EQ(past.accepted, trial.accepted);
      EXPECT_EQ(past.blocking, trial.blocking);
      coverage_->accepted += trial.accepted;
      if (!dry) {
        fresh().consume(id, amount, t);
        model_.history.consume(id, amount, t);
      }
    } else if (roll < 57) {
      const std::string id = eventId();
      const int64_t amount = uniform(1, 6), t = uniform(0, 30);
      log_.push_back("submit(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                     ")");
      gcl::SubmitOutcome outcome{};
      const Status status = ledger_.submit(id, amount, t, &outcome);
      if (t < h) return expectRefused(status, before);
      const std::optional<bool> expected = fresh().submit(id, amount, t);
      if (!expected) {
        EXPECT_EQ(status, Status::kDuplicateId);
        return;
      }
      ASSERT_EQ(status, Status::kOk);
      EXPECT_EQ(outcome == gcl::SubmitOutcome::kAccepted, *expected) << id;
      EXPECT_EQ(model_.history.submit(id, amount, t), expected);
      gcl::SubmitOutcome again{};
      EXPECT_EQ(rebuilt_->submit(id, amount, t, &again), Status::kOk);
      EXPECT_EQ(again, outcome);
    } else if (roll < 61) {
      const std::string id = eventId();
      log_.push_back("cancelPending(" + id + ")");
      bool cancelled = false;
      ASSERT_EQ(ledger_.cancelPending(id, &cancelled), Status::kOk);
      EXPECT_EQ(cancelled, fresh().cancel(id));
      model_.history.cancel(id);
      bool again = false;
      rebuilt_->cancelPending(id, &again);
      EXPECT_EQ(again, cancelled);
    } else if (roll < 69) {
      const std::string id = fresh().grants[uniform(0, fresh().grants.size() - 1)].id;
      log_.push_back("voidGrant(" + id + ")");
      gcl::GrantChange change;
      const Status status = ledger_.voidGrant(id, &change);
      if (model_.startedBefore(id)) return expectRefused(status, before);
      ASSERT_EQ(status, Status::kOk);
      const std::string blocking = fresh().change(id, std::nullopt);
      EXPECT_EQ(change.applied, blocking.empty()) << "void " << id;
      EXPECT_EQ(change.blockingEventId, blocking);
      EXPECT_EQ(model_.history.change(id, std::nullopt), blocking);
      gcl::GrantChange again;
      EXPECT_EQ(rebuilt_->voidGrant(id, &again), Status::kOk);
      EXPECT_EQ(again.applied, change.applied);
    } else if (roll < 81) {
      const std::string id = fresh().grants[uniform(0, fresh().grants.size() - 1)].id;
      const PreviewModel::Grant grant = *fresh().grant(id);
      const int64_t end = uniform(std::max<int64_t>(0, grant.start - 2), 32);
      log_.push_back("setGrantEnd(" + id + ", " + std::to_string(end) + ")");
      gcl::GrantChange change;
      const Status status = ledger_.setGrantEnd(id, end, &change);
      if (end < h) return expectRefused(status, before);
      if (end < grant.start) {
        EXPECT_EQ(status, Status::kInvalidWindow);
        return;
      }
      const bool carried = model_.startedBefore(id);
      if (carried && end != grant.end && model_.endChangeReorders(id, end)) {
        ++coverage_->endRuleRefusals;
        return expectRefused(status, before);
      }
      ASSERT_EQ(status, Status::kOk);
      coverage_->carriedEndChanges += carried && end != grant.end;
      std::string blocking;
      if (end != grant.end) {
        blocking = fresh().change(id, end);
        EXPECT_EQ(model_.history.change(id, end), blocking);
      } else {
        fresh().lastAccepted.clear();
      }
      EXPECT_EQ(change.applied, blocking.empty()) << "setGrantEnd " << id << " " << end;
      EXPECT_EQ(change.blockingEventId, blocking);
      expectTaken(fresh().lastAccepted);
      if (!rebuiltLacks(id)) {
        gcl::GrantChange again;
        EXPECT_EQ(rebuilt_->setGrantEnd(id, end, &again), Status::kOk);
        EXPECT_EQ(again.applied, change.applied);
        std::vector<gcl::PendingConsumption> letIn;
        rebuilt_->takeAcceptedPending(&letIn);
        std::vector<std::string> letInIds;
        for (const auto& p : letIn) letInIds.push_back(p.eventId);
        EXPECT_EQ(letInIds, fresh().lastAccepted);
      }
    } else if (roll < 86) {
      // Mostly forward, sometimes back (a no-op), sometimes past every event.
      const int64_t target = uniform(0, 9) == 0 ? uniform(0, h) : h + uniform(0, 5);
      log_.push_back("compact(" + std::to_string(target) + ")");
      gcl::CompactResult result;
      ASSERT_EQ(ledger_.compact(target, &result), Status::kOk);
      const gcl::CompactResult expected = model_.compact(target);
      EXPECT_EQ(result.horizon, expected.horizon);
      EXPECT_EQ(result.droppedGrants, expected.droppedGrants);
      EXPECT_EQ(result.droppedConsumptions, expected.droppedConsumptions);
      ASSERT_EQ(result.droppedPending.size(), expected.droppedPending.size());
      for (size_t i = 0; i < result.droppedPending.size(); ++i) {
        EXPECT_EQ(result.droppedPending[i].eventId, expected.droppedPending[i].eventId);
        EXPECT_EQ(result.droppedPending[i].timestamp, expected.droppedPending[i].timestamp);
      }
      EXPECT_EQ(ledger_.horizon(), model_.horizon);
      ++coverage_->compacts;
      coverage_->droppedConsumptions += static_cast<int>(result.droppedConsumptions);
      coverage_->droppedGrants += static_cast<int>(result.droppedGrants);
      coverage_->droppedPending += static_cast<int>(result.droppedPending.size());
      for (const PreviewModel::Grant& g : fresh().grants) coverage_->zeroGrants += g.amount == 0;
      rebuildFresh();
      expectSnapshotRebuilds();
    } else {
      const std::string id = eventId();
      const int64_t amount = uniform(1, 6), t = uniform(0, 30);
      log_.push_back("consume(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                     ")");
      bool accepted = false;
      const Status status = ledger_.consume(id, amount, t, &accepted);
      if (t < h) return expectRefused(status, before);
      const std::optional<bool> expected = fresh().consume(id, amount, t);
      if (!expected) {
        EXPECT_EQ(status, Status::kDuplicateId);
        return;
      }
      ASSERT_EQ(status, Status::kOk);
      EXPECT_EQ(accepted, *expected);
      EXPECT_EQ(model_.history.consume(id, amount, t), expected);
      bool again = false;
      EXPECT_EQ(rebuilt_->consume(id, amount, t, &again), Status::kOk);
      EXPECT_EQ(again, accepted);
    }
  }

  // The real ledger the definition describes: the kept grants (those with credit left: a
  // public addGrant needs an amount of at least 1) at max(start, h), then the kept
  // consumptions in replay order, then the kept queue.
  void rebuildFresh() {
    rebuilt_ = std::make_unique<gcl::Ledger>(kind_);
    for (const PreviewModel::Grant& g : fresh().grants) {
      if (g.amount > 0) ASSERT_EQ(rebuilt_->addGrant(g.id, g.amount, g.start, g.end), Status::kOk);
    }
    for (const PreviewModel::Consumption& c : fresh().consumptions) {
      bool accepted = false;
      ASSERT_EQ(rebuilt_->consume(c.id, c.amount, c.time, &accepted), Status::kOk);
      ASSERT_TRUE(accepted) << c.id;
    }
    for (const PreviewModel::Consumption& p : fresh().pending) {
      gcl::SubmitOutcome outcome{};
      ASSERT_EQ(rebuilt_->submit(p.id, p.amount, p.time, &outcome), Status::kOk);
      ASSERT_EQ(outcome, gcl::SubmitOutcome::kQueued);
    }
  }

  // What a version-2 snapshot holds (horizon, grant(i), consumption(i)) rebuilds a ledger
  // that answers alike.
  void expectSnapshotRebuilds() {
    gcl::Ledger copy(kind_);
    gcl::CompactResult ignored;
    ASSERT_EQ(copy.compact(ledger_.horizon(), &ignored), Status::kOk);
    for (size_t i = 0; i < ledger_.grantCount(); ++i) {
      const gcl::GrantRecord g = ledger_.grant(i);
      ASSERT_EQ(copy.restoreGrant(g.grantId, g.amount, g.startTime, g.endTime), Status::kOk);
    }
    for (size_t i = 0; i < ledger_.consumptionCount(); ++i) {
      const gcl::ConsumptionRecord c = ledger_.consumption(i);
      bool accepted = false;
      ASSERT_EQ(copy.consume(c.eventId, c.amount, c.timestamp, &accepted), Status::kOk);
      ASSERT_TRUE(accepted);
    }
    std::vector<gcl::PendingConsumption> queued;
    ledger_.pending(&queued);
    for (const gcl::PendingConsumption& p : queued) {
      gcl::SubmitOutcome outcome{};
      ASSERT_EQ(copy.submit(p.eventId, p.amount, p.timestamp, &outcome), Status::kOk);
    }
    EXPECT_EQ(stateText(copy, eventIds_), stateText(ledger_, eventIds_));
    // Refusals alike too: voidGrant of each grant, on both (on copies of the state).
    for (size_t i = 0; i < ledger_.grantCount(); ++i) {
      const std::string id(ledger_.grant(i).grantId);
      EXPECT_EQ(copy.grant(i).startTime < copy.horizon(), model_.startedBefore(id)) << id;
    }
  }

  void expectTaken(const std::vector<std::string>& ids) {
    std::vector<gcl::PendingConsumption> taken;
    ledger_.takeAcceptedPending(&taken);
    std::vector<std::string> takenIds;
    for (const auto& p : taken) takenIds.push_back(p.eventId);
    EXPECT_EQ(takenIds, ids);
  }
  void takeRebuilt() {
    std::vector<gcl::PendingConsumption> ignored;
    rebuilt_->takeAcceptedPending(&ignored);
  }

  void compareQueries() {
    const int64_t h = model_.horizon;
    EXPECT_EQ(ledger_.checkInvariants(), "");
    EXPECT_EQ(model_.finalDrawsChanged(), "");
    EXPECT_EQ(ledger_.grantCount(), fresh().grants.size());
    EXPECT_EQ(ledger_.consumptionCount(), fresh().consumptions.size());
    for (int64_t t = 0; t <= kLastTime; ++t) {
      int64_t balance = -1;
      const Status status = ledger_.getBalance(t, &balance);
      if (t < h) {
        EXPECT_EQ(status, Status::kBeforeHorizon) << "getBalance(" << t << ")";
        continue;
      }
      ASSERT_EQ(status, Status::kOk);
      EXPECT_EQ(balance, fresh().balance(t)) << "getBalance(" << t << ")";
      EXPECT_EQ(balance, model_.history.balance(t)) << "history getBalance(" << t << ")";
      int64_t again = -1;
      rebuilt_->getBalance(t, &again);
      EXPECT_EQ(balance, again) << "rebuilt getBalance(" << t << ")";
    }
    const int64_t t = uniform(0, kLastTime);
    int64_t headroom = -1;
    const Status headroomStatus = ledger_.headroom(t, &headroom);
    std::vector<gcl::GrantState> states;
    const Status statesStatus = ledger_.grantsAt(t, &states);
    if (t < h) {
      EXPECT_EQ(headroomStatus, Status::kBeforeHorizon);
      EXPECT_EQ(statesStatus, Status::kBeforeHorizon);
    } else {
      ASSERT_EQ(headroomStatus, Status::kOk);
      EXPECT_EQ(headroom, fresh().headroom(t)) << "headroom(" << t << ")";
      EXPECT_EQ(headroom, model_.history.headroom(t)) << "history headroom(" << t << ")";
      ASSERT_EQ(statesStatus, Status::kOk);
      const std::vector<gcl::GrantState> expected = fresh().grantsAt(t);
      ASSERT_EQ(states.size(), expected.size()) << "grantsAt(" << t << ")";
      for (size_t i = 0; i < states.size(); ++i) {
        EXPECT_EQ(states[i].grantId, expected[i].grantId);
        EXPECT_EQ(states[i].amount, expected[i].amount) << states[i].grantId;
        EXPECT_EQ(states[i].startTime, expected[i].startTime) << states[i].grantId;
        EXPECT_EQ(states[i].endTime, expected[i].endTime);
        EXPECT_EQ(states[i].remaining, expected[i].remaining) << states[i].grantId << " at " << t;
      }
    }
    const int64_t threshold = uniform(1, 12), from = uniform(0, kLastTime);
    std::optional<int64_t> below;
    std::vector<gcl::BalancePoint> curve;
    const Status belowStatus = ledger_.nextBelow(threshold, from, &below);
    const Status curveStatus = ledger_.balanceCurve(from, kLastTime + 8, &curve);
    if (from < h) {
      EXPECT_EQ(belowStatus, Status::kBeforeHorizon);
      EXPECT_EQ(curveStatus, Status::kBeforeHorizon);
    } else {
      ASSERT_EQ(belowStatus, Status::kOk);
      EXPECT_EQ(below, fresh().nextBelow(threshold, from, kLastTime + 2));
      ASSERT_EQ(curveStatus, Status::kOk);
      std::vector<gcl::BalancePoint> expected;
      for (int64_t x = from; x <= kLastTime + 8; ++x) {
        const int64_t value = fresh().balance(x);
        if (expected.empty() || expected.back().balance != value) expected.push_back({x, value});
      }
      EXPECT_EQ(curve, expected) << "balanceCurve(" << from << ")";
      std::vector<gcl::BalancePoint> again;
      rebuilt_->balanceCurve(from, kLastTime + 8, &again);
      EXPECT_EQ(curve, again);
    }
    const PreviewModel::Replay r = PreviewModel::replay(fresh().grants, fresh().consumptions);
    for (const std::string& id : eventIds_) {
      std::vector<gcl::Allocation> allocations;
      const Status status = ledger_.allocations(id, &allocations);
      const PreviewModel::Consumption* c = fresh().accepted(id);
      if (c == nullptr) {
        EXPECT_EQ(status, Status::kUnknownId) << id;
        continue;
      }
      ASSERT_EQ(status, Status::kOk);
      EXPECT_EQ(allocations, r.draws[c - fresh().consumptions.data()]) << id;
      std::vector<gcl::Allocation> again;
      rebuilt_->allocations(id, &again);
      EXPECT_EQ(allocations, again) << id;
    }
    for (const PreviewModel::Grant& g : fresh().grants) {
      gcl::BurnDown burn;
      ASSERT_EQ(ledger_.burnDown(g.id, &burn), Status::kOk);
      EXPECT_EQ(burn.amount, g.amount);
      EXPECT_EQ(burn.startTime, g.start);
      EXPECT_EQ(burn.remaining.front().time, g.start);
    }
    std::vector<gcl::PendingConsumption> queued;
    ledger_.pending(&queued);
    ASSERT_EQ(queued.size(), fresh().pending.size());
    for (size_t i = 0; i < queued.size(); ++i) EXPECT_EQ(queued[i].eventId, fresh().pending[i].id);
  }

  gcl::EngineKind kind_;
  gcl::Ledger ledger_;
  std::unique_ptr<gcl::Ledger> rebuilt_;
  HorizonModel model_;
  std::mt19937 random_;
  Coverage* coverage_;
  int nextGrant_ = 0;
  std::vector<std::string> eventIds_;
  std::vector<std::string> log_;
};

// GCL_DIFF_SCALE multiplies the number of sequences, as in differential_test.cpp (the
// sanitizer run uses a fraction).
void runSeeds(gcl::EngineKind kind, uint32_t fullSeeds, int steps) {
  const char* scaleText = std::getenv("GCL_DIFF_SCALE");
  const double scale = scaleText != nullptr ? std::atof(scaleText) : 1.0;
  const uint32_t seeds = std::max<uint32_t>(10, static_cast<uint32_t>(fullSeeds * scale));
  Coverage coverage;
  for (uint32_t seed = 1; seed <= seeds && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Runner(kind, seed, &coverage).run(steps);
  }
  std::printf(
      "compacts %d, dropped consumptions %d, grants %d, pending %d; grants left at 0: %d; "
      "BEFORE_HORIZON %d (end rule %d); carried end changes %d; accepted %d\n",
      coverage.compacts, coverage.droppedConsumptions, coverage.droppedGrants,
      coverage.droppedPending, coverage.zeroGrants, coverage.refusedByHorizon,
      coverage.endRuleRefusals, coverage.carriedEndChanges, coverage.accepted);
  // A generator drift must not make the test vacuous.
  for (int count : {coverage.compacts, coverage.droppedConsumptions, coverage.droppedGrants,
                    coverage.droppedPending, coverage.zeroGrants, coverage.refusedByHorizon,
                    coverage.endRuleRefusals, coverage.carriedEndChanges, coverage.accepted}) {
    EXPECT_GT(count, static_cast<int>(seeds / 10));
  }
}

TEST(HorizonRandom, IncrementalEngineMatchesTheDefinition) {
  runSeeds(gcl::EngineKind::kIncremental, 200, 120);
}

TEST(HorizonRandom, ReplayEngineMatchesTheDefinition) {
  runSeeds(gcl::EngineKind::kReplay, 60, 120);
}

}  // namespace
}  // namespace gcl_test
