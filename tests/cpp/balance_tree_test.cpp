// BalanceTree against a std::map of deltas: balances at random times, the whole curve and
// firstBelow, on key streams shaped like the engine's (most keys at a moving head, many
// just ahead of it, some backdated, some anywhere), so that the fingers (keys added
// without a descent), leaf and inner splits and the leaf blocks are all exercised.
#include "balance_tree.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "gtest_printers.h"

namespace gcl_test {
namespace {

int64_t prefixSum(const std::map<int64_t, int64_t>& deltas, int64_t time) {
  int64_t sum = 0;
  for (const auto& [key, delta] : deltas) {
    if (key > time) break;
    sum += delta;
  }
  return sum;
}

TEST(BalanceTree, MatchesAMapOfDeltasOnEngineShapedKeys) {
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    std::mt19937_64 rng(seed);
    auto below = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
    gcl::BalanceTree tree;
    std::map<int64_t, int64_t> deltas;
    int64_t head = 0;
    const int count = 20000 + static_cast<int>(seed) * 1500;
    for (int i = 0; i < count; ++i) {
      const int64_t roll = below(100);
      int64_t time;
      if (roll < 60) {
        head += below(3);
        time = head;
      } else if (roll < 85) {
        time = head + 1 + below(600);
      } else if (roll < 95) {
        time = head - below(std::min<int64_t>(head, 500) + 1);
      } else {
        time = below(head + 1000);
      }
      const int64_t delta = below(21) - 10;
      tree.add(time, delta);
      deltas[time] += delta;
      if (i % 97 == 0) {
        const int64_t at = below(head + 1200);
        ASSERT_EQ(tree.at(at), prefixSum(deltas, at)) << "seed " << seed << ", add " << i;
      }
    }
    std::vector<gcl::BalancePoint> curve;
    tree.curve(0, gcl::kMaxSafeInteger, &curve);
    std::vector<gcl::BalancePoint> expected{{0, prefixSum(deltas, 0)}};
    for (const auto& [key, delta] : deltas) {
      if (key == 0) continue;
      const int64_t value = expected.back().balance + delta;
      if (value != expected.back().balance) expected.push_back({key, value});
    }
    ASSERT_EQ(curve, expected) << "seed " << seed;
    const int64_t from = below(head + 1);
    const int64_t threshold = prefixSum(deltas, from) - 5;
    int64_t firstBelow = -1;
    for (const gcl::BalancePoint& point : expected) {
      if (point.time >= from && point.balance < threshold) {
        firstBelow = point.time;
        break;
      }
    }
    EXPECT_EQ(tree.firstBelow(threshold, from), firstBelow) << "seed " << seed;
  }
}

TEST(BalanceTree, KeysBeforeAFingerLeafsFirstKeyTakeTheDescent) {
  // Fill a few leaves in time order, then add keys just before each leaf's first key and
  // into a leftmost child: these must not go through a finger of the leaf to their right.
  gcl::BalanceTree tree;
  std::map<int64_t, int64_t> deltas;
  for (int64_t t = 1000; t < 5000; t += 10) {
    tree.add(t, 1);
    deltas[t] += 1;
  }
  for (int64_t t = 4995; t >= 5; t -= 10) {
    tree.add(t, 2);
    deltas[t] += 2;
    tree.add(t + 10, -1);  // right after: often the leaf a finger points to
    deltas[t + 10] -= 1;
  }
  for (int64_t t = 0; t <= 5100; t += 3) {
    ASSERT_EQ(tree.at(t), prefixSum(deltas, t)) << "t " << t;
  }
}

}  // namespace
}  // namespace gcl_test
