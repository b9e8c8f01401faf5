// Headroom from the ledger in reversed time (docs/algorithms.md, fact 24; cpp/src/time_mirror.h)
// against the brute-force PreviewModel: ledgers that grow mostly at their latest times, as
// the service's customers do, with backdated consumptions, late grants, end changes (which
// drop the mirror) and queued consumptions let in by later grants (which feed it), and a
// preview of every time after every write, so that the mirror is built, fed and asked. Half
// the seeds give the mirror a minimum budget of 4 re-draws a write, so that writes give it
// up and it is built again.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "preview_model.h"

namespace gcl_test {
namespace {

using gcl::Status;

struct Counts {
  int fromMirror = 0, plain = 0, givenUp = 0, belowBalance = 0, backdated = 0, letIn = 0;
};

void runSeed(uint32_t seed, bool smallBudget, Counts* counts) {
  std::mt19937 random(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(random);
  };
  gcl::Ledger ledger;
  if (smallBudget) ledger.setMinimumRedrawBudget(1);
  PreviewModel model;
  std::vector<std::string> log;
  int64_t head = 0;
  int grants = 0, events = 0;
  for (int step = 0; step < 70 && !::testing::Test::HasFailure(); ++step) {
    const int64_t roll = uniform(0, 99);
    if (roll < 25 || model.grants.empty()) {
      const std::string id = "g" + std::to_string(grants++);
      const int64_t start = std::max<int64_t>(0, head + uniform(-8, 4));
      const int64_t end = start + uniform(0, 12);
      const int64_t amount = uniform(1, 8);
      log.push_back("addGrant(" + id + ", " + std::to_string(amount) + ", " +
                    std::to_string(start) + ", " + std::to_string(end) + ")");
      ASSERT_EQ(ledger.addGrant(id, amount, start, end), Status::kOk);
      model.addGrant(id, amount, start, end);
      std::vector<gcl::PendingConsumption> taken;
      ledger.takeAcceptedPending(&taken);
      ASSERT_EQ(taken.size(), model.lastAccepted.size());
      counts->letIn += static_cast<int>(taken.size());
    } else if (roll < 85) {
      const bool backdated = roll >= 75 && head > 0;
      const int64_t t = backdated ? uniform(0, head) : head + uniform(0, 2);
      const std::string id = "c" + std::to_string(events++);
      const int64_t amount = uniform(1, 4);
      log.push_back("consume(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                    ")");
      bool accepted = false;
      ASSERT_EQ(ledger.consume(id, amount, t, &accepted), Status::kOk);
      ASSERT_EQ(accepted, *model.consume(id, amount, t));
      counts->backdated += backdated && accepted;
      if (!backdated) head = t;
    } else if (roll < 92) {
      const std::string id = "q" + std::to_string(events++);
      const int64_t t = head + uniform(0, 3);
      const int64_t amount = uniform(3, 9);
      log.push_back("submit(" + id + ", " + std::to_string(amount) + ", " + std::to_string(t) +
                    ")");
      gcl::SubmitOutcome outcome{};
      ASSERT_EQ(ledger.submit(id, amount, t, &outcome), Status::kOk);
      ASSERT_EQ(outcome == gcl::SubmitOutcome::kAccepted, *model.submit(id, amount, t));
    } else {
      const std::string id = model.grants[uniform(0, model.grants.size() - 1)].id;
      const int64_t end = model.grant(id)->start + uniform(0, 14);
      log.push_back("setGrantEnd(" + id + ", " + std::to_string(end) + ")");
      gcl::GrantChange change;
      ASSERT_EQ(ledger.setGrantEnd(id, end, &change), Status::kOk);
      ASSERT_EQ(change.applied, model.change(id, end).empty());
      std::vector<gcl::PendingConsumption> taken;
      ledger.takeAcceptedPending(&taken);
    }
    for (int64_t t = 0; t <= head + 3; ++t) {
      int64_t headroom = -1;
      ASSERT_EQ(ledger.headroom(t, &headroom), Status::kOk);
      ASSERT_EQ(headroom, model.headroom(t))
          << "headroom(" << t << ") after step " << step << ", seed " << seed
          << (ledger.hasTimeMirror() ? ", from the mirror" : "") << ":\n  " << [&] {
               std::string calls;
               for (const std::string& line : log) calls += line + "\n  ";
               return calls;
             }();
      (ledger.hasTimeMirror() ? counts->fromMirror : counts->plain)++;
      counts->belowBalance += headroom < model.balance(t);
    }
  }
  counts->givenUp += static_cast<int>(ledger.timeMirrorsGivenUp());
}

TEST(TimeMirror, HeadroomAtEveryTimeMatchesTheModelAsTheLedgerGrows) {
  Counts counts;
  for (uint32_t seed = 1; seed <= 240 && !::testing::Test::HasFailure(); ++seed) {
    runSeed(seed, seed % 2 == 0, &counts);
  }
  // Neither path vacuous: previews from a mirror, and from the engine's own index or the
  // balance (before a mirror is built, and after a rebuild of the grants or a give-up
  // dropped it).
  EXPECT_GT(counts.fromMirror, 100000);
  EXPECT_GT(counts.plain, 50000);
  EXPECT_GT(counts.givenUp, 20);
  EXPECT_GT(counts.belowBalance, 1000);
  EXPECT_GT(counts.backdated, 500);
  EXPECT_GT(counts.letIn, 50);
}

}  // namespace
}  // namespace gcl_test
