// The finality horizon on hand-made examples, on both engines: what compact() keeps and
// reports, every call it refuses with BEFORE_HORIZON (each leaving the ledger unchanged),
// the setGrantEnd rule, version-2 restores and the memory it frees.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "ledger_fixture.h"

namespace gcl_test {
namespace {

using gcl::Status;

class HorizonTest : public LedgerTest {
 protected:
  // The README's example: c1 draws 80 of g1, c2 draws 40 of g2; then compact(8).
  void SetUpExample() {
    grant("g1", 100, 0, 10);
    grant("g2", 50, 5, 15);
    ASSERT_TRUE(consume("c1", 80, 6));
    ASSERT_TRUE(consume("c2", 40, 11));
  }
  gcl::CompactResult compact(int64_t horizon) {
    gcl::CompactResult result;
    EXPECT_EQ(ledger.compact(horizon, &result), Status::kOk);
    EXPECT_EQ(ledger.checkInvariants(), "");
    return result;
  }
  // Observable state at and after the horizon, as text.
  std::string state() const {
    std::string text =
        std::to_string(ledger.grantCount()) + "/" + std::to_string(ledger.consumptionCount());
    for (const gcl::BalancePoint& p : curve(ledger.horizon(), 40)) {
      text += " " + std::to_string(p.time) + ":" + std::to_string(p.balance);
    }
    for (size_t i = 0; i < ledger.grantCount(); ++i) {
      const gcl::GrantRecord g = ledger.grant(i);
      text += " " + std::string(g.grantId) + "=" + std::to_string(g.amount) + "@" +
              std::to_string(g.startTime) + ".." + std::to_string(g.endTime);
    }
    std::vector<gcl::PendingConsumption> queued;
    ledger.pending(&queued);
    for (const auto& p : queued) text += " ?" + p.eventId;
    return text;
  }
};

TEST_P(HorizonTest, KeepsWhatIsLeftAtTheHorizonAndDropsThePast) {
  SetUpExample();
  const gcl::CompactResult result = compact(8);
  EXPECT_EQ(result.horizon, 8);
  EXPECT_EQ(result.droppedGrants, 0u);
  EXPECT_EQ(result.droppedConsumptions, 1u);
  EXPECT_TRUE(result.droppedPending.empty());
  EXPECT_EQ(ledger.horizon(), 8);
  EXPECT_EQ(ledger.consumptionCount(), 1u);
  EXPECT_EQ(balance(8), 70);
  EXPECT_EQ(balance(11), 10);  // g1 has ended; g2 holds 50 - 40
  EXPECT_EQ(balance(16), 0);
  EXPECT_EQ(allocations("c2"), (std::vector<gcl::Allocation>{{"g2", 40}}));
  std::vector<gcl::Allocation> none;
  EXPECT_EQ(ledger.allocations("c1", &none), Status::kUnknownId);  // dropped ids are forgotten
  std::vector<gcl::GrantState> states;
  ASSERT_EQ(ledger.grantsAt(8, &states), Status::kOk);
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].grantId, "g1");
  EXPECT_EQ(states[0].amount, 20);    // what c1 left
  EXPECT_EQ(states[0].startTime, 8);  // carried grants start at the horizon
  EXPECT_EQ(states[1].startTime, 8);
  gcl::BurnDown burn;
  ASSERT_EQ(ledger.burnDown("g2", &burn), Status::kOk);
  EXPECT_EQ(burn.startTime, 8);
  EXPECT_EQ(burn.remaining.back().remaining, 10);
  // The snapshot view keeps the original start: before the horizon marks a carried grant.
  EXPECT_EQ(ledger.grant(0).startTime, 0);
  EXPECT_EQ(ledger.grant(0).amount, 20);
}

TEST_P(HorizonTest, TheHorizonOnlyMovesForward) {
  SetUpExample();
  compact(8);
  const std::string before = state();
  const gcl::CompactResult back = compact(5);
  EXPECT_EQ(back.horizon, 8);
  EXPECT_EQ(back.droppedConsumptions, 0u);
  EXPECT_EQ(ledger.horizon(), 8);
  EXPECT_EQ(state(), before);
  gcl::CompactResult bad;
  EXPECT_EQ(ledger.compact(-1, &bad), Status::kInvalidTime);
  EXPECT_EQ(ledger.compact(gcl::kMaxSafeInteger + 1, &bad), Status::kInvalidTime);
  EXPECT_EQ(state(), before);
}

