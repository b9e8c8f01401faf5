// Every input the ledger refuses: the status names the broken rule and the ledger is
// exactly as it was (balances, allocations, curve, counts), and stays usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"
#include "ledger_fixture.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"

namespace gcl_test {
namespace {

using gcl::kMaxSafeInteger;
using gcl::Status;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kTooBig = kMaxSafeInteger + 1;  // 2^53

const std::vector<std::string>& badIds() {
  static const std::vector<std::string> ids{
      "",
      std::string(gcl::kMaxIdBytes + 1, 'x'),
      "\xFF",
      "ok\x80",            // lone continuation byte
      "\xC0\x80",          // overlong NUL
      "\xE0\x80\xAF",      // overlong '/'
      "\xED\xA0\x80",      // U+D800, a surrogate
      "\xED\xBF\xBF",      // U+DFFF, a surrogate
      "\xE2\x82",          // truncated
      "\xF0\x9F\x98",      // truncated
      "\xF4\x90\x80\x80",  // above U+10FFFF
  };
  return ids;
}

class BadInputTest : public LedgerTest {
 protected:
  void SetUp() override {
    grant("g1", 100, 0, 10);
    grant("g2", 50, 5, 15);
    grant("\xC3\xA9", 7, 3, 3);
    ASSERT_TRUE(consume("c1", 80, 6));
    ASSERT_FALSE(consume("c2", 60, 11));
    ASSERT_TRUE(consume("c3", 40, 11));
    ASSERT_TRUE(consume("c4", 7, 3));
    before_ = snapshot();
  }

  Snapshot snapshot() const { return takeSnapshot(ledger, times_, ids_); }

  void expectUnchanged(const std::string& call) const {
    const Snapshot now = snapshot();
    EXPECT_EQ(firstDifference(before_, "before", now, "after", times_, ids_), "") << call;
  }

