// The seam between the ledger (validation, ids, retries) and an allocation engine
// (which consumptions are accepted, which grant funds what, balances). Two engines sit
// behind it: ReplayEngine, the obviously-correct reference, and IncrementalEngine.
#ifndef GPU_CREDIT_LEDGER_ENGINE_H_
#define GPU_CREDIT_LEDGER_ENGINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "id_index.h"

namespace gcl {

class HeadroomIndex;

// Grants by index. Index order is arrival order; draw order is (endTime, grantId).
struct GrantTable {
  IdIndex ids;
  std::vector<int64_t> amount;
  std::vector<int64_t> startTime;
  std::vector<int64_t> endTime;

  size_t size() const { return amount.size(); }
  // True when grant a is drawn before grant b: earlier end, then smaller id by bytes
  // (UTF-8 byte order is code point order).
  bool drawsBefore(uint32_t a, uint32_t b) const {
    if (endTime[a] != endTime[b]) return endTime[a] < endTime[b];
    return idBefore(a, b);
  }
  // Equal ends: the ids decide. Out of line, so that the comparison of the ends, which
  // almost always decides, inlines into the draw-order heaps and sets.
  __attribute__((noinline)) bool idBefore(uint32_t a, uint32_t b) const {
    return ids.at(a) < ids.at(b);
  }
  bool validAt(uint32_t g, int64_t t) const { return startTime[g] <= t && t <= endTime[g]; }
};

struct Draw {
  uint32_t grant;
  int64_t amount;
};

// One draw seen from its grant: consumption `consumption` took `amount` from it.
struct GrantDraw {
  uint32_t consumption;
  int64_t amount;
};

// Accepted consumptions an engine re-drew, each with its draws before that re-draw, in the
// order re-drawn. A consumption may appear more than once in one log (its first entry has
// its draws before all of them), and a re-draw may leave its draws as they were. The ledger
// keeps one log per call to say which allocations the call changed (Ledger::reallocated).
class RedrawLog {
 public:
  void clear() {
    entries_.clear();
    draws_.clear();
  }
  void add(uint32_t handle, const Draw* begin, const Draw* end) {
    entries_.push_back(
        {handle, static_cast<uint32_t>(draws_.size()), static_cast<uint32_t>(end - begin)});
    draws_.insert(draws_.end(), begin, end);
  }
  size_t size() const { return entries_.size(); }
  uint32_t handle(size_t i) const { return entries_[i].handle; }
  const Draw* beforeBegin(size_t i) const { return draws_.data() + entries_[i].begin; }
  const Draw* beforeEnd(size_t i) const { return beforeBegin(i) + entries_[i].size; }
  size_t bytes() const {
    return entries_.capacity() * sizeof(Entry) + draws_.capacity() * sizeof(Draw);
  }

