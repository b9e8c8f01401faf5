// How results cross into JS: one flat-array encoding per result shape, each read by one
// reader in lib/decode.js (same name without "encode"). Flat arrays of strings and
// doubles cost one embind call per element, far less than one JS object per record.
// A failed call returns minus its status code instead (a number, never an array).
#ifndef GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
#define GPU_CREDIT_LEDGER_RESULT_ENCODING_H_

#include <emscripten/val.h>

#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_wasm {

using emscripten::val;

// Minus the status code: how every binding reports a failed call.
int failureCode(gcl::Status status);
val failure(gcl::Status status);

// [grantId, amount, ...] in draw order (readAllocations).
val encodeAllocations(const std::vector<gcl::Allocation>& allocations);

// [accepted (1/0), reason (gcl::RejectReason), blockingEventId or null, grantId, amount, ...]
// (readConsumeResult).
val encodeConsumeResult(const gcl::ConsumeResult& result);

// [grantId, amount, startTime, endTime, remaining, ...] in draw order (readGrantStates).
val encodeGrantStates(const std::vector<gcl::GrantState>& states);

// [amount, startTime, endTime, drawCount, (timestamp, eventId, amount) per draw,
// (time, remaining) per curve point] (readBurnDown).
val encodeBurnDown(const gcl::BurnDown& burn);

// [applied (1/0), blockingEventId or null] (readGrantChange). The queued consumptions a
// change lets in leave through the ledger's accepted-pending list only.
val encodeGrantChange(const gcl::GrantChange& change);

// [grantId, amount, startTime, endTime, ...] in the order added (readGrants).
val encodeGrants(const gcl::Ledger& ledger);

// [eventId, amount, timestamp, ...] (readConsumptions): the accepted consumptions in
// acceptance order, or the queued ones in retry order.
val encodeConsumptions(const gcl::Ledger& ledger);
val encodeConsumptions(const std::vector<gcl::PendingConsumption>& queued);

// [eventId, amount, timestamp, allocationCount, grantId, amount, ..., eventId, ...]
// (readDrawnConsumptions): consumptions with their draws now. The queued consumptions a
// call let in (their draws read from `ledger`), or the ones it re-routed.
val encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger);
val encodeDrawnConsumptions(const std::vector<gcl::Reallocation>& moved);

// [horizon, droppedGrants, droppedConsumptions, (eventId, amount, timestamp) per dropped
// queued consumption] (readCompactResult).
val encodeCompactResult(const gcl::CompactResult& result);

// [time, balance, time, balance, ...] written into `buffer`, which JS reads through a
// typed-array view (readCurve): a curve can have millions of points.
void encodeCurve(const std::vector<gcl::BalancePoint>& points, std::vector<double>* buffer);

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
