#include "core_table.h"

#include <cstdint>
#include <cstring>

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

// Writes the table into a fixed buffer: far larger than the table, so a name added to the
// core cannot overflow it unnoticed (append stops at the end, and the JSON then fails
// to parse in lib/core-table.js, at load).
class TableWriter {
 public:
  TableWriter& text(const char* part) {
    while (*part != '\0' && size_ + 1 < sizeof(buffer_)) buffer_[size_++] = *part++;
    buffer_[size_] = '\0';
    return *this;
  }
  // A non-negative integer in decimal.
  TableWriter& number(uint64_t value) {
    char digits[21];
    int n = 20;
    digits[n] = '\0';
    do {
      digits[--n] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    return text(digits + n);
  }
  const char* done() const { return buffer_; }

 private:
  char buffer_[1024] = {};
  size_t size_ = 0;
};

TableWriter table;

const char* makeTable() {
  table.text("{\"status\":{");
  // Status codes are dense from kOk; gcl::statusName names each and answers
  // "UNKNOWN_STATUS" past the last one.
  for (int32_t code = 0;; ++code) {
    const char* name = gcl::statusName(static_cast<gcl::Status>(code));
    if (std::strcmp(name, "UNKNOWN_STATUS") == 0) break;
    table.text(code > 0 ? ",\"" : "\"").text(name).text("\":").number(static_cast<uint64_t>(code));
  }
  table.text("},\"rejectReasons\":[");
  for (int32_t code = 0; code <= static_cast<int32_t>(gcl::RejectReason::kWouldUnfund); ++code) {
    if (code > 0) table.text(",");
    table.text(reasonName(static_cast<gcl::RejectReason>(code)));
  }
  table.text("],\"maxIdBytes\":").number(gcl::kMaxIdBytes);
  table.text(",\"maxEvents\":").number(gcl::Ledger::kMaxEvents);
  table.text(",\"maxSafeInteger\":").number(static_cast<uint64_t>(gcl::kMaxSafeInteger));
  return table.text("}").done();
}

}  // namespace

const char* coreTable() {
  static const char* const text = makeTable();
  return text;
}

}  // namespace gcl_wasm

GCL_COLD_CODE_END
