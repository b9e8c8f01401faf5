#include "balance_tree.h"

namespace gcl {

void BalanceTree::add(int64_t time, int64_t delta) { root_ = insert(root_, time, delta); }

uint32_t BalanceTree::insert(uint32_t node, int64_t time, int64_t delta) {
  if (node == kNil) {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 17;
    rng_ ^= rng_ << 5;
    nodes_.push_back({time, delta, delta, kNil, kNil, rng_});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  nodes_[node].sum += delta;
  if (time == nodes_[node].time) {
    nodes_[node].delta += delta;
    return node;
  }
  if (time < nodes_[node].time) {
    const uint32_t child = insert(nodes_[node].left, time, delta);
    nodes_[node].left = child;
    if (nodes_[child].priority > nodes_[node].priority) return rotateRight(node);
  } else {
    const uint32_t child = insert(nodes_[node].right, time, delta);
    nodes_[node].right = child;
    if (nodes_[child].priority > nodes_[node].priority) return rotateLeft(node);
  }
  return node;
}

uint32_t BalanceTree::rotateRight(uint32_t node) {
  const uint32_t top = nodes_[node].left;
  nodes_[node].left = nodes_[top].right;
  nodes_[top].right = node;
  refresh(node);
  refresh(top);
  return top;
}

uint32_t BalanceTree::rotateLeft(uint32_t node) {
  const uint32_t top = nodes_[node].right;
  nodes_[node].right = nodes_[top].left;
  nodes_[top].left = node;
  refresh(node);
  refresh(top);
  return top;
}

int64_t BalanceTree::at(int64_t time) const {
  int64_t total = 0;
  uint32_t node = root_;
  while (node != kNil) {
    const Node& n = nodes_[node];
    if (n.time <= time) {
      total += sumOf(n.left) + n.delta;
      node = n.right;
    } else {
      node = n.left;
    }
  }
  return total;
}

void BalanceTree::curve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const {
  int64_t value = at(from);
  out->push_back({from, value});
  // In-order walk over the keys in (from, to], with an explicit stack.
  std::vector<uint32_t> stack;
  uint32_t node = root_;
  while (node != kNil || !stack.empty()) {
    while (node != kNil) {
      if (nodes_[node].time <= from) {
        node = nodes_[node].right;
      } else {
        stack.push_back(node);
        node = nodes_[node].left;
      }
    }
    if (stack.empty()) break;
    node = stack.back();
    stack.pop_back();
    const Node& n = nodes_[node];
    if (n.time > to) break;
    if (n.delta != 0) {
      value += n.delta;
      if (value != out->back().balance) out->push_back({n.time, value});
    }
    node = n.right;
  }
}

}  // namespace gcl
