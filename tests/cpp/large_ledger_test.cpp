// Ledgers too large for the reference engine (tens of thousands of events: deep balance
// trees, many ids, long draw lists). The incremental engine is checked against one
// efficient replay written here from docs/semantics.md: final allocations of every accepted
// consumption, the whole balance curve rebuilt from those draws (docs/algorithms.md, fact 2),
// balances at random times, and a sample of accept/reject decisions replayed as of the
// moment they were made.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"

namespace gcl_test {
namespace {

using gcl::Allocation;
using gcl::BalancePoint;
using gcl::kMaxSafeInteger;

// The replay of docs/semantics.md in O((G + C) log G): consumptions in (time, acceptance)
// order, each drawing from a set of started grants keyed (endTime, id). Fills `draws` (by
// consumption index) and returns whether every consumption is funded.
bool replay(const std::vector<Op>& grants, const std::vector<Op>& consumptions,
            std::vector<std::vector<Allocation>>* draws) {
  std::vector<size_t> byStart(grants.size()), byTime(consumptions.size());
  std::iota(byStart.begin(), byStart.end(), 0);
  std::iota(byTime.begin(), byTime.end(), 0);
  std::sort(byStart.begin(), byStart.end(),
            [&](size_t a, size_t b) { return grants[a].time < grants[b].time; });
  std::stable_sort(byTime.begin(), byTime.end(),
                   [&](size_t a, size_t b) { return consumptions[a].time < consumptions[b].time; });
  std::set<std::pair<int64_t, std::string>> live;  // (endTime, id)
  std::map<std::string, int64_t> remaining;
  draws->assign(consumptions.size(), {});
  size_t next = 0;
  for (size_t c : byTime) {
    const int64_t t = consumptions[c].time;
    for (; next < byStart.size() && grants[byStart[next]].time <= t; ++next) {
      const Op& g = grants[byStart[next]];
      live.insert({g.endTime, g.id});
      remaining[g.id] = g.amount;
    }
    while (!live.empty() && live.begin()->first < t) live.erase(live.begin());
    int64_t need = consumptions[c].amount;
    for (auto it = live.begin(); need > 0 && it != live.end();) {
      int64_t& left = remaining[it->second];
      const int64_t take = std::min(need, left);
      (*draws)[c].push_back({it->second, take});
      need -= take;
      left -= take;
      it = left == 0 ? live.erase(it) : std::next(it);
    }
    if (need > 0) return false;
  }
  return true;
}

// The balance curve on [0, 2^53 - 1] from docs/algorithms.md, fact 2: each grant adds its amount on
// [start, end], each draw subtracts on [timestamp, end of its grant].
std::vector<BalancePoint> curveFromDraws(const std::vector<Op>& grants,
                                         const std::vector<Op>& consumptions,
                                         const std::vector<std::vector<Allocation>>& draws) {
  std::map<int64_t, int64_t> delta{{0, 0}};
  std::map<std::string, int64_t> endOf;
  auto addRange = [&](int64_t from, int64_t to, int64_t amount) {
    delta[from] += amount;
    if (to < kMaxSafeInteger) delta[to + 1] -= amount;
  };
  for (const Op& g : grants) {
    addRange(g.time, g.endTime, g.amount);
    endOf[g.id] = g.endTime;
  }
  for (size_t c = 0; c < consumptions.size(); ++c) {
    for (const Allocation& a : draws[c])
      addRange(consumptions[c].time, endOf[a.grantId], -a.amount);
  }
  std::vector<BalancePoint> curve;
  int64_t value = 0;
  for (const auto& [time, d] : delta) {
    value += d;
    if (curve.empty() || curve.back().balance != value) curve.push_back({time, value});
  }
  return curve;
}

struct Story {
  std::vector<Op> ops;
  std::vector<Outcome> outcomes;
};

// Checks the final state of `ledger` after `story` and re-decides up to `samples` of its
// consumptions as of the moment they arrived.
void checkAgainstReplay(const gcl::Ledger& ledger, const Story& story, size_t samples) {
  std::vector<Op> grants, accepted;
  for (size_t i = 0; i < story.ops.size(); ++i) {
    const Op& op = story.ops[i];
    if (story.outcomes[i].status != gcl::Status::kOk) continue;
    if (op.isGrant())
      grants.push_back(op);
    else if (story.outcomes[i].accepted)
      accepted.push_back(op);
  }
  ASSERT_EQ(ledger.grantCount(), grants.size());
  ASSERT_EQ(ledger.consumptionCount(), accepted.size());
  std::vector<std::vector<Allocation>> draws;
  ASSERT_TRUE(replay(grants, accepted, &draws)) << "accepted consumptions are not all funded";
  for (size_t c = 0; c < accepted.size(); ++c) {
    std::vector<Allocation> got;
    ASSERT_EQ(ledger.allocations(accepted[c].id, &got), gcl::Status::kOk);
    ASSERT_EQ(got, draws[c]) << "allocations of " << accepted[c].id;
  }
  const std::vector<BalancePoint> expected = curveFromDraws(grants, accepted, draws);
  std::vector<BalancePoint> curve;
  ASSERT_EQ(ledger.balanceCurve(0, kMaxSafeInteger, &curve), gcl::Status::kOk);
  ASSERT_EQ(curve.size(), expected.size());
  ASSERT_EQ(curve, expected);
  for (size_t k = 0; k + 1 < expected.size(); k += std::max<size_t>(1, expected.size() / 3000)) {
    for (int64_t t : {expected[k].time, expected[k + 1].time - 1}) {
      int64_t balance = -1;
      ASSERT_EQ(ledger.getBalance(t, &balance), gcl::Status::kOk);
      ASSERT_EQ(balance, expected[k].balance) << "getBalance(" << t << ")";
    }
  }

  // Decisions: replay what the ledger held when each sampled consumption arrived.
  std::mt19937_64 rng(99);
  std::vector<Op> grantsThen, acceptedThen;
  std::vector<size_t> picks;
  for (size_t i = 0; i < story.ops.size(); ++i) {
    if (!story.ops[i].isGrant() && story.outcomes[i].status == gcl::Status::kOk) picks.push_back(i);
  }
  std::shuffle(picks.begin(), picks.end(), rng);
  picks.resize(std::min(picks.size(), samples));
  std::sort(picks.begin(), picks.end());
  size_t upTo = 0;
  for (size_t i : picks) {
    for (; upTo < i; ++upTo) {
      const Op& op = story.ops[upTo];
      if (story.outcomes[upTo].status != gcl::Status::kOk) continue;
      if (op.isGrant())
        grantsThen.push_back(op);
      else if (story.outcomes[upTo].accepted)
        acceptedThen.push_back(op);
    }
    std::vector<Op> candidate = acceptedThen;
    candidate.push_back(story.ops[i]);
    EXPECT_EQ(replay(grantsThen, candidate, &draws), story.outcomes[i].accepted)
        << "decision on op #" << i << ": " << cppCall(story.ops[i]);
  }
}

Outcome run(gcl::Ledger& ledger, Story* story, Op op) {
  const Outcome outcome = applyOp(ledger, op);
  story->ops.push_back(std::move(op));
  story->outcomes.push_back(outcome);
  return outcome;
}

// Mixed workload: time moves forward, ~10% of draws and ~30% of grants arrive late.
// Returns how many consumptions were accepted.
size_t mixedWorkload(gcl::Ledger& ledger, Story* story, int events, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto between = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int64_t clock = 0;
  size_t accepted = 0;
  for (int i = 0; i < events; ++i) {
    clock += between(0, 20);
    if (between(0, 99) < 30) {
      const int64_t start = between(0, 99) < 30 ? std::max<int64_t>(0, clock - between(0, 3000))
                                                : clock + between(0, 50);
      run(ledger, story,
          Op::grant("g" + std::to_string(i), between(1, 400), start, start + between(0, 4000)));
    } else {
      const int64_t t = between(0, 9) == 0 ? std::max<int64_t>(0, clock - between(1, 500)) : clock;
      accepted +=
          run(ledger, story, Op::consume("c" + std::to_string(i), between(1, 60), t)).accepted;
    }
  }
  return accepted;
}

TEST(LargeLedger, FortyThousandMixedEventsMatchTheReplay) {
  gcl::Ledger ledger(gcl::EngineKind::kIncremental);
  Story story;
  EXPECT_GT(mixedWorkload(ledger, &story, 40000, 4242), 10000u);  // not mostly rejections
  checkAgainstReplay(ledger, story, 200);
}

// The check above, held against the reference engine on a size it can handle.
TEST(LargeLedger, TheCheckItselfAgreesWithTheReferenceEngine) {
  gcl::Ledger ledger(gcl::EngineKind::kReplay);
  Story story;
  EXPECT_GT(mixedWorkload(ledger, &story, 2000, 4243), 500u);
  checkAgainstReplay(ledger, story, 300);
}

// Every draw at one time from grants ending together: long draw lists on one balance key.
TEST(LargeLedger, ManyDrawsAtOneTimeFromGrantsEndingTogether) {
  gcl::Ledger ledger;
  Story story;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    run(ledger, &story, Op::grant("g" + std::to_string(i), 1 + i % 7, 5, 1000));
  }
  size_t accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    const int64_t t = std::uniform_int_distribution<int64_t>(0, 9)(rng) == 0 ? 1000 : 5;
    accepted += run(ledger, &story, Op::consume("c" + std::to_string(i), 1 + i % 5, t)).accepted;
  }
  EXPECT_GT(accepted, 3000u);
  checkAgainstReplay(ledger, story, 100);
}

