// Previews, grant lifecycle and pending queue by example: headroom, tryConsume (reasons, dry runs),
// grantsAt, burnDown, nextBelow, grant lifecycle and pending consumptions, on both engines.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "ledger_fixture.h"
#include "ledger_snapshot.h"

namespace gcl_test {
namespace {

using gcl::RejectReason;
using gcl::Status;

class PreviewTest : public LedgerTest {
 protected:
  int64_t headroom(int64_t t) const {
    int64_t value = -1;
    EXPECT_EQ(ledger.headroom(t, &value), Status::kOk);
    return value;
  }
  gcl::ConsumeResult tryConsume(const std::string& id, int64_t amount, int64_t t, bool dryRun) {
    gcl::ConsumeResult result;
    EXPECT_EQ(ledger.tryConsume(id, amount, t, dryRun, &result), Status::kOk) << id;
    return result;
  }
  std::vector<gcl::GrantState> grantsAt(int64_t t) const {
    std::vector<gcl::GrantState> out;
    EXPECT_EQ(ledger.grantsAt(t, &out), Status::kOk);
    return out;
  }
  gcl::GrantChange voidGrant(const std::string& id) {
    gcl::GrantChange change;
    EXPECT_EQ(ledger.voidGrant(id, &change), Status::kOk) << id;
    return change;
  }
  gcl::GrantChange setGrantEnd(const std::string& id, int64_t end) {
    gcl::GrantChange change;
    EXPECT_EQ(ledger.setGrantEnd(id, end, &change), Status::kOk) << id;
    return change;
  }
  gcl::SubmitOutcome submit(const std::string& id, int64_t amount, int64_t t) {
    gcl::SubmitOutcome outcome{};
    EXPECT_EQ(ledger.submit(id, amount, t, &outcome), Status::kOk) << id;
    return outcome;
  }
  std::vector<std::string> pendingIds() const {
    std::vector<gcl::PendingConsumption> queued;
    ledger.pending(&queued);
    std::vector<std::string> ids;
    for (const auto& p : queued) ids.push_back(p.eventId);
    return ids;
  }
  std::optional<int64_t> nextBelow(int64_t threshold, int64_t from) const {
    std::optional<int64_t> t;
    EXPECT_EQ(ledger.nextBelow(threshold, from, &t), Status::kOk);
    return t;
  }
  Snapshot state(const std::vector<std::string>& ids) const {
    return takeSnapshot(ledger, {0, 1, 2, 5, 6, 8, 10, 11, 15, 16, 30}, ids);
  }
  void seedExampleOne() {
    grant("g1", 100, 0, 10);
    grant("g2", 50, 5, 15);
    ASSERT_TRUE(consume("c1", 80, 6));
  }
};

TEST_P(PreviewTest, HeadroomIsLowerThanTheBalanceWhenALaterConsumptionReservesCredit) {
  grant("g", 4, 0, 2);
  ASSERT_TRUE(consume("c", 1, 1));
  EXPECT_EQ(balance(0), 4);
  EXPECT_EQ(headroom(0), 3);
  EXPECT_EQ(headroom(1), 3);
  EXPECT_EQ(headroom(2), 3);
  EXPECT_EQ(headroom(3), 0);
  EXPECT_TRUE(tryConsume("x", 3, 0, true).accepted);
  EXPECT_FALSE(tryConsume("x", 4, 0, true).accepted);
}

TEST_P(PreviewTest, HeadroomSeesChainsOfTimesThatNoSingleWindowShows) {
  // docs/algorithms.md, fact 5: g1 = 1 on [0,2], g2 = 2 on [1,1]; 1@0 takes g1.
  grant("g1", 1, 0, 2);
  grant("g2", 2, 1, 1);
  ASSERT_TRUE(consume("a", 1, 0));
  EXPECT_EQ(headroom(0), 0);
  EXPECT_EQ(headroom(1), 2);
  EXPECT_EQ(headroom(2), 0);
  EXPECT_EQ(balance(2), 0);
}

TEST_P(PreviewTest, HeadroomOfAnEmptyLedgerIsZeroAndRejectsBadTimes) {
  EXPECT_EQ(headroom(0), 0);
  int64_t value = 7;
  EXPECT_EQ(ledger.headroom(-1, &value), Status::kInvalidTime);
  EXPECT_EQ(ledger.headroom(gcl::kMaxSafeInteger + 1, &value), Status::kInvalidTime);
  grant("g", gcl::kMaxSafeInteger, 0, gcl::kMaxSafeInteger);
  EXPECT_EQ(headroom(gcl::kMaxSafeInteger), gcl::kMaxSafeInteger);
}

TEST_P(PreviewTest, HeadroomFollowsEveryKindOfChange) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(consume("c", 4, 8));
  EXPECT_EQ(headroom(9), 6);
  ASSERT_TRUE(setGrantEnd("g", 8).applied);  // same counts, different state
  EXPECT_EQ(headroom(9), 0);
  EXPECT_EQ(headroom(3), 6);
  ASSERT_TRUE(setGrantEnd("g", 20).applied);
  EXPECT_EQ(headroom(9), 6);
  grant("h", 5, 0, 20);
  EXPECT_EQ(headroom(9), 11);
  ASSERT_TRUE(voidGrant("g").applied);  // c moves to h
  grant("k", 12, 0, 20);                // the same counts as at the last query
  EXPECT_EQ(headroom(9), 13);
  EXPECT_EQ(headroom(21), 0);
  ASSERT_TRUE(voidGrant("k").applied);
  EXPECT_EQ(headroom(9), 1);
  grant("k", 10, 0, 20);
  EXPECT_EQ(submit("p", 11, 9), gcl::SubmitOutcome::kAccepted);
  EXPECT_EQ(headroom(9), 0);
}

TEST_P(PreviewTest, TryConsumeExplainsTheSeedRejections) {
  seedExampleOne();
  const gcl::ConsumeResult tooMuch = tryConsume("c2", 60, 11, false);
  EXPECT_FALSE(tooMuch.accepted);
  EXPECT_EQ(tooMuch.reason, RejectReason::kInsufficientCredit);
  EXPECT_EQ(tooMuch.blockingEventId, "");
  EXPECT_TRUE(tooMuch.allocations.empty());
  const gcl::ConsumeResult fits = tryConsume("c3", 40, 11, false);
  EXPECT_TRUE(fits.accepted);
  EXPECT_EQ(fits.reason, RejectReason::kNone);
  EXPECT_EQ(fits.allocations, (std::vector<gcl::Allocation>{{"g2", 40}}));
  EXPECT_EQ(balance(11), 10);
}

TEST_P(PreviewTest, TryConsumeNamesTheAcceptedConsumptionItWouldUnfund) {
  grant("g1", 100, 0, 10);
  ASSERT_TRUE(consume("c_late", 80, 8));
  const gcl::ConsumeResult early = tryConsume("c_early", 30, 2, false);
  EXPECT_FALSE(early.accepted);
  EXPECT_EQ(early.reason, RejectReason::kWouldUnfund);
  EXPECT_EQ(early.blockingEventId, "c_late");
  EXPECT_EQ(balance(8), 20);
}

TEST_P(PreviewTest, TheBlockerIsTheEarliestInReplayOrderAndSameTimeTiesGoToTheNewOne) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(consume("b", 4, 5));
  ASSERT_TRUE(consume("a", 4, 5));  // accepted after b: replayed after it at time 5
  ASSERT_TRUE(consume("z", 2, 9));
  // 3 at 5 comes after a and b (it is accepted last) and sees 2 left: itself unfunded.
  EXPECT_EQ(tryConsume("n", 3, 5, true).reason, RejectReason::kInsufficientCredit);
  // 3 at 4 fits, then b (4) fits, a (4) is the first one short.
  const gcl::ConsumeResult early = tryConsume("n", 3, 4, true);
  EXPECT_EQ(early.reason, RejectReason::kWouldUnfund);
  EXPECT_EQ(early.blockingEventId, "a");
  // 1 at 4: a and b fit, z is short.
  EXPECT_EQ(tryConsume("n", 1, 4, true).blockingEventId, "z");
}

