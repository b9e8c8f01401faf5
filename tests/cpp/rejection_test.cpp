// Backdated rejections decided by the headroom bound (docs/algorithms.md, fact 18): the
// incremental engine against the replay engine and the brute-force PreviewModel on random
// sequences full of rejected backdated calls and their retries, with re-draw budgets small
// enough to reach every path (bound, interval scan of fact 22, budget run-out, rebuild);
// the interval bound against the brute-force model; and the chain of fact 8, where the
// counters prove that the first call scans once and retries re-draw nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine.h"
#include "engine_fixture.h"
#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "incremental_engine.h"
#include "preview_model.h"
#include "replay_engine.h"

namespace gcl_test {
namespace {

using gcl::Status;

// Both engines over one grant table, plus the same events for the model.
class EnginePair {
 public:
  explicit EnginePair(size_t minimumBudget) : fast_(table_), reference_(table_) {
    fast_.setMinimumRedrawBudget(minimumBudget);
  }

  void addGrant(int64_t amount, int64_t start, int64_t end) {
    const uint32_t g = appendGrant(&table_, amount, start, end);
    fast_.addGrant(g);
    reference_.addGrant(g);
    grants_.push_back({std::string(table_.ids.at(g)), amount, start, end});
  }

  // consume on both; they must agree. Returns the decision.
  bool consume(int64_t amount, int64_t t) {
    const bool expected = reference_.consume(amount, t);
    EXPECT_EQ(fast_.consume(amount, t), expected) << "consume " << amount << "@" << t;
    if (expected) consumptions_.push_back({"c" + std::to_string(consumptions_.size()), amount, t});
    return expected;
  }

  // A dry run, and for a rejection that is not for want of balance, the blocker against the
  // model's replay.
  void dryRun(int64_t amount, int64_t t) {
    const bool expected = reference_.wouldAccept(amount, t);
    EXPECT_EQ(fast_.wouldAccept(amount, t), expected) << "dry run " << amount << "@" << t;
    if (expected || reference_.balance(t) < amount) return;
    std::vector<PreviewModel::Consumption> candidate = consumptions_;
    candidate.push_back({"new", amount, t});
    const PreviewModel::Replay r = PreviewModel::replay(grants_, candidate);
    ASSERT_LT(r.firstUnfunded, candidate.size());
    const size_t blocked = r.order[r.firstUnfunded];
    ASSERT_NE(blocked, candidate.size() - 1);
    uint32_t blocker = 0;
    ASSERT_TRUE(fast_.blockerOf(amount, t, &blocker)) << amount << "@" << t;
    EXPECT_EQ(blocker, blocked) << "blocker of " << amount << "@" << t;
    ++blockers;
  }

  void compareState(int64_t horizon) {
    std::vector<gcl::Draw> a;
    std::vector<gcl::Draw> b;
    for (uint32_t c = 0; c < consumptions_.size(); ++c) {
      fast_.draws(c, &a);
      reference_.draws(c, &b);
      ASSERT_EQ(a.size(), b.size()) << "draws of " << c;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].grant, b[i].grant);
        EXPECT_EQ(a[i].amount, b[i].amount);
      }
    }
    for (int64_t t = 0; t <= horizon; ++t) {
      EXPECT_EQ(fast_.balance(t), reference_.balance(t)) << "balance(" << t << ")";
    }
    EXPECT_EQ(fast_.checkInvariants(), "");
  }

  const gcl::IncrementalEngine::RejectionStats& stats() const { return fast_.rejectionStats(); }
  gcl::IncrementalEngine::ScannedIntervals scanInterval(int64_t t) const {
    return fast_.scanInterval(t);
  }
  int64_t headTime() const { return fast_.headTime(); }
  // The brute-force model of everything accepted so far.
  PreviewModel model() const {
    PreviewModel m;
    m.grants = grants_;
    m.consumptions = consumptions_;
    return m;
  }
  void setIndexAllowance(size_t bytes) { fast_.setIndexAllowance(bytes); }
  int64_t latest() const { return reference_.latestTimestamp(); }
  int blockers = 0;

 private:
  gcl::GrantTable table_;
  gcl::IncrementalEngine fast_;
  gcl::ReplayEngine reference_;
  std::vector<PreviewModel::Grant> grants_;
  std::vector<PreviewModel::Consumption> consumptions_;
};

