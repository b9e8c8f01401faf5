// The behaviour docs/semantics.md defines, example by example, on both engines. Inputs the
// ledger refuses are in bad_input_test.cpp; random sequences in differential_test.cpp.
#include "gpu_credit_ledger/ledger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "gtest_printers.h"
#include "ledger_fixture.h"

namespace gcl_test {
namespace {

using gcl::Allocation;
using gcl::BalancePoint;
using gcl::kMaxSafeInteger;
using gcl::Status;
using Allocations = std::vector<Allocation>;
using Curve = std::vector<BalancePoint>;

class SemanticsTest : public LedgerTest {};
GCL_INSTANTIATE_FOR_BOTH_ENGINES(SemanticsTest);

TEST_P(SemanticsTest, SeedExampleOneDrawsEarliestExpiringGrantFirst) {
  grant("g1", 100, 0, 10);
  grant("g2", 50, 5, 15);
  EXPECT_TRUE(consume("c1", 80, 6));  // g1 (ends 10) drawn before g2 (ends 15)
  EXPECT_EQ(balance(6), 70);
  EXPECT_FALSE(consume("c2", 60, 11));  // g1 expired; g2 holds 50
  EXPECT_TRUE(consume("c3", 40, 11));
  EXPECT_EQ(balance(11), 10);

  EXPECT_EQ(allocations("c1"), (Allocations{{"g1", 80}}));
  EXPECT_EQ(allocations("c3"), (Allocations{{"g2", 40}}));
  Allocations out;
  EXPECT_EQ(ledger.allocations("c2", &out), Status::kUnknownId);
  EXPECT_EQ(ledger.grantCount(), 2u);
  EXPECT_EQ(ledger.consumptionCount(), 2u);
}

TEST_P(SemanticsTest, SeedExampleTwoRejectsABackdatedDrawThatWouldUnfundALaterOne) {
  grant("g1", 100, 0, 10);
  EXPECT_TRUE(consume("c_late", 80, 8));
  EXPECT_FALSE(consume("c_early", 30, 2));  // would leave c_late unfunded
  EXPECT_EQ(balance(8), 20);
  EXPECT_EQ(balance(2), 100);
  EXPECT_EQ(allocations("c_late"), (Allocations{{"g1", 80}}));
  EXPECT_EQ(ledger.consumptionCount(), 1u);
}

TEST_P(SemanticsTest, BalanceCurveOfSeedExampleOne) {
  grant("g1", 100, 0, 10);
  grant("g2", 50, 5, 15);
  ASSERT_TRUE(consume("c1", 80, 6));
  EXPECT_EQ(curve(0, 20), (Curve{{0, 100}, {5, 150}, {6, 70}, {11, 50}, {16, 0}}));
  ASSERT_FALSE(consume("c2", 60, 11));
  ASSERT_TRUE(consume("c3", 40, 11));
  EXPECT_EQ(curve(0, 20), (Curve{{0, 100}, {5, 150}, {6, 70}, {11, 10}, {16, 0}}));
  EXPECT_EQ(curve(0, kMaxSafeInteger), (Curve{{0, 100}, {5, 150}, {6, 70}, {11, 10}, {16, 0}}));
  EXPECT_EQ(curve(7, 12), (Curve{{7, 70}, {11, 10}}));
  EXPECT_EQ(curve(5, 6), (Curve{{5, 150}, {6, 70}}));
  EXPECT_EQ(curve(6, 6), (Curve{{6, 70}}));
  EXPECT_EQ(curve(11, 15), (Curve{{11, 10}}));
  EXPECT_EQ(curve(16, 16), (Curve{{16, 0}}));
  EXPECT_EQ(curve(20, kMaxSafeInteger), (Curve{{20, 0}}));
}

TEST_P(SemanticsTest, BalanceCurveOfAnEmptyLedgerIsOneZeroPoint) {
  EXPECT_EQ(curve(0, kMaxSafeInteger), (Curve{{0, 0}}));
  EXPECT_EQ(curve(5, 5), (Curve{{5, 0}}));
}

TEST_P(SemanticsTest, WindowEdgesAreInclusive) {
  grant("w", 10, 5, 8);
  EXPECT_EQ(balance(4), 0);
  EXPECT_EQ(balance(5), 10);
  EXPECT_EQ(balance(8), 10);
  EXPECT_EQ(balance(9), 0);
  EXPECT_FALSE(consume("before", 1, 4));
  EXPECT_FALSE(consume("after", 1, 9));
  EXPECT_TRUE(consume("first", 1, 5));
  EXPECT_TRUE(consume("last", 1, 8));
  EXPECT_EQ(balance(5), 9);
  EXPECT_EQ(balance(8), 8);
  EXPECT_EQ(balance(9), 0);
  EXPECT_EQ(curve(0, 20), (Curve{{0, 0}, {5, 9}, {8, 8}, {9, 0}}));
}

TEST_P(SemanticsTest, SingleInstantGrantFullyDrawnLeavesAFlatCurve) {
  grant("p", 3, 7, 7);
  EXPECT_EQ(curve(0, 20), (Curve{{0, 0}, {7, 3}, {8, 0}}));
  EXPECT_TRUE(consume("c", 3, 7));
  EXPECT_EQ(balance(7), 0);
  EXPECT_EQ(curve(0, 20), (Curve{{0, 0}}));
}

TEST_P(SemanticsTest, DrawsEarlierEndFirstRegardlessOfIdOrArrival) {
  grant("a", 10, 0, 20);
  grant("z", 10, 0, 5);
  EXPECT_TRUE(consume("c", 15, 1));
  EXPECT_EQ(allocations("c"), (Allocations{{"z", 10}, {"a", 5}}));
}

TEST_P(SemanticsTest, EqualEndTimesDrawTheSmallerIdFirst) {
  grant("b", 10, 0, 10);
  grant("ab", 10, 3, 10);
  grant("a", 10, 1, 10);
  EXPECT_TRUE(consume("c", 25, 4));
  EXPECT_EQ(allocations("c"), (Allocations{{"a", 10}, {"ab", 10}, {"b", 5}}));
}

TEST_P(SemanticsTest, EqualEndTimesCompareIdsByCodePointNotUtf16) {
  const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600: a surrogate pair in UTF-16
  const std::string halfwidth = "\xEF\xBD\xA1";  // U+FF61: above the surrogates in UTF-16
  const std::string eAcute = "\xC3\xA9";         // U+00E9
  grant(emoji, 10, 0, 10);
  grant(halfwidth, 10, 0, 10);
  grant(eAcute, 10, 0, 10);
  grant("Z", 10, 0, 10);
  EXPECT_TRUE(consume("c", 35, 2));
  EXPECT_EQ(allocations("c"), (Allocations{{"Z", 10}, {eAcute, 10}, {halfwidth, 10}, {emoji, 5}}));
}

TEST_P(SemanticsTest, IdsAreBytesSoAnEmbeddedNulIsADifferentId) {
  const std::string withNul("a\0b", 3);
  grant("a", 1, 0, 10);
  grant(withNul, 2, 0, 10);
  EXPECT_EQ(ledger.grantCount(), 2u);
  EXPECT_TRUE(consume("c", 3, 0));
  EXPECT_EQ(allocations("c"), (Allocations{{"a", 1}, {withNul, 2}}));
}

TEST_P(SemanticsTest, ConsumingWithNoGrantIsRejected) {
  EXPECT_FALSE(consume("c", 1, 0));
  EXPECT_EQ(balance(0), 0);
  EXPECT_EQ(ledger.consumptionCount(), 0u);
  Allocations out;
  EXPECT_EQ(ledger.allocations("c", &out), Status::kUnknownId);
  EXPECT_EQ(curve(0, kMaxSafeInteger), (Curve{{0, 0}}));
}

TEST_P(SemanticsTest, AFullyConsumedGrantRefusesEvenEarlierDraws) {
  grant("g", 10, 0, 10);
  EXPECT_TRUE(consume("c1", 10, 3));
  EXPECT_FALSE(consume("c2", 1, 3));
  EXPECT_EQ(balance(0), 10);
  EXPECT_FALSE(consume("c3", 1, 0));  // 10 is visible at 0 but reserved for c1
  EXPECT_EQ(balance(2), 10);
  EXPECT_EQ(balance(3), 0);
  EXPECT_EQ(balance(10), 0);
  EXPECT_EQ(ledger.consumptionCount(), 1u);
}

TEST_P(SemanticsTest, DrawsSpanSeveralGrantsInDrawOrder) {
  grant("x", 3, 0, 30);
  grant("y", 3, 0, 10);
  grant("w", 3, 0, 20);
  EXPECT_TRUE(consume("c", 8, 5));
  EXPECT_EQ(allocations("c"), (Allocations{{"y", 3}, {"w", 3}, {"x", 2}}));
  EXPECT_EQ(curve(0, 40), (Curve{{0, 9}, {5, 1}, {31, 0}}));
}

TEST_P(SemanticsTest, BalanceIgnoresLaterConsumptions) {
  grant("g", 10, 0, 10);
  EXPECT_TRUE(consume("c", 4, 5));
  EXPECT_EQ(balance(4), 10);
  EXPECT_EQ(balance(5), 6);
  EXPECT_EQ(balance(10), 6);
  EXPECT_EQ(balance(11), 0);
}

TEST_P(SemanticsTest, SameTimestampDrawsInAcceptanceOrder) {
  grant("a", 5, 0, 10);
  grant("b", 5, 0, 20);
  EXPECT_TRUE(consume("c1", 3, 5));
  EXPECT_TRUE(consume("c2", 4, 5));
  EXPECT_EQ(allocations("c1"), (Allocations{{"a", 3}}));
  EXPECT_EQ(allocations("c2"), (Allocations{{"a", 2}, {"b", 2}}));
  EXPECT_TRUE(consume("c0", 1, 4));  // earlier: takes from a before both
  EXPECT_EQ(allocations("c0"), (Allocations{{"a", 1}}));
  EXPECT_EQ(allocations("c1"), (Allocations{{"a", 3}}));
  EXPECT_EQ(allocations("c2"), (Allocations{{"a", 1}, {"b", 3}}));
  EXPECT_TRUE(consume("c3", 2, 5));  // same time, accepted last: drawn last
  EXPECT_EQ(allocations("c3"), (Allocations{{"b", 2}}));
  EXPECT_EQ(allocations("c2"), (Allocations{{"a", 1}, {"b", 3}}));
  EXPECT_FALSE(consume("c4", 1, 5));
  EXPECT_EQ(balance(5), 0);
}

TEST_P(SemanticsTest, BackdatedDrawMovesLaterDrawsToLaterGrants) {
  grant("a", 10, 0, 10);
  grant("b", 10, 0, 20);
  EXPECT_TRUE(consume("late", 8, 8));
  EXPECT_EQ(allocations("late"), (Allocations{{"a", 8}}));
  EXPECT_TRUE(consume("early", 5, 2));
  EXPECT_EQ(allocations("early"), (Allocations{{"a", 5}}));
  EXPECT_EQ(allocations("late"), (Allocations{{"a", 5}, {"b", 3}}));
  EXPECT_EQ(balance(2), 15);
  EXPECT_EQ(balance(8), 7);
  EXPECT_EQ(balance(11), 7);
}

TEST_P(SemanticsTest, RejectedBackdatedDrawLeavesNoTrace) {
  grant("a", 10, 0, 10);
  grant("b", 5, 0, 20);
  ASSERT_TRUE(consume("late", 8, 8));
  const Curve before = curve(0, kMaxSafeInteger);
  EXPECT_FALSE(consume("early", 8, 2));  // late would need 8 from a:2 + b:5
  EXPECT_EQ(allocations("late"), (Allocations{{"a", 8}}));
  EXPECT_EQ(curve(0, kMaxSafeInteger), before);
  EXPECT_EQ(ledger.consumptionCount(), 1u);
  EXPECT_TRUE(consume("early", 7, 2));  // the id left no trace; 7 fits exactly
  EXPECT_EQ(allocations("late"), (Allocations{{"a", 3}, {"b", 5}}));
}

TEST_P(SemanticsTest, LateGrantWithEarlierEndTakesOverExistingDraws) {
  grant("late", 10, 0, 20);
  ASSERT_TRUE(consume("c", 5, 5));
  EXPECT_EQ(allocations("c"), (Allocations{{"late", 5}}));
  EXPECT_EQ(balance(15), 5);
  grant("early", 10, 0, 10);
  EXPECT_EQ(allocations("c"), (Allocations{{"early", 5}}));
  EXPECT_EQ(balance(0), 20);
  EXPECT_EQ(balance(5), 15);
  EXPECT_EQ(balance(15), 10);
}

TEST_P(SemanticsTest, LateGrantWithEqualEndAndSmallerIdTakesOverExistingDraws) {
  grant("m", 10, 0, 10);
  ASSERT_TRUE(consume("c", 4, 2));
  grant("z", 10, 0, 10);
  EXPECT_EQ(allocations("c"), (Allocations{{"m", 4}}));
  grant("a", 10, 0, 10);
  EXPECT_EQ(allocations("c"), (Allocations{{"a", 4}}));
  EXPECT_EQ(balance(2), 26);
}

TEST_P(SemanticsTest, LateGrantOnlyTakesDrawsInsideItsWindow) {
  grant("long", 10, 0, 100);
  ASSERT_TRUE(consume("c1", 3, 1));
  ASSERT_TRUE(consume("c2", 3, 50));
  grant("short", 4, 40, 60);
  EXPECT_EQ(allocations("c1"), (Allocations{{"long", 3}}));
  EXPECT_EQ(allocations("c2"), (Allocations{{"short", 3}}));
  EXPECT_EQ(balance(50), 8);
  EXPECT_EQ(balance(61), 7);
}

TEST_P(SemanticsTest, LateGrantFreesCreditThroughAChainOfDraws) {
  grant("A", 5, 0, 10);
  grant("B", 5, 0, 20);
  ASSERT_TRUE(consume("c1", 5, 1));
  ASSERT_TRUE(consume("c2", 5, 2));
  EXPECT_EQ(balance(11), 0);
  grant("E", 5, 0, 5);  // c1 moves to E, so c2 moves from B to A
  EXPECT_EQ(allocations("c1"), (Allocations{{"E", 5}}));
  EXPECT_EQ(allocations("c2"), (Allocations{{"A", 5}}));
  EXPECT_EQ(balance(2), 5);
  EXPECT_EQ(balance(6), 5);
  EXPECT_EQ(balance(11), 5);  // E has expired, yet it raised the balance here
  EXPECT_TRUE(consume("c3", 5, 15));
}

TEST_P(SemanticsTest, GrantRetryWithIdenticalParametersIsANoOp) {
  grant("g", 10, 0, 10);
  EXPECT_EQ(ledger.addGrant("g", 10, 0, 10), Status::kOk);
  EXPECT_EQ(ledger.grantCount(), 1u);
  EXPECT_EQ(balance(5), 10);
}

TEST_P(SemanticsTest, ConsumeRetryOfAnAcceptedIdDoesNotChargeTwice) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(consume("c", 10, 0));
  bool accepted = false;
  EXPECT_EQ(ledger.consume("c", 10, 0, &accepted), Status::kOk);
  EXPECT_TRUE(accepted);  // though a second charge of 10 would not fit
  EXPECT_EQ(ledger.consumptionCount(), 1u);
  EXPECT_EQ(balance(0), 0);
  EXPECT_EQ(allocations("c"), (Allocations{{"g", 10}}));
}

TEST_P(SemanticsTest, DifferentParametersUnderAnExistingIdAreDuplicates) {
  grant("g", 10, 0, 10);
  ASSERT_TRUE(consume("c", 5, 1));
  EXPECT_EQ(ledger.addGrant("g", 11, 0, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g", 10, 1, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g", 10, 0, 11), Status::kDuplicateId);
  bool accepted = false;
  EXPECT_EQ(ledger.consume("c", 6, 1, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("c", 5, 2, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("c", 1, 1, &accepted), Status::kDuplicateId);  // smaller fits too
  EXPECT_EQ(ledger.grantCount(), 1u);
  EXPECT_EQ(ledger.consumptionCount(), 1u);
  EXPECT_EQ(balance(1), 5);
  EXPECT_EQ(balance(10), 5);
  EXPECT_EQ(allocations("c"), (Allocations{{"g", 5}}));
}

TEST_P(SemanticsTest, RejectedIdCanBeAcceptedAfterATopUp) {
  grant("g1", 10, 0, 10);
  EXPECT_FALSE(consume("c", 20, 1));
  Allocations out;
  EXPECT_EQ(ledger.allocations("c", &out), Status::kUnknownId);
  grant("g2", 10, 0, 10);
  EXPECT_TRUE(consume("c", 20, 1));
  EXPECT_EQ(allocations("c"), (Allocations{{"g1", 10}, {"g2", 10}}));
}

TEST_P(SemanticsTest, RejectedIdCanComeBackWithDifferentParameters) {
  grant("g", 10, 0, 10);
  EXPECT_FALSE(consume("c", 20, 1));
  EXPECT_TRUE(consume("c", 5, 2));  // not a duplicate: the rejection left nothing
  EXPECT_EQ(allocations("c"), (Allocations{{"g", 5}}));
}

TEST_P(SemanticsTest, GrantAndEventIdsAreSeparateNamespaces) {
  grant("shared", 10, 0, 10);
  Allocations out;
  EXPECT_EQ(ledger.allocations("shared", &out), Status::kUnknownId);
  EXPECT_TRUE(consume("shared", 3, 1));
  EXPECT_EQ(allocations("shared"), (Allocations{{"shared", 3}}));
  EXPECT_EQ(ledger.addGrant("shared", 10, 0, 10), Status::kOk);
  EXPECT_EQ(ledger.addGrant("shared", 3, 1, 1), Status::kDuplicateId);
  EXPECT_TRUE(consume("other", 1, 1));
  EXPECT_EQ(ledger.addGrant("other", 1, 0, 0), Status::kOk);  // an event id, not a grant yet
  EXPECT_EQ(ledger.grantCount(), 2u);
  EXPECT_EQ(ledger.consumptionCount(), 2u);
}

// docs/algorithms.md, fact 5: every time window passes Hall's test, yet 1@0 and 1@2 can only
// both be funded by g1, which holds 1. Whatever the arrival order, the second of them to
// arrive is the one rejected, and 1@1 (funded by g2) is always accepted.
TEST_P(SemanticsTest, HallOnWindowsIsNotEnoughCounterexample) {
  struct Draw {
    const char* id;
    int64_t time;
  };
  std::array<Draw, 3> draws{{{"at0", 0}, {"at1", 1}, {"at2", 2}}};
  for (bool g1First : {true, false}) {
    std::sort(draws.begin(), draws.end(), [](auto& a, auto& b) { return a.time < b.time; });
    do {
      gcl::Ledger fast(GetParam());
      gcl::Ledger reference(gcl::EngineKind::kReplay);
      std::string order = g1First ? "g1 g2" : "g2 g1";
      for (gcl::Ledger* l : {&fast, &reference}) {
        if (g1First) ASSERT_EQ(l->addGrant("g1", 1, 0, 2), Status::kOk);
        ASSERT_EQ(l->addGrant("g2", 2, 1, 1), Status::kOk);
        if (!g1First) ASSERT_EQ(l->addGrant("g1", 1, 0, 2), Status::kOk);
      }
      bool sawOuter = false;
      for (const Draw& d : draws) {
        order += std::string(" 1@") + std::to_string(d.time);
        SCOPED_TRACE(order);
        bool accepted = false, expected = false;
        ASSERT_EQ(fast.consume(d.id, 1, d.time, &accepted), Status::kOk);
        ASSERT_EQ(reference.consume(d.id, 1, d.time, &expected), Status::kOk);
        const bool outer = d.time != 1;
        EXPECT_EQ(accepted, !(outer && sawOuter));
        EXPECT_EQ(accepted, expected);
        sawOuter = sawOuter || outer;
      }
      for (int64_t t = 0; t <= 3; ++t) {
        int64_t got = -1, want = -2;
        ASSERT_EQ(fast.getBalance(t, &got), Status::kOk);
        ASSERT_EQ(reference.getBalance(t, &want), Status::kOk);
        EXPECT_EQ(got, want) << order << " at " << t;
      }
      EXPECT_EQ(fast.consumptionCount(), 2u) << order;
    } while (std::next_permutation(draws.begin(), draws.end(),
                                   [](auto& a, auto& b) { return a.time < b.time; }));
  }
}

TEST_P(SemanticsTest, HallCounterexampleBalancesAfterArrivalInTimeOrder) {
  grant("g1", 1, 0, 2);
  grant("g2", 2, 1, 1);
  EXPECT_TRUE(consume("at0", 1, 0));
  EXPECT_TRUE(consume("at1", 1, 1));
  EXPECT_FALSE(consume("at2", 1, 2));
  EXPECT_EQ(allocations("at1"), (Allocations{{"g2", 1}}));
  EXPECT_EQ(curve(0, 5), (Curve{{0, 0}, {1, 1}, {2, 0}}));
}

TEST_P(SemanticsTest, HallCounterexampleRejectsAnEarlyDrawThatTheBalanceWouldAllow) {
  grant("g1", 1, 0, 2);
  grant("g2", 2, 1, 1);
  EXPECT_TRUE(consume("at2", 1, 2));
  EXPECT_TRUE(consume("at1", 1, 1));
  EXPECT_EQ(balance(0), 1);
  EXPECT_FALSE(consume("at0", 1, 0));  // g1's credit is promised to at2
  EXPECT_EQ(curve(0, 5), (Curve{{0, 1}, {1, 2}, {2, 0}}));
}

// docs/algorithms.md, fact 6: the balance at 0 is 4 but only 3 can be drawn there.
TEST_P(SemanticsTest, HeadroomIsBelowTheBalanceWhenALaterDrawReservesCredit) {
  grant("g", 4, 0, 2);
  ASSERT_TRUE(consume("c1", 1, 1));
  EXPECT_EQ(balance(0), 4);
  EXPECT_FALSE(consume("c2", 4, 0));
  EXPECT_TRUE(consume("c2", 3, 0));
  EXPECT_EQ(allocations("c2"), (Allocations{{"g", 3}}));
  EXPECT_EQ(balance(0), 1);
  EXPECT_EQ(balance(1), 0);
  EXPECT_EQ(balance(2), 0);
}

TEST_P(SemanticsTest, LargestAmountsAndTimesAreExact) {
  grant("max", kMaxSafeInteger, 0, kMaxSafeInteger);
  EXPECT_EQ(balance(kMaxSafeInteger), kMaxSafeInteger);
  EXPECT_EQ(curve(0, kMaxSafeInteger), (Curve{{0, kMaxSafeInteger}}));
  EXPECT_TRUE(consume("all", kMaxSafeInteger, kMaxSafeInteger));
  EXPECT_EQ(balance(kMaxSafeInteger - 1), kMaxSafeInteger);
  EXPECT_EQ(balance(kMaxSafeInteger), 0);
  EXPECT_EQ(curve(0, kMaxSafeInteger), (Curve{{0, kMaxSafeInteger}, {kMaxSafeInteger, 0}}));
  EXPECT_FALSE(consume("more", 1, 0));
  EXPECT_EQ(ledger.addGrant("one", 1, 0, 0), Status::kTotalOverflow);
  EXPECT_EQ(ledger.addGrant("max", kMaxSafeInteger, 0, kMaxSafeInteger), Status::kOk);  // retry
}

TEST_P(SemanticsTest, GrantTotalMayReachButNotPassTheLimit) {
  grant("big", kMaxSafeInteger - 1, kMaxSafeInteger, kMaxSafeInteger);
  grant("one", 1, 0, 0);
  EXPECT_EQ(ledger.addGrant("two", 1, 0, 0), Status::kTotalOverflow);
  EXPECT_EQ(ledger.grantCount(), 2u);
  EXPECT_EQ(balance(0), 1);
  EXPECT_EQ(balance(kMaxSafeInteger), kMaxSafeInteger - 1);
  EXPECT_EQ(curve(0, kMaxSafeInteger),
            (Curve{{0, 1}, {1, 0}, {kMaxSafeInteger, kMaxSafeInteger - 1}}));
}

}  // namespace
}  // namespace gcl_test
