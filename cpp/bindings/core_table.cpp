#include "core_table.h"

#include <cstring>
#include <string>

#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"

GCL_COLD_CODE_BEGIN

namespace gcl_wasm {
namespace {

using emscripten::val;

// The JS name of a reject reason (null for an accepted consumption). A switch without a
// default, so a new gcl::RejectReason is a compile warning until it has a name.
val reasonName(gcl::RejectReason reason) {
  switch (reason) {
    case gcl::RejectReason::kNone:
      return val::null();
    case gcl::RejectReason::kInsufficientCredit:
      return val("INSUFFICIENT_CREDIT");
    case gcl::RejectReason::kWouldUnfund:
      return val("WOULD_UNFUND");
  }
  return val::null();
}

}  // namespace

val coreTable() {
  // Status codes are dense from kOk; gcl::statusName names each and answers
  // "UNKNOWN_STATUS" past the last one.
  val status = val::object();
  for (int32_t code = 0;; ++code) {
    const char* name = gcl::statusName(static_cast<gcl::Status>(code));
    if (std::strcmp(name, "UNKNOWN_STATUS") == 0) break;
    status.set(name, code);
  }
  val reasons = val::array();
  for (int32_t code = 0; code <= static_cast<int32_t>(gcl::RejectReason::kWouldUnfund); ++code) {
    reasons.set(code, reasonName(static_cast<gcl::RejectReason>(code)));
  }
  val table = val::object();
  table.set("status", status);
  table.set("rejectReasons", reasons);
  table.set("maxIdBytes", static_cast<double>(gcl::kMaxIdBytes));
  table.set("maxEvents", static_cast<double>(gcl::Ledger::kMaxEvents));
  table.set("maxSafeInteger", static_cast<double>(gcl::kMaxSafeInteger));
  return table;
}

}  // namespace gcl_wasm

GCL_COLD_CODE_END
