// Arrays of T in a few size classes, carved from blocks of kBlockItems items that never
// move. A released array goes on the free list of its class and is handed out again as
// is; the blocks are freed with the pool. Arrays larger than any class (rare) use new[]
// and delete[]. Shared by the engine's draw lists (draw_list.h) and drawer lists
// (drawer_list.h), which allocate and free small arrays all the time: one pool per engine
// instead of a heap block per array, so that they neither cost an allocator call each
// nor end up scattered over the heap.
#ifndef GPU_CREDIT_LEDGER_ARRAY_POOL_H_
#define GPU_CREDIT_LEDGER_ARRAY_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

namespace gcl {

template <typename T, size_t kBlockItems, size_t kClasses>
class ArrayPool {
 public:
  // Class kUnpooled: an array of its own (new[]).
  static constexpr size_t kUnpooled = kClasses;

  // An array of `size` items, of class `sizeClass` (all arrays of a class have one size).
  T* allocate(size_t size, size_t sizeClass) {
    if (sizeClass == kUnpooled) return new T[size];
    std::vector<T*>& free = free_[sizeClass];
    if (!free.empty()) {
      T* const array = free.back();
      free.pop_back();
      return array;
    }
    if (blocks_.empty() || used_ + size > kBlockItems) {
      blocks_.push_back(std::make_unique<T[]>(kBlockItems));
      used_ = 0;
    }
    T* const array = blocks_.back().get() + used_;
    used_ += size;
    return array;
  }
  void release(T* array, size_t sizeClass) {
    if (sizeClass == kUnpooled) {
      delete[] array;
    } else {
      free_[sizeClass].push_back(array);
    }
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t used_ = 0;  // items handed out of the last block
  std::vector<T*> free_[kClasses];
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_ARRAY_POOL_H_
