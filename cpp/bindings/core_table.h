// The core's rules as one table for JS: status codes by name, reject reasons by code and
// the limits. lib/core-table.js derives every JS constant from it, so each rule is
// written once, in C++ (cpp/include/gpu_credit_ledger/ledger.h).
#ifndef GPU_CREDIT_LEDGER_CORE_TABLE_H_
#define GPU_CREDIT_LEDGER_CORE_TABLE_H_

namespace gcl_wasm {

// The table as JSON text (NUL-terminated, built once):
// {"status":{"OK":0,"DUPLICATE_ID":1,...},"rejectReasons":[null,"INSUFFICIENT_CREDIT",
//  "WOULD_UNFUND"],"maxIdBytes":...,"maxEvents":...,"maxSafeInteger":...}
const char* coreTable();

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_CORE_TABLE_H_
