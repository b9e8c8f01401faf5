// Range-add / point-query over time, as a treap keyed by time holding deltas: a grant adds
// its amount on [startTime, endTime] (+amount at startTime, -amount at endTime + 1) and a
// draw subtracts on [timestamp, endTime of its grant]. The balance at t is the sum of the
// deltas at keys <= t (ALGORITHMS.md, fact 2). One node per distinct time.
#ifndef GPU_CREDIT_LEDGER_BALANCE_TREE_H_
#define GPU_CREDIT_LEDGER_BALANCE_TREE_H_

#include <cstdint>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl {

class BalanceTree {
 public:
  // Adds `delta` to every balance from `time` on.
  void add(int64_t time, int64_t delta);
  // Adds `delta` to the balances on [from, to]; `to` may be kMaxSafeInteger.
  void addRange(int64_t from, int64_t to, int64_t delta) {
    add(from, delta);
    if (to < kMaxSafeInteger) add(to + 1, -delta);
  }
  int64_t at(int64_t time) const;
  // Appends [from, at(from)] and then each later key in (from, to] where the value changes.
  void curve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const;
  size_t bytes() const { return nodes_.capacity() * sizeof(Node); }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    int64_t time;
    int64_t delta;
    int64_t sum;  // of the deltas in this subtree
    uint32_t left;
    uint32_t right;
    uint32_t priority;
  };

  uint32_t insert(uint32_t node, int64_t time, int64_t delta);
  uint32_t rotateRight(uint32_t node);
  uint32_t rotateLeft(uint32_t node);
  int64_t sumOf(uint32_t node) const { return node == kNil ? 0 : nodes_[node].sum; }
  void refresh(uint32_t node) {
    Node& n = nodes_[node];
    n.sum = n.delta + sumOf(n.left) + sumOf(n.right);
  }

  std::vector<Node> nodes_;
  uint32_t root_ = kNil;
  uint32_t rng_ = 0x9E3779B9u;  // fixed seed: native and WASM builds shape the tree alike
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_BALANCE_TREE_H_
