// The incremental engine's consumptions in replay order (handles): a contiguous array that
// can keep room before its items as well as after them. A ledger mostly grows at its latest
// times (an append, O(1)), and a backdated insertion moves what follows it, as in a vector,
// without new memory (a fresh page costs this machine's host a fault). The same engine in
// reversed time (time_mirror.h) grows at its earliest, which a vector would pay for with a
// move of every item, each time: there (keepRoomInFront), an insertion in the first half
// moves what precedes it into room kept before the items, O(1) at the front.
#ifndef GPU_CREDIT_LEDGER_TIME_ORDER_H_
#define GPU_CREDIT_LEDGER_TIME_ORDER_H_

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

namespace gcl {

class TimeOrder {
 public:
  using iterator = uint32_t*;
  using const_iterator = const uint32_t*;

  // The items are [first_, last_) of the buffer: each access one load, as in a vector.
  iterator begin() { return first_; }
  iterator end() { return last_; }
  const_iterator begin() const { return first_; }
  const_iterator end() const { return last_; }
  const uint32_t* data() const { return first_; }
  size_t size() const { return static_cast<size_t>(last_ - first_); }
  bool empty() const { return last_ == first_; }
  uint32_t back() const { return last_[-1]; }
  uint32_t operator[](size_t i) const { return first_[i]; }
  size_t capacity() const { return capacity_; }

  void push_back(uint32_t handle) {
    if (roomAfter() == 0) regrow(size() + 1);
    *last_++ = handle;
  }

  // From now on, room is kept before the items too (regrowing when it runs out), so that an
  // insertion in the first half moves only the items before it.
  void keepRoomInFront() { roomInFront_ = true; }

  // Inserts `handle` before `at`: moves the items before it one place towards the front when
  // it is in the first half and room is kept there, else the items from it one place towards
  // the back.
  iterator insert(iterator at, uint32_t handle) {
    const size_t i = static_cast<size_t>(at - first_);
    const bool frontward = roomInFront_ && i < size() / 2;
    if (frontward ? roomBefore() == 0 : roomAfter() == 0) regrow(size() + 1);
    if (frontward) {
      std::memmove(first_ - 1, first_, i * sizeof(uint32_t));
      --first_;
    } else {
      std::memmove(first_ + i + 1, first_ + i, (size() - i) * sizeof(uint32_t));
      ++last_;
    }
    first_[i] = handle;
    return first_ + i;
  }

  // Erases the item at `at`, closing the gap from the shorter side where room is kept before
  // the items, else from the back (the items stay at the buffer's start, as in a vector).
  void erase(iterator at) {
    const size_t i = static_cast<size_t>(at - first_);
    assert(i < size());
    if (roomInFront_ && i < size() / 2) {
      std::memmove(first_ + 1, first_, i * sizeof(uint32_t));
      ++first_;
    } else {
      std::memmove(first_ + i, first_ + i + 1, (size() - i - 1) * sizeof(uint32_t));
      --last_;
    }
  }

  void reserve(size_t count) {
    if (count > capacity_) regrow(count);
  }

 private:
  size_t roomBefore() const { return static_cast<size_t>(first_ - buffer_.get()); }
  size_t roomAfter() const { return static_cast<size_t>(buffer_.get() + capacity_ - last_); }

  // At least `count` items' room, twice the items at least: all of it after the items, or
  // half on each side when room is kept before them.
  void regrow(size_t count) {
    const size_t items = size();
    const size_t capacity = std::max<size_t>({count, 2 * items, 16});
    // Not value-initialized: as a vector's spare capacity, the room is not written (and so
    // not faulted in) before it is used.
    std::unique_ptr<uint32_t[]> grown(new uint32_t[capacity]);
    uint32_t* first = grown.get() + (roomInFront_ ? (capacity - items) / 2 : 0);
    std::copy(first_, last_, first);
    buffer_ = std::move(grown);
    capacity_ = capacity;
    first_ = first;
    last_ = first + items;
  }

  std::unique_ptr<uint32_t[]> buffer_;
  size_t capacity_ = 0;
  uint32_t* first_ = nullptr;
  uint32_t* last_ = nullptr;
  bool roomInFront_ = false;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_TIME_ORDER_H_
