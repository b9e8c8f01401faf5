// How results cross into JS: each ledger has one result buffer in WebAssembly memory
// (ResultBuffer below) that a call fills and lib/decode.js reads in place. One encoding
// per result shape, each read by one reader in lib/decode.js (same name without
// "encode"). A result is a list of slots, each a number (an exact integer up to 2^53, as
// a double) or an id (a UTF-8 string up to kMaxIdBytes, or null): numbers go into one
// array of doubles, where an id's slot holds its length in UTF-16 units (-1 for null),
// and the ids' bytes follow one another in one text buffer, which JS decodes at once and
// cuts by those lengths. Each encoder returns the slot count; a failed call returns minus
// its status code instead.
//
// A result can be as large as the ledger (a snapshot's ids) or larger (the same grant id in
// the draws of many consumptions), and a C++ allocation that fails aborts the instance. So
// an encoder runs twice: once to measure the result, then to write it into buffers of
// exactly that size, which the buffer takes from malloc, whose failure is an answer (a heap
// too full or too cut up for one block that large): the call is then refused with
// OUT_OF_MEMORY and nothing is written.
#ifndef GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
#define GPU_CREDIT_LEDGER_RESULT_ENCODING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "heap_budget.h"

namespace gcl_wasm {

class ResultBuffer {
 public:
  // `heap`: the ledger's share of the heap budget, which each result's size is checked
  // against.
  explicit ResultBuffer(const HeapShare* heap) : heap_(heap) {}
  ~ResultBuffer();
  ResultBuffer(const ResultBuffer&) = delete;
  ResultBuffer& operator=(const ResultBuffer&) = delete;
  // A result written by `write(*this, data)`, which adds the same slots when run twice:
  // the slot count, or minus OUT_OF_MEMORY when its exact size does not fit beside what
  // the ledgers hold. `copied`: the call holds a copy of the result's data while it
  // encodes (a list the core built), which must fit too. (A plain function and its data,
  // not a template: one copy of this code for every encoder.)
  using Writer = void (*)(ResultBuffer& out, const void* data);
  int encode(bool copied, Writer write, const void* data);
  ResultBuffer& add(double number);
  ResultBuffer& add(int64_t number) { return add(static_cast<double>(number)); }
  ResultBuffer& add(std::string_view id);
  // An optional id: null when empty.
  ResultBuffer& addIdOrNull(const std::string& id);
  ResultBuffer& addAllocations(const std::vector<gcl::Allocation>& allocations);
  // The same from draws by grant index, the ids read in place from `ledger`.
  ResultBuffer& addAllocations(const std::vector<gcl::IndexedDraw>& draws,
                               const gcl::Ledger& ledger);
  ResultBuffer& addConsumption(std::string_view eventId, int64_t amount, int64_t timestamp);
  // A consumption of `ledger` with its draws now.
  ResultBuffer& addDrawnConsumption(const gcl::ConsumptionRecord& consumption,
                                    const gcl::Ledger& ledger);
  // The slot count, as every encoder returns it.
  int count() const { return static_cast<int>(count_); }
  const double* numbers() const { return numbers_; }
  const char* text() const { return text_; }
  int textBytes() const { return static_cast<int>(textSize_); }
  // Frees the buffers once JS has read a large result: a ledger keeps no more than a small
  // result's room between calls.
  void release();

 private:
  // After measuring: empties the buffers and gives them the room the result needs, if the
  // budget allows it and malloc has it.
  bool reserve(bool copied);

  const HeapShare* heap_;
  bool measuring_ = false;
  size_t slots_ = 0;                     // measured
  size_t textBytes_ = 0;                 // measured
  std::vector<gcl::IndexedDraw> draws_;  // addDrawnConsumption's scratch
  double* numbers_ = nullptr;            // malloc'd, room for numbersRoom_
  size_t numbersRoom_ = 0;
  size_t count_ = 0;
  char* text_ = nullptr;  // malloc'd, room for textRoom_
  size_t textRoom_ = 0;
  size_t textSize_ = 0;
};

// Minus the status code: how every binding reports a failed call.
int failureCode(gcl::Status status);

// [grantId, amount, ...] in draw order (readAllocations), the ids read from `ledger`.
int encodeAllocations(const std::vector<gcl::IndexedDraw>& draws, const gcl::Ledger& ledger,
                      ResultBuffer* out);

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
// (readDrawnConsumptions): consumptions with their draws now, read from `ledger` one at a
// time. The queued consumptions a call let in, or the ones it re-routed (by index,
// Ledger::reallocatedIndexes).
int encodeDrawnConsumptions(const std::vector<gcl::PendingConsumption>& accepted,
                            const gcl::Ledger& ledger, ResultBuffer* out);
// By index: Ledger::reallocatedIndexes.
int encodeDrawnConsumptions(const std::vector<uint32_t>& moved, const gcl::Ledger& ledger,
                            ResultBuffer* out);

// [time] or [] (nextBelow, read in place by lib/ledger.js).
int encodeTime(const std::optional<int64_t>& time, ResultBuffer* out);

// [horizon, droppedGrants, droppedConsumptions, (eventId, amount, timestamp) per dropped
// queued consumption] (readCompactResult).
int encodeCompactResult(const gcl::CompactResult& result, ResultBuffer* out);

// [time, balance, time, balance, ...] written into `buffer`, which JS reads through a
// typed-array view (readCurve): a curve can have millions of points.
void encodeCurve(const std::vector<gcl::BalancePoint>& points, std::vector<double>* buffer);

}  // namespace gcl_wasm

#endif  // GPU_CREDIT_LEDGER_RESULT_ENCODING_H_
