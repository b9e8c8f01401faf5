// TouchSet (the handles a re-draw touched) against a std::set: growth past its first
// table, clears by a new stamp between rounds, and handles that collide in the table.
#include "touch_set.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

namespace gcl_test {
namespace {

using gcl::TouchSet;

TEST(TouchSet, MatchesASetThroughGrowthAndClears) {
  TouchSet set;
  std::mt19937_64 random(29);
  size_t largest = 0;
  for (int round = 0; round < 200; ++round) {
    std::set<uint32_t> model;
    // Some rounds are long (the table grows), most are short (it is reused as it is).
    const int steps = round % 50 == 49 ? 5000 : static_cast<int>(random() % 64);
    const uint32_t range = round % 2 == 0 ? 1u << 26 : 3 * static_cast<uint32_t>(steps) + 1;
    for (int step = 0; step < steps; ++step) {
      const uint32_t key = static_cast<uint32_t>(random() % range);
      ASSERT_EQ(set.insert(key), model.insert(key).second) << "round " << round;
      const uint32_t probe = static_cast<uint32_t>(random() % range);
      ASSERT_EQ(set.contains(probe), model.count(probe) == 1) << "round " << round;
    }
    ASSERT_EQ(set.size(), model.size());
    for (uint32_t key : model) ASSERT_TRUE(set.contains(key));
    largest = std::max(largest, model.size());
    set.clear();
    EXPECT_EQ(set.size(), 0u);
    for (uint32_t key : model) ASSERT_FALSE(set.contains(key)) << "round " << round;
  }
  // The table grew past its first 64 cells and stays at most half full.
  EXPECT_GT(largest, 32u);
  EXPECT_GE(set.bytes(), 2 * largest * 2 * sizeof(uint32_t));
}

TEST(TouchSet, NeighbouringHandlesAndRepeats) {
  TouchSet set;
  for (uint32_t key = 0; key < 1000; ++key) EXPECT_TRUE(set.insert(key));
  for (uint32_t key = 0; key < 1000; ++key) EXPECT_FALSE(set.insert(key));
  EXPECT_EQ(set.size(), 1000u);
  EXPECT_FALSE(set.contains(1000));
  set.clear();
  EXPECT_FALSE(set.contains(0));
  EXPECT_TRUE(set.insert(999));
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace gcl_test
