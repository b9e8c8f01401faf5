// Previews, grant lifecycle and pending queue on random sequences: every preview, lifecycle change
// and pending flow of both engines against the brute-force PreviewModel. Small times and amounts
// make ties, exhaustion, refusals and queueing frequent.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "preview_model.h"

namespace gcl_test {
namespace {

using gcl::Status;

constexpr int64_t kHorizon = 24;  // times are in [0, 20]; the balance is constant after 21

// How often each outcome came up, so that a generator drift cannot make the test vacuous.
struct Coverage {
  int insufficient = 0, wouldUnfund = 0, dryAccepted = 0, applied = 0, refused = 0, queued = 0,
      letIn = 0, headroomBelowBalance = 0;
};

class Runner {
 public:
  Runner(gcl::EngineKind kind, uint32_t seed, Coverage* coverage)
      : ledger_(kind), random_(seed), coverage_(coverage) {}

  void run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      this->step();
      compareQueries();
    }
    compareAllocations();
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
  std::string eventId() { return "e" + std::to_string(uniform(0, 11)); }
  std::string liveGrantId() { return model_.grants[uniform(0, model_.grants.size() - 1)].id; }

  void step() {
    const int64_t roll = uniform(0, 99);
    if (roll < 22 || model_.grants.empty()) {
      const std::string id = "g" + std::to_string(nextGrant_++);
      const int64_t start = uniform(0, 20);
      const int64_t end = uniform(start, 20);
      const int64_t amount = uniform(1, 8);
      log_.push_back("addGrant(" + id + ", " + std::to_string(amount) + ", " +
                     std::to_string(start) + ", " + std::to_string(end) + ")");
      ASSERT_EQ(ledger_.addGrant(id, amount, start, end), Status::kOk);
      model_.addGrant(id, amount, start, end);
      coverage_->letIn += static_cast<int>(model_.lastAccepted.size());
      expectTaken(model_.lastAccepted);
    } else if (roll < 45) {
      tryConsume(eventId(), uniform(1, 6), uniform(0, 20), uniform(0, 1) == 1);
    } else if (roll < 60) {
      const std::string id = eventId();
      const int64_t amount = uniform(1, 6);
      const int64_t t = uniform(0, 20);
      log_.push_back("submit(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                     ")");
      gcl::SubmitOutcome outcome{};
      const Status status = ledger_.submit(id, amount, t, &outcome);
      const std::optional<bool> expected = model_.submit(id, amount, t);
      if (!expected) {
        EXPECT_EQ(status, Status::kDuplicateId);
      } else {
        ASSERT_EQ(status, Status::kOk);
        EXPECT_EQ(outcome == gcl::SubmitOutcome::kAccepted, *expected) << id;
        coverage_->queued += *expected ? 0 : 1;
      }
    } else if (roll < 65) {
      const std::string id = eventId();
      log_.push_back("cancelPending(" + id + ")");
      bool cancelled = false;
      ASSERT_EQ(ledger_.cancelPending(id, &cancelled), Status::kOk);
      EXPECT_EQ(cancelled, model_.cancel(id));
    } else if (roll < 73) {
      const std::string id = liveGrantId();
      log_.push_back("voidGrant(" + id + ")");
      gcl::GrantChange change;
      ASSERT_EQ(ledger_.voidGrant(id, &change), Status::kOk);
      const std::string blocking = model_.change(id, std::nullopt);
      (blocking.empty() ? coverage_->applied : coverage_->refused)++;
      EXPECT_EQ(change.applied, blocking.empty()) << "void " << id;
      EXPECT_EQ(change.blockingEventId, blocking);
    } else if (roll < 85) {
      const std::string id = liveGrantId();
      const int64_t start = model_.grant(id)->start;
      const int64_t end = uniform(start, 22);
      log_.push_back("setGrantEnd(" + id + ", " + std::to_string(end) + ")");
      gcl::GrantChange change;
      ASSERT_EQ(ledger_.setGrantEnd(id, end, &change), Status::kOk);
      const std::string blocking = model_.change(id, end);
      (blocking.empty() ? coverage_->applied : coverage_->refused)++;
      EXPECT_EQ(change.applied, blocking.empty()) << "setGrantEnd " << id << " " << end;
      EXPECT_EQ(change.blockingEventId, blocking);
      expectTaken(model_.lastAccepted);
    } else {
      const std::string id = eventId();
      const int64_t amount = uniform(1, 6);
      const int64_t t = uniform(0, 20);
      log_.push_back("consume(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                     ")");
      bool accepted = false;
      const Status status = ledger_.consume(id, amount, t, &accepted);
      const std::optional<bool> expected = model_.consume(id, amount, t);
      if (!expected) {
        EXPECT_EQ(status, Status::kDuplicateId);
      } else {
        ASSERT_EQ(status, Status::kOk);
        EXPECT_EQ(accepted, *expected);
      }
    }
  }

