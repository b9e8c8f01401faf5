// The replay's live grants (replay_check.h) against a std::set in draw order: LiveGrants,
// the queue for grants pushed in draw order with the heap beside it for the others, and
// DrawOrderHeap alone, under random pushes (in draw order, in start order, at random),
// pops and draws from the top, with ties of end times decided by the ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine.h"
#include "replay_check.h"

namespace gcl_test {
namespace {

using gcl::DrawOrderHeap;
using gcl::GrantTable;
using gcl::LiveGrants;

// `count` grants with ends in [0, ends) (ties are common) and starts at most their ends;
// ids in an order of their own, so that a tie is not decided by the grant's index.
GrantTable randomTable(std::mt19937_64* random, size_t count, int64_t ends) {
  GrantTable table;
  std::vector<size_t> names(count);
  std::iota(names.begin(), names.end(), size_t{0});
  std::shuffle(names.begin(), names.end(), *random);
  for (size_t g = 0; g < count; ++g) {
    table.ids.add("g" + std::to_string(names[g]));
    const int64_t end = static_cast<int64_t>((*random)() % static_cast<uint64_t>(ends));
    table.endTime.push_back(end);
    table.startTime.push_back(end - static_cast<int64_t>((*random)() % 4));
    table.amount.push_back(1 + static_cast<int64_t>((*random)() % 5));
  }
  return table;
}

enum class PushOrder { kDrawOrder, kStartOrder, kRandom };

std::vector<uint32_t> pushOrder(const GrantTable& table, PushOrder order, std::mt19937_64* random) {
  std::vector<uint32_t> grants(table.size());
  std::iota(grants.begin(), grants.end(), uint32_t{0});
  if (order == PushOrder::kDrawOrder) {
    std::sort(grants.begin(), grants.end(),
              [&](uint32_t a, uint32_t b) { return table.drawsBefore(a, b); });
  } else if (order == PushOrder::kStartOrder) {
    std::stable_sort(grants.begin(), grants.end(), [&](uint32_t a, uint32_t b) {
      return table.startTime[a] < table.startTime[b];
    });
  } else {
    std::shuffle(grants.begin(), grants.end(), *random);
  }
  return grants;
}

// Pushes `order`, popping or drawing one from the top now and then, and checks the top,
// its remaining credit and the size against the model after every step; then drains it.
template <class Live>
void checkAgainstModel(const GrantTable& table, const std::vector<uint32_t>& order, Live* live,
                       std::mt19937_64* random) {
  auto drawnBefore = [&](uint32_t a, uint32_t b) { return table.drawsBefore(a, b); };
  std::set<uint32_t, decltype(drawnBefore)> model(drawnBefore);
  std::vector<int64_t> remaining(table.size(), 0);
  auto check = [&] {
    ASSERT_EQ(live->empty(), model.empty());
    if (model.empty()) return;
    ASSERT_EQ(live->top().grant, *model.begin());
    ASSERT_EQ(live->top().end, table.endTime[*model.begin()]);
    ASSERT_EQ(live->top().remaining, remaining[*model.begin()]);
  };
  for (uint32_t g : order) {
    remaining[g] = table.amount[g];
    live->push(g, remaining[g]);
    model.insert(g);
    ASSERT_NO_FATAL_FAILURE(check());
    const uint64_t roll = (*random)() % 4;
    if (roll == 0 && !model.empty()) {
      live->pop();
      model.erase(model.begin());
    } else if (roll == 1 && !model.empty() && remaining[*model.begin()] > 0) {
      live->top().remaining -= 1;  // a draw, in place
      remaining[*model.begin()] -= 1;
    }
    ASSERT_NO_FATAL_FAILURE(check());
  }
  while (!model.empty()) {
    live->pop();
    model.erase(model.begin());
    ASSERT_NO_FATAL_FAILURE(check());
  }
}

TEST(LiveGrants, TopIsTheFirstInDrawOrderForAnyPushOrder) {
  std::mt19937_64 random(20261202);
  for (int round = 0; round < 600; ++round) {
    const size_t count = 1 + random() % 300;
    const GrantTable table = randomTable(&random, count, 1 + static_cast<int64_t>(random() % 40));
    for (PushOrder order : {PushOrder::kDrawOrder, PushOrder::kStartOrder, PushOrder::kRandom}) {
      DrawOrderHeap heap(&table);
      LiveGrants live(&table, &heap);
      ASSERT_NO_FATAL_FAILURE(
          checkAgainstModel(table, pushOrder(table, order, &random), &live, &random))
          << "round " << round << ", order " << static_cast<int>(order);
      DrawOrderHeap alone(&table);
      ASSERT_NO_FATAL_FAILURE(
          checkAgainstModel(table, pushOrder(table, order, &random), &alone, &random))
          << "round " << round << ", order " << static_cast<int>(order);
    }
  }
}

// Grants pushed in draw order never reach the heap; its queue keeps only what is live
// while it moves (its buffer grows by doubling and drops the spent front).
TEST(LiveGrants, ADrawOrderRunStaysInTheQueue) {
  std::mt19937_64 random(7);
  const GrantTable table = randomTable(&random, 5000, 100000);
  DrawOrderHeap heap(&table);
  LiveGrants live(&table, &heap);
  const std::vector<uint32_t> order = pushOrder(table, PushOrder::kDrawOrder, &random);
  for (size_t i = 0; i < order.size(); ++i) {
    live.push(order[i], 1);
    if (i % 3 != 0) live.pop();
    EXPECT_TRUE(heap.empty());
  }
}

}  // namespace
}  // namespace gcl_test
