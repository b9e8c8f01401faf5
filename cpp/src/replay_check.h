// A from-scratch replay that answers one question: which consumption, in replay order, is
// the first one the grants cannot fund? Used to explain a rejection (tryConsume's
// blockingEventId) and to vet a grant change before it is applied (voidGrant,
// setGrantEnd). O((n + G) log G) per call.
#ifndef GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
#define GPU_CREDIT_LEDGER_REPLAY_CHECK_H_

#include <cstddef>
#include <vector>

#include "engine.h"
#include "headroom.h"

namespace gcl {

// `ordered` is in replay order. Returns the index of the first consumption left unfunded
// by earliest-expiry replay, or ordered.size() when every one is funded.
size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered);

// Accepted consumption handles in replay order: (timestamp, acceptance order).
std::vector<uint32_t> replayOrder(const Engine& engine, size_t count);

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_REPLAY_CHECK_H_