  // What the last call let in from the queue, as the listener would see it.
  void expectTaken(const std::vector<std::string>& ids) {
    std::vector<gcl::PendingConsumption> taken;
    ledger_.takeAcceptedPending(&taken);
    std::vector<std::string> takenIds;
    for (const auto& p : taken) takenIds.push_back(p.eventId);
    EXPECT_EQ(takenIds, ids);
  }

  void tryConsume(const std::string& id, int64_t amount, int64_t t, bool dryRun) {
    SCOPED_TRACE("tryConsume " + id + " " + std::to_string(amount) + "@" + std::to_string(t) +
                 (dryRun ? " dry" : ""));
    log_.push_back("tryConsume(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                   (dryRun ? ", dry)" : ")"));
    gcl::ConsumeResult result;
    const Status status = ledger_.tryConsume(id, amount, t, dryRun, &result);
    const PreviewModel::Consumption* existing = model_.accepted(id);
    const PreviewModel::Consumption* queued = model_.queued(id);
    const bool conflict = (existing && (existing->amount != amount || existing->time != t)) ||
                          (queued && (queued->amount != amount || queued->time != t));
    if (conflict) {
      EXPECT_EQ(status, Status::kDuplicateId);
      return;
    }
    ASSERT_EQ(status, Status::kOk);
    if (existing) {
      EXPECT_TRUE(result.accepted);
      EXPECT_EQ(result.allocations, PreviewModel::replay(model_.grants, model_.consumptions)
                                        .draws[existing - model_.consumptions.data()]);
      return;
    }
    const PreviewModel::Trial trial = model_.trial(id, amount, t);
    coverage_->insufficient += trial.reason == gcl::RejectReason::kInsufficientCredit;
    coverage_->wouldUnfund += trial.reason == gcl::RejectReason::kWouldUnfund;
    coverage_->dryAccepted += dryRun && trial.accepted;
    EXPECT_EQ(result.accepted, trial.accepted);
    EXPECT_EQ(result.reason, trial.reason);
    EXPECT_EQ(result.blockingEventId, trial.blocking);
    EXPECT_EQ(result.allocations, trial.allocations);
    if (!dryRun) model_.consume(id, amount, t);
  }

  void compareQueries() {
    for (int64_t t : {uniform(0, 21), uniform(0, 21)}) {
      int64_t headroom = -1;
      ASSERT_EQ(ledger_.headroom(t, &headroom), Status::kOk);
      EXPECT_EQ(headroom, model_.headroom(t)) << "headroom(" << t << ")";
      int64_t balance = -1;
      ASSERT_EQ(ledger_.getBalance(t, &balance), Status::kOk);
      EXPECT_EQ(balance, model_.balance(t)) << "getBalance(" << t << ")";
      coverage_->headroomBelowBalance += headroom < balance;
      std::vector<gcl::GrantState> states;
      ASSERT_EQ(ledger_.grantsAt(t, &states), Status::kOk);
      const std::vector<gcl::GrantState> expected = model_.grantsAt(t);
      ASSERT_EQ(states.size(), expected.size()) << "grantsAt(" << t << ")";
      for (size_t i = 0; i < states.size(); ++i) {
        EXPECT_EQ(states[i].grantId, expected[i].grantId);
        EXPECT_EQ(states[i].remaining, expected[i].remaining) << states[i].grantId << " at " << t;
        EXPECT_EQ(states[i].endTime, expected[i].endTime);
      }
    }
    const int64_t threshold = uniform(1, 12);
    const int64_t from = uniform(0, 22);
    std::optional<int64_t> below;
    ASSERT_EQ(ledger_.nextBelow(threshold, from, &below), Status::kOk);
    EXPECT_EQ(below, model_.nextBelow(threshold, from, kHorizon))
        << "nextBelow(" << threshold << ", " << from << ")";
    std::vector<gcl::PendingConsumption> queued;
    ledger_.pending(&queued);
    ASSERT_EQ(queued.size(), model_.pending.size());
    for (size_t i = 0; i < queued.size(); ++i) {
      EXPECT_EQ(queued[i].eventId, model_.pending[i].id);
      EXPECT_EQ(queued[i].timestamp, model_.pending[i].time);
    }
    EXPECT_EQ(ledger_.grantCount(), model_.grants.size());
    EXPECT_EQ(ledger_.consumptionCount(), model_.consumptions.size());
  }