  const std::vector<int64_t> times_{0, 2, 3, 4, 5, 6, 7, 10, 11, 12, 15, 16, kMaxSafeInteger};
  const std::vector<std::string> ids_{"c1", "c2", "c3", "c4", "g1", "nobody"};
  Snapshot before_;
};
GCL_INSTANTIATE_FOR_BOTH_ENGINES(BadInputTest);

TEST_P(BadInputTest, FixtureStateIsAsExpected) {
  EXPECT_EQ(before_.grantCount, 3u);
  EXPECT_EQ(before_.consumptionCount, 3u);
  // "\303\251" (7 on [3,3]) ends first, so c4 at 3 drains it and the curve is flat there.
  EXPECT_EQ(before_.curve,
            (std::vector<gcl::BalancePoint>{{0, 100}, {5, 150}, {6, 70}, {11, 10}, {16, 0}}));
  EXPECT_EQ(allocations("c4"), (std::vector<gcl::Allocation>{{"\xC3\xA9", 7}}));
}

TEST_P(BadInputTest, AddGrantRefusesBadIds) {
  for (const std::string& id : badIds()) {
    EXPECT_EQ(ledger.addGrant(id, 5, 0, 10), Status::kInvalidId) << cppLiteral(id);
    expectUnchanged("addGrant(" + cppLiteral(id) + ")");
  }
}

TEST_P(BadInputTest, AddGrantRefusesAmountsOutsideOneToTwoPow53MinusOne) {
  for (int64_t amount : {int64_t{0}, int64_t{-1}, kTooBig, kInt64Min, kInt64Max}) {
    EXPECT_EQ(ledger.addGrant("new", amount, 0, 10), Status::kInvalidAmount) << amount;
    expectUnchanged("addGrant amount " + std::to_string(amount));
  }
}

TEST_P(BadInputTest, AddGrantRefusesTimesOutsideZeroToTwoPow53MinusOne) {
  for (int64_t bad : {int64_t{-1}, kTooBig, kInt64Min, kInt64Max}) {
    EXPECT_EQ(ledger.addGrant("new", 5, bad, 10), Status::kInvalidTime) << bad;
    EXPECT_EQ(ledger.addGrant("new", 5, 0, bad), Status::kInvalidTime) << bad;
    EXPECT_EQ(ledger.addGrant("new", 5, bad, bad), Status::kInvalidTime) << bad;
    expectUnchanged("addGrant time " + std::to_string(bad));
  }
}

TEST_P(BadInputTest, AddGrantRefusesAStartAfterTheEnd) {
  EXPECT_EQ(ledger.addGrant("new", 5, 5, 4), Status::kInvalidWindow);
  EXPECT_EQ(ledger.addGrant("new", 5, kMaxSafeInteger, 0), Status::kInvalidWindow);
  expectUnchanged("addGrant window");
}

TEST_P(BadInputTest, AddGrantRefusesAnExistingIdWithOtherParameters) {
  EXPECT_EQ(ledger.addGrant("g1", 101, 0, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 100, 1, 10), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 100, 0, 9), Status::kDuplicateId);
  EXPECT_EQ(ledger.addGrant("g1", 100, 0, 10), Status::kOk);  // the retry is fine
  expectUnchanged("addGrant duplicate");
}

TEST_P(BadInputTest, AddGrantRefusesATotalAboveTwoPow53MinusOne) {
  const int64_t room = kMaxSafeInteger - 157;
  EXPECT_EQ(ledger.addGrant("huge", room + 1, 0, 10), Status::kTotalOverflow);
  EXPECT_EQ(ledger.addGrant("huge", kMaxSafeInteger, 0, 10), Status::kTotalOverflow);
  expectUnchanged("addGrant overflow");
  EXPECT_EQ(ledger.addGrant("huge", room, 0, 10), Status::kOk);
  EXPECT_EQ(ledger.addGrant("one", 1, 0, 10), Status::kTotalOverflow);
  EXPECT_EQ(ledger.grantCount(), 4u);
  EXPECT_EQ(balance(5), 150 + room);
}

TEST_P(BadInputTest, AddGrantReportsTheFirstBrokenRuleInArgumentOrder) {
  EXPECT_EQ(ledger.addGrant("", 0, -1, -2), Status::kInvalidId);
  EXPECT_EQ(ledger.addGrant("g1", 0, -1, -2), Status::kInvalidAmount);
  EXPECT_EQ(ledger.addGrant("g1", 5, -1, -2), Status::kInvalidTime);
  EXPECT_EQ(ledger.addGrant("g1", 5, 3, 2), Status::kInvalidWindow);
  EXPECT_EQ(ledger.addGrant("g1", kMaxSafeInteger, 0, 10), Status::kDuplicateId);
  expectUnchanged("addGrant several faults");
}

TEST_P(BadInputTest, ConsumeRefusesBadIds) {
  for (const std::string& id : badIds()) {
    bool accepted = false;
    EXPECT_EQ(ledger.consume(id, 1, 6, &accepted), Status::kInvalidId) << cppLiteral(id);
    expectUnchanged("consume(" + cppLiteral(id) + ")");
  }
}

TEST_P(BadInputTest, ConsumeRefusesBadAmountsAndTimes) {
  bool accepted = false;
  for (int64_t amount : {int64_t{0}, int64_t{-1}, kTooBig, kInt64Min, kInt64Max}) {
    EXPECT_EQ(ledger.consume("new", amount, 6, &accepted), Status::kInvalidAmount) << amount;
  }
  for (int64_t time : {int64_t{-1}, kTooBig, kInt64Min, kInt64Max}) {
    EXPECT_EQ(ledger.consume("new", 1, time, &accepted), Status::kInvalidTime) << time;
  }
  EXPECT_EQ(ledger.consume("", 0, -1, &accepted), Status::kInvalidId);
  EXPECT_EQ(ledger.consume("c1", 0, -1, &accepted), Status::kInvalidAmount);
  EXPECT_EQ(ledger.consume("c1", 80, -1, &accepted), Status::kInvalidTime);
  expectUnchanged("consume bad numbers");
}

TEST_P(BadInputTest, ConsumeRefusesAnAcceptedIdWithOtherParameters) {
  bool accepted = false;
  EXPECT_EQ(ledger.consume("c1", 81, 6, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("c1", 80, 7, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("c1", 1, 6, &accepted), Status::kDuplicateId);
  expectUnchanged("consume duplicate");
  EXPECT_EQ(ledger.consume("c1", 80, 6, &accepted), Status::kOk);
  EXPECT_TRUE(accepted);
  expectUnchanged("consume retry");
}

TEST_P(BadInputTest, UnfundableConsumptionsChangeNothing) {
  // At most 30 can be drawn anywhere: c1 needs 70 of g1, c3 needs 40 of g2.
  for (int64_t time :
       {int64_t{0}, int64_t{3}, int64_t{6}, int64_t{11}, int64_t{16}, kMaxSafeInteger}) {
    for (int64_t amount : {int64_t{71}, int64_t{1000}, kMaxSafeInteger}) {
      bool accepted = true;
      EXPECT_EQ(ledger.consume("big", amount, time, &accepted), Status::kOk);
      EXPECT_FALSE(accepted) << amount << "@" << time;
      expectUnchanged("consume " + std::to_string(amount) + "@" + std::to_string(time));
    }
  }
}

TEST_P(BadInputTest, QueriesRefuseBadTimes) {
  int64_t value = 0;
  for (int64_t time : {int64_t{-1}, kTooBig, kInt64Min, kInt64Max}) {
    EXPECT_EQ(ledger.getBalance(time, &value), Status::kInvalidTime) << time;
    std::vector<gcl::BalancePoint> points;
    EXPECT_EQ(ledger.balanceCurve(time, 10, &points), Status::kInvalidTime) << time;
    EXPECT_EQ(ledger.balanceCurve(0, time, &points), Status::kInvalidTime) << time;
  }
  std::vector<gcl::BalancePoint> points;
  EXPECT_EQ(ledger.balanceCurve(11, 10, &points), Status::kInvalidWindow);
  EXPECT_EQ(ledger.balanceCurve(kMaxSafeInteger, 0, &points), Status::kInvalidWindow);
  expectUnchanged("queries");
}

TEST_P(BadInputTest, AllocationsOfBadOrUnknownIds) {
  std::vector<gcl::Allocation> out{{"stale", 1}};
  for (const std::string& id : badIds()) {
    EXPECT_EQ(ledger.allocations(id, &out), Status::kInvalidId) << cppLiteral(id);
    EXPECT_TRUE(out.empty());
  }
  out = {{"stale", 1}};
  EXPECT_EQ(ledger.allocations("c2", &out), Status::kUnknownId);  // rejected earlier
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(ledger.allocations("g1", &out), Status::kUnknownId);  // a grant id
  EXPECT_EQ(ledger.allocations("nobody", &out), Status::kUnknownId);
  expectUnchanged("allocations");
}

TEST_P(BadInputTest, LedgerStaysUsableAfterEveryKindOfError) {
  bool accepted = false;
  EXPECT_EQ(ledger.addGrant("", 5, 0, 10), Status::kInvalidId);
  EXPECT_EQ(ledger.addGrant("g3", kMaxSafeInteger, 0, 10), Status::kTotalOverflow);
  EXPECT_EQ(ledger.consume("c1", 1, 1, &accepted), Status::kDuplicateId);
  EXPECT_EQ(ledger.consume("c9", -5, 1, &accepted), Status::kInvalidAmount);
  expectUnchanged("errors");
  grant("g3", 30, 12, 20);
  EXPECT_TRUE(consume("c2", 40, 12));  // the rejected id, now fundable: g2 10 + g3 30
  EXPECT_EQ(allocations("c2"), (std::vector<gcl::Allocation>{{"g2", 10}, {"g3", 30}}));
  EXPECT_EQ(balance(12), 0);
  EXPECT_EQ(balance(16), 0);
}

TEST(IsValidId, AcceptsWellFormedUtf8UpTo1024Bytes) {
  for (const std::string& id : {
           std::string("a"), std::string("job-42/gpu:0"), std::string(1, '\0'),
           std::string(gcl::kMaxIdBytes, 'x'),
           std::string(gcl::kMaxIdBytes - 4, 'x') + "\xF0\x9F\x98\x80",  // ends at the limit
           std::string("\x7F"),
           std::string("\xC2\x80"),          // U+0080, smallest 2-byte
           std::string("\xDF\xBF"),          // U+07FF
           std::string("\xE0\xA0\x80"),      // U+0800, smallest 3-byte
           std::string("\xED\x9F\xBF"),      // U+D7FF, just below the surrogates
           std::string("\xEE\x80\x80"),      // U+E000, just above them
           std::string("\xEF\xBF\xBF"),      // U+FFFF
           std::string("\xF0\x90\x80\x80"),  // U+10000, smallest 4-byte
           std::string("\xF4\x8F\xBF\xBF"),  // U+10FFFF, the last code point
       }) {
    EXPECT_TRUE(gcl::isValidId(id)) << cppLiteral(id);
  }
}

TEST(IsValidId, RefusesEmptyOverlongSurrogateTruncatedAndTooLongIds) {
  for (const std::string& id : badIds()) EXPECT_FALSE(gcl::isValidId(id)) << cppLiteral(id);
  for (const std::string& id : {
           std::string(gcl::kMaxIdBytes - 1, 'x') + "\xC3\xA9",  // 1025 bytes
           std::string("\xC1\xBF"),                              // overlong U+007F
           std::string("\xE0\x9F\xBF"),                          // overlong U+07FF
           std::string("\xF0\x8F\xBF\xBF"),                      // overlong U+FFFF
           std::string("\xED\xA0\xBD\xED\xB8\x80"),              // CESU-8 pair for U+1F600
           std::string("\xED\xB0\x80"),                          // U+DC00, a low surrogate
           std::string("\xF5\x80\x80\x80"),
           std::string("\xF8\x88\x80\x80\x80"),  // old 5-byte form
           std::string("\xFE"),
           std::string("\xC3"),  // lead byte at the end
           std::string("\xE2\x82"
                       "a"),             // truncated before ASCII
           std::string("\xC3\xC3\xA9"),  // lead byte where a continuation belongs
           std::string("a\xBF"),
       }) {
    EXPECT_FALSE(gcl::isValidId(id)) << cppLiteral(id);
  }
}

TEST(IsValidId, ChecksEverySurrogateAndItsNeighbours) {
  for (uint32_t cp = 0xD700; cp <= 0xE0FF; ++cp) {
    const std::string id{static_cast<char>(0xE0 | (cp >> 12)),
                         static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                         static_cast<char>(0x80 | (cp & 0x3F))};
    EXPECT_EQ(gcl::isValidId(id), cp < 0xD800 || cp > 0xDFFF) << std::hex << cp;
  }
}

}  // namespace
}  // namespace gcl_test
