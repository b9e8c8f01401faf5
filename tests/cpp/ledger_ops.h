// Ledger mutations as data, so that the differential test, its minimizer and the fuzzer
// can record, replay and print an operation sequence. Header-only and free of GoogleTest.
#ifndef GCL_TESTS_LEDGER_OPS_H_
#define GCL_TESTS_LEDGER_OPS_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_test {

struct Op {
  // Grant lifecycle and pending consumptions only run on gcl::Ledger.
  enum class Kind { kAddGrant, kConsume, kVoidGrant, kSetGrantEnd, kSubmit, kCancelPending };
  Kind kind = Kind::kAddGrant;
  std::string id;
  int64_t amount = 0;   // grants, consumptions, submissions
  int64_t time = 0;     // startTime of a grant, timestamp of a consumption, new end of setGrantEnd
  int64_t endTime = 0;  // grants only

  static Op grant(std::string id, int64_t amount, int64_t startTime, int64_t endTime) {
    return {Kind::kAddGrant, std::move(id), amount, startTime, endTime};
  }
  static Op consume(std::string id, int64_t amount, int64_t timestamp) {
    return {Kind::kConsume, std::move(id), amount, timestamp, 0};
  }
  static Op voidGrant(std::string id) { return {Kind::kVoidGrant, std::move(id), 0, 0, 0}; }
  static Op setGrantEnd(std::string id, int64_t endTime) {
    return {Kind::kSetGrantEnd, std::move(id), 0, endTime, 0};
  }
  static Op submit(std::string id, int64_t amount, int64_t timestamp) {
    return {Kind::kSubmit, std::move(id), amount, timestamp, 0};
  }
  static Op cancelPending(std::string id) { return {Kind::kCancelPending, std::move(id), 0, 0, 0}; }
  bool isGrant() const { return kind == Kind::kAddGrant; }
  bool isConsume() const { return kind == Kind::kConsume; }
  // An operation beyond the core calls (addGrant, consume): the test model does not follow these.
  bool isLifecycle() const { return kind != Kind::kAddGrant && kind != Kind::kConsume; }
  // Carries an event id (whose allocations are worth probing).
  bool hasEventId() const { return kind == Kind::kConsume || kind == Kind::kSubmit; }
};

struct Outcome {
  gcl::Status status;
  bool accepted;       // consumptions with status kOk only
  std::string detail;  // lifecycle results and queued consumptions let in by the call
  bool operator==(const Outcome& other) const {
    return status == other.status && accepted == other.accepted && detail == other.detail;
  }
  bool operator!=(const Outcome& other) const { return !(*this == other); }
};

// addGrant and consume; works for gcl::Ledger and for the test model, which share the
// method names.
template <typename LedgerLike>
Outcome applyOp(LedgerLike& ledger, const Op& op) {
  if (op.isGrant()) return {ledger.addGrant(op.id, op.amount, op.time, op.endTime), false, ""};
  bool accepted = false;
  const gcl::Status status = ledger.consume(op.id, op.amount, op.time, &accepted);
  return {status, status == gcl::Status::kOk && accepted, ""};
}

// Any operation on a real ledger. The detail names what a lifecycle call reported and
// which queued consumptions the call let in (takeAcceptedPending).
inline Outcome applyLedgerOp(gcl::Ledger& ledger, const Op& op) {
  Outcome outcome{gcl::Status::kOk, false, ""};
  auto change = [&](const gcl::GrantChange& c) {
    std::string text = c.applied ? "applied" : "refused, blocked by " + c.blockingEventId;
    return text;
  };
  switch (op.kind) {
    case Op::Kind::kAddGrant:
    case Op::Kind::kConsume:
      outcome = applyOp(ledger, op);
      break;
    case Op::Kind::kVoidGrant: {
      gcl::GrantChange c;
      outcome.status = ledger.voidGrant(op.id, &c);
      if (outcome.status == gcl::Status::kOk) outcome.detail = change(c);
      break;
    }
    case Op::Kind::kSetGrantEnd: {
      gcl::GrantChange c;
      outcome.status = ledger.setGrantEnd(op.id, op.time, &c);
      if (outcome.status == gcl::Status::kOk) outcome.detail = change(c);
      break;
    }
    case Op::Kind::kSubmit: {
      gcl::SubmitOutcome s = gcl::SubmitOutcome::kQueued;
      outcome.status = ledger.submit(op.id, op.amount, op.time, &s);
      outcome.accepted = outcome.status == gcl::Status::kOk && s == gcl::SubmitOutcome::kAccepted;
      if (outcome.status == gcl::Status::kOk && !outcome.accepted) outcome.detail = "queued";
      break;
    }
    case Op::Kind::kCancelPending: {
      bool cancelled = false;
      outcome.status = ledger.cancelPending(op.id, &cancelled);
      if (outcome.status == gcl::Status::kOk)
        outcome.detail = cancelled ? "cancelled" : "not queued";
      break;
    }
  }
  std::vector<gcl::PendingConsumption> letIn;
  ledger.takeAcceptedPending(&letIn);
  for (const gcl::PendingConsumption& p : letIn) {
    if (!outcome.detail.empty()) outcome.detail += " ";
    outcome.detail +=
        "let in " + p.eventId + ":" + std::to_string(p.amount) + "@" + std::to_string(p.timestamp);
  }
  return outcome;
}

