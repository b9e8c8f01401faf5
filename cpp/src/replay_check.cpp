#include "replay_check.h"

#include <algorithm>
#include <numeric>
#include <queue>

namespace gcl {

size_t firstUnfunded(const GrantTable& grants, const std::vector<TimedAmount>& ordered,
                     std::vector<std::vector<Draw>>* draws) {
  if (draws != nullptr) draws->assign(ordered.size(), {});
  std::vector<uint32_t> byStart(grants.size());
  std::iota(byStart.begin(), byStart.end(), 0);
  std::sort(byStart.begin(), byStart.end(),
            [&](uint32_t a, uint32_t b) { return grants.startTime[a] < grants.startTime[b]; });
  auto drawnLater = [&](uint32_t a, uint32_t b) { return grants.drawsBefore(b, a); };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(drawnLater)> valid(drawnLater);
  std::vector<int64_t> remaining(grants.amount);
  size_t nextGrant = 0;
  for (size_t i = 0; i < ordered.size(); ++i) {
    const int64_t t = ordered[i].timestamp;
    while (nextGrant < byStart.size() && grants.startTime[byStart[nextGrant]] <= t) {
      valid.push(byStart[nextGrant++]);
    }
    int64_t need = ordered[i].amount;
    while (need > 0) {
      while (!valid.empty() && (grants.endTime[valid.top()] < t || remaining[valid.top()] == 0)) {
        valid.pop();
      }
      if (valid.empty()) return i;
      const uint32_t g = valid.top();
      const int64_t take = std::min(need, remaining[g]);
      remaining[g] -= take;
      need -= take;
      if (draws != nullptr) (*draws)[i].push_back({g, take});
    }
  }
  return ordered.size();
}

std::vector<uint32_t> replayOrder(const Engine& engine, size_t count) {
  std::vector<uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return engine.timestampOf(a) < engine.timestampOf(b);
  });
  return order;
}

}  // namespace gcl
