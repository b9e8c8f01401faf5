// A consumption's draws in draw order. Most consumptions draw their whole amount from one
// grant, so such a list stores the grant alone and only other lists take an array, exactly
// as long as they are, from a DrawPool.
#ifndef GPU_CREDIT_LEDGER_DRAW_LIST_H_
#define GPU_CREDIT_LEDGER_DRAW_LIST_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "array_pool.h"
#include "engine.h"

namespace gcl {

// Storage for the draw lists that spill (two draws or more, or one partial draw). A
// re-draw often turns a two-draw list into one draw and back within one call; with new[]
// and delete[] each turn cost an allocation and a free. Here an array of up to kMaxPooled
// draws comes from an ArrayPool (a class per length) and goes back to its free list;
// longer ones, which are rare, use new[].
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

// A consumption's draws, given the consumption's amount (`full`) to read them: an accepted
// consumption's draws sum to its amount, so a list of one draw of the full amount, the
// usual case, stores only the grant. Any other list (two draws or more, or one draw of
// less than the full amount while a re-draw cuts it) is an array, exactly as long as the
// list, from a DrawPool. Reads go through a View, which pairs the list with that amount.
// The lists' arrays belong to a DrawPool that each call that changes a list is given; the
// pool outlives the lists and frees their arrays with it, so a list left holding an array
// when it is destroyed only gives back a long one.
class DrawList {
 public:
  // Grant indexes and list lengths must stay below this (Ledger::kMaxEvents does).
  static constexpr uint32_t kMaxGrants = uint32_t{1} << 31;

  DrawList() = default;
  DrawList(DrawList&& other) noexcept : tag_(other.tag_), more_(other.more_) {
    other.tag_ = kArray;
  }
  DrawList& operator=(DrawList&&) = delete;
  DrawList(const DrawList&) = delete;
  DrawList& operator=(const DrawList&) = delete;
  ~DrawList() {
    if (tag_ > kArray + DrawPool::kMaxPooled) delete[] more_;
  }

  // The list read as the draws of a consumption of amount `full`.
  class View {
   public:
    View(const DrawList& list, int64_t full) : list_(list), full_(full) {}
    size_t size() const { return list_.size(); }
    bool empty() const { return list_.empty(); }
    Draw operator[](size_t i) const {
      return list_.tag_ < kArray ? Draw{list_.tag_, full_} : list_.more_[i];
    }
    Draw back() const { return (*this)[size() - 1]; }
    // Calls f(draw) for each draw, in order.
    template <typename F>
    void forEach(F f) const {
      if (list_.tag_ < kArray) {
        f(Draw{list_.tag_, full_});
        return;
      }
      const Draw* const end = list_.more_ + (list_.tag_ - kArray);
      for (const Draw* d = list_.more_; d != end; ++d) f(*d);
    }
    // The amount drawn from grant g (0 if none).
    int64_t amountFrom(uint32_t g) const {
      if (list_.tag_ < kArray) return list_.tag_ == g ? full_ : 0;
      const Draw* const end = list_.more_ + (list_.tag_ - kArray);
      for (const Draw* d = list_.more_; d != end; ++d) {
        if (d->grant == g) return d->amount;
      }
      return 0;
    }
    bool holds(uint32_t g) const { return amountFrom(g) != 0; }  // draws are never 0
    void copyTo(std::vector<Draw>* out) const {
      out->clear();
      forEach([out](const Draw& d) { out->push_back(d); });
    }

   private:
    const DrawList& list_;
    int64_t full_;
  };
  View view(int64_t full) const { return View(*this, full); }

  size_t size() const { return tag_ < kArray ? 1 : tag_ - kArray; }
  bool empty() const { return tag_ == kArray; }
  // Whether the list holds an array from the pool (tests, invariants).
  bool spilled() const { return tag_ > kArray; }

  void assign(const std::vector<Draw>& draws, int64_t full, DrawPool* pool) {
    if (draws.size() == 1 && draws[0].amount == full) {
      release(pool);
      tag_ = draws[0].grant;
      return;
    }
    const uint32_t tag = kArray + static_cast<uint32_t>(draws.size());
    if (tag != tag_) {  // a re-draw often keeps the length: the array is rewritten in place
      release(pool);
      if (draws.empty()) return;
      more_ = pool->allocate(draws.size());
      tag_ = tag;
    }
    std::copy(draws.begin(), draws.end(), more_);
  }
  // Takes `amount` off the draw from grant g (which must be there with at least that
  // much), in place; true when that draw is gone. A re-draw cuts the latest drawers of an
  // overdrawn grant this way, one draw at a time, without copying the list out and back.
  bool cut(uint32_t g, int64_t amount, int64_t full, DrawPool* pool) {
    if (tag_ < kArray && amount == full) {  // the one draw, whole
      tag_ = kArray;
      return true;
    }
    return cutPart(g, amount, full, pool);
  }
  // Gives its array back to the pool: the list is then empty.
  void release(DrawPool* pool) {
    if (tag_ > kArray) pool->release(more_, tag_ - kArray);
    tag_ = kArray;
  }

 private:
  // A tag below kArray is the grant of the list's one draw, of the full amount. From
  // kArray on, the list is the tag_ - kArray draws at more_ (none: the list is empty).
  static constexpr uint32_t kArray = kMaxGrants;

  // cut() of part of a single draw, or of a draw in an array.
  bool cutPart(uint32_t g, int64_t amount, int64_t full, DrawPool* pool) {
    if (tag_ < kArray) {  // part of the one draw of `full` from g: it takes an array
      more_ = pool->allocate(1);
      more_[0] = {tag_, full - amount};
      tag_ = kArray + 1;
      return false;
    }
    const uint32_t length = tag_ - kArray;
    Draw* lost = more_;
    while (lost->grant != g) ++lost;  // g is there
    lost->amount -= amount;
    if (lost->amount != 0) return false;
    if (length == 2 && more_[lost == more_ ? 1 : 0].amount == full) {
      const uint32_t kept = more_[lost == more_ ? 1 : 0].grant;
      pool->release(more_, 2);
      tag_ = kept;
      return true;
    }
    if (length == 1) {
      release(pool);
      return true;
    }
    Draw* const shorter = pool->allocate(length - 1);  // a list is exactly as long as it is
    std::copy(lost + 1, more_ + length, std::copy(more_, lost, shorter));
    pool->release(more_, length);
    more_ = shorter;
    --tag_;
    return true;
  }

  uint32_t tag_ = kArray;
  Draw* more_ = nullptr;  // an array from the pool, exactly as long as the list
};

// 8 bytes in WebAssembly (this array is a large share of the engine's memory); natively
// the pointer makes it 16.
static_assert(sizeof(DrawList) == 2 * sizeof(Draw*), "a tag and a pointer");

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_DRAW_LIST_H_