TEST_P(HorizonTest, AHorizonBeyondEveryEventDropsEverything) {
  SetUpExample();
  const gcl::CompactResult result = compact(1000);
  EXPECT_EQ(result.droppedGrants, 2u);
  EXPECT_EQ(result.droppedConsumptions, 2u);
  EXPECT_EQ(ledger.grantCount(), 0u);
  EXPECT_EQ(ledger.consumptionCount(), 0u);
  EXPECT_EQ(balance(1000), 0);
  grant("g1", 5, 1000, 1001);  // the dropped id is free again
  EXPECT_TRUE(consume("c1", 5, 1001));
}

// compact(h) leaves the fresh ledger of its definition: there a carried grant starts at h
// with the credit left at h, and that add is its identical retry (what grantsAt shows).
TEST_P(HorizonTest, ACarriedGrantsAddAsTheFreshLedgerHoldsItIsAnIdenticalRetry) {
  SetUpExample();
  compact(8);  // g1: 100 on [0, 10], 80 drawn at 6 -> 20 on [8, 10]
  const std::string before = state();
  EXPECT_EQ(ledger.addGrant("g1", 20, 8, 10), Status::kOk);
  EXPECT_EQ(state(), before);
  EXPECT_EQ(ledger.addGrant("g1", 21, 8, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 20, 9, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 20, 8, 11), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 100, 0, 10), Status::kBeforeHorizon);  // its first add
  // g2: 50 on [5, 15], nothing drawn from it before 8 -> 50 on [8, 15]
  EXPECT_EQ(ledger.addGrant("g2", 50, 8, 15), Status::kOk);
  EXPECT_EQ(ledger.addGrant("g2", 50, 5, 15), Status::kBeforeHorizon);
  EXPECT_EQ(state(), before);
}

TEST_P(HorizonTest, EveryCallThatNeedsThePastIsRefusedAndChangesNothing) {
  SetUpExample();
  gcl::SubmitOutcome queued{};
  ASSERT_EQ(ledger.submit("q", 500, 12, &queued), Status::kOk);
  compact(8);
  const std::string before = state();
  bool accepted = true;
  int64_t value = 0;
  std::vector<gcl::BalancePoint> points;
  std::vector<gcl::GrantState> states;
  std::optional<int64_t> when;
  gcl::ConsumeResult tried;
  gcl::SubmitOutcome outcome{};
  gcl::GrantChange change;
  EXPECT_EQ(ledger.addGrant("g3", 5, 7, 20), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.addGrant("g1", 100, 0, 10), Status::kBeforeHorizon);  // retrying a carried grant
  EXPECT_EQ(ledger.consume("c3", 1, 7, &accepted), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.consume("c1", 80, 6, &accepted),
            Status::kBeforeHorizon);  // retrying a dropped one
  EXPECT_EQ(ledger.tryConsume("c3", 1, 7, false, &tried), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.tryConsume("c3", 1, 7, true, &tried), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.submit("c3", 1, 7, &outcome), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.getBalance(7, &value), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.headroom(7, &value), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.grantsAt(7, &states), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.balanceCurve(7, 20, &points), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.nextBelow(10, 7, &when), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.voidGrant("g1", &change), Status::kBeforeHorizon);  // it started before 8
  EXPECT_EQ(ledger.voidGrant("g2", &change), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.setGrantEnd("g1", 7, &change), Status::kBeforeHorizon);  // an end before 8
  // Before any id lookup: an unknown grant with an end before 8 is refused for its end.
  EXPECT_EQ(ledger.setGrantEnd("nope", 7, &change), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.setGrantEnd("nope", 9, &change), Status::kUnknownId);
  // g2 (end 15) started before 8 too: moving g1's end past it would reorder final draws.
  EXPECT_EQ(ledger.setGrantEnd("g1", 20, &change), Status::kBeforeHorizon);
  EXPECT_EQ(state(), before);
  EXPECT_EQ(ledger.checkInvariants(), "");
  // The same calls at the horizon are answered.
  EXPECT_EQ(ledger.getBalance(8, &value), Status::kOk);
  EXPECT_EQ(ledger.nextBelow(10, 8, &when), Status::kOk);
  EXPECT_EQ(when, std::optional<int64_t>(16));
}

