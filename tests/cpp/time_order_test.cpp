// TimeOrder (cpp/src/time_order.h) against std::vector: random appends, insertions at either
// end and in the middle, erasures and reserves keep the same items in the same order.
#include "time_order.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

TEST(TimeOrder, MatchesAVectorUnderInsertionsAndErasuresAnywhere) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 random(seed);
    gcl::TimeOrder order;
    std::vector<uint32_t> expected;
    // Seeds lean towards one end, as a ledger (latest) and its mirror (earliest) do.
    const int lean = seed % 3;
    for (int step = 0; step < 3000; ++step) {
      const int roll = std::uniform_int_distribution<int>(0, 99)(random);
      const uint32_t value = static_cast<uint32_t>(step);
      const size_t size = expected.size();
      if (roll < 10 && size > 0) {
        const size_t i = std::uniform_int_distribution<size_t>(0, size - 1)(random);
        order.erase(order.begin() + i);
        expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (roll < 12) {
        order.reserve(size + std::uniform_int_distribution<size_t>(0, 100)(random));
      } else if (roll < 40 && lean == 0) {
        order.push_back(value);
        expected.push_back(value);
      } else {
        size_t i = std::uniform_int_distribution<size_t>(0, size)(random);
        if (lean == 1 && roll < 80) i = 0;
        if (lean == 0 && roll < 80) i = size;
        order.insert(order.begin() + i, value);
        expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(i), value);
      }
      ASSERT_EQ(order.size(), expected.size());
      ASSERT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()))
          << "seed " << seed << " step " << step;
      ASSERT_GE(order.capacity(), order.size());
      if (!expected.empty()) ASSERT_EQ(order.back(), expected.back());
    }
  }
}

TEST(TimeOrder, KeepsItsRoomAfterTheItemsWhileNothingWasInsertedBeforeThem) {
  gcl::TimeOrder order;
  order.reserve(1000);
  const uint32_t* before = order.data();
  for (uint32_t i = 0; i < 1000; ++i) order.push_back(i);
  EXPECT_EQ(order.data(), before);  // no regrowth: the whole reserve was after the items
  EXPECT_EQ(order.capacity(), 1000u);
}

}  // namespace
