// A from-scratch replay that answers one question: which consumption, in replay order, is
// the first one the grants cannot fund? It is the reference engine's replay; also used to explain a
// rejection (tryConsume's blockingEventId) and to vet a grant change before it is applied
// (voidGrant, setGrantEnd). O((n + G) log G) per call.
#ifndef GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
#define GPU_CREDIT_LEDGER_REPLAY_CHECK_H_

#include <cstddef>
#include <queue>
#include <vector>

#include "engine.h"
#include "headroom.h"

namespace gcl {

// A heap of grant indexes whose top is the grant drawn first (draw order, engine.h):
// firstUnfunded's live grants and the grants a preview lists. One heap type for both, so
// that the module carries one copy of its code rather than a heap and a sort.
struct DrawnLater {
  const GrantTable* grants;
  bool operator()(uint32_t a, uint32_t b) const { return grants->drawsBefore(b, a); }
};
using DrawOrderHeap = std::priority_queue<uint32_t, std::vector<uint32_t>, DrawnLater>;

// `ordered` is in replay order. Returns the index of the first consumption left unfunded
// by earliest-expiry replay, or ordered.size() when every one is funded. With `draws`,
// also records each funded consumption's draws, by index in `ordered`. This loop is the
// definition of the ledger (docs/semantics.md, "Replay"); the reference engine is built on it too.
size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered,
                     std::vector<std::vector<Draw>>* draws = nullptr);

// One step of that replay: draws `need` at `time` from the live grants in `valid`,
// earliest-expiring first, dropping the expired and the spent on the way; false if they run
// out. `remaining` is indexed by grant; with `draws`, each draw is appended to it. The
// incremental engine's replay from a backdated call's time takes the same steps.
bool drawFrom(const GrantTable& grants, int64_t time, int64_t need, DrawOrderHeap* valid,
              int64_t* remaining, std::vector<Draw>* draws);

// Accepted consumption handles in replay order: (timestamp, acceptance order).
std::vector<uint32_t> replayOrder(const Engine& engine, size_t count);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
