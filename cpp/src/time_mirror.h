// The ledger in reversed time, for headroom at any time in O(log n) (docs/algorithms.md,
// fact 24): every grant [s, e] as [M - e, M - s] and every accepted consumption at t as one
// at M - t (M = kMaxSafeInteger), in an incremental engine of its own. Then, for t before
// the latest accepted consumption,
//
//   headroom(t) = max(0, balance(t) + mirrorBalance(M - t) - validCredit(t) + demand(t))
//
// where validCredit(t) is the credit of the grants valid at t, kept in a balance tree of its
// own, and demand(t) the accepted demand at exactly t, which the mirror's engine finds. A write at
// the ledger's latest times is a write at the mirror's earliest, whose re-draw stops where it is
// absorbed (fact 4), so the cost of keeping the mirror follows what changes. The ledger builds one
// when previews at earlier times come back after writes (Ledger::headroom), feeds it every grant
// and accepted consumption from then on, and drops it when its grants are rebuilt (void,
// end change, compaction) or when a write would re-draw too much of it.
#ifndef GPU_CREDIT_LEDGER_TIME_MIRROR_H_
#define GPU_CREDIT_LEDGER_TIME_MIRROR_H_

#include <cstdint>
#include <memory>

#include "balance_tree.h"
#include "engine.h"
#include "incremental_engine.h"

namespace gcl {

class TimeMirror {
 public:
  // A mirror of `grants` and the engine's accepted consumptions (handles 0 .. count - 1).
  // A write may re-draw max(minimumBudget, events / 32) of its consumptions.
  // Not inlined, as addGrant and consume: their code is in the module once, not in each of
  // the ledger's write paths (which only call them while a mirror exists).
  __attribute__((noinline))
  TimeMirror(const GrantTable& grants, const Engine& engine, uint32_t count, size_t minimumBudget);

  // Grant `g` of the ledger's table, just appended there. False when the mirror re-drew more
  // than its budget (the ledger then drops it).
  __attribute__((noinline)) bool addGrant(const GrantTable& grants, uint32_t g);
  // A consumption the ledger's engine accepted. False as for addGrant.
  __attribute__((noinline)) bool consume(int64_t amount, int64_t timestamp);
  // The headroom at `timestamp`, given the ledger's balance there.
  int64_t headroom(int64_t timestamp, int64_t balance) const;
  size_t bytes() const;

 private:
  static int64_t mirrored(int64_t time) { return kMaxSafeInteger - time; }
  void mirrorGrant(const GrantTable& grants, uint32_t g);
  bool withinBudget();

  std::unique_ptr<GrantTable> grants_;  // the mirrored windows; the engine holds a reference
  std::unique_ptr<IncrementalEngine> engine_;
  BalanceTree validCredit_;  // the credit of the grants valid at each time
  RedrawLog redraws_;        // what one write re-drew in the mirror, for its budget
  size_t events_ = 0;        // grants and consumptions mirrored
  size_t minimumBudget_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_TIME_MIRROR_H_