  void compareAllocations() {
    const PreviewModel::Replay r = PreviewModel::replay(model_.grants, model_.consumptions);
    for (size_t i = 0; i < model_.consumptions.size(); ++i) {
      std::vector<gcl::Allocation> actual;
      ASSERT_EQ(ledger_.allocations(model_.consumptions[i].id, &actual), Status::kOk);
      EXPECT_EQ(actual, r.draws[i]) << model_.consumptions[i].id;
    }
    for (const PreviewModel::Grant& grant : model_.grants) {
      gcl::BurnDown burn;
      ASSERT_EQ(ledger_.burnDown(grant.id, &burn), Status::kOk);
      int64_t drawn = 0;
      int64_t previousTime = -1;
      for (const gcl::BurnDownDraw& draw : burn.draws) {
        EXPECT_GE(draw.timestamp, previousTime);
        previousTime = draw.timestamp;
        drawn += draw.amount;
        EXPECT_EQ(gcl::Allocation({grant.id, draw.amount}),
                  *std::find_if(r.draws[indexOf(draw.eventId)].begin(),
                                r.draws[indexOf(draw.eventId)].end(),
                                [&](const gcl::Allocation& a) { return a.grantId == grant.id; }));
      }
      EXPECT_EQ(burn.remaining.back().remaining, grant.amount - drawn);
      for (const gcl::RemainingPoint& point : burn.remaining) {
        for (const gcl::GrantState& state : model_.grantsAt(point.time)) {
          if (state.grantId == grant.id) EXPECT_EQ(point.remaining, state.remaining) << grant.id;
        }
      }
    }
  }
  size_t indexOf(const std::string& id) const {
    for (size_t i = 0; i < model_.consumptions.size(); ++i) {
      if (model_.consumptions[i].id == id) return i;
    }
    ADD_FAILURE() << "unknown " << id;
    return 0;
  }

  gcl::Ledger ledger_;
  PreviewModel model_;
  std::mt19937 random_;
  Coverage* coverage_;
  int nextGrant_ = 0;
  std::vector<std::string> log_;
};

void runSeeds(gcl::EngineKind kind, uint32_t seeds) {
  Coverage coverage;
  for (uint32_t seed = 1; seed <= seeds && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Runner(kind, seed, &coverage).run(80);
  }
  for (int count :
       {coverage.insufficient, coverage.wouldUnfund, coverage.dryAccepted, coverage.applied,
        coverage.refused, coverage.queued, coverage.letIn, coverage.headroomBelowBalance}) {
    EXPECT_GT(count, seeds / 10);
  }
}

TEST(PreviewRandom, IncrementalEngineMatchesTheModel) {
  runSeeds(gcl::EngineKind::kIncremental, 300);
}

TEST(PreviewRandom, ReplayEngineMatchesTheModel) { runSeeds(gcl::EngineKind::kReplay, 100); }

