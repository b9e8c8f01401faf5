// Runs one operation sequence through the incremental engine, the reference replay engine
// and the test model side by side, comparing after every operation; shrinks a failing
// sequence to a short C++ repro. Free of GoogleTest so that a failure can be reported
// with the whole story in one message.
#ifndef GCL_TESTS_DIFFERENTIAL_CHECK_H_
#define GCL_TESTS_DIFFERENTIAL_CHECK_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "ledger_ops.h"
#include "ledger_snapshot.h"
#include "model_ledger.h"

namespace gcl_test {

struct Mismatch {
  enum class Kind { kNone, kFastVsReference, kModelVsReference, kInvariant };
  Kind kind = Kind::kNone;
  size_t opIndex = 0;
  std::string what;
  explicit operator bool() const { return kind != Kind::kNone; }
};

struct CheckOptions {
  size_t fullCheckEvery = 1;  // compare whole snapshots after every k-th op (and the last)
  bool withModel = true;
};

inline std::vector<std::string> consumptionIds(const std::vector<Op>& ops) {
  std::set<std::string> ids;
  for (const Op& op : ops) {
    if (op.hasEventId()) ids.insert(op.id);
  }
  return {ids.begin(), ids.end()};
}

inline Mismatch findMismatch(const std::vector<Op>& ops, const CheckOptions& options) {
  gcl::Ledger fast(gcl::EngineKind::kIncremental);
  gcl::Ledger reference(gcl::EngineKind::kReplay);
  ModelLedger model;
  const std::vector<int64_t> times = probeTimes(ops);
  const std::vector<std::string> ids = consumptionIds(ops);
  auto fail = [](Mismatch::Kind kind, size_t i, std::string what) {
    return Mismatch{kind, i, std::move(what)};
  };
  using K = Mismatch::Kind;

  // The model covers the core calls of docs/semantics.md only: it drops out at the first lifecycle
  // operation.
  bool modelActive = options.withModel;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const Outcome want = applyLedgerOp(reference, op);
    const Outcome got = applyLedgerOp(fast, op);
    if (got != want) {
      return fail(K::kFastVsReference, i,
                  "outcome: fast " + outcomeText(op, got) + ", reference " + outcomeText(op, want));
    }
    if (pendingText(fast) != pendingText(reference)) {
      return fail(K::kFastVsReference, i,
                  "pending: fast" + pendingText(fast) + ", reference" + pendingText(reference));
    }
    if (op.isLifecycle()) modelActive = false;
#ifndef NDEBUG
    // Debug and sanitizer builds recount both engines' state after every op (O(n log n)
    // each: too slow for the Release run's thousands of long sequences).
    for (const gcl::Ledger* ledger : {&fast, &reference}) {
      const std::string problem = ledger->checkInvariants();
      if (!problem.empty()) {
        return fail(K::kInvariant, i,
                    std::string(ledger == &fast ? "fast" : "reference") + " invariant: " + problem);
      }
    }
#endif
    if (modelActive) {
      const Outcome modelSays = applyOp(model, op);
      if (modelSays != want) {
        return fail(K::kModelVsReference, i,
                    "outcome: model " + outcomeText(op, modelSays) + ", reference " +
                        outcomeText(op, want));
      }
    }
    if (fast.grantCount() != reference.grantCount() ||
        fast.consumptionCount() != reference.consumptionCount()) {
      return fail(K::kFastVsReference, i,
                  "counts: fast " + std::to_string(fast.grantCount()) + "/" +
                      std::to_string(fast.consumptionCount()) + ", reference " +
                      std::to_string(reference.grantCount()) + "/" +
                      std::to_string(reference.consumptionCount()));
    }
    // Cheap checks after every op: the touched id's draws and the balances at op's times.
    if (want.accepted) {
      std::vector<gcl::Allocation> a, b;
      fast.allocations(op.id, &a);
      reference.allocations(op.id, &b);
      if (a != b) {
        return fail(
            K::kFastVsReference, i,
            "allocations: fast " + allocationsText(a) + ", reference " + allocationsText(b));
      }
      int64_t sum = 0;
      for (const gcl::Allocation& x : a) sum += x.amount;
      if (sum != op.amount) {
        return fail(
            K::kInvariant, i,
            "allocations " + allocationsText(a) + " do not sum to " + std::to_string(op.amount));
      }
    }
    for (int64_t t : {op.time, op.endTime}) {
      int64_t a = -1, b = -1;
      const gcl::Status sa = fast.getBalance(t, &a), sb = reference.getBalance(t, &b);
      if (sa != sb || a != b) {
        return fail(K::kFastVsReference, i,
                    "getBalance(" + std::to_string(t) + "): fast " + std::to_string(a) +
                        ", reference " + std::to_string(b));
      }
    }
    if ((i + 1) % options.fullCheckEvery != 0 && i + 1 != ops.size()) continue;

    const Snapshot ref = takeSnapshot(reference, times, ids);
    const Snapshot got_ = takeSnapshot(fast, times, ids);
    std::string diff = firstDifference(got_, "fast", ref, "reference", times, ids);
    if (!diff.empty()) return fail(K::kFastVsReference, i, diff);
    diff = selfInconsistency(got_, times);
    if (!diff.empty()) return fail(K::kInvariant, i, diff);
    if (!times.empty()) {  // one sub-range of the curve, moving with i
      int64_t from = times[(i * 7) % times.size()], to = times[(i * 13 + 5) % times.size()];
      if (from > to) std::swap(from, to);
      std::vector<gcl::BalancePoint> a, b;
      fast.balanceCurve(from, to, &a);
      reference.balanceCurve(from, to, &b);
      if (a != b) {
        return fail(K::kFastVsReference, i,
                    "balanceCurve(" + std::to_string(from) + ", " + std::to_string(to) +
                        "): fast " + curveText(a) + ", reference " + curveText(b));
      }
    }
    if (modelActive) {
      const Snapshot modelSnapshot = takeSnapshot(model, times, ids);
      diff = firstDifference(modelSnapshot, "model", ref, "reference", times, ids);
      if (!diff.empty()) return fail(K::kModelVsReference, i, diff);
      if (i + 1 == ops.size()) {
        for (size_t k = 0; k < times.size(); ++k) {
          const int64_t literal = model.balanceByPrefixReplay(times[k]);
          if (literal != ref.balances[k]) {
            return fail(K::kModelVsReference, i,
                        "getBalance(" + std::to_string(times[k]) + "): prefix replay " +
                            std::to_string(literal) + ", reference " +
                            std::to_string(ref.balances[k]));
          }
        }
      }
    }
  }
  return {};
}

