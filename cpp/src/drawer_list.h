// A grant's drawers: the handles of the consumptions drawing on it, in replay order. Each
// grant had a std::vector of its own, so every grant cost a heap block and every growth an
// allocation, a copy and a free, scattered over the heap. Here the arrays come from a
// DrawerPool in capacities 4, 8, 16, ...: carved from blocks that never move, and a freed
// array goes on the free list of its capacity and is reused as is.
#ifndef GPU_CREDIT_LEDGER_DRAWER_LIST_H_
#define GPU_CREDIT_LEDGER_DRAWER_LIST_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "array_pool.h"

namespace gcl {

class DrawerPool {
 public:
  static constexpr uint32_t kFirstCapacity = 4;
  // Arrays up to this capacity are pooled; longer ones (grants drawn by more than a
  // thousand consumptions) use new[].
  static constexpr uint32_t kMaxPooled = 1024;

  uint32_t* allocate(uint32_t capacity) { return pool_.allocate(capacity, classOf(capacity)); }
  void release(uint32_t* array, uint32_t capacity) { pool_.release(array, classOf(capacity)); }

 private:
  // Blocks of 16 kB; capacities 4, 8, ..., 1024, a class each.
  using Pool = ArrayPool<uint32_t, 4096, 9>;
  static size_t classOf(uint32_t capacity) {
    return capacity > kMaxPooled ? Pool::kUnpooled
                                 : static_cast<size_t>(__builtin_ctz(capacity) - 2);
  }
  Pool pool_;
};

// A sorted array of handles over a DrawerPool, which each call that may grow it is given
// and which outlives it (a list destroyed holding a pooled array leaves it to the pool).
class DrawerList {
 public:
  DrawerList() = default;
  DrawerList(DrawerList&& other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  DrawerList& operator=(DrawerList&&) = delete;
  DrawerList(const DrawerList&) = delete;
  DrawerList& operator=(const DrawerList&) = delete;
  ~DrawerList() {
    if (capacity_ > DrawerPool::kMaxPooled) delete[] data_;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t back() const { return data_[size_ - 1]; }
  uint32_t* begin() { return data_; }
  uint32_t* end() { return data_ + size_; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  std::reverse_iterator<const uint32_t*> rbegin() const {
    return std::reverse_iterator<const uint32_t*>(end());
  }
  std::reverse_iterator<const uint32_t*> rend() const {
    return std::reverse_iterator<const uint32_t*>(begin());
  }
  bool equals(const std::vector<uint32_t>& other) const {
    return std::equal(begin(), end(), other.begin(), other.end());
  }

  void pop_back() { --size_; }
  // Drops everything from `at` (a pointer into this list) on.
  void truncate(uint32_t* at) { size_ = static_cast<uint32_t>(at - data_); }
  void erase(uint32_t* at) {
    std::copy(at + 1, end(), at);
    --size_;
  }
  // Inserts c before `at` (a pointer into this list, or end()).
  void insert(uint32_t* at, uint32_t c, DrawerPool* pool) {
    if (size_ == capacity_) {
      const uint32_t capacity = capacity_ == 0 ? DrawerPool::kFirstCapacity : 2 * capacity_;
      uint32_t* const grown = pool->allocate(capacity);
      uint32_t* const gap = std::copy(data_, at, grown);
      std::copy(at, end(), gap + 1);
      *gap = c;
      if (capacity_ != 0) pool->release(data_, capacity_);
      data_ = grown;
      capacity_ = capacity;
      ++size_;
      return;
    }
    std::copy_backward(at, end(), end() + 1);
    *at = c;
    ++size_;
  }

 private:
  uint32_t* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

static_assert(sizeof(DrawerList) <= 16, "a pointer, a length and a capacity");

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_DRAWER_LIST_H_
