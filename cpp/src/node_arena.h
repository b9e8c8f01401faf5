// Nodes of a node-based container that only grows (IncrementalEngine::byEnd_: a grant is
// never taken out, a change to the grant table rebuilds the engine), carved in arrival
// order from blocks that never move and freed with the arena: one allocation per 4 kB
// (the first few smaller) instead of one per node, and neighbours in time are neighbours
// in memory.
#ifndef GPU_CREDIT_LEDGER_NODE_ARENA_H_
#define GPU_CREDIT_LEDGER_NODE_ARENA_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace gcl {

class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  void* allocate(size_t bytes) {
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
    if (bytes > kBlockBytes) {  // not for nodes; kept correct all the same
      blocks_.push_back(newBlock(bytes));
      blockBytes_ = bytes;
      used_ = bytes;
      allocated_ += bytes;
      return blocks_.back().get();
    }
    if (blocks_.empty() || used_ + bytes > blockBytes_) {
      // From 512 bytes, doubling up to kBlockBytes: a ledger with a few grants (a service
      // caches many) holds a few small blocks.
      blockBytes_ = blocks_.empty() ? kFirstBlockBytes : std::min(kBlockBytes, 2 * blockBytes_);
      blocks_.push_back(newBlock(blockBytes_));
      allocated_ += blockBytes_;
      used_ = 0;
    }
    void* const at = reinterpret_cast<unsigned char*>(blocks_.back().get()) + used_;
    used_ += bytes;
    return at;
  }
  size_t bytes() const { return blocks_.capacity() * sizeof(blocks_[0]) + allocated_; }

 private:
  static constexpr size_t kAlign = alignof(std::max_align_t);
  static constexpr size_t kBlockBytes = 4096;
  static constexpr size_t kFirstBlockBytes = 512;
  // A block of `bytes` (a multiple of kAlign), aligned for any node. Counted in elements of
  // max_align_t, whose size may be twice its alignment (32 and 16 bytes on x86-64 and
  // wasm32): a count of bytes / kAlign elements would allocate twice the block.
  static std::unique_ptr<std::max_align_t[]> newBlock(size_t bytes) {
    return std::make_unique<std::max_align_t[]>((bytes + sizeof(std::max_align_t) - 1) /
                                                sizeof(std::max_align_t));
  }
  std::vector<std::unique_ptr<std::max_align_t[]>> blocks_;
  size_t used_ = 0;
  size_t blockBytes_ = 0;  // the last block's size
  size_t allocated_ = 0;   // the blocks' bytes
};

// A standard allocator over a NodeArena that outlives the container: deallocate does
// nothing (the container only grows; its nodes go with the arena).
template <typename T>
struct ArenaAllocator {
  using value_type = T;
  NodeArena* arena;

  explicit ArenaAllocator(NodeArena* a) : arena(a) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}  // NOLINT: rebind
  T* allocate(size_t n) { return static_cast<T*>(arena->allocate(n * sizeof(T))); }
  void deallocate(T*, size_t) {}
  template <typename U>
  bool operator==(const ArenaAllocator<U>& other) const {
    return arena == other.arena;
  }
  template <typename U>
  bool operator!=(const ArenaAllocator<U>& other) const {
    return arena != other.arena;
  }
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_NODE_ARENA_H_
