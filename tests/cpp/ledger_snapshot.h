// Everything observable about a ledger, taken at chosen probe times and ids, so that two
// ledgers (or one ledger before and after a refused call) can be compared field by field
// with a readable first difference. Header-only and free of GoogleTest (the fuzzer uses it).
#ifndef GCL_TESTS_LEDGER_SNAPSHOT_H_
#define GCL_TESTS_LEDGER_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_test {

struct Snapshot {
  size_t grantCount = 0;
  size_t consumptionCount = 0;
  std::vector<gcl::Status> balanceStatus;                 // per probe time
  std::vector<int64_t> balances;                          // per probe time
  std::vector<gcl::Status> allocationStatus;              // per probe id
  std::vector<std::vector<gcl::Allocation>> allocations;  // per probe id
  gcl::Status curveStatus = gcl::Status::kOk;
  std::vector<gcl::BalancePoint> curve;  // over the whole time range

  bool operator==(const Snapshot& o) const {
    return grantCount == o.grantCount && consumptionCount == o.consumptionCount &&
           balanceStatus == o.balanceStatus && balances == o.balances &&
           allocationStatus == o.allocationStatus && allocations == o.allocations &&
           curveStatus == o.curveStatus && curve == o.curve;
  }
  bool operator!=(const Snapshot& o) const { return !(*this == o); }
};

template <typename LedgerLike>
Snapshot takeSnapshot(const LedgerLike& ledger, const std::vector<int64_t>& times,
                      const std::vector<std::string>& ids) {
  Snapshot s;
  s.grantCount = ledger.grantCount();
  s.consumptionCount = ledger.consumptionCount();
  for (int64_t t : times) {
    int64_t balance = -1;
    s.balanceStatus.push_back(ledger.getBalance(t, &balance));
    s.balances.push_back(balance);
  }
  for (const std::string& id : ids) {
    std::vector<gcl::Allocation> allocations;
    s.allocationStatus.push_back(ledger.allocations(id, &allocations));
    s.allocations.push_back(std::move(allocations));
  }
  s.curveStatus = ledger.balanceCurve(0, gcl::kMaxSafeInteger, &s.curve);
  return s;
}

inline std::string allocationsText(const std::vector<gcl::Allocation>& allocations) {
  std::string out = "[";
  for (const gcl::Allocation& a : allocations) {
    if (out.size() > 1) out += ", ";
    out += a.grantId + ":" + std::to_string(a.amount);
  }
  return out + "]";
}

inline std::string curveText(const std::vector<gcl::BalancePoint>& curve) {
  std::string out = "[";
  for (size_t i = 0; i < curve.size(); ++i) {
    if (i == 40) return out + ", ... (" + std::to_string(curve.size()) + " points)]";
    if (i > 0) out += ", ";
    out += "(" + std::to_string(curve[i].time) + ": " + std::to_string(curve[i].balance) + ")";
  }
  return out + "]";
}

// Empty when equal; otherwise the first difference in words.
inline std::string firstDifference(const Snapshot& a, const char* aName, const Snapshot& b,
                                   const char* bName, const std::vector<int64_t>& times,
                                   const std::vector<std::string>& ids) {
  auto both = [&](const std::string& what, const std::string& x, const std::string& y) {
    return what + ": " + aName + " " + x + ", " + bName + " " + y;
  };
  if (a.grantCount != b.grantCount) {
    return both("grantCount", std::to_string(a.grantCount), std::to_string(b.grantCount));
  }
  if (a.consumptionCount != b.consumptionCount) {
    return both("consumptionCount", std::to_string(a.consumptionCount),
                std::to_string(b.consumptionCount));
  }
  for (size_t i = 0; i < times.size(); ++i) {
    if (a.balanceStatus[i] != b.balanceStatus[i] || a.balances[i] != b.balances[i]) {
      return both(
          "getBalance(" + std::to_string(times[i]) + ")",
          std::string(gcl::statusName(a.balanceStatus[i])) + " " + std::to_string(a.balances[i]),
          std::string(gcl::statusName(b.balanceStatus[i])) + " " + std::to_string(b.balances[i]));
    }
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (a.allocationStatus[i] != b.allocationStatus[i] || a.allocations[i] != b.allocations[i]) {
      return both("allocations(\"" + ids[i] + "\")",
                  std::string(gcl::statusName(a.allocationStatus[i])) + " " +
                      allocationsText(a.allocations[i]),
                  std::string(gcl::statusName(b.allocationStatus[i])) + " " +
                      allocationsText(b.allocations[i]));
    }
  }
  if (a.curveStatus != b.curveStatus || a.curve != b.curve) {
    return both("balanceCurve(0, 2^53-1)", curveText(a.curve), curveText(b.curve));
  }
  return "";
}

// Checks a snapshot against itself: the curve starts at 0, its times increase, each point
// is a change, every probed balance is non-negative and equals the curve's value there,
// and every accepted consumption's draws are positive. Empty when all hold.
inline std::string selfInconsistency(const Snapshot& s, const std::vector<int64_t>& times) {
  if (s.curveStatus != gcl::Status::kOk) return "balanceCurve(0, 2^53-1) failed";
  if (s.curve.empty() || s.curve.front().time != 0) {
    return "balanceCurve(0, 2^53-1) does not start at 0: " + curveText(s.curve);
  }
  for (size_t i = 1; i < s.curve.size(); ++i) {
    if (s.curve[i].time <= s.curve[i - 1].time || s.curve[i].balance == s.curve[i - 1].balance) {
      return "balanceCurve point " + std::to_string(i) + " is not a change: " + curveText(s.curve);
    }
  }
  size_t point = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    if (s.balanceStatus[i] != gcl::Status::kOk) {
      return "getBalance(" + std::to_string(times[i]) + ") failed";
    }
    if (s.balances[i] < 0) {
      return "getBalance(" + std::to_string(times[i]) + ") = " + std::to_string(s.balances[i]);
    }
    while (point + 1 < s.curve.size() && s.curve[point + 1].time <= times[i]) ++point;
    if (s.curve[point].balance != s.balances[i]) {
      return "getBalance(" + std::to_string(times[i]) + ") = " + std::to_string(s.balances[i]) +
             " but the curve says " + std::to_string(s.curve[point].balance);
    }
  }
  for (const auto& allocations : s.allocations) {
    for (const gcl::Allocation& a : allocations) {
      if (a.amount <= 0) return "non-positive draw in " + allocationsText(allocations);
    }
  }
  return "";
}

}  // namespace gcl_test

#endif  // GCL_TESTS_LEDGER_SNAPSHOT_H_