TEST_P(PreviewTest, ADryRunChangesNothingAndPredictsTheRealCall) {
  grant("g1", 10, 0, 10);
  grant("g2", 10, 5, 20);
  ASSERT_TRUE(consume("late", 12, 9));
  const std::vector<std::string> ids{"late", "x", "y"};
  const Snapshot before = state(ids);
  const gcl::ConsumeResult dry = tryConsume("x", 5, 6, true);
  EXPECT_EQ(state(ids), before);
  ASSERT_TRUE(dry.accepted);
  const gcl::ConsumeResult rejected = tryConsume("y", 9, 3, true);
  EXPECT_FALSE(rejected.accepted);
  EXPECT_EQ(rejected.blockingEventId, "late");
  EXPECT_EQ(state(ids), before);
  const gcl::ConsumeResult real = tryConsume("x", 5, 6, false);
  EXPECT_TRUE(real.accepted);
  EXPECT_EQ(real.allocations, dry.allocations);
  EXPECT_EQ(allocations("x"), dry.allocations);
}

TEST_P(PreviewTest, TryConsumeFollowsTheRetryAndDuplicateRules) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(tryConsume("c", 4, 3, false).accepted);
  const gcl::ConsumeResult retry = tryConsume("c", 4, 3, false);
  EXPECT_TRUE(retry.accepted);
  EXPECT_EQ(retry.allocations, (std::vector<gcl::Allocation>{{"g", 4}}));
  EXPECT_TRUE(tryConsume("c", 4, 3, true).accepted);
  EXPECT_EQ(balance(3), 6);
  gcl::ConsumeResult out;
  EXPECT_EQ(ledger.tryConsume("c", 5, 3, false, &out), Status::kDuplicateId);
  EXPECT_EQ(ledger.tryConsume("c", 4, 4, true, &out), Status::kDuplicateId);
  EXPECT_EQ(ledger.tryConsume("", 4, 4, true, &out), Status::kInvalidId);
  EXPECT_EQ(ledger.tryConsume("d", 0, 4, false, &out), Status::kInvalidAmount);
  EXPECT_EQ(ledger.tryConsume("d", 1, -1, true, &out), Status::kInvalidTime);
  EXPECT_EQ(ledger.consumptionCount(), 1u);
}

