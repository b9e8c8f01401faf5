// The maximum of values appended at positions 0, 1, 2, ... under "add delta >= 0 to every
// position before `end`" (end at most the number appended). A position whose value is <=
// that of an earlier one can never be the maximum again: every add that reaches it reaches
// the earlier one too. So only a chain of candidates with increasing values is kept, each
// as its difference to the previous one; a dominated candidate is unlinked and skipped
// from then on (union-find "next live position"). Amortized O(α) per call. The headroom
// index's sweeps (headroom.cpp) and the headroom trackers (headroom_tracker.cpp) use it.
#ifndef GPU_CREDIT_LEDGER_PREFIX_ADD_MAX_H_
#define GPU_CREDIT_LEDGER_PREFIX_ADD_MAX_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace gcl {

class PrefixAddMax {
 public:
  static constexpr int64_t kUnset = INT64_MIN / 4;  // max() of nothing: below any score

  PrefixAddMax() : next_{0} {}
  // Room for `count` positions in all.
  void reserve(size_t count) {
    if (count > diff_.size()) grow(count);
  }
  size_t size() const { return size_; }
  int64_t max() const { return top_ == kNone ? kUnset : topValue_; }
  size_t bytes() const {
    return (next_.capacity() + previous_.capacity()) * sizeof(size_t) +
           diff_.capacity() * sizeof(int64_t);
  }

  // Sets the value of position size().
  void append(int64_t value) {
    const size_t position = size_++;
    if (position == diff_.size()) grow(2 * position + 16);
    next_[position + 1] = position + 1;  // the new end; next_[position] == position: live
    if (top_ != kNone && value <= topValue_) {
      unlink(position);
      return;
    }
    if (top_ != kNone) diff_[position] = value - topValue_;
    previous_[position] = top_;
    top_ = position;
    topValue_ = value;
  }

  void addPrefix(size_t end, int64_t delta) {
    if (top_ == kNone || end == 0) return;
    size_t first = live(end);  // the first candidate not reached by the add
    if (first > top_) {
      topValue_ += delta;  // every candidate is reached
      return;
    }
    if (previous_[first] == kNone) return;  // no candidate is reached
    diff_[first] -= delta;
    while (diff_[first] <= 0) {  // now no better than the candidate before it
      const size_t before = previous_[first];
      unlink(first);
      if (first == top_) {
        topValue_ -= diff_[first];
        top_ = before;
        return;
      }
      const size_t after = live(first + 1);
      diff_[after] += diff_[first];
      previous_[after] = before;
      first = after;
    }
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;

  // Arrays for `count` positions (and the end's slot of next_); what is past size() is unset.
  void grow(size_t count) {
    next_.resize(count + 1);
    previous_.resize(count);
    diff_.resize(count);
  }
  void unlink(size_t position) { next_[position] = position + 1; }
  // The first live position at or after `position` (size() if none), compressing the path.
  size_t live(size_t position) {
    size_t root = position;
    while (next_[root] != root) root = next_[root];
    while (next_[position] != root) position = std::exchange(next_[position], root);
    return root;
  }

  std::vector<size_t> next_;      // union-find: the first live position at or after i
  std::vector<size_t> previous_;  // the candidate before, for live candidates
  std::vector<int64_t> diff_;     // value minus the previous candidate's value
  size_t size_ = 0;
  size_t top_ = kNone;  // the last candidate: it holds the maximum
  int64_t topValue_ = kUnset;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_PREFIX_ADD_MAX_H_
