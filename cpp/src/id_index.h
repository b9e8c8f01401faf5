// Interned ids in insertion order with O(1) lookup. Index i is the i-th id added, so the
// ledger uses it as the handle of a grant or of an accepted consumption. Ids live in one
// arena: a few bytes of overhead per id instead of a std::string and a hash node each.
// The arena is chunked: no allocation of it passes kChunkBytes however many ids it holds,
// so it never needs one large free block (a doubling string of long ids did: in a heap
// that other ledgers had left in pieces, a 1 GB block could be missing while the bytes
// were there).
#ifndef GPU_CREDIT_LEDGER_ID_INDEX_H_
#define GPU_CREDIT_LEDGER_ID_INDEX_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gcl {

// Makes room for `count` more elements, at least doubling the capacity when it grows: a
// bulk load reserves once, and many small reservations stay amortized O(1) per element.
template <typename Container>
void reserveMore(Container& c, size_t count) {
  const size_t need = c.size() + count;
  if (need > c.capacity()) c.reserve(std::max(need, 2 * c.capacity()));
}

class IdIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  IdIndex() : ends_{0}, slots_(kMinSlots, Slot{kEmpty, 0}) {}

  // The hash find() and add() place an id by: a caller that looks an id up and then adds
  // it hashes it once.
  static uint32_t hash(std::string_view id) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a, then a final mix for the low bits
    for (unsigned char c : id) h = (h ^ c) * 1099511628211ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return static_cast<uint32_t>(h);
  }

  uint32_t find(std::string_view id) const { return find(id, hash(id)); }
  // find(id), given h == hash(id).
  uint32_t find(std::string_view id, uint32_t h) const {
    for (size_t slot = home(h);; slot = next(slot)) {
      const Slot entry = slots_[slot];
      if (entry.index == kEmpty) return kNotFound;
      if (entry.hash == h && at(entry.index) == id) return entry.index;
    }
  }

  // Reads the slot where find(id) starts probing, given h == hash(id), and returns its
  // content, which means nothing: a bulk loader calls it for a run of upcoming ids so
  // that their cache misses overlap instead of each stalling its own call.
  uint32_t touch(uint32_t h) const { return slots_[home(h)].index; }

  // Appends an id known to be absent and returns its index.
  uint32_t add(std::string_view id) { return add(id, hash(id)); }
  // add(id), given h == hash(id).
  uint32_t add(std::string_view id, uint32_t h) {
    // Up to 70% full: the stored hashes keep probes cheap, and slots are a large share of
    // memory.
    if ((size() + 1) * 10 > slots_.size() * 7) grow();
    const auto index = static_cast<uint32_t>(size());
    ends_.push_back(store(id));
    place(index, h);
    return index;
  }

  // Room for `count` more ids of `bytes` bytes in all: the slots grow to their final
  // size once (one rehash) instead of doubling step by step.
  void reserve(size_t count, size_t bytes) {
    const size_t last = chunkOf(ends_.back());
    if (last < chunks_.size()) {
      std::string& chunk = chunks_[last];
      growChunk(&chunk, std::min(kChunkBytes, chunk.size() + bytes));
    }
    chunks_.reserve(chunkOf(ends_.back() + bytes + bytes / kChunkBytes * kMaxPadding) + 1);
    reserveMore(ends_, count);
    const size_t slots = slotsFor(size() + count);
    if (slots > slots_.size()) rehash(slots);
  }
  // What reserve(count, bytes) would add to bytes(), at most.
  size_t reserveBytes(size_t count, size_t bytes) const {
    return kChunkBytes +
           (chunkOf(ends_.back() + bytes + bytes / kChunkBytes * kMaxPadding) + 2) *
               sizeof(chunks_[0]) +
           std::max(ends_.size() + count, 2 * ends_.capacity()) * sizeof(Offset) +
           slotsFor(size() + count) * sizeof(Slot);
  }

  std::string_view at(uint32_t index) const {
    size_t begin = ends_[index];
    const size_t end = ends_[index + 1];
    if (end == begin) return {};
    // An id that would have crossed into the next chunk was stored at that chunk's start.
    if (chunkOf(begin) != chunkOf(end - 1)) begin = chunkOf(end - 1) << kChunkShift;
    return std::string_view(chunks_[chunkOf(begin)].data() + (begin & (kChunkBytes - 1)),
                            end - begin);
  }
  size_t size() const { return ends_.size() - 1; }
  // The largest block the arena holds: at most a chunk (up to twice that where the
  // standard library rounds a string's growth up to a doubling).
  size_t largestArenaBlock() const {
    size_t largest = 0;
    for (const std::string& chunk : chunks_) largest = std::max(largest, chunk.capacity());
    return largest;
  }
  size_t bytes() const {
    return arenaBytes_ + chunks_.capacity() * sizeof(chunks_[0]) +
           ends_.capacity() * sizeof(Offset) + slots_.capacity() * sizeof(Slot);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr size_t kMinSlots = 16;
  // The arena's chunks: strings that grow as strings do, each up to kChunkBytes of ids. An
  // id (at most kMaxPadding bytes: the ledger's id limit) that does not fit in what is
  // left of a chunk starts the next one.
  static constexpr size_t kChunkShift = 20;
  static constexpr size_t kChunkBytes = size_t{1} << kChunkShift;
  static constexpr size_t kMaxPadding = 1024;
  // Where ids end in the arena. The arena stays below 2^31 bytes in WebAssembly's 2 GiB, so
  // 32-bit offsets do there (4 bytes less per id); natively it may pass 4 GiB.
  using Offset = std::conditional_t<sizeof(size_t) == 4, uint32_t, uint64_t>;
  // The id's 32-bit hash: its low bits place it, and all of them let a probe skip other
  // ids without reading the arena and a rehash place it without hashing it again.
  struct Slot {
    uint32_t index;
    uint32_t hash;
  };

  // An id's first slot: its hash scaled to the table (h * size / 2^32), so the table can
  // have any size, and the slots keep the order of the hashes.
  size_t home(uint32_t h) const {
    return static_cast<size_t>((static_cast<uint64_t>(h) * slots_.size()) >> 32);
  }
  size_t next(size_t slot) const { return slot + 1 == slots_.size() ? 0 : slot + 1; }
  void place(uint32_t index, uint32_t h) {
    size_t slot = home(h);
    while (slots_[slot].index != kEmpty) slot = next(slot);
    slots_[slot] = {index, h};
  }
  // The table size that holds `count` ids at most 70% full: the current one if it does,
  // else exactly that many (a reservation: one table of the size it needs, not the next
  // power of two, which can be near twice that; the slots are the largest part of the
  // index), but at least twice the current size: a log replayed in runs reserves once per
  // run, and an exact size each time would rehash the whole table every run (quadratic).
  // Growing one id at a time doubles it too (grow()).
  size_t slotsFor(size_t count) const {
    if (count * 10 <= slots_.size() * 7) return slots_.size();
    return std::max({kMinSlots, (count * 10 + 6) / 7, 2 * slots_.size()});
  }
  void grow() { rehash(slots_.size() * 2); }
  // Moves every id to a table of `slots` slots, reading the old table in slot order: the
  // ids come in about the order of their hashes, and so do their new homes, so the writes
  // advance through the table in order instead of landing at random (a cache miss each,
  // when the table is large), and no id is read or hashed again.
  void rehash(size_t slots) {
    std::vector<Slot> old(slots, Slot{kEmpty, 0});
    old.swap(slots_);
    for (const Slot& entry : old) {
      if (entry.index != kEmpty) place(entry.index, entry.hash);
    }
  }

  static size_t chunkOf(size_t offset) { return offset >> kChunkShift; }
  // Copies `id` into the arena after the last one; returns where it ends.
  size_t store(std::string_view id) {
    size_t begin = ends_.back();
    const size_t size = id.size();
    if (size > kMaxPadding) std::abort();  // the ledger refuses such ids before they get here
    if (size > 0 && chunkOf(begin) != chunkOf(begin + size - 1))
      begin = (chunkOf(begin) + 1) << kChunkShift;
    const size_t k = chunkOf(begin);
    if (k == chunks_.size()) chunks_.emplace_back();
    std::string& chunk = chunks_[k];  // holds exactly the bytes of its chunk before `begin`
    growChunk(&chunk, chunk.size() + size);
    chunk.append(id);
    return begin + size;
  }
  // Room for `need` bytes in `chunk` (need <= kChunkBytes): doubling, but never past a
  // chunk, so no allocation of the arena passes kChunkBytes; arenaBytes_ follows.
  void growChunk(std::string* chunk, size_t need) {
    if (need <= chunk->capacity()) return;
    arenaBytes_ -= chunk->capacity();
    chunk->reserve(std::min(kChunkBytes, std::max(need, 2 * chunk->capacity())));
    arenaBytes_ += chunk->capacity();
  }

  std::vector<std::string> chunks_;
  size_t arenaBytes_ = 0;  // the chunks' capacities, summed
  std::vector<Offset> ends_;
  std::vector<Slot> slots_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_ID_INDEX_H_