TEST(Rejection, RandomSequencesMatchTheReplayEngine) {
  uint64_t boundRejections = 0;
  uint64_t runOuts = 0;
  uint64_t builds = 0;
  uint64_t scans = 0;
  uint64_t intervalRejections = 0;
  uint64_t replays = 0;
  uint64_t inStartOrderReplays = 0;
  uint64_t replayRuns = 0;
  uint64_t replayRunsEnded = 0;
  uint64_t blockerRejections = 0;
  int blockers = 0;
  for (uint32_t seed = 1; seed <= 400 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    EnginePair engines(static_cast<size_t>(uniform(1, 4)));
    // One sequence in four: room for an index of up to 0-60 events only, so that the
    // engine decides some calls without one (the allowance the WASM heap budget sets).
    if (seed % 4 == 0) {
      engines.setIndexAllowance(static_cast<size_t>(uniform(0, 60)) *
                                gcl::IncrementalEngine::kIndexBuildBytesPerEvent);
    }
    // One sequence in three adds its grants in start order, as a ledger that grows in time
    // order does: the replay then reads only the grants started by the call's time.
    const bool inStartOrder = seed % 3 == 1;
    int64_t lastStart = 0;
    std::vector<std::pair<int64_t, int64_t>> rejected;  // retried later
    int64_t now = 0;
    for (int step = 0; step < 120 && !::testing::Test::HasFailure(); ++step) {
      const int64_t roll = uniform(0, 99);
      if (roll < 12) {
        int64_t start = uniform(std::max<int64_t>(0, now - 6), now + 3);
        if (inStartOrder) start = std::max(start, lastStart);
        lastStart = start;
        engines.addGrant(uniform(1, 4), start, start + uniform(0, 4));
      } else if (roll < 40) {
        now += uniform(0, 1);
        engines.consume(uniform(1, 2), now);  // in order
      } else if (roll < 60) {
        const int64_t amount = uniform(1, 3);
        const int64_t t = uniform(std::max<int64_t>(0, now - 10), now);
        if (!engines.consume(amount, t)) rejected.emplace_back(amount, t);
      } else if (roll < 85 && !rejected.empty()) {
        const auto [amount, t] = rejected[uniform(0, rejected.size() - 1)];
        if (uniform(0, 1) == 0) {
          engines.dryRun(amount, t);
        } else {
          engines.consume(amount, t);
        }
      } else {
        engines.dryRun(uniform(1, 3), uniform(std::max<int64_t>(0, now - 10), now));
      }
    }
    engines.compareState(now + 8);
    boundRejections += engines.stats().boundRejections;
    runOuts += engines.stats().budgetRunOuts;
    builds += engines.stats().indexBuilds;
    blockers += engines.blockers;
    scans += engines.stats().intervalScans;
    intervalRejections += engines.stats().intervalRejections;
    replays += engines.stats().replays;
    if (inStartOrder) inStartOrderReplays += engines.stats().replays;
    replayRuns += engines.stats().replayRuns;
    replayRunsEnded += engines.stats().replayRunsEnded;
    blockerRejections += engines.stats().blockerRejections;
  }
  // Every path was taken, many times.
  EXPECT_GT(boundRejections, 200u);
  EXPECT_GT(runOuts, 200u);
  EXPECT_GT(builds, 400u);
  EXPECT_GT(blockers, 1000);
  EXPECT_GT(scans, 400u);
  EXPECT_GT(intervalRejections, 1000u);
  EXPECT_GT(replays, 1000u);  // dry runs and blockers past the short budget
  EXPECT_GT(inStartOrderReplays, 200u);
  EXPECT_GT(replayRuns, 100u);
  EXPECT_GT(replayRunsEnded, 15u);
  EXPECT_GT(blockerRejections, 800u);
}

