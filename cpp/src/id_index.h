// Interned ids in insertion order with O(1) lookup. Index i is the i-th id added, so the
// ledger uses it as the handle of a grant or of an accepted consumption. Ids live in one
// arena: a few bytes of overhead per id instead of a std::string and a hash node each.
#ifndef GPU_CREDIT_LEDGER_ID_INDEX_H_
#define GPU_CREDIT_LEDGER_ID_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gcl {

class IdIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  IdIndex() : ends_{0}, slots_(16, Slot{kEmpty, 0}) {}

  uint32_t find(std::string_view id) const {
    const uint64_t h = hash(id);
    const auto tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = slots_.size() - 1;
    for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
      const Slot entry = slots_[slot];
      if (entry.index == kEmpty) return kNotFound;
      if (entry.tag == tag && at(entry.index) == id) return entry.index;
    }
  }

  // Appends an id known to be absent and returns its index.
  uint32_t add(std::string_view id) {
    // Up to 70% full: the tags keep probes cheap, and slots are a large share of memory.
    if ((size() + 1) * 10 > slots_.size() * 7) grow();
    const auto index = static_cast<uint32_t>(size());
    arena_.append(id);
    ends_.push_back(arena_.size());
    place(index);
    return index;
  }

  std::string_view at(uint32_t index) const {
    return std::string_view(arena_).substr(ends_[index], ends_[index + 1] - ends_[index]);
  }
  size_t size() const { return ends_.size() - 1; }
  size_t bytes() const {
    return arena_.capacity() + ends_.capacity() * sizeof(uint64_t) +
           slots_.capacity() * sizeof(Slot);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // The tag (high hash bits) lets a probe skip other ids without reading the arena.
  struct Slot {
    uint32_t index;
    uint32_t tag;
  };

  static uint64_t hash(std::string_view id) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a, then a final mix for the low bits
    for (unsigned char c : id) h = (h ^ c) * 1099511628211ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return h;
  }
  void place(uint32_t index) {
    const uint64_t h = hash(at(index));
    const size_t mask = slots_.size() - 1;
    size_t slot = h & mask;
    while (slots_[slot].index != kEmpty) slot = (slot + 1) & mask;
    slots_[slot] = {index, static_cast<uint32_t>(h >> 32)};
  }
  void grow() {
    slots_.assign(slots_.size() * 2, Slot{kEmpty, 0});
    for (uint32_t i = 0; i < size(); ++i) place(i);
  }

  std::string arena_;
  std::vector<uint64_t> ends_;
  std::vector<Slot> slots_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_ID_INDEX_H_
