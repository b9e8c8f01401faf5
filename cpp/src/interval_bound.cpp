// The interval bound of docs/algorithms.md, fact 22: one pass over the consumptions and the
// grants finds, for a backdated call's time, the interval around it with the least spare
// credit; the engine remembers the intervals that rejected a call and keeps their values
// exact under later writes.
#include <algorithm>
#include <vector>

#include "incremental_engine.h"

namespace gcl {

IncrementalEngine::ScannedIntervals IncrementalEngine::scanInterval(int64_t timestamp) const {
  // docs/algorithms.md, fact 22: for consumption times x <= timestamp <= y (or the time
  // itself at either end), the headroom is at most C - (L(x) + D[x, timestamp)) -
  // (R(y) + D[timestamp, y]); the two brackets are maximised apart. Each grant ending
  // before the time counts in L(x) from the first candidate x after its end on, each grant
  // starting after it in R(y) up to the last candidate y before its start: it is added to
  // that candidate's bucket, and one sweep per side sums the buckets.
  const size_t count = order_.size();
  auto timeAt = [&](size_t i) { return timestamp_[order_[i]]; };
  size_t probes = 0;
  // The first index in [lo, hi) whose time is after `value` (at or after it, unless
  // `strict`), searched outward from `hint`: O(1) when the grants come in time order,
  // O(log n) otherwise.
  auto search = [&](size_t hint, size_t lo, size_t hi, int64_t value, bool strict) {
    auto below = [&](size_t i) {
      ++probes;
      return timeAt(i) < value || (strict && timeAt(i) == value);
    };
    size_t a = lo;
    size_t b = hi;
    hint = std::min(std::max(hint, lo), hi);
    if (hint < hi && below(hint)) {
      a = hint + 1;
      for (size_t step = 1;; step *= 2) {
        const size_t probe = a + step - 1;
        if (probe >= hi || !below(probe)) {
          b = std::min(probe, hi);
          break;
        }
        a = probe + 1;
      }
    } else {
      b = hint;
      for (size_t step = 1;; step *= 2) {
        if (b < lo + step || below(b - step)) {
          a = b < lo + step ? lo : b - step + 1;
          break;
        }
        b -= step;
      }
    }
    while (a < b) {
      const size_t mid = a + (b - a) / 2;
      if (below(mid)) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    return a;
  };
  const size_t split = static_cast<size_t>(
      std::partition_point(order_.begin(), order_.end(),
                           [&](uint32_t c) { return timestamp_[c] < timestamp; }) -
      order_.begin());
  // Left buckets at [0, split] (split: the time itself), right ones at [split + 1, count + 1].
  std::vector<int64_t> bucket(count + 2, 0);
  int64_t total = 0;
  int64_t endedBefore = 0;   // L(timestamp)
  int64_t startedAfter = 0;  // R(timestamp)
  int64_t afterHead = 0;     // R(head time)
  size_t leftHint = 0;
  size_t rightHint = split;
  for (size_t g = 0; g < drawn_.size(); ++g) {
    const int64_t amount = grants_.amount[g];
    total += amount;
    const int64_t end = grants_.endTime[g];
    const int64_t start = grants_.startTime[g];
    if (end < timestamp) {
      leftHint = search(leftHint, 0, split, end, /*strict=*/true);
      bucket[leftHint] += amount;
      endedBefore += amount;
    } else if (start > timestamp) {
      rightHint = search(rightHint, split, count, start, /*strict=*/false);
      bucket[rightHint + 1] += amount;
      startedAfter += amount;
      if (start > headTime_) afterHead += amount;
    }
  }
  // Left: from the time itself back to the earliest consumption; L(x_i) loses the grants
  // ending at or after x_i, D[x_i, timestamp) gains c_i. Each maximum is first met at the
  // earliest consumption of its time (amounts are positive).
  int64_t ended = endedBefore;
  int64_t demand = 0;
  int64_t left = ended;
  int64_t from = timestamp;
  for (size_t i = split; i-- > 0;) {
    ended -= bucket[i + 1];
    demand += amount_[order_[i]];
    if (ended + demand > left) {
      left = ended + demand;
      from = timeAt(i);
    }
  }
  // Right: from the time itself on; R(y_m) loses the grants starting at or before y_m,
  // D[timestamp, y_m] gains c_m.
  int64_t notStarted = startedAfter;
  demand = 0;
  int64_t right = notStarted;
  int64_t to = timestamp;
  for (size_t m = split; m < count; ++m) {
    notStarted -= bucket[m + 1];
    demand += amount_[order_[m]];
    if (notStarted + demand > right) {
      right = notStarted + demand;
      to = timeAt(m);
    }
  }
  // The open form: to the head time, R(head time) and all the demand from the time on.
  const IntervalBound open{from, INT64_MAX, total - left - afterHead - demand, true};
  return {
      {from, to, total - left - right, false}, open, count + drawn_.size() + kProbeWork * probes};
}

int64_t IncrementalEngine::intervalBoundAt(int64_t timestamp) const {
  int64_t bound = INT64_MAX;
  for (size_t i = 0; i < std::min(intervalCount_, kMaxIntervals); ++i) {
    const IntervalBound& interval = intervals_[i];
    if (interval.from <= timestamp && timestamp <= interval.to) {
      bound = std::min(bound, interval.value);
    }
  }
  return bound;
}

void IncrementalEngine::intervalsSeeGrant(int64_t amount, int64_t start, int64_t end) {
  // Valid somewhere in [from, to]: its credit joins the interval's (fact 22). An open
  // interval takes a grant starting after the head time when the head passes its start.
  for (size_t i = 0; i < std::min(intervalCount_, kMaxIntervals); ++i) {
    IntervalBound& interval = intervals_[i];
    const int64_t to = interval.open ? headTime_ : interval.to;
    if (start <= to && end >= interval.from) interval.value += amount;
  }
}

void IncrementalEngine::intervalsSeeStart(int64_t amount, int64_t end) {
  for (size_t i = 0; i < std::min(intervalCount_, kMaxIntervals); ++i) {
    IntervalBound& interval = intervals_[i];
    if (interval.open && end >= interval.from) interval.value += amount;
  }
}

void IncrementalEngine::intervalsSeeConsumption(int64_t amount, int64_t timestamp) {
  for (size_t i = 0; i < std::min(intervalCount_, kMaxIntervals); ++i) {
    IntervalBound& interval = intervals_[i];
    if (interval.from <= timestamp && timestamp <= interval.to) interval.value -= amount;
  }
}

}  // namespace gcl