// The replay from a call's time where the grants arrive in start order: its live grants
// begin as a run of the grant table (the chain's case) until a grant joins out of draw
// order, or a gap or a partly drawn grant in the middle rules the run out from the start.
// Ends are drawn from a few values, so that equal ends order grants by id; dry runs and
// blockers against the model's replay, decisions against the replay engine.
TEST(Rejection, ReplayRunsMatchTheModel) {
  uint64_t replays = 0;
  uint64_t runs = 0;
  uint64_t ended = 0;
  int blockers = 0;
  for (uint32_t seed = 1; seed <= 1000 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    EnginePair engines(1);              // every re-draw past one consumption goes to the replay
    const bool nested = seed % 2 == 0;  // half the ledgers: windows that nest, often
    int64_t start = 0;
    int64_t now = 0;
    for (int step = 0; step < 80 && !::testing::Test::HasFailure(); ++step) {
      const int64_t roll = uniform(0, 99);
      if (roll < 25) {
        start = std::max(start, uniform(std::max<int64_t>(0, now - 4), now + 2));
        const int64_t length = nested && uniform(0, 3) == 0 ? uniform(6, 12) : uniform(0, 3);
        engines.addGrant(uniform(1, 3), start, start + length);
      } else if (roll < 60) {
        now += uniform(0, 1);
        engines.consume(uniform(1, 2), now);
      } else if (roll < 70) {
        engines.consume(uniform(1, 2), uniform(std::max<int64_t>(0, now - 8), now));
      } else {
        engines.dryRun(uniform(1, 3), uniform(std::max<int64_t>(0, now - 12), now));
      }
    }
    engines.compareState(now + 12);
    replays += engines.stats().replays;
    runs += engines.stats().replayRuns;
    ended += engines.stats().replayRunsEnded;
    blockers += engines.blockers;
  }
  EXPECT_GT(replays, 2500u);
  EXPECT_GT(runs, 700u);
  EXPECT_GT(ended, 200u);
  EXPECT_GT(runs, ended + 400);     // runs that reached the end of the replay
  EXPECT_GT(replays, runs + 1000);  // replays that began without a run
  EXPECT_GT(blockers, 2000);
}

// Fact 22 against the brute-force model: each scanned interval holds t, its value is the
// credit of the grants valid somewhere in it less the demand in it (recounted here; the
// open one reaches to the head time), and it is never below the headroom; on these small
// ledgers the closed one often equals it.
TEST(Rejection, IntervalBoundNeverBelowTheHeadroom) {
  int checked = 0;
  int tight = 0;
  for (uint32_t seed = 1; seed <= 150 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    EnginePair engines(gcl::IncrementalEngine::kDefaultMinimumRedrawBudget);
    int64_t now = 0;
    for (int step = 0; step < 40 && !::testing::Test::HasFailure(); ++step) {
      const int64_t roll = uniform(0, 99);
      if (roll < 30) {
        const int64_t start = uniform(std::max<int64_t>(0, now - 6), now + 4);
        engines.addGrant(uniform(1, 4), start, start + uniform(0, 5));
      } else if (roll < 70) {
        now += uniform(0, 2);
        engines.consume(uniform(1, 3), now);
      } else {
        engines.consume(uniform(1, 3), uniform(std::max<int64_t>(0, now - 8), now));
      }
      const PreviewModel model = engines.model();
      auto slack = [&](int64_t from, int64_t to) {
        int64_t value = 0;
        for (const auto& g : model.grants) {
          if (g.start <= to && g.end >= from) value += g.amount;
        }
        for (const auto& c : model.consumptions) {
          if (from <= c.time && c.time <= to) value -= c.amount;
        }
        return value;
      };
      for (int64_t t = 0; t <= now + 1; ++t) {
        const auto scanned = engines.scanInterval(t);
        ASSERT_LE(scanned.closed.from, t);
        ASSERT_GE(scanned.closed.to, t);
        ASSERT_FALSE(scanned.closed.open);
        ASSERT_TRUE(scanned.open.open);
        EXPECT_EQ(scanned.open.from, scanned.closed.from);
        EXPECT_EQ(scanned.closed.value, slack(scanned.closed.from, scanned.closed.to)) << "t " << t;
        const int64_t head = engines.headTime();
        if (t <= head) {
          EXPECT_EQ(scanned.open.value, slack(scanned.open.from, head)) << "t " << t;
          EXPECT_GE(scanned.open.value, scanned.closed.value) << "t " << t;
        }
        const int64_t headroom = model.headroom(t);
        EXPECT_GE(scanned.closed.value, headroom) << "t " << t;
        ++checked;
        tight += scanned.closed.value == headroom ? 1 : 0;
      }
    }
  }
  EXPECT_GT(checked, 10000);
  EXPECT_GT(tight, checked / 10);
}

