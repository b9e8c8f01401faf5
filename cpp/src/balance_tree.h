// Prefix sums of deltas over time: the value at t is the sum of the deltas at keys <= t.
// The incremental engine keeps balance(t) here (see IncrementalEngine::commitChange for
// which deltas). Stored as a B+tree of (time, delta) with per-child sums: a handful of
// contiguous nodes per call instead of a pointer chase per level, which is what a treap
// cost here.
#ifndef GPU_CREDIT_LEDGER_BALANCE_TREE_H_
#define GPU_CREDIT_LEDGER_BALANCE_TREE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl {

class BalanceTree {
 public:
  BalanceTree() { newLeaf(); }

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
  // The first time >= from at which the value is below `threshold`, or -1. Walks the
  // leaves from `from`: O(log n + keys passed).
  int64_t firstBelow(int64_t threshold, int64_t from) const;
  size_t bytes() const {
    const size_t leaves =
        leafBlocks_.empty() ? 0 : firstBlockLeaves_ + (leafBlocks_.size() - 1) * kLeavesPerBlock;
    return leaves * sizeof(Leaf) + leafBlocks_.capacity() * sizeof(leafBlocks_[0]) +
           inners_.capacity() * sizeof(Inner);
  }

 private:
  static constexpr int kLeafSize = 64;
  static constexpr int kFanout = 32;
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Leaf {
    int64_t time[kLeafSize];
    int64_t delta[kLeafSize];
    int32_t count = 0;
    uint32_t next = kNone;  // the leaf with the following keys
  };
  struct Inner {
    int64_t first[kFanout];  // smallest key under each child
    int64_t sum[kFanout];    // sum of the deltas under each child
    uint32_t child[kFanout];
    int32_t count = 0;
  };
  struct Split {  // a node that overflowed hands back its new right sibling
    uint32_t node = kNone;
    int64_t first = 0;
    int64_t sum = 0;
  };

  Split insert(uint32_t node, int level, int64_t time, int64_t delta);
  // Moves a leaf's keys from j on one slot up (the leaf has room).
  static void openSlot(Leaf* leaf, int j);
  // The first index of `leaf` whose key is >= time (count if none), searched outward from
  // `hint` (any index: only the cost depends on it).
  static int searchNear(const Leaf& leaf, int hint, int64_t time);
  // Adds through a finger if `time` routes to its leaf and the leaf has room; false if not.
  bool addThroughFinger(int64_t time, int64_t delta);
  // After a descent that split nothing: remembers its leaf and path as a finger.
  void keepFinger();
  // A full node moves its keys from `splitPoint` on to a new right sibling; `inserted` is
  // where the key (or child) that filled it went.
  static int splitPoint(int count, int inserted);
  Split splitLeaf(uint32_t node, int inserted);
  Split splitInner(uint32_t node, int inserted);
  // The child of `inner` whose keys would hold `time` (the first child if all are later).
  static int route(const Inner& inner, int64_t time) {
    const int64_t* after = std::upper_bound(inner.first, inner.first + inner.count, time);
    return after == inner.first ? 0 : static_cast<int>(after - inner.first) - 1;
  }

  // Leaves live in blocks of 64 that never move: a growing tree allocates a block now and
  // then instead of copying every leaf each time a single array doubles (1 kB a leaf).
  // The first block alone grows, by doubling from one leaf to 64, moving its leaves: an
  // empty or small tree holds a few kB, not 66 (a service caches many small ledgers). A
  // Leaf& taken before newLeaf() may not be used after it.
  static constexpr uint32_t kLeavesPerBlock = 64;
  Leaf& leaf(uint32_t i) { return leafBlocks_[i / kLeavesPerBlock][i % kLeavesPerBlock]; }
  const Leaf& leaf(uint32_t i) const {
    return leafBlocks_[i / kLeavesPerBlock][i % kLeavesPerBlock];
  }
  uint32_t newLeaf() {
    if (leafCount_ == firstBlockLeaves_ && leafCount_ < kLeavesPerBlock) {
      growFirstBlock();
    } else if (leafCount_ % kLeavesPerBlock == 0) {
      leafBlocks_.push_back(std::make_unique<Leaf[]>(kLeavesPerBlock));
    }
    return leafCount_++;
  }
  void growFirstBlock();  // balance_tree.cpp: rare, out of line

  std::vector<std::unique_ptr<Leaf[]>> leafBlocks_;
  uint32_t leafCount_ = 0;
  uint32_t firstBlockLeaves_ = 0;  // the first block's size: 1, 2, 4, ... 64
  std::vector<Inner> inners_;
  // Fingers: the leaves of recent descents with their paths. Updates arrive mostly at two
  // places (a consumption at the head, the end of the grant it drew), so a key that
  // routes to a finger's leaf is added there, and the sums on its path are updated,
  // without descending again. A key routes to a leaf iff it is at or after the leaf's
  // first key and before `before`, the first key of the nearest subtree to its right.
  // Only a split moves such bounds (a key lands before a subtree's first key only in a
  // leftmost child), so every split drops the fingers.
  static constexpr int kMaxFingerHeight = 12;
  struct PathStep {
    uint32_t node;
    int32_t slot;
  };
  struct Finger {
    uint32_t leaf = kNone;
    int32_t hint = 0;  // where the last key added through it went in its leaf
    int64_t before = 0;
    PathStep path[kMaxFingerHeight + 1];  // path[level] for levels 1..height_
  };
  // The grants drawn at the head end at different times, in several leaves: four
  // fingers (the head and three recent ends, replaced in turn) halve the descents of two.
  static constexpr int kFingers = 4;
  Finger fingers_[kFingers];
  int nextFinger_ = 0;
  PathStep path_[kMaxFingerHeight + 1];  // the current descent (insert)
  uint32_t pathLeaf_ = kNone;
  bool split_ = false;  // the current descent split a node
  uint32_t root_ = 0;
  int height_ = 0;  // 0: the root is a leaf
  int64_t total_ = 0;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_BALANCE_TREE_H_
