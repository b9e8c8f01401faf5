// A GoogleTest fixture that runs each test once per engine, with terse helpers for the
// calls whose status is not the point of the test.
#ifndef GCL_TESTS_LEDGER_FIXTURE_H_
#define GCL_TESTS_LEDGER_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "gtest_printers.h"

namespace gcl_test {

class LedgerTest : public ::testing::TestWithParam<gcl::EngineKind> {
 protected:
  void grant(std::string_view id, int64_t amount, int64_t startTime, int64_t endTime) {
    ASSERT_EQ(ledger.addGrant(id, amount, startTime, endTime), gcl::Status::kOk) << id;
  }
  bool consume(std::string_view id, int64_t amount, int64_t timestamp) {
    bool accepted = false;
    EXPECT_EQ(ledger.consume(id, amount, timestamp, &accepted), gcl::Status::kOk) << id;
    return accepted;
  }
  int64_t balance(int64_t timestamp) const {
    int64_t value = -1;
    EXPECT_EQ(ledger.getBalance(timestamp, &value), gcl::Status::kOk) << timestamp;
    return value;
  }
  std::vector<gcl::Allocation> allocations(std::string_view id) const {
    std::vector<gcl::Allocation> out;
    EXPECT_EQ(ledger.allocations(id, &out), gcl::Status::kOk) << id;
    return out;
  }
  std::vector<gcl::BalancePoint> curve(int64_t from, int64_t to) const {
    std::vector<gcl::BalancePoint> out;
    EXPECT_EQ(ledger.balanceCurve(from, to, &out), gcl::Status::kOk);
    return out;
  }

  gcl::Ledger ledger{GetParam()};
};

inline std::string engineName(const ::testing::TestParamInfo<gcl::EngineKind>& info) {
  return info.param == gcl::EngineKind::kReplay ? "Replay" : "Incremental";
}

}  // namespace gcl_test

#define GCL_INSTANTIATE_FOR_BOTH_ENGINES(Suite)                                                   \
  INSTANTIATE_TEST_SUITE_P(                                                                       \
      Engines, Suite, ::testing::Values(gcl::EngineKind::kIncremental, gcl::EngineKind::kReplay), \
      ::gcl_test::engineName)

#endif  // GCL_TESTS_LEDGER_FIXTURE_H_
