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

namespace gcl {

class DrawerPool {
 public:
  static constexpr uint32_t kFirstCapacity = 4;
  // Arrays up to this capacity are pooled; longer ones (grants drawn by more than a
  // thousand consumptions) use new[].
  static constexpr uint32_t kMaxPooled = 1024;

  uint32_t* allocate(uint32_t capacity) {
    if (capacity > kMaxPooled) return new uint32_t[capacity];
    std::vector<uint32_t*>& free = free_[classOf(capacity)];
    if (!free.empty()) {
      uint32_t* const array = free.back();
      free.pop_back();
      return array;
    }
    if (blocks_.empty() || used_ + capacity > kBlockHandles) {
      blocks_.push_back(std::make_unique<uint32_t[]>(kBlockHandles));
      used_ = 0;
    }
    uint32_t* const array = blocks_.back().get() + used_;
    used_ += capacity;
    return array;
  }
  void release(uint32_t* array, uint32_t capacity) {
    if (capacity > kMaxPooled) {
      delete[] array;
    } else {
      free_[classOf(capacity)].push_back(array);
    }
  }
  // The blocks and the free lists (long arrays are counted by their lists).
  size_t bytes() const {
    size_t total =
        blocks_.capacity() * sizeof(blocks_[0]) + blocks_.size() * kBlockHandles * sizeof(uint32_t);
    for (const std::vector<uint32_t*>& free : free_) total += free.capacity() * sizeof(uint32_t*);
    return total;
  }

 private:
  static constexpr uint32_t kBlockHandles = 4096;  // 16 kB
  static constexpr int kClasses = 9;               // capacities 4 .. 1024
  static int classOf(uint32_t capacity) { return __builtin_ctz(capacity) - 2; }
  std::vector<std::unique_ptr<uint32_t[]>> blocks_;
  uint32_t used_ = 0;  // handles handed out of the last block
  std::vector<uint32_t*> free_[kClasses];
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
