// The consumptions one backdated call has touched so far: a small open-addressing table
// (linear probing) of their handles. It replaces an array of a word per consumption that
// only re-draws used, and which a re-draw read at random places all over a large ledger.
// The table grows with the largest re-draw seen (at most half full). A cell holds its
// handle only while its stamp is the set's current one, so emptying the set after each
// call is a new stamp, not a pass over the cells.
#ifndef GPU_CREDIT_LEDGER_TOUCH_SET_H_
#define GPU_CREDIT_LEDGER_TOUCH_SET_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gcl {

class TouchSet {
 public:
  // Adds `key` unless it is there: true if it was added.
  bool insert(uint32_t key) {
    if (2 * (size_ + 1) > cells_.size()) grow();
    size_t i = home(key);
    for (; cells_[i].stamp == stamp_; i = (i + 1) & mask()) {
      if (cells_[i].key == key) return false;
    }
    cells_[i] = {key, stamp_};
    ++size_;
    return true;
  }
  bool contains(uint32_t key) const {
    if (cells_.empty()) return false;
    for (size_t i = home(key); cells_[i].stamp == stamp_; i = (i + 1) & mask()) {
      if (cells_[i].key == key) return true;
    }
    return false;
  }
  void clear() {
    size_ = 0;
    if (++stamp_ != 0) return;
    // The stamps went round (after 2^32 clears): every cell gets an old one again.
    for (Cell& cell : cells_) cell.stamp = 0;
    stamp_ = 1;
  }

  size_t size() const { return size_; }
  size_t bytes() const { return cells_.capacity() * sizeof(Cell); }

 private:
  static constexpr size_t kFirstCells = 64;
  struct Cell {
    uint32_t key;
    uint32_t stamp;  // == stamp_: the cell holds key
  };

  size_t mask() const { return cells_.size() - 1; }
  // Fibonacci hashing: handles are dense, and the top bits of the product spread them.
  size_t home(uint32_t key) const { return (key * 2654435769u) >> shift_; }
  void grow() {
    std::vector<Cell> old(cells_.empty() ? kFirstCells : 2 * cells_.size(), Cell{0, 0});
    old.swap(cells_);
    shift_ = 32;
    while ((size_t{1} << (32 - shift_)) < cells_.size()) --shift_;
    for (const Cell& cell : old) {
      if (cell.stamp != stamp_) continue;
      size_t i = home(cell.key);
      while (cells_[i].stamp == stamp_) i = (i + 1) & mask();
      cells_[i] = cell;
    }
  }

  std::vector<Cell> cells_;  // a power of two of them, or none
  unsigned shift_ = 32;      // 32 - log2 of cells_.size()
  uint32_t stamp_ = 1;       // new cells hold stamp 0: empty
  size_t size_ = 0;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_TOUCH_SET_H_
