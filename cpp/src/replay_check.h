// A from-scratch replay that answers one question: which consumption, in replay order, is
// the first one the grants cannot fund? It is the reference engine's replay; also used to explain a
// rejection (tryConsume's blockingEventId) and to vet a grant change before it is applied
// (voidGrant, setGrantEnd). O((n + G) log G) per call.
#ifndef GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
#define GPU_CREDIT_LEDGER_REPLAY_CHECK_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "headroom.h"

namespace gcl {

// A grant in a replay's draw-order heap, with its end (draw order's first key) and what
// remains of it beside its index: a replay's step reads neither the grant table nor an
// array of every grant's remaining credit, only the heap's top.
struct LiveGrant {
  int64_t end;
  int64_t remaining;
  uint32_t grant;
};

// Whether grant `a` comes after grant `b` in draw order (engine.h).
inline bool drawnLater(const GrantTable& grants, const LiveGrant& a, const LiveGrant& b) {
  return a.end != b.end ? a.end > b.end : grants.idBefore(b.grant, a.grant);
}

// A heap of grants whose top is the grant drawn first (draw order, engine.h): the replay's
// live grants and the grants a preview lists. One heap type for all of them, so that the
// module carries one copy of its code rather than a heap and a sort.
class DrawOrderHeap {
 public:
  explicit DrawOrderHeap(const GrantTable* grants) : grants_(grants) {}
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Its `remaining` may be changed in place: draw order does not depend on it.
  LiveGrant& top() { return heap_.front(); }
  // Out of line: one copy, for every live set that holds one (LiveGrants' second lane).
  __attribute__((noinline)) void push(uint32_t grant, int64_t remaining) {
    const LiveGrant item{grants_->endTime[grant], remaining, grant};
    size_t at = heap_.size();
    heap_.emplace_back();
    while (at > 0) {  // the hole moves up past every parent drawn later
      const size_t parent = (at - 1) / 2;
      if (!drawnLater(*grants_, heap_[parent], item)) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = item;
  }
  __attribute__((noinline)) void pop() {
    const LiveGrant last = heap_.back();
    heap_.pop_back();
    const size_t size = heap_.size();
    if (size == 0) return;
    size_t at = 0;
    for (;;) {  // the hole at the top moves down past every child drawn before `last`
      size_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && drawnLater(*grants_, heap_[child], heap_[child + 1])) ++child;
      if (!drawnLater(*grants_, last, heap_[child])) break;
      heap_[at] = heap_[child];
      at = child;
    }
    heap_[at] = last;
  }

 private:
  const GrantTable* grants_;
  std::vector<LiveGrant> heap_;
};

// The live grants of a replay that receives them in start order: a queue, and a
// DrawOrderHeap beside it. A grant that comes after the queue's newest in draw order joins
// the queue's back, O(1); any other goes into the heap; the top is the first of the two
// tops. Where windows do not nest, start order is draw order too (the chain of
// docs/algorithms.md, fact 8), and a step touches no heap. Its state is four pointers, and
// its own address is never handed on (the buffer grows out of line, by value), so that the
// replay's loop, which inlines it, keeps them in registers: a vector's fields are read and
// written through memory at each step, and the step becomes a chain of waits for its own
// stores; and V8, which has fewer registers to give a WebAssembly loop than a native
// compiler, ran the loop 10-20% slower with each further value it had to keep (an index
// and a capacity, the growth inline, a work counter). The buffer holds at most twice what
// is in it, as a vector would, and is not sized up front: a fresh buffer for every grant
// made a first call slower than the whole loop (the memory's first touch).
class LiveGrants {
 public:
  LiveGrants(const GrantTable* grants, DrawOrderHeap* heap) : grants_(grants), heap_(heap) {}
  LiveGrants(const LiveGrants&) = delete;
  LiveGrants& operator=(const LiveGrants&) = delete;
  ~LiveGrants() { delete[] queue_; }
  GCL_ALWAYS_INLINE bool empty() const { return head_ == tail_ && heap_->empty(); }
  GCL_ALWAYS_INLINE LiveGrant& top() { return queueFirst() ? *head_ : heap_->top(); }
  GCL_ALWAYS_INLINE void pop() {
    if (queueFirst()) {
      ++head_;
    } else {
      heap_->pop();
    }
  }
  GCL_ALWAYS_INLINE void push(uint32_t grant, int64_t remaining) {
    push(grant, grants_->endTime[grant], remaining);
  }
  // push(grant, remaining), given end == the grant's end (read by the caller from its own
  // pointer to the grants' ends, which the replay's loop keeps in a register).
  GCL_ALWAYS_INLINE void push(uint32_t grant, int64_t end, int64_t remaining) {
    const LiveGrant joining{end, remaining, grant};
    if (head_ != tail_ && !drawnLater(*grants_, joining, tail_[-1])) {
      heap_->push(grant, remaining);
      return;
    }
    if (tail_ == limit_) {
      const Buffer room = makeRoom({queue_, head_, tail_, limit_});
      queue_ = room.queue;
      head_ = room.head;
      tail_ = room.tail;
      limit_ = room.limit;
    }
    LiveGrant& item = *tail_++;  // field by field: no struct copy through memory
    item.end = joining.end;
    item.remaining = remaining;
    item.grant = grant;
  }

