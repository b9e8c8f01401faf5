// Ledger::reallocated: after each call, exactly the consumptions accepted before it whose
// allocations it changed, with their allocations now, in replay order. Checked against a
// full read of every allocation before and after each call, on both engines.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "ledger_fixture.h"

namespace {

using gcl::Allocation;
using gcl::Reallocation;
using gcl::Status;
using AllocationsById = std::map<std::string, std::vector<Allocation>>;

class ReallocationTest : public gcl_test::LedgerTest {
 protected:
  AllocationsById everyAllocation() const {
    AllocationsById out;
    for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
      const std::string id(ledger.consumption(i).eventId);
      out[id] = allocations(id);
    }
    return out;
  }
  std::vector<Reallocation> reallocated() const {
    std::vector<Reallocation> out;
    ledger.reallocated(&out);
    return out;
  }
  // The expected answer from two full reads: ids present before whose draws differ now.
  static AllocationsById changed(const AllocationsById& before, const AllocationsById& after) {
    AllocationsById out;
    for (const auto& [id, draws] : before) {
      const auto now = after.find(id);
      if (now != after.end() && now->second != draws) out[id] = now->second;
    }
    return out;
  }
  void expectReported(const AllocationsById& want, const std::string& call) {
    const std::vector<Reallocation> got = reallocated();
    AllocationsById gotById;
    for (size_t i = 0; i < got.size(); ++i) {
      gotById[got[i].eventId] = got[i].allocations;
      if (i > 0)
        EXPECT_LE(got[i - 1].timestamp, got[i].timestamp) << call << ": not in replay order";
    }
    EXPECT_EQ(gotById.size(), got.size()) << call << ": a consumption listed twice";
    EXPECT_EQ(gotById, want) << call;
  }
};

TEST_P(ReallocationTest, ALateGrantThatEndsFirstTakesOverAnEarlierDraw) {
  grant("g1", 10, 0, 20);
  ASSERT_TRUE(consume("c1", 6, 5));
  EXPECT_TRUE(reallocated().empty());  // c1 is new, not moved
  grant("g2", 10, 0, 10);              // ends first: c1 now draws it
  const std::vector<Reallocation> moved = reallocated();
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].eventId, "c1");
  EXPECT_EQ(moved[0].amount, 6);
  EXPECT_EQ(moved[0].timestamp, 5);
  EXPECT_EQ(moved[0].allocations, (std::vector<Allocation>{{"g2", 6}}));
}

TEST_P(ReallocationTest, ABackdatedConsumptionPushesALaterOneOntoTheNextGrant) {
  grant("g1", 5, 0, 10);
  grant("g2", 5, 0, 20);
  ASSERT_TRUE(consume("late", 4, 8));
  ASSERT_TRUE(consume("early", 3, 2));  // takes g1 first: late moves 2 onto g2
  const std::vector<Reallocation> moved = reallocated();
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].eventId, "late");
  EXPECT_EQ(moved[0].allocations, (std::vector<Allocation>{{"g1", 2}, {"g2", 2}}));
}

TEST_P(ReallocationTest, AFailedCallLeavesTheAnswerAsItWas) {
  grant("g1", 10, 0, 20);
  ASSERT_TRUE(consume("c1", 6, 5));
  grant("g2", 10, 0, 10);
  ASSERT_EQ(reallocated().size(), 1u);
  bool accepted = false;
  EXPECT_EQ(ledger.consume("c1", 7, 5, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("", 1, 0, 1), Status::kInvalidId);
  gcl::GrantChange change;
  EXPECT_EQ(ledger.voidGrant("nope", &change), Status::kUnknownId);
  gcl::ConsumeResult dry;
  EXPECT_EQ(ledger.tryConsume("d", 1, 5, /*dryRun=*/true, &dry), Status::kOk);  // a dry run
  EXPECT_EQ(reallocated().size(), 1u);
  EXPECT_TRUE(consume("c2", 1, 15));  // a call that moves nothing
  EXPECT_TRUE(reallocated().empty());
}

TEST_P(ReallocationTest, RandomCallsReportExactlyTheChangedAllocations) {
  std::mt19937 random(20261130);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  std::vector<std::string> grants;
  int nextGrant = 0;
  int nextEvent = 0;
  int reports = 0;
  for (int step = 0; step < 600; ++step) {
    const AllocationsById before = everyAllocation();
    const int roll = uniform(0, 99);
    std::string call;
    Status status = Status::kOk;
    if (roll < 30 || grants.empty()) {
      const std::string id = "g" + std::to_string(nextGrant++);
      const int start = uniform(0, 30);
      const int end = start + uniform(0, 20);
      call = "addGrant " + id;
      status = ledger.addGrant(id, uniform(1, 8), start, end);
      grants.push_back(id);
    } else if (roll < 75) {
      const std::string id = "c" + std::to_string(nextEvent++);
      call = "consume " + id;
      bool accepted = false;
      status = ledger.consume(id, uniform(1, 6), uniform(0, 50), &accepted);
    } else if (roll < 83) {
      const std::string id = "p" + std::to_string(nextEvent++);
      call = "submit " + id;
      gcl::SubmitOutcome outcome;
      status = ledger.submit(id, uniform(1, 6), uniform(0, 50), &outcome);
    } else if (roll < 89) {
      const std::string id = grants[uniform(0, static_cast<int>(grants.size()) - 1)];
      call = "voidGrant " + id;
      gcl::GrantChange change;
      status = ledger.voidGrant(id, &change);
      if (status == Status::kOk && change.applied)
        grants.erase(std::find(grants.begin(), grants.end(), id));
      if (status == Status::kUnknownId) continue;
    } else {
      const std::string id = grants[uniform(0, static_cast<int>(grants.size()) - 1)];
      call = "setGrantEnd " + id;
      gcl::GrantChange change;
      status = ledger.setGrantEnd(id, uniform(0, 60), &change);
      if (status == Status::kInvalidWindow) continue;
    }
    ASSERT_EQ(status, Status::kOk) << call;
    const AllocationsById want = changed(before, everyAllocation());
    reports += want.empty() ? 0 : 1;
    expectReported(want, "step " + std::to_string(step) + " " + call);
    std::vector<gcl::PendingConsumption> taken;
    ledger.takeAcceptedPending(&taken);
  }
  EXPECT_GT(reports, 30);  // the sequence does move allocations, often
}

GCL_INSTANTIATE_FOR_BOTH_ENGINES(ReallocationTest);

}  // namespace