// Late grants that take over the draws of thousands of consumptions from one grant (all of
// them, then every other one through grants with gaps), and a late grant onto a long list
// in its middle: the walk moves drawers off long lists from the front (removed in one pass
// per grant after it, docs/algorithms.md fact 14), checked against the replay and the
// engine's own invariants.
TEST(LargeLedger, LateGrantsTakeOverLongDrawerLists) {
  gcl::Ledger ledger;
  Story story;
  run(ledger, &story, Op::grant("plenty", 1 << 30, 0, 1 << 20));
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(
        run(ledger, &story, Op::consume("c" + std::to_string(i), 1 + i % 3, i + 1)).accepted);
  }
  run(ledger, &story, Op::grant("all", 1 << 29, 0, 1 << 19));  // ends first: everything moves
  for (int k = 0; k < 50; ++k) {  // short windows: 200 consumptions each, some moved
    const int64_t start = 400 * k;
    run(ledger, &story, Op::grant("w" + std::to_string(k), 150, start, start + 199));
  }
  run(ledger, &story, Op::grant("middle", 5000, 9000, 11000));
  EXPECT_EQ(ledger.checkInvariants(), "");
  std::vector<gcl::Reallocation> moved;
  ledger.reallocated(&moved);
  EXPECT_GT(moved.size(), 1000u);
  checkAgainstReplay(ledger, story, 50);
}

}  // namespace
}  // namespace gcl_test