 private:
  GCL_ALWAYS_INLINE bool queueFirst() const {
    return head_ != tail_ && (heap_->empty() || drawnLater(*grants_, heap_->top(), *head_));
  }
  struct Buffer {
    LiveGrant* queue;
    LiveGrant* head;
    LiveGrant* tail;
    LiveGrant* limit;
  };
  // The spent front goes, and the buffer doubles when half full. Out of line, by value:
  // the queue's fields stay in the loop's registers.
  __attribute__((noinline)) static Buffer makeRoom(Buffer b) {
    const size_t live = static_cast<size_t>(b.tail - b.head);
    const size_t capacity = static_cast<size_t>(b.limit - b.queue);
    if (2 * live < capacity) {  // compacted in place
      std::copy(b.head, b.tail, b.queue);
      return {b.queue, b.queue, b.queue + live, b.limit};
    }
    const size_t grown = std::max<size_t>(64, 2 * capacity);
    LiveGrant* const to = new LiveGrant[grown];
    std::copy(b.head, b.tail, to);
    delete[] b.queue;
    return {to, to, to + live, to + grown};
  }
  const GrantTable* grants_;
  DrawOrderHeap* heap_;
  LiveGrant* queue_ = nullptr;  // the buffer; draw order from head_ to tail_
  LiveGrant* head_ = nullptr;
  LiveGrant* tail_ = nullptr;
  LiveGrant* limit_ = nullptr;
};

// `ordered` is in replay order. Returns the index of the first consumption left unfunded
// by earliest-expiry replay, or ordered.size() when every one is funded. With `draws`,
// also records each funded consumption's draws, by index in `ordered`. This loop is the
// definition of the ledger (docs/semantics.md, "Replay"); the reference engine is built on it too.
size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered,
                     std::vector<std::vector<Draw>>* draws = nullptr);

// One step of that replay: draws `need` at `time` from the live grants in `valid` (a
// DrawOrderHeap or LiveGrants), earliest-expiring first, dropping the expired and the spent
// on the way; false if they run out. With `draws`, each draw is appended to it. The
// incremental engine's replay from a backdated call's time takes the same steps.
template <class Live>
GCL_ALWAYS_INLINE bool drawFrom(int64_t time, int64_t need, Live* valid, std::vector<Draw>* draws) {
  while (need > 0) {
    while (!valid->empty() && (valid->top().end < time || valid->top().remaining == 0)) {
      valid->pop();
    }
    if (valid->empty()) return false;
    LiveGrant& live = valid->top();
    const int64_t take = std::min(need, live.remaining);
    live.remaining -= take;
    need -= take;
    if (draws != nullptr) draws->push_back({live.grant, take});
  }
  return true;
}

// Accepted consumption handles in replay order: (timestamp, acceptance order).
std::vector<uint32_t> replayOrder(const Engine& engine, size_t count);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
