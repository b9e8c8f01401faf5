#include "headroom_tracker.h"

#include <algorithm>
#include <cassert>

namespace gcl {

HeadroomTracker::HeadroomTracker(int64_t time, int64_t leftPart, int64_t total,
                                 const GrantTable& grants, size_t consumptions)
    : time_(time), leftPart_(leftPart), total_(total) {
  // Only grants starting after t enter G(t): W(p, y) with p >= t and R(y) with y >= t.
  for (size_t g = 0; g < grants.size(); ++g) {
    const int64_t start = grants.startTime[g];
    if (start <= time) continue;
    events_.push({grants.endTime[g], start, grants.amount[g], true});
    events_.push({start - 1, start, grants.amount[g], false});
    startsAfter_ += grants.amount[g];
  }
  futureCredit_ = startsAfter_;
  times_.reserve(consumptions + 1);
  chains_.reserve(consumptions + 1);
  scores_.reserve(consumptions);
  times_.push_back(time);
  chains_.append(0);  // W(t, x), nothing yet
}

int64_t HeadroomTracker::headroom() const {
  // G(t) - d(t): the chain may stop at t (R(t)), at a swept time, or at the open one.
  const int64_t open = openDemand_ + openBest_ + futureCredit_;
  const int64_t right = std::max({startsAfter_, scores_.max(), open});
  return std::max<int64_t>(0, total_ - leftPart_ - right);
}

bool HeadroomTracker::addGrant(int64_t amount, int64_t start, int64_t end) {
  // An end before the latest consumption changes W(p, y) for a time y already swept.
  if (end < openTime_) return false;
  total_ += amount;
  if (start <= time_) return true;  // valid at no time after t but ending after them all
  startsAfter_ += amount;
  events_.push({end, start, amount, true});
  // R(y) grows at every swept time before its start, and at the open one if it is before.
  scores_.addPrefix(sweptBefore(start) - 1, amount);
  if (start > openTime_) {
    events_.push({start - 1, start, amount, false});
    futureCredit_ += amount;
  }
  return true;
}

void HeadroomTracker::consume(int64_t amount, int64_t timestamp) {
  assert(!open_ || timestamp >= openTime_);
  if (open_ && timestamp == openTime_) {
    openDemand_ += amount;  // F_t(open) and every chain through it gain the same
    return;
  }
  advance(amount, timestamp);
}

void HeadroomTracker::advance(int64_t amount, int64_t timestamp) {
  if (open_) {
    const int64_t chain = openDemand_ + openBest_;  // F_t(open)
    times_.push_back(openTime_);
    chains_.append(chain);
    scores_.append(chain + futureCredit_);
  }
  // Grants ending before the new time now lie inside (p, timestamp) for every swept p before
  // their start (t included: every one here starts after t); grants starting by it no
  // longer start after the latest consumption.
  while (!events_.empty() && events_.top().key < timestamp) {
    const Event& event = events_.top();
    if (event.end) {
      chains_.addPrefix(sweptBefore(event.start), event.amount);
    } else {
      futureCredit_ -= event.amount;
    }
    events_.pop();
  }
  open_ = true;
  openTime_ = timestamp;
  openDemand_ = amount;
  openBest_ = chains_.max();
}

size_t HeadroomTracker::sweptBefore(int64_t time) const {
  return static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), time) - times_.begin());
}

size_t HeadroomTracker::bytes() const {
  return times_.capacity() * sizeof(int64_t) + chains_.bytes() + scores_.bytes() +
         events_.size() * 2 * sizeof(Event);  // the heap array, at most twice its size
}

size_t HeadroomTracker::bytesFor(size_t consumptions, size_t grants) {
  // Per swept time: its time and two structures' three words (reserved exactly); per grant
  // after t, its two events in a heap whose array may have doubled past them.
  return (consumptions + 1) * (sizeof(int64_t) + 2 * (2 * sizeof(size_t) + sizeof(int64_t))) +
         grants * 4 * sizeof(Event);
}

}  // namespace gcl
