// Consumptions submitted with Ledger::submit that could not be funded yet, in retry
// order: (timestamp, arrival). Looked up by event id, which they share with accepted
// consumptions.
#ifndef GPU_CREDIT_LEDGER_PENDING_QUEUE_H_
#define GPU_CREDIT_LEDGER_PENDING_QUEUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl {

class PendingQueue {
 public:
  const PendingConsumption* find(std::string_view eventId) const {
    const auto found = byId_.find(eventId);
    return found == byId_.end() ? nullptr : &byOrder_.at(found->second);
  }
  // Queues a consumption whose id is not queued yet.
  void add(PendingConsumption consumption) {
    const Key key{consumption.timestamp, arrivals_++};
    bytes_ += entryBytes(consumption.eventId);
    byId_.emplace(consumption.eventId, key);
    byOrder_.emplace(key, std::move(consumption));
  }
  bool remove(std::string_view eventId) {
    const auto found = byId_.find(eventId);
    if (found == byId_.end()) return false;
    bytes_ -= entryBytes(found->first);
    byOrder_.erase(found->second);
    byId_.erase(found);
    return true;
  }
  // Removes the queued consumptions with timestamp < `time` (a prefix of the retry order)
  // and appends them to *out in retry order.
  void dropBefore(int64_t time, std::vector<PendingConsumption>* out) {
    while (!byOrder_.empty() && byOrder_.begin()->first.first < time) {
      auto first = byOrder_.begin();
      bytes_ -= entryBytes(first->second.eventId);
      byId_.erase(first->second.eventId);
      out->push_back(std::move(first->second));
      byOrder_.erase(first);
    }
  }
  // In retry order.
  void list(std::vector<PendingConsumption>* out) const {
    out->clear();
    out->reserve(byOrder_.size());
    for (const auto& entry : byOrder_) out->push_back(entry.second);
  }
  size_t size() const { return byOrder_.size(); }
  bool empty() const { return byOrder_.empty(); }
  // Heap bytes, approximately (O(1), for memory budgets).
  size_t bytes() const { return bytes_; }

 private:
  using Key = std::pair<int64_t, uint64_t>;  // (timestamp, arrival)
  // Two tree nodes and two copies of the id per entry.
  static size_t entryBytes(std::string_view eventId) { return 2 * (96 + eventId.size()); }

  std::map<Key, PendingConsumption> byOrder_;
  std::map<std::string, Key, std::less<>> byId_;
  uint64_t arrivals_ = 0;
  size_t bytes_ = 0;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_PENDING_QUEUE_H_
