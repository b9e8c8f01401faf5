// Readable GoogleTest failure output for the ledger's value types.
#ifndef GCL_TESTS_GTEST_PRINTERS_H_
#define GCL_TESTS_GTEST_PRINTERS_H_

#include <ostream>

#include "gpu_credit_ledger/ledger.h"

namespace gcl {

inline void PrintTo(Status status, std::ostream* os) { *os << statusName(status); }
inline void PrintTo(const Allocation& a, std::ostream* os) { *os << a.grantId << ":" << a.amount; }
inline void PrintTo(const BalancePoint& p, std::ostream* os) {
  *os << "(" << p.time << ": " << p.balance << ")";
}
inline void PrintTo(EngineKind kind, std::ostream* os) {
  *os << (kind == EngineKind::kReplay ? "Replay" : "Incremental");
}

}  // namespace gcl

#endif  // GCL_TESTS_GTEST_PRINTERS_H_
