#include "core_table.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"

GCL_COLD_CODE_BEGIN

namespace gcl_wasm {
namespace {

// The JS name of a reject reason (null for an accepted consumption), as JSON. A switch
// without a default, so a new gcl::RejectReason is a compile warning until it has a name.
const char* reasonName(gcl::RejectReason reason) {
  switch (reason) {
    case gcl::RejectReason::kNone:
      return "null";
    case gcl::RejectReason::kInsufficientCredit:
      return "\"INSUFFICIENT_CREDIT\"";
    case gcl::RejectReason::kWouldUnfund:
      return "\"WOULD_UNFUND\"";
  }
  return "null";
}

// A non-negative integer in decimal.
void appendNumber(std::string* out, uint64_t value) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) out->push_back(digits[--n]);
}

std::string makeTable() {
  std::string out = "{\"status\":{";
  // Status codes are dense from kOk; gcl::statusName names each and answers
  // "UNKNOWN_STATUS" past the last one.
  for (int32_t code = 0;; ++code) {
    const char* name = gcl::statusName(static_cast<gcl::Status>(code));
    if (std::strcmp(name, "UNKNOWN_STATUS") == 0) break;
    if (code > 0) out += ',';
    out += '"';
    out += name;
    out += "\":";
    appendNumber(&out, static_cast<uint64_t>(code));
  }
  out += "},\"rejectReasons\":[";
  for (int32_t code = 0; code <= static_cast<int32_t>(gcl::RejectReason::kWouldUnfund); ++code) {
    if (code > 0) out += ',';
    out += reasonName(static_cast<gcl::RejectReason>(code));
  }
  out += "],\"maxIdBytes\":";
  appendNumber(&out, gcl::kMaxIdBytes);
  out += ",\"maxEvents\":";
  appendNumber(&out, gcl::Ledger::kMaxEvents);
  out += ",\"maxSafeInteger\":";
  appendNumber(&out, static_cast<uint64_t>(gcl::kMaxSafeInteger));
  out += '}';
  return out;
}

}  // namespace

const char* coreTable() {
  static const std::string table = makeTable();
  return table.c_str();
}

}  // namespace gcl_wasm

GCL_COLD_CODE_END