TEST_P(PreviewTest, GrantsAtListsValidGrantsInDrawOrderWithWhatRemains) {
  seedExampleOne();
  ASSERT_TRUE(consume("c3", 40, 11));
  const std::vector<gcl::GrantState> at6 = grantsAt(6);
  ASSERT_EQ(at6.size(), 2u);
  EXPECT_EQ(at6[0].grantId, "g1");
  EXPECT_EQ(at6[0].remaining, 20);
  EXPECT_EQ(at6[1].grantId, "g2");
  EXPECT_EQ(at6[1].remaining, 50);
  const std::vector<gcl::GrantState> at11 = grantsAt(11);
  ASSERT_EQ(at11.size(), 1u);
  EXPECT_EQ(at11[0].grantId, "g2");
  EXPECT_EQ(at11[0].amount, 50);
  EXPECT_EQ(at11[0].startTime, 5);
  EXPECT_EQ(at11[0].endTime, 15);
  EXPECT_EQ(at11[0].remaining, 10);
  EXPECT_TRUE(grantsAt(16).empty());
  std::vector<gcl::GrantState> out;
  EXPECT_EQ(ledger.grantsAt(-1, &out), Status::kInvalidTime);
}

TEST_P(PreviewTest, BurnDownShowsDrawsInReplayOrderAndTheRemainingStepCurve) {
  grant("g", 100, 2, 20);
  ASSERT_TRUE(consume("c2", 30, 9));
  ASSERT_TRUE(consume("c1", 10, 2));
  ASSERT_TRUE(consume("c3", 5, 9));
  gcl::BurnDown out;
  ASSERT_EQ(ledger.burnDown("g", &out), Status::kOk);
  EXPECT_EQ(out.grantId, "g");
  EXPECT_EQ(out.amount, 100);
  EXPECT_EQ(out.startTime, 2);
  EXPECT_EQ(out.endTime, 20);
  ASSERT_EQ(out.draws.size(), 3u);
  EXPECT_EQ(out.draws[0].eventId, "c1");
  EXPECT_EQ(out.draws[0].timestamp, 2);
  EXPECT_EQ(out.draws[1].eventId, "c2");
  EXPECT_EQ(out.draws[2].eventId, "c3");
  EXPECT_EQ(out.draws[2].amount, 5);
  ASSERT_EQ(out.remaining.size(), 2u);
  EXPECT_EQ(out.remaining[0].time, 2);
  EXPECT_EQ(out.remaining[0].remaining, 90);
  EXPECT_EQ(out.remaining[1].time, 9);
  EXPECT_EQ(out.remaining[1].remaining, 55);
  EXPECT_EQ(ledger.burnDown("nope", &out), Status::kUnknownId);
  EXPECT_EQ(ledger.burnDown("", &out), Status::kInvalidId);
}

