// How results cross into JS: each ledger has one result buffer in WebAssembly memory
// (ResultBuffer below) that a call fills and lib/decode.js reads in place. One encoding
// per result shape, each read by one reader in lib/decode.js (same name without
// "encode"). A result is a list of slots, each a number (an exact integer up to 2^53, as
// a double) or an id (a UTF-8 string up to kMaxIdBytes, or null): numbers go into one
// array of doubles, where an id's slot holds its length in UTF-16 units (-1 for null),
// and the ids' bytes follow one another in one text buffer, which JS decodes at once and
// cuts by those lengths. Each encoder returns the slot count; a failed call returns minus
// its status code instead.
#ifndef GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
#define GPU_CREDIT_LEDGER_RESULT_ENCODING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_wasm {

class ResultBuffer {
 public:
  // Starts a result.
  void clear();
  ResultBuffer& add(double number);
  ResultBuffer& add(int64_t number) { return add(static_cast<double>(number)); }
  ResultBuffer& add(std::string_view id);
  // An optional id: null when empty.
  ResultBuffer& addIdOrNull(const std::string& id);
  ResultBuffer& addAllocations(const std::vector<gcl::Allocation>& allocations);
  ResultBuffer& addConsumption(std::string_view eventId, int64_t amount, int64_t timestamp);
  ResultBuffer& addDrawnConsumption(std::string_view eventId, int64_t amount, int64_t timestamp,
                                    const std::vector<gcl::Allocation>& allocations);
  // The slot count, as every encoder returns it.
  int count() const { return static_cast<int>(numbers_.size()); }
  const double* numbers() const { return numbers_.data(); }
  const char* text() const { return text_.data(); }
  int textBytes() const { return static_cast<int>(text_.size()); }
  // Frees the buffers once JS has read a large result: a ledger keeps no more than a small
  // result's room between calls.
  void release();

 private:
  std::vector<double> numbers_;
  std::vector<char> text_;
};

// Minus the status code: how every binding reports a failed call.
int failureCode(gcl::Status status);

// [grantId, amount, ...] in draw order (readAllocations).
int encodeAllocations(const std::vector<gcl::Allocation>& allocations, ResultBuffer* out);

// [accepted (1/0), reason (gcl::RejectReason), blockingEventId or null, grantId, amount, ...]
// (readConsumeResult).
int encodeConsumeResult(const gcl::ConsumeResult& result, ResultBuffer* out);

// [grantId, amount, startTime, endTime, remaining, ...] in draw order (readGrantStates).
int encodeGrantStates(const std::vector<gcl::GrantState>& states, ResultBuffer* out);

// [amount, startTime, endTime, drawCount, (timestamp, eventId, amount) per draw,
// (time, remaining) per curve point] (readBurnDown).
int encodeBurnDown(const gcl::BurnDown& burn, ResultBuffer* out);

// [applied (1/0), blockingEventId or null] (readGrantChange). The queued consumptions a
// change lets in leave through the ledger's accepted-pending list only.
int encodeGrantChange(const gcl::GrantChange& change, ResultBuffer* out);

// [grantId, amount, startTime, endTime, ...] in the order added (readGrants).
int encodeGrants(const gcl::Ledger& ledger, ResultBuffer* out);

// [eventId, amount, timestamp, ...] (readConsumptions): the accepted consumptions in
// acceptance order, or the queued ones in retry order.
int encodeConsumptions(const gcl::Ledger& ledger, ResultBuffer* out);
int encodeConsumptions(const std::vector<gcl::PendingConsumption>& queued, ResultBuffer* out);

// [eventId, amount, timestamp, allocationCount, grantId, amount, ..., eventId, ...]
// (readDrawnConsumptions): consumptions with their draws now. The queued consumptions a
// call let in (their draws read from `ledger`), or the ones it re-routed.
int encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger, ResultBuffer* out);
int encodeDrawnConsumptions(const std::vector<gcl::Reallocation>& moved, ResultBuffer* out);

// [horizon, droppedGrants, droppedConsumptions, (eventId, amount, timestamp) per dropped
// queued consumption] (readCompactResult).
int encodeCompactResult(const gcl::CompactResult& result, ResultBuffer* out);

// [time, balance, time, balance, ...] written into `buffer`, which JS reads through a
// typed-array view (readCurve): a curve can have millions of points.
void encodeCurve(const std::vector<gcl::BalancePoint>& points, std::vector<double>* buffer);

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
