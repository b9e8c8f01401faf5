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

// A heap of grants whose top is the grant drawn first (draw order, engine.h): the replay's
// live grants and the grants a preview lists. One heap type for all of them, so that the
// module carries one copy of its code rather than a heap and a sort.
class DrawOrderHeap {
 public:
  explicit DrawOrderHeap(const GrantTable* grants) : later_{grants} {}
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // Its `remaining` may be changed in place: draw order does not depend on it.
  LiveGrant& top() { return heap_.front(); }
  void push(uint32_t grant, int64_t remaining) {
    const LiveGrant item{later_.grants->endTime[grant], remaining, grant};
    size_t at = heap_.size();
    heap_.emplace_back();
    while (at > 0) {  // the hole moves up past every parent drawn later
      const size_t parent = (at - 1) / 2;
      if (!later_(heap_[parent], item)) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = item;
  }
  void pop() {
    const LiveGrant last = heap_.back();
    heap_.pop_back();
    const size_t size = heap_.size();
    if (size == 0) return;
    size_t at = 0;
    for (;;) {  // the hole at the top moves down past every child drawn before `last`
      size_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && later_(heap_[child], heap_[child + 1])) ++child;
      if (!later_(last, heap_[child])) break;
      heap_[at] = heap_[child];
      at = child;
    }
    heap_[at] = last;
  }

 private:
  struct DrawnLater {
    const GrantTable* grants;
    bool operator()(const LiveGrant& a, const LiveGrant& b) const {
      return a.end != b.end ? a.end > b.end : grants->idBefore(b.grant, a.grant);
    }
  };
  DrawnLater later_;
  std::vector<LiveGrant> heap_;
};

// `ordered` is in replay order. Returns the index of the first consumption left unfunded
// by earliest-expiry replay, or ordered.size() when every one is funded. With `draws`,
// also records each funded consumption's draws, by index in `ordered`. This loop is the
// definition of the ledger (docs/semantics.md, "Replay"); the reference engine is built on it too.
size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered,
                     std::vector<std::vector<Draw>>* draws = nullptr);

// One step of that replay: draws `need` at `time` from the live grants in `valid`,
// earliest-expiring first, dropping the expired and the spent on the way; false if they run
// out. With `draws`, each draw is appended to it. The incremental engine's replay from a
// backdated call's time takes the same steps.
bool drawFrom(int64_t time, int64_t need, DrawOrderHeap* valid, std::vector<Draw>* draws);

// Accepted consumption handles in replay order: (timestamp, acceptance order).
std::vector<uint32_t> replayOrder(const Engine& engine, size_t count);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
