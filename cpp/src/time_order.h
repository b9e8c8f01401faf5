// The incremental engine's consumptions in replay order (handles): a contiguous array that
// keeps room on both sides of its items, so that an insertion or erasure moves the shorter
// side. A ledger mostly grows at its latest times (an append, O(1)); the same engine in
// reversed time (time_mirror.h) grows at its earliest, which a vector would pay for with a
// move of every item, each time.
#ifndef GPU_CREDIT_LEDGER_TIME_ORDER_H_
#define GPU_CREDIT_LEDGER_TIME_ORDER_H_

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gcl {

class TimeOrder {
 public:
  using iterator = uint32_t*;
  using const_iterator = const uint32_t*;

  iterator begin() { return buffer_.data() + front_; }
  iterator end() { return buffer_.data() + back_; }
  const_iterator begin() const { return buffer_.data() + front_; }
  const_iterator end() const { return buffer_.data() + back_; }
  const uint32_t* data() const { return begin(); }
  size_t size() const { return back_ - front_; }
  bool empty() const { return back_ == front_; }
  uint32_t back() const { return buffer_[back_ - 1]; }
  uint32_t operator[](size_t i) const { return buffer_[front_ + i]; }
  size_t capacity() const { return buffer_.size(); }

  void push_back(uint32_t handle) {
    if (back_ == buffer_.size()) regrow(size() + 1, front_ > 0);
    buffer_[back_++] = handle;
  }

  // Inserts `handle` before `at`, moving the items before it one place towards the front or
  // those from it one place towards the back, whichever are fewer (with room there).
  iterator insert(iterator at, uint32_t handle) {
    size_t i = static_cast<size_t>(at - begin());
    const bool frontward = i < size() / 2;
    if ((frontward && front_ == 0) || (!frontward && back_ == buffer_.size())) {
      regrow(size() + 1, frontward || front_ > 0);
    }
    if (frontward) {
      std::memmove(begin() - 1, begin(), i * sizeof(uint32_t));
      --front_;
    } else {
      std::memmove(begin() + i + 1, begin() + i, (size() - i) * sizeof(uint32_t));
      ++back_;
    }
    buffer_[front_ + i] = handle;
    return begin() + i;
  }

  // Erases the item at `at`, closing the gap from the shorter side.
  void erase(iterator at) {
    const size_t i = static_cast<size_t>(at - begin());
    assert(i < size());
    if (i < size() / 2) {
      std::memmove(begin() + 1, begin(), i * sizeof(uint32_t));
      ++front_;
    } else {
      std::memmove(begin() + i, begin() + i + 1, (size() - i - 1) * sizeof(uint32_t));
      --back_;
    }
  }

  void reserve(size_t count) {
    if (count > capacity()) regrow(count, front_ > 0);
  }

 private:
  // At least `count` items' room, twice the items at least: all of the room after the items
  // while none was ever taken before them (a ledger that grows at its latest times), else
  // half on each side.
  void regrow(size_t count, bool roomInFront) {
    const size_t items = size();
    const size_t capacity = std::max<size_t>({count, 2 * items, 16});
    std::vector<uint32_t> grown(capacity);
    const size_t front = roomInFront ? (capacity - items) / 2 : 0;
    std::copy(begin(), end(), grown.begin() + static_cast<std::ptrdiff_t>(front));
    buffer_.swap(grown);
    front_ = front;
    back_ = front + items;
  }

  std::vector<uint32_t> buffer_;
  size_t front_ = 0;
  size_t back_ = 0;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_TIME_ORDER_H_