TEST_P(HorizonTest, EndChangesThatKeepTheFinalOrderAreApplied) {
  SetUpExample();
  grant("late", 10, 9, 30);  // starts after the horizon below: not carried
  compact(8);
  gcl::GrantChange change;
  // No grant that started before 8 lies between (15, g2) and (14, g2), nor between (10, g2)
  // and (14, g2) (g1 ends at 10 too, but "g1" < "g2"); a grant that started at or after
  // the horizon may move anywhere.
  ASSERT_EQ(ledger.setGrantEnd("g2", 14, &change), Status::kOk);
  EXPECT_TRUE(change.applied);
  // c2 (40 at 11) needs g2 at 11: an end at 10 is refused as it would be without a horizon.
  ASSERT_EQ(ledger.setGrantEnd("g2", 10, &change), Status::kOk);
  EXPECT_FALSE(change.applied);
  EXPECT_EQ(change.blockingEventId, "c2");
  ASSERT_EQ(ledger.setGrantEnd("g1", 12, &change), Status::kOk);
  EXPECT_TRUE(change.applied);
  ASSERT_EQ(ledger.setGrantEnd("late", 9, &change), Status::kOk);
  EXPECT_TRUE(change.applied);
  ASSERT_EQ(ledger.voidGrant("late", &change), Status::kOk);
  EXPECT_TRUE(change.applied);
  EXPECT_EQ(ledger.checkInvariants(), "");
}

TEST_P(HorizonTest, QueuedConsumptionsBeforeTheHorizonAreDroppedAndReported) {
  grant("g", 1, 0, 100);
  gcl::SubmitOutcome outcome{};
  ASSERT_EQ(ledger.submit("early", 5, 3, &outcome), Status::kOk);
  ASSERT_EQ(ledger.submit("late", 5, 9, &outcome), Status::kOk);
  ASSERT_EQ(outcome, gcl::SubmitOutcome::kQueued);
  const gcl::CompactResult result = compact(5);
  ASSERT_EQ(result.droppedPending.size(), 1u);
  EXPECT_EQ(result.droppedPending[0].eventId, "early");
  EXPECT_EQ(result.droppedPending[0].amount, 5);
  EXPECT_EQ(result.droppedPending[0].timestamp, 3);
  EXPECT_EQ(ledger.pendingCount(), 1u);
  grant("more", 10, 5, 100);  // lets "late" in, not the dropped one
  std::vector<gcl::PendingConsumption> taken;
  ledger.takeAcceptedPending(&taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].eventId, "late");
}

TEST_P(HorizonTest, AGrantLeftWithNothingKeepsItsIdWhileOpen) {
  grant("g", 10, 0, 20);
  ASSERT_TRUE(consume("all", 10, 2));
  compact(5);
  ASSERT_EQ(ledger.grantCount(), 1u);
  EXPECT_EQ(ledger.grant(0).amount, 0);
  EXPECT_EQ(ledger.addGrant("g", 10, 5, 20), Status::kDuplicateId);
  EXPECT_EQ(balance(5), 0);
  compact(21);  // its window closed: now it goes
  EXPECT_EQ(ledger.grantCount(), 0u);
  grant("g", 10, 21, 30);
}

TEST_P(HorizonTest, RestoreGrantRebuildsACarriedGrant) {
  gcl::CompactResult result;
  ASSERT_EQ(ledger.compact(8, &result), Status::kOk);  // an empty ledger: only the horizon
  EXPECT_EQ(ledger.restoreGrant("carried", 0, 2, 10), Status::kOk);
  EXPECT_EQ(ledger.restoreGrant("carried", 0, 2, 10), Status::kOk);  // identical retry
  EXPECT_EQ(ledger.restoreGrant("carried", 1, 2, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.restoreGrant("new", 0, 9, 10), Status::kInvalidAmount);  // not carried: addGrant
  EXPECT_EQ(ledger.restoreGrant("ended", 5, 2, 7), Status::kBeforeHorizon);
  EXPECT_EQ(ledger.restoreGrant("neg", -1, 2, 10), Status::kInvalidAmount);
  EXPECT_EQ(ledger.restoreGrant("", 1, 2, 10), Status::kInvalidId);
  EXPECT_EQ(ledger.restoreGrant("two", 5, 3, 12), Status::kOk);
  gcl::GrantChange change;
  EXPECT_EQ(ledger.voidGrant("two", &change), Status::kBeforeHorizon);
  EXPECT_EQ(balance(8), 5);
  EXPECT_EQ(ledger.checkInvariants(), "");
}

TEST_P(HorizonTest, CompactFreesMemory) {
  if (GetParam() == gcl::EngineKind::kReplay)
    GTEST_SKIP() << "the reference is too slow at this size";
  for (int i = 0; i < 50000; ++i) {
    if (i % 5 == 0) grant("g" + std::to_string(i), 100, i, i + 500);
    consume("c" + std::to_string(i), 10, i);
  }
  const size_t full = ledger.memoryBytes();
  const gcl::CompactResult result = compact(49000);
  EXPECT_GT(result.droppedConsumptions, 48000u);
  EXPECT_LT(ledger.memoryBytes(), full / 10) << "from " << full;
}

GCL_INSTANTIATE_FOR_BOTH_ENGINES(HorizonTest);

}  // namespace
}  // namespace gcl_test
