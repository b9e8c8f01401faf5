// libFuzzer harness: decodes bytes into a stream of ledger calls (valid and refused
// arguments, retries, duplicates, ids from the other namespace, queries) and applies it to
// the incremental engine, the reference replay and the test model. After every call it
// traps unless all three agree on the outcome and on every observable value (balances at
// every interesting time, allocations of every id, the curve, counts), the incremental
// engine's state is self-consistent, and a call that could not change the ledger (refused,
// rejected, a retry, a refused lifecycle change, a queued submission) changed nothing; and
// the headroom at three fixed probe times agrees between the engines after every call. Each
// consumption is also tried as a dry run first, on both engines, answer for answer.
// Most inputs lower the incremental engine's re-draw budget, so that its rejection bounds
// decide calls on these small ledgers too.
//
// The grant lifecycle, pending consumptions and compact (the finality horizon) are in the
// stream too; the model only covers the core calls (grants, consumptions, balances), so it
// drops out at the first of those. After every call both engines' invariants are
// recounted (Ledger::checkInvariants).
//
// Byte format (tests/fuzz/make_corpus.py writes it): one opcode byte per call, then its
// fields. Opcode % 12: 0-1 addGrant(id, amount, start, end); 2-4 consume(id, amount, time);
// 5 repeat(back, tweak); 6 query(kind, ...), kind % 4: 0 getBalance(time), 1
// balanceCurve(from, to), 2 allocations(id), 3 compact(horizon); 7 the same as 2-4 or 0-1 with an
// id taken from the other namespace; 8 voidGrant(id); 9 setGrantEnd(id, end); 10 submit(id, amount,
// time); 11 cancelPending(id). Numbers and ids start with a selector byte.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"
#include "model_ledger.h"

namespace {

using gcl::kMaxSafeInteger;
using gcl_test::Op;

constexpr size_t kMaxCalls = 64;  // the reference is quadratic per check: keep inputs fast

struct Query {
  enum class Kind { kNone, kBalance, kCurve, kAllocations, kCompact };
  Kind kind = Kind::kNone;
  int64_t from = 0, to = 0;
  std::string id;
};

struct Call {
  Op op;  // when query.kind == kNone
  Query query;
};

class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  // Selector s, then: s%8 = 0 or 7: s>>3; 1: one byte; 2: two bytes LE; 3: 2^53-1 - (s>>3);
  // 4: a special value; 5: eight bytes LE; 6: four bytes LE.
  int64_t number() {
    static const int64_t specials[] = {0,
                                       -1,
                                       kMaxSafeInteger,
                                       kMaxSafeInteger + 1,
                                       std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(),
                                       int64_t{1} << 52,
                                       kMaxSafeInteger / 2};
    const uint8_t s = byte();
    switch (s % 8) {
      case 1:
        return byte();
      case 2:
        return littleEndian(2);
      case 3:
        return kMaxSafeInteger - (s >> 3);
      case 4:
        return specials[(s >> 3) % 8];
      case 5:
        return static_cast<int64_t>(littleEndian(8));
      case 6:
        return littleEndian(4);
      default:
        return s >> 3;
    }
  }

  // Selector s, then: s%4 = 0 or 3: a valid id from a table; 1: (s>>2)%16 raw bytes;
  // 2: an invalid id from a table.
  std::string id() {
    static const std::vector<std::string> valid{"a",
                                                "b",
                                                "c",
                                                "g1",
                                                "g2",
                                                "c1",
                                                "c2",
                                                "Z",
                                                "\xC3\xA9",
                                                "\xEF\xBD\xB1",
                                                "\xF0\x9F\x98\x80",
                                                std::string("a\0", 2),
                                                "aa",
                                                "ab",
                                                "x",
                                                std::string(gcl::kMaxIdBytes, 'y')};
    static const std::vector<std::string> invalid{"",
                                                  std::string(gcl::kMaxIdBytes + 1, 'y'),
                                                  "\xED\xA0\x80",
                                                  "\xC0\x80",
                                                  "\xE2\x82",
                                                  "\xF4\x90\x80\x80",
                                                  "\xFF",
                                                  "a\x80"};
    const uint8_t s = byte();
    switch (s % 4) {
      case 1: {
        std::string raw;
        for (int n = (s >> 2) % 16; n > 0; --n) raw += static_cast<char>(byte());
        return raw;
      }
      case 2:
        return invalid[(s >> 2) % invalid.size()];
      default:
        return valid[(s >> 2) % valid.size()];
    }
  }