// The headroom index sorts nothing when consumptions come in time order and grant windows in
// start and end order, and reverses what comes in the opposite order: every arrival order of
// the same windows (ascending, descending, shuffled, with ties) against the model. Its
// sweeps advance only as far as a query needs: the queries ask in ascending, descending
// and shuffled time order too.
TEST(PreviewRandom, HeadroomIsExactWhateverOrderGrantsArriveAndQueriesAsk) {
  std::mt19937 random(11);
  int checked = 0;
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    struct Window {
      int64_t start, end, amount;
    };
    std::vector<Window> windows;
    for (int64_t i = 0; i < 12; ++i) {
      const int64_t start = round % 2 == 0 ? 2 * i : 2 * i + static_cast<int64_t>(random() % 3);
      windows.push_back({start, start + static_cast<int64_t>(random() % 4),
                         1 + static_cast<int64_t>(random() % 5)});
    }
    if (round % 3 == 1) std::reverse(windows.begin(), windows.end());
    if (round % 3 == 2) std::shuffle(windows.begin(), windows.end(), random);
    gcl::Ledger ledger;
    PreviewModel model;
    for (size_t g = 0; g < windows.size(); ++g) {
      const std::string id = "g" + std::to_string(g);
      ASSERT_EQ(ledger.addGrant(id, windows[g].amount, windows[g].start, windows[g].end),
                Status::kOk);
      model.addGrant(id, windows[g].amount, windows[g].start, windows[g].end);
    }
    // In time order (ties included), then a few backdated ones.
    for (int64_t c = 0; c < 30; ++c) {
      const int64_t t = c < 24 ? c : static_cast<int64_t>(random() % 24);
      const int64_t amount = 1 + static_cast<int64_t>(random() % 3);
      const std::string id = "c" + std::to_string(c);
      bool accepted = false;
      ASSERT_EQ(ledger.consume(id, amount, t, &accepted), Status::kOk);
      ASSERT_EQ(std::optional<bool>(accepted), model.consume(id, amount, t)) << id;
      if (c % 5 != 4) continue;
      std::vector<int64_t> times;
      for (int64_t at = 0; at <= 26; ++at) times.push_back(at);
      if (round / 3 % 3 == 1) std::reverse(times.begin(), times.end());
      if (round / 3 % 3 == 2) std::shuffle(times.begin(), times.end(), random);
      for (int64_t at : times) {
        int64_t headroom = -1;
        ASSERT_EQ(ledger.headroom(at, &headroom), Status::kOk);
        ASSERT_EQ(headroom, model.headroom(at)) << "headroom(" << at << ") after " << id;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 60 * 6 * 27);
}

// At scale the model is too slow; headroom is held to a binary search over dry runs, and a
// dry run to the real call.
TEST(PreviewRandom, HeadroomAgreesWithDryRunsOnALargeLedger) {
  gcl::Ledger ledger;
  std::mt19937 random(7);
  int64_t now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += random() % 50;
    if (i % 8 == 0) {
      ASSERT_EQ(ledger.addGrant("g" + std::to_string(i), 200 + random() % 800, now, now + 3000),
                Status::kOk);
    }
    const int64_t t = random() % 5 == 0 ? std::max<int64_t>(0, now - random() % 2000) : now;
    bool accepted = false;
    ASSERT_EQ(ledger.consume("c" + std::to_string(i), 1 + random() % 60, t, &accepted),
              Status::kOk);
  }
  for (int probe = 0; probe < 12; ++probe) {
    const int64_t t = probe == 0 ? now : static_cast<int64_t>(random() % (now + 1));
    int64_t headroom = -1;
    ASSERT_EQ(ledger.headroom(t, &headroom), Status::kOk);
    gcl::ConsumeResult result;
    ASSERT_EQ(ledger.tryConsume("probe", headroom + 1, t, true, &result), Status::kOk);
    EXPECT_FALSE(result.accepted) << "headroom(" << t << ") = " << headroom << " is too small";
    if (headroom == 0) continue;
    ASSERT_EQ(ledger.tryConsume("probe", headroom, t, true, &result), Status::kOk);
    EXPECT_TRUE(result.accepted) << "headroom(" << t << ") = " << headroom << " is too large";
  }
  int64_t headroom = -1;
  ASSERT_EQ(ledger.headroom(now / 2, &headroom), Status::kOk);
  ASSERT_GT(headroom, 0);
  gcl::ConsumeResult dry;
  ASSERT_EQ(ledger.tryConsume("last", headroom, now / 2, true, &dry), Status::kOk);
  gcl::ConsumeResult real;
  ASSERT_EQ(ledger.tryConsume("last", headroom, now / 2, false, &real), Status::kOk);
  EXPECT_TRUE(real.accepted);
  EXPECT_EQ(real.allocations, dry.allocations);
  ASSERT_EQ(ledger.headroom(now / 2, &headroom), Status::kOk);
  EXPECT_EQ(headroom, 0);
}

}  // namespace
}  // namespace gcl_test
