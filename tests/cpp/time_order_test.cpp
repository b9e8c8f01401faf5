// TimeOrder (cpp/src/time_order.h) against std::vector: random appends, insertions at either
// end and in the middle, erasures and reserves keep the same items in the same order, with
// and without room kept before the items; without it, it moves items as a vector does.
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
    if (seed % 2 == 0) order.keepRoomInFront();
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

TEST(TimeOrder, WithoutRoomKeptInFrontInsertsAtTheFrontAsAVectorDoesInTheRoomItHas) {
  gcl::TimeOrder order;
  order.reserve(64);
  for (uint32_t i = 0; i < 32; ++i) order.push_back(i);
  const uint32_t* before = order.data();
  order.insert(order.begin(), 100);  // no new buffer: the items move one place back
  order.erase(order.begin());
  order.insert(order.begin() + 3, 101);
  EXPECT_EQ(order.data(), before);
  EXPECT_EQ(order.capacity(), 64u);
  EXPECT_EQ(order[0], 0u);
  EXPECT_EQ(order[3], 101u);
}

TEST(TimeOrder, WithRoomKeptInFrontInsertsAtTheFrontMoveNothingBetweenRegrowths) {
  gcl::TimeOrder order;
  order.keepRoomInFront();
  size_t regrowths = 0;
  size_t capacity = order.capacity();
  for (uint32_t i = 0; i < 100000; ++i) {
    order.insert(order.begin(), i);
    if (order.capacity() != capacity) ++regrowths, capacity = order.capacity();
  }
  EXPECT_LE(regrowths, 40u);  // geometric growth: the front insertions are amortized O(1)
  EXPECT_EQ(order[0], 99999u);
  EXPECT_EQ(order.back(), 0u);
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