TEST_P(PreviewTest, NextBelowFindsTheFirstTimeTheBalanceDropsUnderAThreshold) {
  seedExampleOne();  // balance: 100 on [0,4], 150 on [5,5], 70 on [6,10], 50 on [11,15], then 0
  EXPECT_EQ(nextBelow(101, 0), std::optional<int64_t>(0));
  EXPECT_EQ(nextBelow(100, 0), std::optional<int64_t>(6));
  EXPECT_EQ(nextBelow(60, 0), std::optional<int64_t>(11));
  EXPECT_EQ(nextBelow(1, 0), std::optional<int64_t>(16));
  EXPECT_EQ(nextBelow(1, 16), std::optional<int64_t>(16));
  EXPECT_EQ(nextBelow(1, 12), std::optional<int64_t>(16));
  ASSERT_TRUE(consume("c4", 50, 15));
  EXPECT_EQ(nextBelow(1, 12), std::optional<int64_t>(15));
  gcl::Ledger empty(GetParam());
  std::optional<int64_t> t;
  ASSERT_EQ(empty.nextBelow(1, 0, &t), Status::kOk);
  EXPECT_EQ(t, std::optional<int64_t>(0));
  grant("forever", 5, 0, gcl::kMaxSafeInteger);
  EXPECT_EQ(nextBelow(1, 16), std::nullopt);
  EXPECT_EQ(ledger.nextBelow(0, 0, &t), Status::kInvalidAmount);
  EXPECT_EQ(ledger.nextBelow(1, -1, &t), Status::kInvalidTime);
}

TEST_P(PreviewTest, VoidGrantIsRefusedWhenItWouldUnfundAndTheIdIsFreeAfterwards) {
  grant("a", 10, 0, 10);
  grant("b", 10, 0, 20);
  ASSERT_TRUE(consume("c1", 8, 5));
  ASSERT_TRUE(consume("c2", 8, 6));
  const std::vector<std::string> ids{"c1", "c2"};
  const Snapshot before = state(ids);
  const gcl::GrantChange refused = voidGrant("a");
  EXPECT_FALSE(refused.applied);
  EXPECT_EQ(refused.blockingEventId, "c2");
  EXPECT_EQ(state(ids), before);
  ASSERT_TRUE(consume("more", 2, 15));
  grant("c", 10, 0, 20);
  const gcl::GrantChange applied = voidGrant("a");
  EXPECT_TRUE(applied.applied);
  EXPECT_EQ(applied.blockingEventId, "");
  EXPECT_EQ(ledger.grantCount(), 2u);
  EXPECT_EQ(allocations("c1"), (std::vector<gcl::Allocation>{{"b", 8}}));
  EXPECT_EQ(allocations("c2"), (std::vector<gcl::Allocation>{{"b", 2}, {"c", 6}}));
  grant("a", 1, 30, 30);  // the id is free again, with new parameters
  gcl::GrantChange out;
  EXPECT_EQ(ledger.voidGrant("zz", &out), Status::kUnknownId);
  EXPECT_EQ(ledger.voidGrant("", &out), Status::kInvalidId);
}

TEST_P(PreviewTest, SetGrantEndShortensOrExtendsAtomically) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(consume("c", 4, 8));
  const std::vector<std::string> ids{"c"};
  const Snapshot before = state(ids);
  const gcl::GrantChange refused = setGrantEnd("g", 7);
  EXPECT_FALSE(refused.applied);
  EXPECT_EQ(refused.blockingEventId, "c");
  EXPECT_EQ(state(ids), before);
  EXPECT_TRUE(setGrantEnd("g", 8).applied);
  EXPECT_EQ(balance(9), 0);
  EXPECT_TRUE(setGrantEnd("g", 8).applied);  // unchanged end: applied, nothing to do
  EXPECT_TRUE(setGrantEnd("g", 20).applied);
  EXPECT_EQ(balance(20), 6);
  gcl::GrantChange out;
  EXPECT_EQ(ledger.setGrantEnd("g", -1, &out), Status::kInvalidTime);
  grant("late", 5, 10, 12);
  EXPECT_EQ(ledger.setGrantEnd("late", 9, &out), Status::kInvalidWindow);
  EXPECT_EQ(ledger.setGrantEnd("nope", 9, &out), Status::kUnknownId);
  EXPECT_EQ(balance(11), 11);
}