// The queue of pending consumptions, as text for comparisons.
inline std::string pendingText(const gcl::Ledger& ledger) {
  std::vector<gcl::PendingConsumption> queued;
  ledger.pending(&queued);
  std::string text;
  for (const gcl::PendingConsumption& p : queued) {
    text += " " + p.eventId + ":" + std::to_string(p.amount) + "@" + std::to_string(p.timestamp);
  }
  return text;
}

inline std::string outcomeText(const Op& op, const Outcome& outcome) {
  std::string text;
  if (outcome.status != gcl::Status::kOk)
    text = gcl::statusName(outcome.status);
  else if (op.hasEventId())
    text = outcome.accepted ? "accepted" : "rejected";
  else
    text = "OK";
  return outcome.detail.empty() ? text : text + " " + outcome.detail;
}

// A C++ string literal for any byte string: printable ASCII as is, the rest as octal
// escapes (which, unlike \x, never swallow the next character).
inline std::string cppLiteral(const std::string& bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  out += '"';
  if (bytes.find('\0') != std::string::npos) {
    out = "std::string(" + out + ", " + std::to_string(bytes.size()) + ")";
  }
  return out;
}

inline std::string cppCall(const Op& op) {
  const std::string id =
      op.id.size() > 40 && op.id.find_first_not_of(op.id[0]) == std::string::npos
          ? "std::string(" + std::to_string(op.id.size()) + ", '" + std::string(1, op.id[0]) + "')"
          : cppLiteral(op.id);
  const std::string amount = std::to_string(op.amount), time = std::to_string(op.time);
  switch (op.kind) {
    case Op::Kind::kAddGrant:
      return "ledger.addGrant(" + id + ", " + amount + ", " + time + ", " +
             std::to_string(op.endTime) + ")";
    case Op::Kind::kConsume:
      return "ledger.consume(" + id + ", " + amount + ", " + time + ", &accepted)";
    case Op::Kind::kVoidGrant:
      return "ledger.voidGrant(" + id + ", &change)";
    case Op::Kind::kSetGrantEnd:
      return "ledger.setGrantEnd(" + id + ", " + time + ", &change)";
    case Op::Kind::kSubmit:
      return "ledger.submit(" + id + ", " + amount + ", " + time + ", &submitted)";
    case Op::Kind::kCancelPending:
      return "ledger.cancelPending(" + id + ", &cancelled)";
  }
  return "";
}

// Both sides of every time at which a balance can change (a grant's start, the time after
// its end, a consumption), plus the ends of the range.
inline std::vector<int64_t> probeTimes(const std::vector<Op>& ops) {
  std::vector<int64_t> times{0, gcl::kMaxSafeInteger};
  auto add = [&](int64_t t) {  // the last time before a change at t, and t
    if (t >= 1 && t <= gcl::kMaxSafeInteger) times.push_back(t - 1);
    if (t >= 0 && t <= gcl::kMaxSafeInteger) times.push_back(t);
  };
  auto addEnd = [&](int64_t end) {  // the balance changes after an end
    if (end >= -1 && end < gcl::kMaxSafeInteger) add(end + 1);
  };
  for (const Op& op : ops) {
    switch (op.kind) {
      case Op::Kind::kAddGrant:
        add(op.time);
        addEnd(op.endTime);
        break;
      case Op::Kind::kSetGrantEnd:
        addEnd(op.time);
        break;
      case Op::Kind::kConsume:
      case Op::Kind::kSubmit:
        add(op.time);
        break;
      default:
        break;
    }
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

}  // namespace gcl_test

#endif  // GCL_TESTS_LEDGER_OPS_H_
