// The argument rules of docs/semantics.md ("Validation"), shared by the source files that implement
// Ledger.
#ifndef GPU_CREDIT_LEDGER_VALUE_CHECKS_H_
#define GPU_CREDIT_LEDGER_VALUE_CHECKS_H_

#include <cstdint>

#include "gpu_credit_ledger/ledger.h"

namespace gcl {

inline bool isValidAmount(int64_t amount) { return amount >= 1 && amount <= kMaxSafeInteger; }
inline bool isValidTime(int64_t time) { return time >= 0 && time <= kMaxSafeInteger; }

inline Status checkConsumption(std::string_view eventId, int64_t amount, int64_t timestamp) {
  if (!isValidId(eventId)) return Status::kInvalidId;
  if (!isValidAmount(amount)) return Status::kInvalidAmount;
  if (!isValidTime(timestamp)) return Status::kInvalidTime;
  return Status::kOk;
}

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_VALUE_CHECKS_H_