 private:
  struct Entry {
    uint32_t handle;
    uint32_t begin;  // into draws_
    uint32_t size;
  };
  std::vector<Entry> entries_;
  std::vector<Draw> draws_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Where the engine notes the accepted consumptions it re-draws (nowhere by default). A
  // consumption accepted by the same call and dry runs are not noted.
  void setRedrawLog(RedrawLog* log) { redrawLog_ = log; }
  // Bytes the engine may allocate for an optional structure inside one call (the headroom
  // index a backdated call may build to bound its retries). Where it would not fit, the
  // engine decides without it, as exactly and at the cost of a full re-draw. Unlimited
  // by default; the WebAssembly bindings set it from the heap budget before each call.
  void setIndexAllowance(size_t bytes) { indexAllowance_ = bytes; }
  // The least re-draw budget (consumptions touched) before the incremental engine's
  // bounds decide a backdated call (docs/algorithms.md, facts 18 and 22; the budget is
  // max(this, events / IncrementalEngine::kBudgetDivisor)); the replay engine re-draws
  // nothing. Tests and the fuzzer lower it so that small ledgers take every path. Answers
  // never depend on it.
  void setMinimumRedrawBudget(size_t budget) { minimumRedrawBudget_ = budget; }
  size_t minimumRedrawBudget() const { return minimumRedrawBudget_; }
  static constexpr size_t kDefaultMinimumRedrawBudget = 256;
  // Grant `grant` was just appended to the table.
  virtual void addGrant(uint32_t grant) = 0;
  // Accepts (returns true; the consumption's handle is the number accepted before it)
  // or rejects and changes nothing.
  virtual bool consume(int64_t amount, int64_t timestamp) = 0;
  virtual int64_t amountOf(uint32_t handle) const = 0;
  virtual int64_t timestampOf(uint32_t handle) const = 0;
  virtual int64_t balance(int64_t timestamp) const = 0;
  // The consumption's draws under the current replay, in draw order.
  virtual void draws(uint32_t handle, std::vector<Draw>* out) const = 0;
  virtual void balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const = 0;
  // Heap bytes held by the engine's own structures.
  virtual size_t bytes() const = 0;
  // Room for `count` more consumptions (Ledger::reserve); a hint, changes no answer.
  virtual void reserve(size_t /*count*/) {}
  // Bytes reserve(count) adds at most.
  virtual size_t reserveBytes(size_t /*count*/) const { return 0; }

  // What the previews (preview.cpp) and the grant lifecycle (grant_lifecycle.cpp) need.
  virtual EngineKind kind() const = 0;
  // Whether consume(amount, timestamp) would accept; observably changes nothing.
  virtual bool wouldAccept(int64_t amount, int64_t timestamp) = 0;
  // The draws on `grant` in replay order.
  virtual void drawsOn(uint32_t grant, std::vector<GrantDraw>* out) const = 0;
  // Credits drawn from `grant` by consumptions at or before `timestamp`.
  virtual int64_t drawnThrough(uint32_t grant, int64_t timestamp) const = 0;
  // The latest timestamp of an accepted consumption, or -1 when there is none.
  virtual int64_t latestTimestamp() const = 0;
  // The earliest t >= from with balance(t) < threshold, or -1.
  virtual int64_t nextBelow(int64_t threshold, int64_t from) const = 0;
  // For a consumption that consume() would reject although amount <= balance(timestamp):
  // the accepted consumption its insertion would leave unfunded first in replay order
  // (docs/algorithms.md, fact 10). False when the engine does not know it; the caller then
  // replays.
  virtual bool blockerOf(int64_t /*amount*/, int64_t /*timestamp*/, uint32_t* /*handle*/) {
    return false;
  }
  // A headroom index of the current state (docs/algorithms.md, fact 6), built here if the
  // engine's is stale and kept until a change (the incremental engine also bounds its
  // rejections with it, fact 18).
  virtual const HeadroomIndex* headroomIndex() = 0;
  // The headroom at `timestamp` (before the latest accepted consumption). By default from
  // headroomIndex(); the incremental engine may answer from the suffix alone (fact 20).
  virtual int64_t headroomAt(int64_t timestamp);

  // Recounts the engine's state from its draws (engine_invariants.cpp): empty when every
  // invariant holds, else the first violation in words. Tests and fuzzing only.
  virtual std::string checkInvariants() const = 0;

 protected:
  void noteRedraw(uint32_t handle, const Draw* begin, const Draw* end) {
    if (redrawLog_ != nullptr) redrawLog_->add(handle, begin, end);
  }
  size_t indexAllowance() const { return indexAllowance_; }

 private:
  RedrawLog* redrawLog_ = nullptr;
  size_t indexAllowance_ = SIZE_MAX;
  size_t minimumRedrawBudget_ = kDefaultMinimumRedrawBudget;
};

// An empty engine of the given kind over `grants` (defined in ledger.cpp).
std::unique_ptr<Engine> makeEngine(EngineKind kind, const GrantTable& grants);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_ENGINE_H_
