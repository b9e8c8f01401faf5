// Headroom trackers (docs/algorithms.md, fact 21): the headroom at a fixed time kept exact
// while the ledger grows at its latest times. The tracker alone against an index built from
// scratch after every write; the engine's trackers (started for a time asked again, or
// rejected again) against the same, and against the brute-force PreviewModel through the
// ledger; and the chain of fact 8 growing between retries, where the counters prove that
// retries neither re-draw nor rebuild.
#include "headroom_tracker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_fixture.h"
#include "headroom.h"
#include "incremental_engine.h"
#include "preview_model.h"

namespace {

class Tracked : public gcl_test::EngineFixture {
 protected:
  // A tracker of `t` built from scratch: F(t) from a fresh index, the later consumptions in
  // time order.
  std::unique_ptr<gcl::HeadroomTracker> trackerOf(int64_t t) const {
    std::vector<gcl::TimedAmount> after;
    for (const gcl::TimedAmount& c : consumed_) {
      if (c.timestamp > t) after.push_back(c);
    }
    std::stable_sort(after.begin(), after.end(),
                     [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
    const auto index = gcl::HeadroomIndex::of(table_, engine_, consumed_.size());
    int64_t total = 0;
    for (int64_t amount : table_.amount) total += amount;
    auto tracker = std::make_unique<gcl::HeadroomTracker>(t, index->chainEndingAt(t), total, table_,
                                                          after.size());
    for (const gcl::TimedAmount& c : after) tracker->consume(c.amount, c.timestamp);
    return tracker;
  }

  // The chain of fact 8: unit grants on [i, i + 1], consumptions of 1 at i + 1.
  void buildChain(int n) {
    for (int i = 0; i < n; ++i) grant(1, i, i + 1);
    for (int i = 0; i < n; ++i) ASSERT_TRUE(consume(1, i + 1));
  }

  // Grows the chain by a link at a time (a unit grant from the latest consumption's time,
  // then a consumption of 1 after it) from `from` to `to`, retrying the call at 0, which
  // must stay rejected, before each link.
  void growChainRetrying(int from, int to) {
    for (int i = from; i < to; ++i) {
      EXPECT_FALSE(consume(1, 0));
      EXPECT_FALSE(engine_.wouldAccept(1, 0));
      grant(1, i, i + 1);
      ASSERT_TRUE(consume(1, i + 1));
    }
  }
};

TEST_F(Tracked, ATrackerMatchesAnIndexBuiltFromScratchAfterEveryInOrderWrite) {
  std::mt19937 random(21);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  int64_t now = 0;
  // A history with ties, gaps, grants inside gaps and backdated consumptions.
  for (int i = 0; i < 30; ++i) {
    const int64_t start = uniform(0, 60);
    grant(uniform(1, 12), start, start + uniform(0, 25));
  }
  for (int i = 0; i < 80; ++i) consume(uniform(1, 4), uniform(0, 70));
  for (const auto& c : consumed_) now = std::max(now, c.timestamp);
  size_t checked = 0;
  size_t dropped = 0;
  for (int round = 0; round < 300 && !HasFailure(); ++round) {
    const int64_t t = uniform(0, std::max<int64_t>(0, engine_.latestTimestamp() - 1));
    if (t >= engine_.latestTimestamp()) continue;
    std::unique_ptr<gcl::HeadroomTracker> tracker = trackerOf(t);
    ASSERT_EQ(tracker->headroom(), fromScratch(t)) << "round " << round << ", t = " << t;
    for (int step = 0; step < 25; ++step) {
      const int64_t roll = uniform(0, 9);
      if (roll < 5) {
        now += uniform(0, 2);  // in order; ties with the latest time too
        if (consume(uniform(1, 6), now)) tracker->consume(consumed_.back().amount, now);
      } else {
        // Any start (before t, between, after the latest), an end near the latest time:
        // sometimes before it, which the tracker must refuse.
        const int64_t start = uniform(0, now + 10);
        const int64_t end = std::max(start, now + uniform(-3, 12));
        grant(uniform(1, 8), start, end);
        if (!tracker->addGrant(table_.amount.back(), start, end)) {
          EXPECT_LT(end, engine_.latestTimestamp());
          ++dropped;
          break;
        }
      }
      ASSERT_EQ(tracker->headroom(), fromScratch(t))
          << "round " << round << ", step " << step << ", t = " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000u);
  EXPECT_GT(dropped, 20u);
}

TEST_F(Tracked, TheEngineAnswersARepeatedTimeFromItsTracker) {
  std::mt19937 random(8);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  int64_t now = 0;
  for (int i = 0; i < 20; ++i) grant(uniform(10, 40), i * 4, i * 4 + uniform(20, 90));
  std::vector<int64_t> watched = {1, 5};
  size_t checked = 0;
  for (int step = 0; step < 3000 && !HasFailure(); ++step) {
    const int64_t roll = uniform(0, 99);
    if (roll < 55) {
      now += uniform(0, 2);
      consume(uniform(1, 8), now);
    } else if (roll < 80) {
      const int64_t start = uniform(std::max<int64_t>(0, now - 30), now + 20);
      grant(uniform(1, 30), start, std::max(start, now) + uniform(0, 80));
    } else if (roll < 86) {
      const int64_t start = uniform(0, now);  // may end before the latest time
      grant(uniform(1, 10), start, start + uniform(0, 40));
    } else if (roll < 92) {
      consume(uniform(1, 5), uniform(0, now));  // backdated: drops the trackers
    } else if (roll < 96) {
      watched[uniform(0, 1)] = uniform(0, now);  // a preview moves to another time
    } else {
      // A backdated call at a watched time: decided by its tracker when there is one.
      const int64_t t = watched[uniform(0, 1)];
      const int64_t expected = t < engine_.latestTimestamp() ? fromScratch(t) : -1;
      const int64_t amount = uniform(1, 30);
      const bool accepted = consume(amount, t);
      if (expected >= 0) {
        EXPECT_EQ(accepted, amount <= expected) << amount << "@" << t << ", step " << step;
      }
    }
    for (int64_t t : watched) {
      if (t >= engine_.latestTimestamp()) continue;  // the balance answers there
      ASSERT_EQ(engine_.headroomAt(t), fromScratch(t)) << "step " << step << ", t = " << t;
      ++checked;
    }
  }
  EXPECT_EQ(engine_.checkInvariants(), "");
  const auto& stats = engine_.rejectionStats();
  EXPECT_GT(checked, 4000u);
  EXPECT_GT(stats.trackerStarts, 100u);
  EXPECT_GT(stats.trackerAnswers, 2000u);
}

// The chain of fact 8 keeps growing (a unit grant on [i, i + 1] and a consumption of 1 at
// i + 1, so that every new grant briefly lifts the headroom at 0) while the rejected call is
// retried: after its first retry past the bound, a tracker decides every retry, with nothing
// re-drawn and no index rebuilt. (A headroom query builds the index first; without one, the
// first rejection is the interval scan's, and the next test.)
TEST_F(Tracked, RetriesOnAGrowingChainNeitherRedrawNorRebuild) {
  constexpr int kChain = 5000;
  buildChain(kChain);
  const auto& stats = engine_.rejectionStats();
  EXPECT_EQ(engine_.headroomAt(0), 0);  // builds the index
  EXPECT_FALSE(consume(1, 0));          // the bound
  EXPECT_EQ(stats.indexBuilds, 1u);
  grant(1, kChain, kChain + 1);
  EXPECT_TRUE(engine_.wouldAccept(1, 0));  // the new grant frees one credit at 0, for now
  EXPECT_EQ(stats.trackerStarts, 1u);
  const uint64_t touched = stats.touched;
  const uint64_t answers = stats.trackerAnswers;
  ASSERT_TRUE(consume(1, kChain + 1));
  growChainRetrying(kChain + 1, kChain + 200);
  EXPECT_EQ(stats.touched, touched);
  EXPECT_EQ(stats.indexBuilds, 1u);
  EXPECT_EQ(stats.trackerStarts, 1u);
  EXPECT_EQ(stats.trackerAnswers - answers, 2u * 199);
  EXPECT_EQ(engine_.headroomAt(0), 0);
  EXPECT_EQ(fromScratch(0), 0);
  // A grant ending before the latest consumption drops the tracker; the answers stay exact.
  grant(1, 0, 0);
  EXPECT_EQ(engine_.headroomAt(0), 1);
  EXPECT_TRUE(consume(1, 0));
  EXPECT_EQ(engine_.headroomAt(0), fromScratch(0));
  EXPECT_EQ(engine_.checkInvariants(), "");
}

// The same growing chain with no index: the first rejection is the interval scan's (fact 22),
// and the open interval it keeps (from 0 to the head time) decides every retry, with
// nothing re-drawn, scanned or built.
TEST_F(Tracked, RetriesOnAGrowingChainStopAtTheOpenInterval) {
  constexpr int kChain = 5000;
  buildChain(kChain);
  const auto& stats = engine_.rejectionStats();
  EXPECT_FALSE(consume(1, 0));
  EXPECT_EQ(stats.intervalScans, 1u);
  grant(1, kChain, kChain + 1);
  // The new grant frees one credit at 0, for now: the dry run that finds it accepted moves
  // the whole chain, past every budget (a second scan, and the index).
  EXPECT_TRUE(engine_.wouldAccept(1, 0));
  ASSERT_TRUE(consume(1, kChain + 1));
  const uint64_t touched = stats.touched;
  const uint64_t rejections = stats.intervalRejections;
  const uint64_t scans = stats.intervalScans;
  const uint64_t builds = stats.indexBuilds;
  growChainRetrying(kChain + 1, kChain + 200);
  EXPECT_EQ(stats.touched, touched);
  EXPECT_EQ(stats.intervalScans, scans);
  EXPECT_EQ(stats.indexBuilds, builds);
  EXPECT_EQ(stats.intervalRejections - rejections, 2u * 199);
  EXPECT_EQ(fromScratch(0), 0);
  EXPECT_EQ(engine_.checkInvariants(), "");
}

// Against the brute-force model (which shares no code with the engine): a small ledger
// growing at its latest times, with previews and retries at a few times, and now and then a
// write that reaches back.
TEST(TrackedModel, MatchesTheBruteForceModel) {
  uint64_t trackerAnswers = 0;
  uint64_t trackerStarts = 0;
  for (uint32_t seed = 1; seed <= 12 && !::testing::Test::HasFailure(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    gcl::GrantTable table;
    gcl::IncrementalEngine engine(table);
    gcl_test::PreviewModel model;
    int next = 0;
    int64_t now = 0;
    std::vector<int64_t> watched = {0, 2, 4};
    auto consume = [&](int64_t amount, int64_t t) {
      const bool accepted = engine.consume(amount, t);
      EXPECT_EQ(accepted, *model.consume("c" + std::to_string(next++), amount, t))
          << amount << "@" << t;
    };
    for (int step = 0; step < 160 && !::testing::Test::HasFailure(); ++step) {
      const int64_t roll = uniform(0, 99);
      if (roll < 35) {
        const int64_t start = uniform(std::max<int64_t>(0, now - 4), now + 3);
        const int64_t end = std::max(start, now + uniform(-2, 6));
        const int64_t amount = uniform(1, 5);
        const uint32_t g = gcl_test::appendGrant(&table, amount, start, end);
        engine.addGrant(g);
        const std::string id(table.ids.at(g));
        model.addGrant(id, amount, start, end);
      } else if (roll < 75) {
        now += uniform(0, 1);
        consume(uniform(1, 3), now);
      } else {
        consume(uniform(1, 4), roll < 95 ? watched[uniform(0, 2)] : uniform(0, now));
      }
      if (step % 40 == 39) watched[uniform(0, 2)] = uniform(0, now);
      for (int64_t t : watched) {
        if (t >= engine.latestTimestamp()) continue;  // the balance answers there
        ASSERT_EQ(engine.headroomAt(t), model.headroom(t)) << "t = " << t << ", step " << step;
      }
    }
    EXPECT_EQ(engine.checkInvariants(), "");
    trackerAnswers += engine.rejectionStats().trackerAnswers;
    trackerStarts += engine.rejectionStats().trackerStarts;
  }
  EXPECT_GT(trackerStarts, 50u);
  EXPECT_GT(trackerAnswers, 1000u);
}

}  // namespace
