// Arrays of T in a few size classes, carved from blocks of up to kBlockItems items that
// never move. A released array goes on the free list of its class (kept in the free arrays
// themselves) and is handed out again as is; the blocks are freed with the pool. Arrays
// larger than any class (rare) use new[] and delete[]. Shared by the engine's draw lists
// (draw_list.h) and drawer lists (drawer_list.h), which allocate and free small arrays all
// the time: one pool per engine instead of a heap block per array, so that they neither
// cost an allocator call each nor end up scattered over the heap.
#ifndef GPU_CREDIT_LEDGER_ARRAY_POOL_H_
#define GPU_CREDIT_LEDGER_ARRAY_POOL_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace gcl {

template <typename T, size_t kBlockItems, size_t kClasses>
class ArrayPool {
 public:
  // Class kUnpooled: an array of its own (new[]).
  static constexpr size_t kUnpooled = kClasses;

  // An array of `size` items, of class `sizeClass` (all arrays of a class have one size,
  // at least a pointer's bytes: a free array holds the next free one of its class).
  T* allocate(size_t size, size_t sizeClass) {
    if (sizeClass == kUnpooled) return new T[size];
    assert(size * sizeof(T) >= sizeof(T*));
    T* const array = free_[sizeClass];
    if (array != nullptr) {
      std::memcpy(static_cast<void*>(&free_[sizeClass]), static_cast<const void*>(array),
                  sizeof(T*));
      return array;
    }
    if (blocks_.empty() || used_ + size > blockItems_) newBlock(size);
    T* const carved = blocks_.back().get() + used_;
    used_ += size;
    return carved;
  }
  // Out of line: rare, and kept out of the engine's hot paths that allocate draw lists.
  __attribute__((noinline)) void newBlock(size_t size) {
    // The blocks grow from a sixteenth of kBlockItems, doubling up to it: a small ledger
    // (a service caches many) holds a few small blocks, not one of kBlockItems.
    const size_t next = blocks_.empty() ? kBlockItems / 16 : 2 * blockItems_;
    blockItems_ = std::max(size, std::min(kBlockItems, next));
    blocks_.push_back(std::make_unique<T[]>(blockItems_));
    used_ = 0;
  }
  void release(T* array, size_t sizeClass) {
    if (sizeClass == kUnpooled) {
      delete[] array;
    } else {
      std::memcpy(static_cast<void*>(array), static_cast<const void*>(&free_[sizeClass]),
                  sizeof(T*));
      free_[sizeClass] = array;
    }
  }

 private:
  static_assert(std::is_trivially_copyable<T>::value, "free arrays hold a pointer");

  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t used_ = 0;         // items handed out of the last block
  size_t blockItems_ = 0;   // the last block's size
  T* free_[kClasses] = {};  // per class, the last array released (a list through the arrays)
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_ARRAY_POOL_H_
