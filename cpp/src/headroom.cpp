#include "headroom.h"

#include <algorithm>
#include <utility>

#include "sort_keys.h"

namespace gcl {
namespace {

constexpr int64_t kUnset = INT64_MIN / 4;  // below any score
constexpr size_t kNone = SIZE_MAX;

// The maximum of values set at positions 0, 1, 2, ... in order, under "add delta >= 0 to
// every position before `end`" (end at most the number set). A position whose value is
// <= that of an earlier one can never be the maximum again: every add that reaches it
// reaches the earlier one too. So only a chain of candidates with increasing values is
// kept, each as its difference to the previous one; a dominated candidate is unlinked and
// skipped from then on (union-find "next live position"). Amortized O(α) per call.
class PrefixAddMax {
 public:
  explicit PrefixAddMax(size_t size) : next_(size + 1), previous_(size, kNone), diff_(size, 0) {
    for (size_t i = 0; i <= size; ++i) next_[i] = i;
  }
  int64_t max() const { return top_ == kNone ? kUnset : topValue_; }

  void append(size_t position, int64_t value) {
    if (top_ != kNone && value <= topValue_) {
      unlink(position);
      return;
    }
    if (top_ != kNone) diff_[position] = value - topValue_;
    previous_[position] = top_;
    top_ = position;
    topValue_ = value;
  }

  void addPrefix(size_t end, int64_t delta) {
    if (top_ == kNone || end == 0) return;
    size_t first = live(end);  // the first candidate not reached by the add
    if (first > top_) {
      topValue_ += delta;  // every candidate is reached
      return;
    }
    if (previous_[first] == kNone) return;  // no candidate is reached
    diff_[first] -= delta;
    while (diff_[first] <= 0) {  // now no better than the candidate before it
      const size_t before = previous_[first];
      unlink(first);
      if (first == top_) {
        topValue_ -= diff_[first];
        top_ = before;
        return;
      }
      const size_t after = live(first + 1);
      diff_[after] += diff_[first];
      previous_[after] = before;
      first = after;
    }
  }

 private:
  void unlink(size_t position) { next_[position] = position + 1; }
  size_t live(size_t position) {
    size_t root = position;
    while (next_[root] != root) root = next_[root];
    while (next_[position] != root) position = std::exchange(next_[position], root);
    return root;
  }

  std::vector<size_t> next_;      // union-find: the first live position at or after i
  std::vector<size_t> previous_;  // the candidate before, for live candidates
  std::vector<int64_t> diff_;     // value minus the previous candidate's value
  size_t top_ = kNone;            // the last candidate: it holds the maximum
  int64_t topValue_ = kUnset;
};

}  // namespace

HeadroomIndex::Side::Side(std::vector<Window> windows, std::vector<TimedAmount> demand) {
  std::sort(demand.begin(), demand.end(),
            [](const TimedAmount& a, const TimedAmount& b) { return a.timestamp < b.timestamp; });
  for (const TimedAmount& item : demand) {
    if (times_.empty() || times_.back() != item.timestamp) {
      times_.push_back(item.timestamp);
      demand_.push_back(0);
    }
    demand_.back() += item.amount;
  }
  std::vector<SortKey> byEnd(windows.size());  // (endTime, position)
  for (size_t i = 0; i < windows.size(); ++i) {
    byEnd[i] = {windows[i].endTime, static_cast<int64_t>(i)};
  }
  sortKeys(&byEnd);
  std::vector<Window> ended;
  ended.reserve(windows.size());
  for (const SortKey& item : byEnd) ended.push_back(windows[static_cast<size_t>(item.value)]);
  windows = std::move(ended);
  // Sweep the times at which L or the best earlier chain can change: just after each
  // consumption time p (p joins the p < t side) and just after each grant end e (the grant
  // joins L(t) and, for every p before its start, W(p, t)). Times may be negative (the
  // mirrored side) but stay far from overflow.
  PrefixAddMax chains(times_.size());
  int64_t endedBefore = 0;
  size_t joined = 0;  // consumption times already on the p < t side
  size_t next = 0;    // windows already ended
  steps_.reserve(times_.size() + windows.size());
  while (joined < times_.size() || next < windows.size()) {
    const int64_t consumptionStep = joined < times_.size() ? times_[joined] + 1 : INT64_MAX;
    const int64_t windowStep = next < windows.size() ? windows[next].endTime + 1 : INT64_MAX;
    const int64_t step = std::min(consumptionStep, windowStep);
    if (consumptionStep == step) {
      // F(p) sees everything in effect at p: all steps up to p, none at p + 1.
      const int64_t score = demand_[joined] + std::max(endedBefore, chains.max());
      chains.append(joined++, score);
    }
    for (; next < windows.size() && windows[next].endTime + 1 == step; ++next) {
      endedBefore += windows[next].amount;
      // Consumption times before its start; all joined already (start <= end < step).
      const auto before = static_cast<size_t>(
          std::lower_bound(times_.begin(), times_.end(), windows[next].startTime) - times_.begin());
      chains.addPrefix(before, windows[next].amount);
    }
    steps_.push_back({step, endedBefore, chains.max()});
  }
}

int64_t HeadroomIndex::Side::demandAt(int64_t time) const {
  const auto it = std::lower_bound(times_.begin(), times_.end(), time);
  return it != times_.end() && *it == time ? demand_[it - times_.begin()] : 0;
}

int64_t HeadroomIndex::Side::chainEndingAt(int64_t time) const {
  const auto after = std::upper_bound(steps_.begin(), steps_.end(), time,
                                      [](int64_t t, const Step& s) { return t < s.from; });
  if (after == steps_.begin()) return demandAt(time);  // nothing ends or happens before
  const Step& step = *(after - 1);
  return demandAt(time) + std::max(step.endedBefore, step.bestBefore);
}

namespace {

std::vector<TimedAmount> mirrored(std::vector<TimedAmount> demand) {
  for (TimedAmount& item : demand) item.timestamp = -item.timestamp;
  return demand;
}

}  // namespace

HeadroomIndex::HeadroomIndex(const GrantTable& grants, const std::vector<TimedAmount>& demand)
    : left_({}, {}), right_({}, {}) {
  std::vector<Window> windows;
  std::vector<Window> mirror;
  windows.reserve(grants.size());
  mirror.reserve(grants.size());
  for (uint32_t g = 0; g < grants.size(); ++g) {
    windows.push_back({grants.startTime[g], grants.endTime[g], grants.amount[g]});
    mirror.push_back({-grants.endTime[g], -grants.startTime[g], grants.amount[g]});
    total_ += grants.amount[g];
  }
  left_ = Side(std::move(windows), demand);
  right_ = Side(std::move(mirror), mirrored(demand));
}

std::unique_ptr<HeadroomIndex> HeadroomIndex::of(const GrantTable& grants, const Engine& engine,
                                                 size_t consumptions) {
  std::vector<TimedAmount> demand(consumptions);
  for (uint32_t c = 0; c < consumptions; ++c) {
    demand[c] = {engine.timestampOf(c), engine.amountOf(c)};
  }
  return std::make_unique<HeadroomIndex>(grants, demand);
}

int64_t HeadroomIndex::at(int64_t timestamp) const {
  const int64_t left = left_.chainEndingAt(timestamp);
  const int64_t right = right_.chainEndingAt(-timestamp);
  return std::max<int64_t>(0, total_ - left - right + left_.demandAt(timestamp));
}

}  // namespace gcl