// Greedily removes chunks of ops while a mismatch of the same kind remains, checking the
// full state after every op. Stops refining after `budget`.
inline std::vector<Op> shrink(std::vector<Op> ops, Mismatch::Kind kind,
                              std::chrono::seconds budget = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  CheckOptions every{1, kind == Mismatch::Kind::kModelVsReference};
  auto stillFails = [&](const std::vector<Op>& candidate) {
    return findMismatch(candidate, every).kind == kind;
  };
  if (!stillFails(ops)) return ops;  // only shows with sparse checks: keep it whole
  for (size_t chunk = std::max<size_t>(ops.size() / 2, 1); chunk >= 1; chunk /= 2) {
    bool removedAny = true;
    while (removedAny && std::chrono::steady_clock::now() < deadline) {
      removedAny = false;
      for (size_t start = 0; start < ops.size() && std::chrono::steady_clock::now() < deadline;) {
        std::vector<Op> candidate(ops.begin(), ops.begin() + start);
        candidate.insert(candidate.end(), ops.begin() + std::min(ops.size(), start + chunk),
                         ops.end());
        if (stillFails(candidate)) {
          ops = std::move(candidate);
          removedAny = true;
        } else {
          start += chunk;
        }
      }
    }
    if (chunk == 1) break;
  }
  return ops;
}

// The sequence as C++ that replays it, with the reference's outcome of each call and the
// first mismatch (found with a full check after every op).
inline std::string reproText(const std::vector<Op>& ops, Mismatch::Kind kind) {
  const Mismatch m = findMismatch(ops, {1, kind == Mismatch::Kind::kModelVsReference});
  gcl::Ledger reference(gcl::EngineKind::kReplay);
  std::string out = "  gcl::Ledger ledger;\n  bool accepted;\n";
  if (std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.isLifecycle(); })) {
    out += "  gcl::GrantChange change;\n  gcl::SubmitOutcome submitted;\n  bool cancelled;\n";
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    out += "  " + cppCall(ops[i]) + ";  // #" + std::to_string(i) +
           " reference: " + outcomeText(ops[i], applyLedgerOp(reference, ops[i])) + "\n";
  }
  if (m) out += "  first mismatch after #" + std::to_string(m.opIndex) + ": " + m.what + "\n";
  return out;
}

}  // namespace gcl_test

#endif  // GCL_TESTS_DIFFERENTIAL_CHECK_H_
