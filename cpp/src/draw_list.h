// A consumption's draws in draw order. Most consumptions draw from one grant, so one draw
// is stored inline and only longer lists take an array, exactly as long as they are, from
// a DrawPool. 16 bytes: this array is a large share of the engine's memory.
#ifndef GPU_CREDIT_LEDGER_DRAW_LIST_H_
#define GPU_CREDIT_LEDGER_DRAW_LIST_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "array_pool.h"
#include "engine.h"

namespace gcl {

// Storage for the draw lists that spill (two draws or more). A re-draw often turns a
// two-draw list into one draw and back within one call; with new[] and delete[] each turn
// cost an allocation and a free. Here an array of up to kMaxPooled draws comes from an
// ArrayPool (a class per length) and goes back to its free list; longer ones, which are
// rare, use new[].
class DrawPool {
 public:
  static constexpr size_t kMaxPooled = 8;

  Draw* allocate(size_t length) { return pool_.allocate(length, classOf(length)); }
  void release(Draw* array, size_t length) { pool_.release(array, classOf(length)); }

 private:
  using Pool = ArrayPool<Draw, 256, kMaxPooled + 1>;  // blocks of 4 kB; a class per length
  static size_t classOf(size_t length) { return length > kMaxPooled ? Pool::kUnpooled : length; }
  Pool pool_;
};

// The lists' arrays belong to a DrawPool that each call that changes a list is given; the
// pool outlives the lists and frees their arrays with it, so a list left holding an array
// when it is destroyed only gives back a long one.
class DrawList {
 public:
  DrawList() = default;
  DrawList(DrawList&& other) noexcept
      : grant_(other.grant_), count_(other.count_), amount_(other.amount_) {
    other.grant_ = kNone;
  }
  DrawList& operator=(DrawList&&) = delete;
  DrawList(const DrawList&) = delete;
  DrawList& operator=(const DrawList&) = delete;
  ~DrawList() {
    if (grant_ == kSpilled && count_ > DrawPool::kMaxPooled) delete[] more_;
  }

  size_t size() const { return grant_ == kSpilled ? count_ : (grant_ == kNone ? 0 : 1); }
  bool empty() const { return grant_ == kNone; }
  Draw operator[](size_t i) const { return grant_ == kSpilled ? more_[i] : Draw{grant_, amount_}; }
  Draw back() const { return (*this)[size() - 1]; }

  void assign(const std::vector<Draw>& draws, DrawPool* pool) {
    if (draws.size() > 1 && grant_ == kSpilled && draws.size() == count_) {
      std::copy(draws.begin(), draws.end(), more_);  // a re-draw often keeps the length
      return;
    }
    release(pool);
    if (draws.size() > 1) {
      grant_ = kSpilled;
      count_ = static_cast<uint32_t>(draws.size());
      more_ = pool->allocate(draws.size());
      std::copy(draws.begin(), draws.end(), more_);
    } else if (draws.size() == 1) {
      grant_ = draws[0].grant;
      amount_ = draws[0].amount;
    }
  }
  // Takes `amount` off the draw from grant g (which must be there with at least that
  // much), in place; true when that draw is gone. A re-draw cuts the latest drawers of an
  // overdrawn grant this way, one draw at a time, without copying the list out and back.
  bool cut(uint32_t g, int64_t amount, DrawPool* pool) {
    if (grant_ != kSpilled) {
      amount_ -= amount;
      if (amount_ != 0) return false;
      grant_ = kNone;
      return true;
    }
    Draw* const lost =
        std::find_if(more_, more_ + count_, [g](const Draw& d) { return d.grant == g; });
    lost->amount -= amount;
    if (lost->amount != 0) return false;
    if (count_ == 2) {
      const Draw kept = more_[lost == more_ ? 1 : 0];
      pool->release(more_, 2);
      grant_ = kept.grant;
      amount_ = kept.amount;
      return true;
    }
    Draw* const shorter = pool->allocate(count_ - 1);  // a list is exactly as long as it is
    std::copy(lost + 1, more_ + count_, std::copy(more_, lost, shorter));
    pool->release(more_, count_);
    more_ = shorter;
    --count_;
    return true;
  }
  void copyTo(std::vector<Draw>* out) const {
    out->clear();
    for (size_t i = 0; i < size(); ++i) out->push_back((*this)[i]);
  }
  // The amount drawn from grant g (0 if none).
  int64_t amountFrom(uint32_t g) const {
    for (size_t i = 0; i < size(); ++i) {
      if ((*this)[i].grant == g) return (*this)[i].amount;
    }
    return 0;
  }
  // Gives its array back to the pool: the list is then empty.
  void release(DrawPool* pool) {
    if (grant_ == kSpilled) pool->release(more_, count_);
    grant_ = kNone;
  }

 private:
  // Grant indexes stay far below these (Ledger::kMaxEvents).
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kSpilled = UINT32_MAX - 1;

  uint32_t grant_ = kNone;  // the one draw's grant, kNone, or kSpilled
  uint32_t count_ = 0;      // kSpilled: the list's length (this word is padding otherwise)
  union {
    int64_t amount_ = 0;  // the one draw's amount
    Draw* more_;          // kSpilled: the whole list, from the pool, exactly count_ long
  };
};

static_assert(sizeof(DrawList) == 16, "one inline draw and a tag");

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_DRAW_LIST_H_
