// Headroom after a change, answered from the suffix (docs/algorithms.md, fact 20): the
// index's left part F(t) stays while every change since is later than t, and G(t) is
// computed from the consumptions at or after t and the grants starting after t. Held to an
// index built from scratch (the engine's time order unused, so every input is sorted
// anew) after every kind of write, and to the policy that bounds the suffix answers' work.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "engine_fixture.h"
#include "headroom.h"
#include "incremental_engine.h"

namespace {

using SuffixHeadroom = gcl_test::EngineFixture;

TEST_F(SuffixHeadroom, MatchesAnIndexBuiltFromScratchAfterEveryKindOfWrite) {
  std::mt19937 random(5);
  int64_t now = 0;
  for (int i = 0; i < 40; ++i) grant(20 + random() % 40, i * 5, i * 5 + 60 + random() % 100);
  size_t checked = 0;
  for (int step = 0; step < 1200; ++step) {
    const int kind = static_cast<int>(random() % 10);
    now += random() % 4;
    if (kind == 0) {
      grant(10 + random() % 50, now + random() % 30, now + 40 + random() % 200);  // in order
    } else if (kind == 1) {
      const int64_t start = random() % (now + 1);  // backdated start: F may change
      grant(1 + random() % 20, start, start + random() % 300);
    } else if (kind == 2) {
      consume(1 + random() % 15, random() % (now + 1));  // backdated
    } else {
      consume(1 + random() % 15, now);
    }
    for (int q = 0; q < 3; ++q) {
      const int64_t t = random() % (now + 1);
      if (t >= engine_.latestTimestamp()) continue;  // the balance answers there
      ASSERT_EQ(engine_.headroomAt(t), fromScratch(t)) << "step " << step << ", t = " << t;
      ++checked;
    }
  }
  // Each path came up often enough for the comparison to mean something.
  EXPECT_GT(checked, 3000u);
  EXPECT_GT(engine_.rejectionStats().suffixHeadrooms, 700u);
  EXPECT_GT(engine_.rejectionStats().indexBuilds, 600u);
}

// Suffix answers stop once their work since the last change (consumptions in the suffix,
// changes since the index, a sixteenth of the grants for the scan) would pass half the
// events: then one rebuild, and O(log n) answers from it until the next change.
TEST_F(SuffixHeadroom, SuffixAnswersStopAtHalfARebuildPerChange) {
  grant(100, 25, 35);  // room for the backdated consumption below
  for (int i = 0; i < 100; ++i) grant(1, i, i + 1);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(consume(1, i + 1));
  grant(1000, 200, 400);  // 102 grants
  const auto& stats = engine_.rejectionStats();
  ASSERT_EQ(engine_.headroomAt(50), fromScratch(50));  // no index yet: built
  EXPECT_EQ(stats.indexBuilds, 1u);
  ASSERT_TRUE(consume(5, 250));  // in order, later than every query below; 203 events
  // Work 12 + 1 + 6, then 7 + 1 + 6, then 42 + 1 + 6: 82 <= 101.
  for (int64_t t : {90, 95, 60}) ASSERT_EQ(engine_.headroomAt(t), fromScratch(t));
  EXPECT_EQ(stats.suffixHeadrooms, 3u);
  EXPECT_EQ(stats.indexBuilds, 1u);
  ASSERT_EQ(engine_.headroomAt(10), fromScratch(10));  // 92 + 1 + 6 more: rebuilt
  EXPECT_EQ(stats.indexBuilds, 2u);
  ASSERT_EQ(engine_.headroomAt(70), fromScratch(70));  // exact: no build, no suffix
  EXPECT_EQ(stats.suffixHeadrooms, 3u);
  EXPECT_EQ(stats.indexBuilds, 2u);
  ASSERT_TRUE(consume(5, 30));  // backdated: F(t) changed for t >= 30
  ASSERT_EQ(engine_.headroomAt(50), fromScratch(50));
  EXPECT_EQ(stats.suffixHeadrooms, 3u);
  EXPECT_EQ(stats.indexBuilds, 3u);
  ASSERT_TRUE(consume(5, 260));
  ASSERT_EQ(engine_.headroomAt(20), fromScratch(20));  // t < 30 and < 260: 84 + 1 + 6 <= 102
  EXPECT_EQ(stats.suffixHeadrooms, 4u);
  EXPECT_EQ(stats.indexBuilds, 3u);
}

}  // namespace