// n unit grants g_i on [i, i + 1] and consumptions of 1 at i + 1 (fact 8), then one grant
// that starts after the chain, for in-order consumptions.
void buildChain(gcl::Ledger* ledger, int n) {
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(ledger->addGrant("g" + std::to_string(i), 1, i, i + 1), Status::kOk);
  }
  ASSERT_EQ(ledger->addGrant("later", 1000000, n + 1, 10 * n), Status::kOk);
  for (int i = 0; i < n; ++i) {
    bool accepted = false;
    ASSERT_EQ(ledger->consume("c" + std::to_string(i), 1, i + 1, &accepted), Status::kOk);
    ASSERT_TRUE(accepted);
  }
}

TEST(Rejection, WithoutRoomForAnIndexTheRedrawDecidesAlone) {
  constexpr int kChain = 2000;
  gcl::GrantTable table;
  gcl::IncrementalEngine engine(table);
  for (int i = 0; i <= kChain; ++i) {
    const uint32_t g = table.ids.add("g" + std::to_string(i));
    table.amount.push_back(i < kChain ? 1 : 1000000);
    table.startTime.push_back(i < kChain ? i : kChain + 1);
    table.endTime.push_back(i < kChain ? i + 1 : 10 * kChain);
    engine.addGrant(g);
  }
  for (int i = 0; i < kChain; ++i) ASSERT_TRUE(engine.consume(1, i + 1));
  const auto& stats = engine.rejectionStats();
  engine.setIndexAllowance(0);
  uint64_t touched = stats.touched;
  for (int64_t t = 0; t < 3; ++t) {
    // A time not asked before: the whole chain from t on, no budget, no index, no replay.
    EXPECT_FALSE(engine.consume(1, t));
    EXPECT_GE(stats.touched - touched, static_cast<uint64_t>(kChain - t));
    touched = stats.touched;
    // Asked again, the blocker that re-draw stopped at rejects it, nothing re-drawn.
    EXPECT_FALSE(engine.consume(1, t));
    EXPECT_FALSE(engine.wouldAccept(1, t));
    EXPECT_EQ(stats.touched, touched);
  }
  EXPECT_EQ(stats.blockerRejections, 6u);
  EXPECT_EQ(stats.indexBuilds, 0u);
  EXPECT_EQ(stats.budgetRunOuts, 0u);
  EXPECT_EQ(stats.boundRejections, 0u);
  EXPECT_EQ(stats.replays, 0u);
  // With room again, the next rejection at a new time scans for an interval bound (fact 22)
  // after a short re-draw, and retries stop at the interval.
  engine.setIndexAllowance(SIZE_MAX);
  EXPECT_FALSE(engine.consume(1, 3));
  EXPECT_EQ(stats.intervalScans, 1u);
  EXPECT_EQ(stats.intervalRejections, 1u);
  EXPECT_EQ(stats.indexBuilds, 0u);
  EXPECT_LE(stats.touched - touched, gcl::IncrementalEngine::kDefaultMinimumRedrawBudget + 1);
  touched = stats.touched;
  EXPECT_FALSE(engine.consume(1, 3));
  EXPECT_EQ(stats.touched, touched);
  EXPECT_EQ(stats.intervalRejections, 2u);
  EXPECT_EQ(engine.checkInvariants(), "");
}

