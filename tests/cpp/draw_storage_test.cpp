// The engine's draw storage against plain models: DrawList::assign and cut on full single
// draws, partial single draws and longer lists, DrawPool and DrawerPool reusing what was
// released, DrawerList under random inserts and erases against a std::vector (through
// growth past the pooled capacities), and NodeArena handing out distinct, aligned, stable
// nodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "draw_list.h"
#include "drawer_list.h"
#include "node_arena.h"

namespace gcl_test {
namespace {

using gcl::Draw;
using gcl::DrawerList;
using gcl::DrawerPool;
using gcl::DrawList;
using gcl::DrawPool;

std::vector<Draw> contents(const DrawList& list, int64_t full) {
  std::vector<Draw> out;
  list.view(full).copyTo(&out);
  return out;
}

// `full` is the consumption's amount, which the list needs to read a single full draw.
void expectDraws(const DrawList& list, int64_t full, const std::vector<Draw>& expected) {
  const std::vector<Draw> actual = contents(list, full);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].grant, expected[i].grant) << "draw " << i;
    EXPECT_EQ(actual[i].amount, expected[i].amount) << "draw " << i;
    EXPECT_EQ(list.view(full).amountFrom(expected[i].grant), expected[i].amount) << "draw " << i;
  }
}

TEST(DrawListCut, FullDrawStoresNoArrayAndGoesWhole) {
  DrawPool pool;
  DrawList list;
  list.assign({{7, 10}}, 10, &pool);
  EXPECT_FALSE(list.spilled());
  expectDraws(list, 10, {{7, 10}});
  EXPECT_EQ(list.view(10).amountFrom(8), 0);
  EXPECT_TRUE(list.cut(7, 10, 10, &pool));
  EXPECT_TRUE(list.empty());
}

TEST(DrawListCut, PartialCutOfAFullDrawSpillsThenGoes) {
  DrawPool pool;
  DrawList list;
  list.assign({{7, 10}}, 10, &pool);
  EXPECT_FALSE(list.cut(7, 4, 10, &pool));
  EXPECT_TRUE(list.spilled());  // one draw of less than the full amount: an array of 1
  expectDraws(list, 10, {{7, 6}});
  EXPECT_FALSE(list.cut(7, 1, 10, &pool));
  expectDraws(list, 10, {{7, 5}});
  EXPECT_TRUE(list.cut(7, 5, 10, &pool));
  EXPECT_TRUE(list.empty());
  EXPECT_FALSE(list.spilled());
}

TEST(DrawListAssign, OneDrawIsInlineOnlyWhenItIsTheFullAmount) {
  DrawPool pool;
  DrawList list;
  list.assign({{3, 4}}, 9, &pool);  // a partial single draw, as a rollback may restore
  EXPECT_TRUE(list.spilled());
  expectDraws(list, 9, {{3, 4}});
  list.assign({{5, 2}}, 9, &pool);  // same length: rewritten in place
  EXPECT_TRUE(list.spilled());
  expectDraws(list, 9, {{5, 2}});
  list.assign({{5, 9}}, 9, &pool);
  EXPECT_FALSE(list.spilled());
  expectDraws(list, 9, {{5, 9}});
  list.assign({{1, 4}, {5, 5}}, 9, &pool);
  EXPECT_TRUE(list.spilled());
  expectDraws(list, 9, {{1, 4}, {5, 5}});
  list.assign({}, 9, &pool);
  EXPECT_TRUE(list.empty());
  EXPECT_FALSE(list.spilled());
}

TEST(DrawListCut, TwoDrawsBecomeTheOther) {
  DrawPool pool;
  for (uint32_t gone : {1u, 2u}) {
    DrawList list;
    list.assign({{1, 5}, {2, 8}}, 13, &pool);
    EXPECT_FALSE(list.cut(gone, 1, 13, &pool));
    EXPECT_TRUE(list.cut(gone, gone == 1 ? 4 : 7, 13, &pool));
    // The draw left is not the full 13: it stays in an array of 1.
    const Draw kept = gone == 1 ? Draw{2, 8} : Draw{1, 5};
    EXPECT_TRUE(list.spilled());
    expectDraws(list, 13, {kept});
    EXPECT_EQ(list.view(13).amountFrom(gone), 0);
    list.release(&pool);
  }
}

TEST(DrawListCut, TwoDrawsBecomeAFullDrawWithoutAnArray) {
  // A list whose draws sum to more than the full amount mid-re-draw: once the cut draw is
  // gone, the other is the full amount, read from the tag alone.
  DrawPool pool;
  DrawList list;
  list.assign({{1, 3}, {2, 10}}, 10, &pool);
  EXPECT_TRUE(list.cut(1, 3, 10, &pool));
  EXPECT_FALSE(list.spilled());
  expectDraws(list, 10, {{2, 10}});
}

