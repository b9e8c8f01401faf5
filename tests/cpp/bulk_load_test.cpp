// The bulk-loading entry points (Ledger::reserve, Ledger::prefetchIds) change no answer: a
// ledger fed through them gives every call the same status and decision as one fed call by
// call, and ends with the same balances, allocations and curve. Sequences mix in-order
// runs, backdated consumptions, grants arriving after consumptions in their window,
// duplicates and bad values.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"

namespace gcl_test {
namespace {

// A random sequence over [0, horizon): mostly consumptions near a moving head, some
// backdated by up to `lag`, grants that start before the head, repeats of earlier ids
// (identical retries and DUPLICATE_ID) and invalid values.
std::vector<Op> bulkSequence(uint32_t seed, int count, int64_t lag) {
  std::mt19937 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<Op> ops;
  int64_t head = 0;
  for (int i = 0; i < count; ++i) {
    const int64_t roll = uniform(0, 99);
    head += uniform(0, 2);
    if (roll < 12) {
      const int64_t start = std::max<int64_t>(0, head - uniform(0, lag));
      ops.push_back(
          Op::grant("g" + std::to_string(i), uniform(1, 60), start, start + uniform(0, 4 * lag)));
    } else if (roll < 80) {
      ops.push_back(Op::consume("c" + std::to_string(i), uniform(1, 8), head));
    } else if (roll < 92) {
      ops.push_back(Op::consume("c" + std::to_string(i), uniform(1, 8), head - uniform(0, lag)));
    } else if (roll < 96 && !ops.empty()) {
      Op again = ops[static_cast<size_t>(uniform(0, static_cast<int64_t>(ops.size()) - 1))];
      if (uniform(0, 1) == 0) again.amount += 1;  // same id, other parameters
      ops.push_back(again);
    } else if (roll < 98) {
      ops.push_back(Op::consume("bad" + std::to_string(i), uniform(-2, 0), head));
    } else {
      ops.push_back(Op::grant(i % 2 == 0 ? "" : "w" + std::to_string(i), 5, head + 3, head));
    }
  }
  return ops;
}

struct Outcome {
  gcl::Status status;
  bool accepted;
  bool operator==(const Outcome& o) const { return status == o.status && accepted == o.accepted; }
};

Outcome apply(gcl::Ledger& ledger, const Op& op) {
  bool accepted = true;
  gcl::Status status;
  if (op.kind == Op::Kind::kAddGrant) {
    status = ledger.addGrant(op.id, op.amount, op.time, op.endTime);
  } else {
    status = ledger.consume(op.id, op.amount, op.time, &accepted);
  }
  return {status, accepted};
}

void expectSameLedgers(const gcl::Ledger& plain, const gcl::Ledger& bulk,
                       const std::vector<Op>& ops) {
  std::vector<int64_t> times;
  for (int64_t t = 0; t <= 2000; t += 7) times.push_back(t);
  std::vector<std::string> ids;
  for (const Op& op : ops) {
    if (op.kind == Op::Kind::kConsume) ids.push_back(op.id);
  }
  const Snapshot a = takeSnapshot(plain, times, ids);
  const Snapshot b = takeSnapshot(bulk, times, ids);
  EXPECT_EQ(firstDifference(a, "call by call", b, "bulk", times, ids), "");
  EXPECT_EQ(bulk.checkInvariants(), "");
}

TEST(BulkLoad, ReserveAndPrefetchChangeNoAnswer) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const int64_t lag = seed % 3 == 0 ? 400 : 20;
    const std::vector<Op> ops = bulkSequence(seed, 3000, lag);
    gcl::Ledger plain;
    gcl::Ledger bulk;
    bulk.reserve(ops.size());
    // Every id at once as well, more than one run: still nothing observable.
    std::vector<std::string_view> allIds;
    std::unique_ptr<bool[]> allGrants(new bool[ops.size()]);
    for (size_t k = 0; k < ops.size(); ++k) {
      allIds.push_back(ops[k].id);
      allGrants[k] = ops[k].kind == Op::Kind::kAddGrant;
    }
    bulk.prefetchIds(allIds.data(), allGrants.get(), allIds.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      // The batch loop's pattern: the next run's ids looked up ahead of their calls.
      constexpr size_t kRun = gcl::Ledger::kPrefetchRun;
      if (i % kRun == 0) {
        std::string_view ids[kRun];
        bool grants[kRun];
        size_t run = 0;
        for (size_t k = i; k < std::min(ops.size(), i + kRun); ++k, ++run) {
          ids[run] = ops[k].id;
          grants[run] = ops[k].kind == Op::Kind::kAddGrant;
        }
        bulk.prefetchIds(ids, grants, run);
      }
      const Outcome expected = apply(plain, ops[i]);
      const Outcome got = apply(bulk, ops[i]);
      ASSERT_TRUE(expected == got)
          << "seed " << seed << ", call " << i << " (" << ops[i].id << "): status "
          << gcl::statusName(got.status) << " accepted " << got.accepted << ", call by call "
          << gcl::statusName(expected.status) << " accepted " << expected.accepted;
    }
    expectSameLedgers(plain, bulk, ops);
  }
}

TEST(BulkLoad, ReserveCountsItsRoomAndRepeatsCheaply) {
  gcl::Ledger ledger;
  bool accepted = false;
  ASSERT_EQ(ledger.addGrant("g", 1000, 0, 100), gcl::Status::kOk);
  const size_t before = ledger.memoryBytes();
  const size_t promised = ledger.reserveBytes(10000);
  ledger.reserve(10000);
  const size_t reserved = ledger.memoryBytes();
  EXPECT_GT(reserved, before);
  EXPECT_LE(reserved, before + promised);
  // Filling the room grows nothing that reserve() sized; a second small reserve inside
  // the room changes nothing either.
  for (int i = 0; i < 900; ++i) {
    ASSERT_EQ(ledger.consume("c" + std::to_string(i), 1, i % 100, &accepted), gcl::Status::kOk);
    ASSERT_TRUE(accepted);
  }
  const size_t filled = ledger.memoryBytes();
  ledger.reserve(10);
  EXPECT_EQ(ledger.memoryBytes(), filled);
  int64_t balance = -1;
  ASSERT_EQ(ledger.getBalance(99, &balance), gcl::Status::kOk);
  EXPECT_EQ(balance, 100);
  EXPECT_EQ(ledger.checkInvariants(), "");
}

}  // namespace
}  // namespace gcl_test
