#include "replay_check.h"

#include <algorithm>

#include "gpu_credit_ledger/cold_code.h"
#include "sort_keys.h"

GCL_COLD_CODE_BEGIN

namespace gcl {

size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered,
                     std::vector<std::vector<Draw>>* draws) {
  if (draws != nullptr) draws->assign(ordered.size(), {});
  std::vector<SortKey> byStart(grants.size());  // (startTime, grant)
  for (uint32_t g = 0; g < grants.size(); ++g) byStart[g] = {grants.startTime[g], g};
  sortKeys(&byStart);
  DrawOrderHeap heap(&grants);
  LiveGrants valid(&grants, &heap);  // pushed in start order
  size_t nextGrant = 0;
  for (size_t i = 0; i < ordered.size(); ++i) {
    const int64_t t = ordered[i].timestamp;
    while (nextGrant < byStart.size() && byStart[nextGrant].key <= t) {
      const auto g = static_cast<uint32_t>(byStart[nextGrant++].value);
      valid.push(g, grants.amount[g]);
    }
    if (!drawFrom(t, ordered[i].amount, &valid, draws != nullptr ? &(*draws)[i] : nullptr)) {
      return i;
    }
  }
  return ordered.size();
}

std::vector<uint32_t> replayOrder(const Engine& engine, size_t count) {
  // (timestamp, acceptance order): the handle as value keeps equal times in acceptance order.
  std::vector<SortKey> byTime(count);
  for (uint32_t c = 0; c < count; ++c) byTime[c] = {engine.timestampOf(c), c};
  sortKeys(&byTime);
  std::vector<uint32_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = static_cast<uint32_t>(byTime[i].value);
  return order;
}

}  // namespace gcl

GCL_COLD_CODE_END