TEST(Rejection, ChainRetriesRedrawNothing) {
  constexpr int kChain = 20000;
  gcl::GrantTable table;
  gcl::IncrementalEngine engine(table);
  auto grant = [&](int64_t amount, int64_t start, int64_t end) {
    const uint32_t g = table.ids.add("g" + std::to_string(table.size()));
    table.amount.push_back(amount);
    table.startTime.push_back(start);
    table.endTime.push_back(end);
    engine.addGrant(g);
  };
  for (int i = 0; i < kChain; ++i) grant(1, i, i + 1);
  grant(1000000, kChain + 1, 10 * kChain);
  for (int i = 0; i < kChain; ++i) ASSERT_TRUE(engine.consume(1, i + 1));
  const auto& stats = engine.rejectionStats();
  EXPECT_EQ(stats.touched, 0u);  // in-order consumptions re-draw nothing

  // The first call runs into the short budget, rolls back, and the interval scan of fact 22
  // rejects it: the chain's credit from time 0 to the latest consumption is all spoken for.
  EXPECT_FALSE(engine.consume(1, 0));
  EXPECT_EQ(stats.intervalScans, 1u);
  EXPECT_EQ(stats.intervalRejections, 1u);
  EXPECT_EQ(stats.budgetRunOuts, 0u);
  EXPECT_EQ(stats.indexBuilds, 0u);
  const uint64_t firstCall = stats.touched;
  EXPECT_LE(firstCall, std::max<uint64_t>(gcl::IncrementalEngine::kDefaultMinimumRedrawBudget,
                                          (2 * kChain + 1) / gcl::IncrementalEngine::kScanDivisor) +
                           1);
  // Retries, dry runs and retries between in-order consumptions touch nothing: the
  // remembered interval ends at the chain's last consumption, and they come after it.
  for (int retry = 0; retry < 20; ++retry) {
    EXPECT_FALSE(engine.consume(1, 0));
    EXPECT_FALSE(engine.wouldAccept(1, 0));
    ASSERT_TRUE(engine.consume(1, kChain + 1 + retry));
  }
  // Nor do grants that start after it.
  for (int retry = 0; retry < 5; ++retry) {
    grant(1, 10 * kChain + retry, 20 * kChain);
    EXPECT_FALSE(engine.consume(1, 0));
  }
  // Any time inside the interval is covered as well.
  EXPECT_FALSE(engine.consume(1, kChain / 2));
  EXPECT_EQ(stats.touched, firstCall);
  EXPECT_EQ(stats.intervalScans, 1u);
  EXPECT_EQ(stats.indexBuilds, 0u);
  EXPECT_EQ(stats.boundRejections, 0u);
  EXPECT_EQ(stats.intervalRejections, 47u);
  // The blocker is found once, by a short re-draw and then the replay from time 0 (not a
  // re-draw of the whole chain), and kept across in-order consumptions.
  uint32_t blocker = 0;
  ASSERT_TRUE(engine.blockerOf(1, 0, &blocker));
  EXPECT_EQ(blocker, static_cast<uint32_t>(kChain - 1));  // the consumption at n
  EXPECT_EQ(stats.replays, 1u);
  const uint64_t afterBlocker = stats.touched;
  EXPECT_EQ(afterBlocker - firstCall, firstCall);  // the same short budget again
  ASSERT_TRUE(engine.consume(1, 2 * kChain));
  ASSERT_TRUE(engine.blockerOf(1, 0, &blocker));
  EXPECT_EQ(blocker, static_cast<uint32_t>(kChain - 1));
  EXPECT_EQ(stats.touched, afterBlocker);
  // So does a backdated consumption after the blocker's time (it draws the later grant).
  ASSERT_TRUE(engine.consume(1, kChain + 1));
  EXPECT_EQ(stats.touched, afterBlocker + 1);
  ASSERT_TRUE(engine.blockerOf(1, 0, &blocker));
  EXPECT_EQ(blocker, static_cast<uint32_t>(kChain - 1));
  EXPECT_EQ(stats.touched, afterBlocker + 1);

  // One more credit at time 0, ending first, makes it acceptable: the bound lets it through
  // and the new grant absorbs it, one consumption touched.
  grant(1, 0, 0);
  EXPECT_TRUE(engine.wouldAccept(1, 0));
  EXPECT_TRUE(engine.consume(1, 0));
  EXPECT_EQ(stats.touched, afterBlocker + 3);
  EXPECT_EQ(engine.checkInvariants(), "");
  // Now the chain is full again. The interval saw the grant and the consumption (both in
  // it): it rejects at once.
  const uint64_t afterAccept = stats.touched;
  EXPECT_FALSE(engine.consume(1, 0));
  EXPECT_EQ(stats.touched, afterAccept);
  EXPECT_EQ(stats.intervalRejections, 48u);
  EXPECT_EQ(stats.intervalScans, 1u);
  // Credit inside the interval lifts its value, and the call is let through to the re-draw.
  grant(1, 0, 0);
  EXPECT_TRUE(engine.consume(1, 0));
  EXPECT_EQ(stats.intervalRejections, 48u);
  EXPECT_EQ(stats.indexBuilds, 0u);
  EXPECT_EQ(engine.checkInvariants(), "");
}