TEST_P(PreviewTest, LaterTiesStayInAcceptanceOrderAfterARebuild) {
  grant("g1", 5, 0, 10);
  grant("g2", 5, 0, 20);
  ASSERT_TRUE(consume("first", 5, 5));
  ASSERT_TRUE(consume("early", 1, 1));
  ASSERT_TRUE(consume("second", 3, 5));
  ASSERT_TRUE(setGrantEnd("g2", 30).applied);
  // first still drains g1 before second at the same time.
  EXPECT_EQ(allocations("first"), (std::vector<gcl::Allocation>{{"g1", 4}, {"g2", 1}}));
  EXPECT_EQ(allocations("second"), (std::vector<gcl::Allocation>{{"g2", 3}}));
  ASSERT_TRUE(consume("third", 1, 5));
  EXPECT_EQ(allocations("third"), (std::vector<gcl::Allocation>{{"g2", 1}}));
}

TEST_P(PreviewTest, PendingConsumptionsWaitForCreditAndAreAcceptedInTimeOrder) {
  grant("g", 5, 0, 100);
  EXPECT_EQ(submit("p1", 5, 50), gcl::SubmitOutcome::kAccepted);
  EXPECT_EQ(submit("p3", 4, 40), gcl::SubmitOutcome::kQueued);
  EXPECT_EQ(submit("p2", 4, 30), gcl::SubmitOutcome::kQueued);
  EXPECT_EQ(submit("p4", 4, 30), gcl::SubmitOutcome::kQueued);
  EXPECT_EQ(pendingIds(), (std::vector<std::string>{"p2", "p4", "p3"}));
  EXPECT_EQ(submit("p2", 4, 30), gcl::SubmitOutcome::kQueued);  // identical retry
  gcl::SubmitOutcome outcome{};
  EXPECT_EQ(ledger.submit("p2", 4, 31, &outcome), Status::kDuplicateId);
  bool accepted = true;
  EXPECT_EQ(ledger.consume("p2", 5, 30, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("p2", 4, 30, &accepted), Status::kOk);
  EXPECT_FALSE(accepted);  // still unfundable: stays queued
  EXPECT_EQ(ledger.pendingCount(), 3u);
  EXPECT_EQ(submit("p1", 5, 50), gcl::SubmitOutcome::kAccepted);  // retry of an accepted one
  grant("top", 9, 0, 100);                                        // room for two of the three
  EXPECT_EQ(pendingIds(), (std::vector<std::string>{"p3"}));
  std::vector<gcl::PendingConsumption> taken;
  ledger.takeAcceptedPending(&taken);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].eventId, "p2");
  EXPECT_EQ(taken[1].eventId, "p4");
  ledger.takeAcceptedPending(&taken);
  EXPECT_TRUE(taken.empty());
  EXPECT_EQ(balance(100), 1);
  bool cancelled = false;
  ASSERT_EQ(ledger.cancelPending("p3", &cancelled), Status::kOk);
  EXPECT_TRUE(cancelled);
  ASSERT_EQ(ledger.cancelPending("p3", &cancelled), Status::kOk);
  EXPECT_FALSE(cancelled);
  EXPECT_EQ(ledger.cancelPending("", &cancelled), Status::kInvalidId);
  grant("more", 100, 0, 100);
  EXPECT_EQ(ledger.consumptionCount(), 3u);  // p3 was cancelled: nothing left to retry
}

TEST_P(PreviewTest, AnExtensionRetriesPendingAndReportsWhoGotIn) {
  grant("g", 5, 0, 10);
  EXPECT_EQ(submit("p", 3, 15), gcl::SubmitOutcome::kQueued);
  std::vector<gcl::PendingConsumption> taken;
  const gcl::GrantChange shorter = setGrantEnd("g", 9);
  EXPECT_TRUE(shorter.applied);
  ledger.takeAcceptedPending(&taken);
  EXPECT_TRUE(taken.empty());
  const gcl::GrantChange longer = setGrantEnd("g", 20);
  EXPECT_TRUE(longer.applied);
  ledger.takeAcceptedPending(&taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].eventId, "p");
  EXPECT_EQ(allocations("p"), (std::vector<gcl::Allocation>{{"g", 3}}));
  EXPECT_EQ(ledger.pendingCount(), 0u);
}

GCL_INSTANTIATE_FOR_BOTH_ENGINES(PreviewTest);

}  // namespace
}  // namespace gcl_test