TEST(DrawListCut, LongerListsKeepTheirOrder) {
  DrawPool pool;
  DrawList list;
  list.assign({{1, 1}, {2, 2}, {3, 3}, {4, 4}}, 10, &pool);
  EXPECT_TRUE(list.cut(2, 2, 10, &pool));
  expectDraws(list, 10, {{1, 1}, {3, 3}, {4, 4}});
  EXPECT_TRUE(list.cut(4, 4, 10, &pool));
  expectDraws(list, 10, {{1, 1}, {3, 3}});
  EXPECT_TRUE(list.cut(1, 1, 10, &pool));
  expectDraws(list, 10, {{3, 3}});
  list.release(&pool);
  EXPECT_TRUE(list.empty());
}

TEST(DrawListCut, LongListsOutsideThePool) {
  DrawPool pool;
  std::vector<Draw> draws;
  int64_t full = 0;
  for (uint32_t g = 0; g < DrawPool::kMaxPooled + 3; ++g) {
    draws.push_back({g, g + 1});
    full += g + 1;
  }
  DrawList list;
  list.assign(draws, full, &pool);
  EXPECT_TRUE(list.cut(0, 1, full, &pool));
  draws.erase(draws.begin());
  expectDraws(list, full, draws);
  // Moving a list (as a growing vector of lists does) keeps its array.
  DrawList moved(std::move(list));
  EXPECT_TRUE(list.empty());
  expectDraws(moved, full, draws);
  moved.assign({{9, 9}}, 9, &pool);
  expectDraws(moved, 9, {{9, 9}});
}

TEST(DrawPool, ReleasedArraysAreReusedPerLength) {
  DrawPool pool;
  Draw* two = pool.allocate(2);
  Draw* three = pool.allocate(3);
  EXPECT_NE(two, three);
  pool.release(two, 2);
  pool.release(three, 3);
  EXPECT_EQ(pool.allocate(3), three);
  EXPECT_EQ(pool.allocate(2), two);
  EXPECT_NE(pool.allocate(2), two);  // the free list for 2 is empty again
}

TEST(DrawerPool, ReleasedArraysAreReusedPerCapacity) {
  DrawerPool pool;
  uint32_t* four = pool.allocate(4);
  uint32_t* eight = pool.allocate(8);
  pool.release(four, 4);
  pool.release(eight, 8);
  EXPECT_EQ(pool.allocate(8), eight);
  EXPECT_EQ(pool.allocate(4), four);
}

TEST(DrawerList, MatchesAVectorUnderRandomInsertsAndErases) {
  DrawerPool pool;
  std::mt19937_64 random(13);
  std::vector<DrawerList> lists(4);
  std::vector<std::vector<uint32_t>> models(4);
  uint32_t next = 0;
  for (int step = 0; step < 60000; ++step) {
    const size_t k = random() % lists.size();
    DrawerList& list = lists[k];
    std::vector<uint32_t>& model = models[k];
    const uint64_t roll = random() % 10;
    if (roll < 6 || model.empty()) {
      const size_t at = model.empty() ? 0 : random() % (model.size() + 1);
      list.insert(list.begin() + at, next, &pool);
      model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), next);
      ++next;
    } else if (roll < 8) {
      const size_t at = random() % model.size();
      list.erase(list.begin() + at);
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      list.pop_back();
      model.pop_back();
    }
    ASSERT_TRUE(list.equals(model)) << "list " << k << " after step " << step;
    if (!model.empty()) ASSERT_EQ(list.back(), model.back());
  }
  // Some lists grew past the largest pooled capacity (new[] from there on).
  size_t longest = 0;
  for (const auto& model : models) longest = std::max(longest, model.size());
  EXPECT_GT(longest, DrawerPool::kMaxPooled);
  // Moving a list (as a growing vector of lists does) keeps its contents.
  std::vector<DrawerList> moved;
  for (DrawerList& list : lists) moved.push_back(std::move(list));
  for (size_t k = 0; k < moved.size(); ++k) EXPECT_TRUE(moved[k].equals(models[k]));
}

TEST(NodeArena, NodesAreDistinctAlignedAndStable) {
  gcl::NodeArena arena;
  using ArenaSet = std::set<uint64_t, std::less<uint64_t>, gcl::ArenaAllocator<uint64_t>>;
  ArenaSet set{std::less<uint64_t>{}, gcl::ArenaAllocator<uint64_t>{&arena}};
  std::vector<const uint64_t*> places;
  for (uint64_t v = 0; v < 5000; ++v) places.push_back(&*set.insert(v * 7919 % 5003).first);
  for (uint64_t v = 0; v < 5000; ++v) {
    EXPECT_EQ(*places[v], v * 7919 % 5003);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(places[v]) % alignof(uint64_t), 0u);
  }
  EXPECT_EQ(set.size(), 5000u);
  EXPECT_GE(arena.bytes(), 5000 * sizeof(uint64_t));
}

}  // namespace
}  // namespace gcl_test