 private:
  uint64_t littleEndian(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t{byte()} << (8 * i);
    return v;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::vector<Call> decode(const uint8_t* data, size_t size) {
  Decoder in(data, size);
  std::vector<Call> calls;
  std::vector<Op> history;
  std::vector<std::string> grantIds, eventIds;
  while (!in.done() && calls.size() < kMaxCalls) {
    const uint8_t code = in.byte();
    Call call;
    switch (code % 12) {
      case 0:
      case 1: {
        std::string id = in.id();
        const int64_t amount = in.number(), start = in.number();
        call.op = Op::grant(std::move(id), amount, start, in.number());
        break;
      }
      case 2:
      case 3:
      case 4: {
        std::string id = in.id();
        const int64_t amount = in.number();
        call.op = Op::consume(std::move(id), amount, in.number());
        break;
      }
      case 5: {
        const uint8_t back = in.byte(), tweak = in.byte();
        if (history.empty()) continue;
        call.op = history[history.size() - 1 - back % history.size()];
        switch (tweak % 4) {
          case 1:
            call.op.amount ^= 1;
            break;
          case 2:
            call.op.time ^= 1;
            break;
          case 3:
            call.op.endTime ^= 1;
            break;
          default:
            break;  // an identical retry
        }
        break;
      }
      case 6: {
        const uint8_t kind = in.byte();
        if (kind % 4 == 0) call.query = {Query::Kind::kBalance, in.number(), 0, ""};
        if (kind % 4 == 1) {
          const int64_t from = in.number();
          call.query = {Query::Kind::kCurve, from, in.number(), ""};
        }
        if (kind % 4 == 2) call.query = {Query::Kind::kAllocations, 0, 0, in.id()};
        if (kind % 4 == 3) call.query = {Query::Kind::kCompact, in.number(), 0, ""};
        break;
      }
      case 8:
        call.op = Op::voidGrant(in.id());
        break;
      case 9: {
        std::string id = in.id();
        call.op = Op::setGrantEnd(std::move(id), in.number());
        break;
      }
      case 10: {
        std::string id = in.id();
        const int64_t amount = in.number();
        call.op = Op::submit(std::move(id), amount, in.number());
        break;
      }
      case 11:
        call.op = Op::cancelPending(in.id());
        break;
      default: {
        const uint8_t pick = in.byte();
        const bool asGrant = pick & 1;
        const auto& other = asGrant ? eventIds : grantIds;
        std::string id = other.empty() ? std::string("a") : other[(pick >> 1) % other.size()];
        const int64_t amount = in.number(), time = in.number();
        call.op = asGrant ? Op::grant(std::move(id), amount, time, in.number())
                          : Op::consume(std::move(id), amount, time);
      }
    }
    if (call.query.kind == Query::Kind::kNone) {
      history.push_back(call.op);
      if (call.op.isGrant()) grantIds.push_back(call.op.id);
      if (call.op.hasEventId()) eventIds.push_back(call.op.id);
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string callText(const Call& c) {
  switch (c.query.kind) {
    case Query::Kind::kNone:
      return gcl_test::cppCall(c.op);
    case Query::Kind::kBalance:
      return "ledger.getBalance(" + std::to_string(c.query.from) + ", &b)";
    case Query::Kind::kCurve:
      return "ledger.balanceCurve(" + std::to_string(c.query.from) + ", " +
             std::to_string(c.query.to) + ", &points)";
    case Query::Kind::kAllocations:
      return "ledger.allocations(" + gcl_test::cppLiteral(c.query.id) + ", &out)";
    case Query::Kind::kCompact:
      return "ledger.compact(" + std::to_string(c.query.from) + ", &compacted)";
  }
  return "";
}

[[noreturn]] void mismatch(const std::vector<Call>& calls, size_t index, const std::string& what) {
  std::fprintf(stderr, "\n== ledger_fuzzer mismatch after call #%zu: %s\n", index, what.c_str());
  std::fprintf(stderr,
               "  gcl::Ledger ledger;\n  bool accepted, cancelled;\n  int64_t b;\n"
               "  std::vector<gcl::BalancePoint> points;\n  std::vector<gcl::Allocation> out;\n"
               "  gcl::GrantChange change;\n  gcl::SubmitOutcome submitted;\n"
               "  gcl::CompactResult compacted;\n");
  for (size_t i = 0; i <= index && i < calls.size(); ++i) {
    std::fprintf(stderr, "  %s;  // #%zu\n", callText(calls[i]).c_str(), i);
  }
  __builtin_trap();
}

// GCL_FUZZ_TRACE=1 prints every decoded call and the reference's answer (to check a corpus
// file or follow a finding).
void trace(const Call& call, const std::string& result) {
  static const bool enabled = std::getenv("GCL_FUZZ_TRACE") != nullptr;
  if (enabled) std::fprintf(stderr, "  %s;  // %s\n", callText(call).c_str(), result.c_str());
}

// compact() and what it reports.
std::string compactResult(gcl::Ledger& ledger, int64_t horizon) {
  gcl::CompactResult result;
  const gcl::Status status = ledger.compact(horizon, &result);
  std::string text = std::string(gcl::statusName(status)) + " horizon " +
                     std::to_string(result.horizon) + " dropped " +
                     std::to_string(result.droppedGrants) + " grants, " +
                     std::to_string(result.droppedConsumptions) + " consumptions, queued";
  for (const gcl::PendingConsumption& p : result.droppedPending) text += " " + p.eventId;
  return text;
}

// The curve from the horizon on: the whole observable curve once the past is refused.
std::string curveFromHorizon(const gcl::Ledger& ledger) {
  std::vector<gcl::BalancePoint> points;
  const gcl::Status status = ledger.balanceCurve(ledger.horizon(), kMaxSafeInteger, &points);
  return std::string(gcl::statusName(status)) + " " + gcl_test::curveText(points);
}

template <typename L>
std::string queryResult(const L& ledger, const Query& q) {
  gcl::Status status = gcl::Status::kOk;
  std::string value;
  if (q.kind == Query::Kind::kBalance) {
    int64_t balance = -1;
    status = ledger.getBalance(q.from, &balance);
    if (status == gcl::Status::kOk) value = std::to_string(balance);
  } else if (q.kind == Query::Kind::kCurve) {
    std::vector<gcl::BalancePoint> points;
    status = ledger.balanceCurve(q.from, q.to, &points);
    value = gcl_test::curveText(points);
  } else {
    std::vector<gcl::Allocation> allocations;
    status = ledger.allocations(q.id, &allocations);
    value = gcl_test::allocationsText(allocations);
  }
  return std::string(gcl::statusName(status)) + " " + value;
}

// A consumption's dry run (tryConsume), in words: what consume would answer, with the
// allocations of an acceptance and the reason and blocker of a rejection.
std::string dryRunText(gcl::Ledger& ledger, const Op& op) {
  gcl::ConsumeResult result;
  const gcl::Status status = ledger.tryConsume(op.id, op.amount, op.time, /*dryRun=*/true, &result);
  return std::string(gcl::statusName(status)) +
         (result.accepted ? " accepted " + gcl_test::allocationsText(result.allocations)
                          : " rejected, reason " + std::to_string(static_cast<int>(result.reason)) +
                                ", blocker " + result.blockingEventId);
}

// Each accepted consumption's amount, as the reference ledger records it.
std::map<std::string, int64_t> acceptedAmounts(const gcl::Ledger& ledger) {
  std::map<std::string, int64_t> amounts;
  for (size_t i = 0; i < ledger.consumptionCount(); ++i) {
    const gcl::ConsumptionRecord record = ledger.consumption(i);
    amounts.emplace(std::string(record.eventId), record.amount);
  }
  return amounts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Call> calls = decode(data, size);
  std::vector<Op> ops;
  std::vector<std::string> ids;
  for (const Call& call : calls) {
    if (call.query.kind == Query::Kind::kNone) {
      ops.push_back(call.op);
      ids.push_back(call.op.id);  // grant ids too: allocations() must say kUnknownId
    } else if (call.query.kind == Query::Kind::kAllocations) {
      ids.push_back(call.query.id);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const std::vector<int64_t> times = gcl_test::probeTimes(ops);

  gcl::Ledger fast(gcl::EngineKind::kIncremental);
  // Two inputs in three run with a re-draw budget of 1 to 4 consumptions instead of 256, so
  // that these small ledgers reach the bounds of docs/algorithms.md, facts 18 and 22 (the
  // index bound, the interval pass and the intervals kept for retries), and the budget's
  // run-outs; chosen by the input's length, which leaves the byte format as it is.
  if (size % 3 != 0) fast.setMinimumRedrawBudget(1 + size % 4);
  gcl::Ledger reference(gcl::EngineKind::kReplay);
  gcl_test::ModelLedger model;
  bool modelActive = true;
  gcl_test::Snapshot previous = gcl_test::takeSnapshot(fast, times, ids);

  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& call = calls[i];
    if (call.query.kind == Query::Kind::kCompact) {
      const gcl_test::Snapshot before = gcl_test::takeSnapshot(fast, times, ids);
      const int64_t horizonBefore = fast.horizon();
      const std::string want = compactResult(reference, call.query.from);
      const std::string got = compactResult(fast, call.query.from);
      trace(call, want);
      modelActive = false;
      if (got != want) mismatch(calls, i, "compact: fast " + got + ", reference " + want);
      std::string diff = fast.checkInvariants();
      if (diff.empty()) diff = reference.checkInvariants();
      if (diff.empty() && curveFromHorizon(fast) != curveFromHorizon(reference)) {
        diff = "curve from the horizon: fast " + curveFromHorizon(fast) + ", reference " +
               curveFromHorizon(reference);
      }
      // At and after the horizon nothing changes: every balance there is the same.
      previous = gcl_test::takeSnapshot(fast, times, ids);
      for (size_t k = 0; diff.empty() && k < times.size(); ++k) {
        if (times[k] < fast.horizon()) continue;
        if (previous.balances[k] != before.balances[k]) {
          diff = "compact changed getBalance(" + std::to_string(times[k]) + ")";
        }
      }
      if (diff.empty() && fast.horizon() == horizonBefore) {
        diff = gcl_test::firstDifference(before, "before", previous, "after", times, ids);
        if (!diff.empty())
          diff = "a compact that did not move the horizon changed the state: " + diff;
      }
      if (!diff.empty()) mismatch(calls, i, diff);
      continue;
    }
    if (call.query.kind != Query::Kind::kNone) {
      const std::string want = queryResult(reference, call.query);
      const std::string got = queryResult(fast, call.query);
      const std::string modelSays = modelActive ? queryResult(model, call.query) : want;
      trace(call, want);
      if (got != want || modelSays != want) {
        mismatch(calls, i, "query: fast " + got + ", reference " + want + ", model " + modelSays);
      }
      continue;
    }
    const Op& op = call.op;
    if (op.isConsume()) {
      // The same consumption as a dry run first: the engines must agree on its answer,
      // reason and blocker (docs/algorithms.md, facts 18 and 23), and it changes nothing:
      // the checks after the call itself see the state it left.
      const std::string wantDry = dryRunText(reference, op);
      const std::string gotDry = dryRunText(fast, op);
      if (gotDry != wantDry) {
        mismatch(calls, i, "its dry run: fast " + gotDry + ", reference " + wantDry);
      }
    }
    const gcl_test::Outcome want = gcl_test::applyLedgerOp(reference, op);
    const gcl_test::Outcome got = gcl_test::applyLedgerOp(fast, op);
    if (op.isLifecycle()) modelActive = false;
    const gcl_test::Outcome modelSays = modelActive ? gcl_test::applyOp(model, op) : want;
    trace(call, gcl_test::outcomeText(op, want));
    if (got != want || modelSays != want) {
      mismatch(calls, i,
               "outcome: fast " + gcl_test::outcomeText(op, got) + ", reference " +
                   gcl_test::outcomeText(op, want) + ", model " +
                   gcl_test::outcomeText(op, modelSays));
    }
    if (gcl_test::pendingText(fast) != gcl_test::pendingText(reference)) {
      mismatch(calls, i,
               "pending: fast" + gcl_test::pendingText(fast) + ", reference" +
                   gcl_test::pendingText(reference));
    }

    const gcl_test::Snapshot now = gcl_test::takeSnapshot(fast, times, ids);
    const gcl_test::Snapshot ref = gcl_test::takeSnapshot(reference, times, ids);
    std::string diff = gcl_test::firstDifference(now, "fast", ref, "reference", times, ids);
    // The model checks the reference, not the fast engine: every few calls is plenty.
    if (diff.empty() && modelActive && (i % 4 == 3 || i + 1 == calls.size())) {
      diff = gcl_test::firstDifference(gcl_test::takeSnapshot(model, times, ids), "model", ref,
                                       "reference", times, ids);
    }
    // Once compacted, times before the horizon are refused: the invariant check recounts.
    if (diff.empty() && fast.horizon() == 0) diff = gcl_test::selfInconsistency(now, times);
    if (diff.empty()) diff = fast.checkInvariants();
    if (diff.empty()) diff = reference.checkInvariants();
    if (diff.empty() && curveFromHorizon(fast) != curveFromHorizon(reference)) {
      diff = "curve from the horizon: fast " + curveFromHorizon(fast) + ", reference " +
             curveFromHorizon(reference);
    }
    // Only a call that added a grant or a consumption, voided a grant or moved an end may
    // change what the ledger shows.
    const bool mayChange =
        want.status == gcl::Status::kOk &&
        (now.grantCount != previous.grantCount ||
         now.consumptionCount != previous.consumptionCount ||
         (op.kind == Op::Kind::kSetGrantEnd && want.detail.rfind("applied", 0) == 0));
    if (diff.empty() && !mayChange) {
      diff = gcl_test::firstDifference(previous, "before", now, "after", times, ids);
      if (!diff.empty()) diff = "a call that added nothing changed the state: " + diff;
    }
    const std::map<std::string, int64_t> amounts = acceptedAmounts(reference);
    for (size_t k = 0; diff.empty() && k < ids.size(); ++k) {
      if (now.allocationStatus[k] != gcl::Status::kOk) continue;
      int64_t sum = 0;
      for (const gcl::Allocation& a : now.allocations[k]) sum += a.amount;
      const auto amount = amounts.find(ids[k]);
      if (amount == amounts.end() || sum != amount->second) {
        diff = "allocations of " + ids[k] + " do not add up";
      }
    }
    // Headroom at three fixed probe times after every call: asked again and again, the fast
    // engine follows them with trackers (docs/algorithms.md, fact 21); the reference builds
    // its index from scratch after every change.
    for (size_t k = 0; diff.empty() && k < times.size();
         k += std::max<size_t>(1, times.size() / 3)) {
      int64_t got = -1;
      int64_t want = -1;
      const gcl::Status gotStatus = fast.headroom(times[k], &got);
      const gcl::Status wantStatus = reference.headroom(times[k], &want);
      if (gotStatus != wantStatus || got != want) {
        diff = "headroom(" + std::to_string(times[k]) + "): fast " + std::to_string(got) +
               ", reference " + std::to_string(want);
      }
    }
    if (!diff.empty()) mismatch(calls, i, diff);
    previous = now;
  }
  return 0;
}