// A headroom query builds the index the bound uses: the first rejection after it re-draws
// nothing either.
TEST(Rejection, AHeadroomQueryArmsTheBound) {
  constexpr int kChain = 3000;
  gcl::GrantTable table;
  gcl::IncrementalEngine engine(table);
  for (int i = 0; i < kChain; ++i) {
    const uint32_t g = table.ids.add("g" + std::to_string(i));
    table.amount.push_back(1);
    table.startTime.push_back(i);
    table.endTime.push_back(i + 1);
    engine.addGrant(g);
  }
  for (int i = 0; i < kChain; ++i) ASSERT_TRUE(engine.consume(1, i + 1));
  const gcl::HeadroomIndex* index = engine.headroomIndex();
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->at(0), 0);
  EXPECT_EQ(engine.headroomIndex(), index);  // nothing changed: the same index
  EXPECT_FALSE(engine.consume(1, 0));
  EXPECT_FALSE(engine.wouldAccept(1, 0));
  const auto& stats = engine.rejectionStats();
  EXPECT_EQ(stats.boundRejections, 2u);
  EXPECT_EQ(stats.touched, 0u);
  EXPECT_EQ(stats.indexBuilds, 1u);
}

// The same chain through the ledger, against the replay engine's ledger, with every kind of
// write between retries: results identical.
TEST(Rejection, ChainThroughTheLedgerMatchesTheReplayEngine) {
  constexpr int kChain = 700;
  gcl::Ledger fast;
  gcl::Ledger reference(gcl::EngineKind::kReplay);
  buildChain(&fast, kChain);
  buildChain(&reference, kChain);
  std::mt19937 random(11);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  int64_t now = kChain + 1;
  int nextId = 0;
  int accepted = 0;
  int wouldUnfund = 0;
  int64_t horizon = 0;
  for (int step = 0; step < 400 && !::testing::Test::HasFailure(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int64_t roll = uniform(0, 99);
    const std::string id = "e" + std::to_string(nextId++);
    const int64_t t = std::max(horizon, uniform(0, kChain));
    if (roll < 40) {  // the retry, as consume or tryConsume, dry or not
      const bool dry = uniform(0, 1) == 1;
      gcl::ConsumeResult a;
      gcl::ConsumeResult b;
      const int64_t amount = uniform(1, 2);
      ASSERT_EQ(fast.tryConsume(id, amount, t, dry, &a), Status::kOk);
      ASSERT_EQ(reference.tryConsume(id, amount, t, dry, &b), Status::kOk);
      EXPECT_EQ(a.accepted, b.accepted);
      EXPECT_EQ(a.reason, b.reason);
      EXPECT_EQ(a.blockingEventId, b.blockingEventId);
      EXPECT_EQ(a.allocations, b.allocations);
      accepted += a.accepted;
      wouldUnfund += a.reason == gcl::RejectReason::kWouldUnfund;
    } else if (roll < 60) {
      bool a = false;
      bool b = false;
      ASSERT_EQ(fast.consume(id, 1, now, &a), Status::kOk);
      ASSERT_EQ(reference.consume(id, 1, now, &b), Status::kOk);
      EXPECT_EQ(a, b);
      now += uniform(0, 2);
    } else if (roll < 70) {
      gcl::SubmitOutcome a{};
      gcl::SubmitOutcome b{};
      ASSERT_EQ(fast.submit(id, 1, t, &a), Status::kOk);
      ASSERT_EQ(reference.submit(id, 1, t, &b), Status::kOk);
      EXPECT_EQ(a, b);
    } else if (roll < 80) {
      const int64_t start = std::max(horizon, uniform(0, kChain));
      const int64_t end = start + uniform(0, 3);
      ASSERT_EQ(fast.addGrant(id, 1, start, end), Status::kOk);
      ASSERT_EQ(reference.addGrant(id, 1, start, end), Status::kOk);
    } else if (roll < 88) {
      const std::string grant = "g" + std::to_string(uniform(0, kChain - 1));
      const int64_t end = uniform(0, kChain + 3);
      gcl::GrantChange a;
      gcl::GrantChange b;
      const Status sa = fast.setGrantEnd(grant, end, &a);
      const Status sb = reference.setGrantEnd(grant, end, &b);
      EXPECT_EQ(sa, sb);
      EXPECT_EQ(a.applied, b.applied);
      EXPECT_EQ(a.blockingEventId, b.blockingEventId);
    } else if (roll < 95) {
      const std::string grant = "g" + std::to_string(uniform(0, kChain - 1));
      gcl::GrantChange a;
      gcl::GrantChange b;
      EXPECT_EQ(fast.voidGrant(grant, &a), reference.voidGrant(grant, &b));
      EXPECT_EQ(a.applied, b.applied);
      EXPECT_EQ(a.blockingEventId, b.blockingEventId);
    } else {
      horizon = std::min<int64_t>(horizon + uniform(0, 40), kChain);
      gcl::CompactResult a;
      gcl::CompactResult b;
      ASSERT_EQ(fast.compact(horizon, &a), Status::kOk);
      ASSERT_EQ(reference.compact(horizon, &b), Status::kOk);
      EXPECT_EQ(a.droppedConsumptions, b.droppedConsumptions);
    }
    if (step % 50 == 49) {
      ASSERT_EQ(fast.consumptionCount(), reference.consumptionCount());
      for (size_t c = 0; c < fast.consumptionCount(); ++c) {
        const std::string eventId(fast.consumption(c).eventId);
        std::vector<gcl::Allocation> a;
        std::vector<gcl::Allocation> b;
        ASSERT_EQ(fast.allocations(eventId, &a), Status::kOk);
        ASSERT_EQ(reference.allocations(eventId, &b), Status::kOk);
        EXPECT_EQ(a, b) << eventId;
      }
      for (int64_t probe = horizon; probe <= now; probe += 7) {
        int64_t a = 0;
        int64_t b = 0;
        ASSERT_EQ(fast.headroom(probe, &a), Status::kOk);
        ASSERT_EQ(reference.headroom(probe, &b), Status::kOk);
        EXPECT_EQ(a, b) << "headroom(" << probe << ")";
      }
      EXPECT_EQ(fast.checkInvariants(), "");
    }
  }
  EXPECT_GT(accepted, 5);
  EXPECT_GT(wouldUnfund, 20);
}

}  // namespace
}  // namespace gcl_test
