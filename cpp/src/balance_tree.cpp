#include "balance_tree.h"

#include <algorithm>

namespace gcl {

__attribute__((noinline)) void BalanceTree::growFirstBlock() {
  const uint32_t grown = firstBlockLeaves_ == 0 ? 1 : 2 * firstBlockLeaves_;
  auto block = std::make_unique<Leaf[]>(grown);
  if (leafBlocks_.empty()) {
    leafBlocks_.push_back(std::move(block));
  } else {
    std::copy(leafBlocks_[0].get(), leafBlocks_[0].get() + firstBlockLeaves_, block.get());
    leafBlocks_[0] = std::move(block);
  }
  firstBlockLeaves_ = grown;
}

void BalanceTree::add(int64_t time, int64_t delta) {
  total_ += delta;
  if (addThroughFinger(time, delta)) return;
  split_ = false;
  const Split split = insert(root_, height_, time, delta);
  if (!split_) {
    keepFinger();
    return;
  }
  for (Finger& finger : fingers_) finger.leaf = kNone;
  if (split.node == kNone) return;
  Inner root;
  const int64_t oldFirst = height_ == 0 ? leaf(root_).time[0] : inners_[root_].first[0];
  root.first[0] = oldFirst;
  root.sum[0] = total_ - split.sum;
  root.child[0] = root_;
  root.first[1] = split.first;
  root.sum[1] = split.sum;
  root.child[1] = split.node;
  root.count = 2;
  inners_.push_back(root);
  root_ = static_cast<uint32_t>(inners_.size() - 1);
  ++height_;
}

// A plain loop on purpose: as a memmove (what std::copy_backward becomes, and what clang
// would turn this loop into) WebAssembly's bulk memory makes it a call out of the
// module, which costs more than moving the dozen keys a leaf usually moves.
#if defined(__clang__)
#define GCL_NO_MEMMOVE __attribute__((no_builtin("memmove")))
#else
#define GCL_NO_MEMMOVE
#endif
GCL_NO_MEMMOVE void BalanceTree::openSlot(Leaf* leaf, int j) {
  for (int k = leaf->count; k > j; --k) {
    leaf->time[k] = leaf->time[k - 1];
    leaf->delta[k] = leaf->delta[k - 1];
  }
}

int BalanceTree::searchNear(const Leaf& leaf, int hint, int64_t time) {
  // Up to kNearSteps keys either way, then a binary search of what is left on that side.
  constexpr int kNearSteps = 4;
  int j = std::min(hint, leaf.count);
  if (j < leaf.count && leaf.time[j] < time) {
    const int stop = std::min(leaf.count, j + kNearSteps);
    for (++j; j < stop; ++j) {
      if (leaf.time[j] >= time) return j;
    }
    return static_cast<int>(std::lower_bound(leaf.time + j, leaf.time + leaf.count, time) -
                            leaf.time);
  }
  const int stop = std::max(0, j - kNearSteps);
  for (; j > stop; --j) {
    if (leaf.time[j - 1] < time) return j;
  }
  return static_cast<int>(std::lower_bound(leaf.time, leaf.time + j, time) - leaf.time);
}

bool BalanceTree::addThroughFinger(int64_t time, int64_t delta) {
  for (Finger& finger : fingers_) {
    if (finger.leaf == kNone || time >= finger.before) continue;
    Leaf& leaf = this->leaf(finger.leaf);
    if (leaf.count == 0 || time < leaf.time[0]) continue;
    // Keys come near the last one added here: the head's next key just after it, the end
    // of the grant the head drew a few keys further.
    const int j = searchNear(leaf, finger.hint, time);
    finger.hint = j;
    if (j < leaf.count && leaf.time[j] == time) {
      leaf.delta[j] += delta;
    } else {
      if (leaf.count + 1 >= kLeafSize) return false;  // it would split: the full descent
      openSlot(&leaf, j);
      leaf.time[j] = time;
      leaf.delta[j] = delta;
      ++leaf.count;
    }
    // time >= the leaf's first key >= each path child's first key: only the sums move.
    for (int level = 1; level <= height_; ++level) {
      inners_[finger.path[level].node].sum[finger.path[level].slot] += delta;
    }
    return true;
  }
  return false;
}

void BalanceTree::keepFinger() {
  if (height_ > kMaxFingerHeight) return;
  for (const Finger& finger : fingers_) {
    if (finger.leaf == pathLeaf_) return;
  }
  Finger& finger = fingers_[nextFinger_];
  nextFinger_ = (nextFinger_ + 1) % kFingers;
  finger.leaf = pathLeaf_;
  finger.before = kMaxSafeInteger + 1;
  for (int level = 1; level <= height_; ++level) {
    finger.path[level] = path_[level];
    const Inner& inner = inners_[path_[level].node];
    if (finger.before == kMaxSafeInteger + 1 && path_[level].slot + 1 < inner.count) {
      finger.before = inner.first[path_[level].slot + 1];
    }
  }
}

BalanceTree::Split BalanceTree::insert(uint32_t node, int level, int64_t time, int64_t delta) {
  if (level == 0) {
    pathLeaf_ = node;
    Leaf& leaf = this->leaf(node);
    const int j =
        static_cast<int>(std::lower_bound(leaf.time, leaf.time + leaf.count, time) - leaf.time);
    if (j < leaf.count && leaf.time[j] == time) {
      leaf.delta[j] += delta;
      return {};
    }
    openSlot(&leaf, j);
    leaf.time[j] = time;
    leaf.delta[j] = delta;
    ++leaf.count;
    return leaf.count == kLeafSize ? splitLeaf(node, j) : Split{};
  }
  Inner& inner = inners_[node];
  const int i = route(inner, time);
  if (level <= kMaxFingerHeight) path_[level] = {node, i};
  inner.first[i] = std::min(inner.first[i], time);
  inner.sum[i] += delta;
  const uint32_t child = inner.child[i];
  const Split split = insert(child, level - 1, time, delta);
  if (split.node == kNone) return {};
  Inner& parent = inners_[node];  // insert() may have grown inners_
  parent.sum[i] -= split.sum;
  std::copy_backward(parent.first + i + 1, parent.first + parent.count,
                     parent.first + parent.count + 1);
  std::copy_backward(parent.sum + i + 1, parent.sum + parent.count, parent.sum + parent.count + 1);
  std::copy_backward(parent.child + i + 1, parent.child + parent.count,
                     parent.child + parent.count + 1);
  parent.first[i + 1] = split.first;
  parent.sum[i + 1] = split.sum;
  parent.child[i + 1] = split.node;
  ++parent.count;
  return parent.count == kFanout ? splitInner(node, i + 1) : Split{};
}

int BalanceTree::splitPoint(int count, int inserted) {
  // Keys arrive mostly in time order, just before a few keys further ahead (grant ends).
  // Splitting where such a key went leaves the older keys in a full node that will rarely
  // change again, where a split in the middle would leave every node half empty. Keys
  // that land anywhere else split in the middle, as random ones should.
  return inserted >= count * 3 / 4 ? std::min(inserted, count - 1) : count / 2;
}

BalanceTree::Split BalanceTree::splitLeaf(uint32_t node, int inserted) {
  split_ = true;
  const uint32_t right = newLeaf();
  Leaf& left = leaf(node);
  Leaf& fresh = leaf(right);
  const int keep = splitPoint(left.count, inserted);
  fresh.count = left.count - keep;
  std::copy(left.time + keep, left.time + left.count, fresh.time);
  std::copy(left.delta + keep, left.delta + left.count, fresh.delta);
  left.count = keep;
  fresh.next = left.next;
  left.next = right;
  int64_t sum = 0;
  for (int j = 0; j < fresh.count; ++j) sum += fresh.delta[j];
  return {right, fresh.time[0], sum};
}

BalanceTree::Split BalanceTree::splitInner(uint32_t node, int inserted) {
  split_ = true;
  inners_.emplace_back();
  const auto right = static_cast<uint32_t>(inners_.size() - 1);
  Inner& left = inners_[node];
  Inner& fresh = inners_[right];
  const int keep = splitPoint(left.count, inserted);
  fresh.count = left.count - keep;
  std::copy(left.first + keep, left.first + left.count, fresh.first);
  std::copy(left.sum + keep, left.sum + left.count, fresh.sum);
  std::copy(left.child + keep, left.child + left.count, fresh.child);
  left.count = keep;
  int64_t sum = 0;
  for (int j = 0; j < fresh.count; ++j) sum += fresh.sum[j];
  return {right, fresh.first[0], sum};
}

int64_t BalanceTree::at(int64_t time) const {
  // Walk down keeping the sum of everything left of the path. Queries cluster at recent
  // times, so each node is scanned from the right: subtree total minus what is later.
  int64_t before = 0;
  int64_t subtree = total_;
  uint32_t node = root_;
  for (int level = height_; level > 0; --level) {
    const Inner& inner = inners_[node];
    int64_t later = 0;
    int i = inner.count - 1;
    while (i > 0 && inner.first[i] > time) later += inner.sum[i--];
    if (inner.first[i] > time) return before;  // every key is later than `time`
    before += subtree - later - inner.sum[i];
    subtree = inner.sum[i];
    node = inner.child[i];
  }
  // In the leaf, a search for the first later key, then the sum of the deltas on the
  // shorter side of it: a query at a random past time reads about a quarter of the deltas
  // instead of half of both arrays, and one at the head still reads almost nothing.
  const Leaf& leaf = this->leaf(node);
  int j = leaf.count;  // the first key later than `time`, or count
  if (j > 0 && leaf.time[j - 1] > time) {
    // Branch-free binary search of time[0, count - 1) (the last key is later).
    const int64_t* base = leaf.time;
    for (int n = j - 1; n > 1; n -= n / 2) base = base[n / 2] <= time ? base + n / 2 : base;
    j = static_cast<int>(base - leaf.time) + (j > 1 && *base <= time);
  }
  int64_t sum = 0;
  if (2 * j >= leaf.count) {
    for (int k = j; k < leaf.count; ++k) sum += leaf.delta[k];
    return before + subtree - sum;
  }
  for (int k = 0; k < j; ++k) sum += leaf.delta[k];
  return before + sum;
}

void BalanceTree::curve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const {
  int64_t value = at(from);
  out->push_back({from, value});
  uint32_t node = root_;
  for (int level = height_; level > 0; --level) {
    const Inner& inner = inners_[node];
    node = inner.child[route(inner, from)];
  }
  for (; node != kNone; node = leaf(node).next) {
    const Leaf& leaf = this->leaf(node);
    for (int j = 0; j < leaf.count; ++j) {
      if (leaf.time[j] <= from) continue;
      if (leaf.time[j] > to) return;
      value += leaf.delta[j];
      if (value != out->back().balance) out->push_back({leaf.time[j], value});
    }
  }
}

int64_t BalanceTree::firstBelow(int64_t threshold, int64_t from) const {
  int64_t value = at(from);
  if (value < threshold) return from;
  uint32_t node = root_;
  for (int level = height_; level > 0; --level) {
    const Inner& inner = inners_[node];
    node = inner.child[route(inner, from)];
  }
  for (; node != kNone; node = leaf(node).next) {
    const Leaf& leaf = this->leaf(node);
    for (int j = 0; j < leaf.count; ++j) {
      if (leaf.time[j] <= from) continue;
      value += leaf.delta[j];
      if (value < threshold) return leaf.time[j];
    }
  }
  return -1;  // after the last key the value is constant
}

}  // namespace gcl
