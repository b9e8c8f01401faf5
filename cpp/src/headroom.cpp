#include "headroom.h"

#include <algorithm>
#include <utility>

#include "prefix_add_max.h"
#include "sort_keys.h"

namespace gcl {
namespace {

// The first index of ascending `times` at or after `time`, searched outward from `hint`
// (galloping): O(log d) for an answer d places away, O(1) when windows arrive in start order.
size_t firstAtOrAfter(const std::vector<int64_t>& times, int64_t time, size_t hint) {
  const size_t size = times.size();
  size_t low;
  size_t high;
  size_t bound = 1;
  if (hint < size && times[hint] < time) {
    // Everything before `low` is earlier than `time`.
    low = hint + 1;
    while (low + bound - 1 < size && times[low + bound - 1] < time) {
      low += bound;
      bound *= 2;
    }
    high = std::min(low + bound - 1, size);
  } else {
    // The answer is at most `high`.
    high = std::min(hint, size);
    while (high >= bound && times[high - bound] >= time) {
      high -= bound;
      bound *= 2;
    }
    low = high >= bound ? high - bound + 1 : 0;
  }
  return static_cast<size_t>(std::lower_bound(times.begin() + low, times.begin() + high, time) -
                             times.begin());
}

}  // namespace

// Where the sweep stands: the maximum structure over the chains so far, the windows (by
// ascending end) and how far each list is taken in.
struct HeadroomIndex::Side::Sweep {
  explicit Sweep(std::vector<Window> ends) : windows(std::move(ends)) {}
  PrefixAddMax chains;  // sized when the sweep starts: a side never queried costs nothing
  bool started = false;
  std::vector<Window> windows;
  int64_t endedBefore = 0;
  size_t joined = 0;  // consumption times already on the p < t side
  size_t next = 0;    // windows already ended
  size_t before = 0;  // the last window's count of consumption times before its start
};

HeadroomIndex::Side::Side(std::vector<int64_t> times, std::vector<int64_t> demand,
                          std::vector<Window> windows)
    : times_(std::move(times)), demand_(std::move(demand)) {
  // Room for every step at once: what the index holds does not grow while it sweeps.
  steps_.reserve(times_.size() + windows.size());
  if (!times_.empty() || !windows.empty()) {
    sweep_ = std::make_unique<Sweep>(std::move(windows));
  }
}

HeadroomIndex::Side::Side(Side&&) noexcept = default;
HeadroomIndex::Side& HeadroomIndex::Side::operator=(Side&&) noexcept = default;
HeadroomIndex::Side::~Side() = default;

size_t HeadroomIndex::Side::bytes() const {
  size_t bytes =
      (times_.capacity() + demand_.capacity()) * sizeof(int64_t) + steps_.capacity() * sizeof(Step);
  if (sweep_) bytes += sweep_->windows.capacity() * sizeof(Window) + sweep_->chains.bytes();
  return bytes;
}

void HeadroomIndex::Side::sweepThrough(int64_t time) const {
  // The times at which L or the best earlier chain can change: just after each consumption
  // time p (p joins the p < t side) and just after each grant end e (the grant joins L(t)
  // and, for every p before its start, W(p, t)). Times may be negative (the mirrored side)
  // but stay far from overflow.
  if (!sweep_) return;
  Sweep& s = *sweep_;
  const std::vector<Window>& windows = s.windows;
  while (s.joined < times_.size() || s.next < windows.size()) {
    const int64_t consumptionStep = s.joined < times_.size() ? times_[s.joined] + 1 : INT64_MAX;
    const int64_t windowStep = s.next < windows.size() ? windows[s.next].endTime + 1 : INT64_MAX;
    const int64_t step = std::min(consumptionStep, windowStep);
    if (step > time) return;  // not in effect at `time`: a later query sweeps it
    if (!s.started) {
      s.chains.reserve(times_.size());
      s.started = true;
    }
    if (consumptionStep == step) {
      // F(p) sees everything in effect at p: all steps up to p, none at p + 1.
      const int64_t score = demand_[s.joined] + std::max(s.endedBefore, s.chains.max());
      s.chains.append(score);
      ++s.joined;
    }
    for (; s.next < windows.size() && windows[s.next].endTime + 1 == step; ++s.next) {
      s.endedBefore += windows[s.next].amount;
      // Consumption times before its start; all joined already (start <= end < step).
      s.before = firstAtOrAfter(times_, windows[s.next].startTime, s.before);
      s.chains.addPrefix(s.before, windows[s.next].amount);
    }
    const int64_t value = std::max(s.endedBefore, s.chains.max());
    if (value != (steps_.empty() ? 0 : steps_.back().value)) steps_.push_back({step, value});
  }
  sweep_.reset();  // every step is swept: the scratch goes
}

int64_t HeadroomIndex::Side::demandAt(int64_t time) const {
  const auto it = std::lower_bound(times_.begin(), times_.end(), time);
  return it != times_.end() && *it == time ? demand_[it - times_.begin()] : 0;
}

int64_t HeadroomIndex::Side::chainEndingAt(int64_t time) const {
  sweepThrough(time);
  const auto after = std::upper_bound(steps_.begin(), steps_.end(), time,
                                      [](int64_t t, const Step& s) { return t < s.from; });
  if (after == steps_.begin()) return demandAt(time);  // nothing ends or happens before
  return demandAt(time) + (after - 1)->value;
}

namespace {

// Whether `items` are in `less` order already, or in the reverse one (then reversed):
// ledgers mostly grow in time order, so consumptions and grant windows arrive sorted.
template <typename T, typename Less>
bool inOrderOrReversed(std::vector<T>* items, Less less) {
  if (std::is_sorted(items->begin(), items->end(), less)) return true;
  const auto greater = [&](const T& a, const T& b) { return less(b, a); };
  if (!std::is_sorted(items->begin(), items->end(), greater)) return false;
  // Equal keys keep no meaningful order here: the sweeps read them as one group.
  std::reverse(items->begin(), items->end());
  return true;
}

// Grant windows by ascending end; out of order, through the core's one sort by a key.
template <typename Window>
void sortByEnd(std::vector<Window>* windows) {
  if (inOrderOrReversed(windows,
                        [](const Window& a, const Window& b) { return a.endTime < b.endTime; })) {
    return;
  }
  std::vector<SortKey> byEnd(windows->size());  // (endTime, position)
  for (size_t i = 0; i < windows->size(); ++i) {
    byEnd[i] = {(*windows)[i].endTime, static_cast<int64_t>(i)};
  }
  sortKeys(&byEnd);
  std::vector<Window> ended;
  ended.reserve(windows->size());
  for (const SortKey& item : byEnd) ended.push_back((*windows)[static_cast<size_t>(item.value)]);
  *windows = std::move(ended);
}

// Demand per distinct time: `times` strictly ascending, `amounts` the total at each.
struct Demand {
  std::vector<int64_t> times;
  std::vector<int64_t> amounts;
};

Demand demandByTime(std::vector<TimedAmount> demand) {
  const auto earlier = [](const TimedAmount& a, const TimedAmount& b) {
    return a.timestamp < b.timestamp;
  };
  if (!inOrderOrReversed(&demand, earlier)) {
    // Out of order: through the core's one sort by a key (the order of equal times does
    // not matter: their amounts are summed).
    std::vector<SortKey> byTime(demand.size());
    for (size_t i = 0; i < demand.size(); ++i) byTime[i] = {demand[i].timestamp, demand[i].amount};
    sortKeys(&byTime);
    for (size_t i = 0; i < demand.size(); ++i) demand[i] = {byTime[i].key, byTime[i].value};
  }
  Demand out;
  out.times.reserve(demand.size());
  out.amounts.reserve(demand.size());
  for (const TimedAmount& item : demand) {
    if (out.times.empty() || out.times.back() != item.timestamp) {
      out.times.push_back(item.timestamp);
      out.amounts.push_back(0);
    }
    out.amounts.back() += item.amount;
  }
  return out;
}

// The same on mirrored time (-t, ascending).
Demand mirrored(const Demand& demand) {
  Demand out{{demand.times.rbegin(), demand.times.rend()},
             {demand.amounts.rbegin(), demand.amounts.rend()}};
  for (int64_t& time : out.times) time = -time;
  return out;
}

}  // namespace

HeadroomIndex::HeadroomIndex(const GrantTable& grants, std::vector<TimedAmount> demand)
    : left_({}, {}, {}), right_({}, {}, {}) {
  Demand byTime = demandByTime(std::move(demand));
  Demand mirror = mirrored(byTime);
  std::vector<Window> windows;
  windows.reserve(grants.size());
  for (uint32_t g = 0; g < grants.size(); ++g) {
    windows.push_back({grants.startTime[g], grants.endTime[g], grants.amount[g]});
    total_ += grants.amount[g];
  }
  sortByEnd(&windows);
  // Mirrored: [-end, -start], by -start ascending.
  std::vector<Window> mirroredWindows;
  mirroredWindows.reserve(windows.size());
  for (const Window& window : windows) {
    mirroredWindows.push_back({-window.endTime, -window.startTime, window.amount});
  }
  sortByEnd(&mirroredWindows);
  left_ = Side(std::move(byTime.times), std::move(byTime.amounts), std::move(windows));
  right_ = Side(std::move(mirror.times), std::move(mirror.amounts), std::move(mirroredWindows));
}

std::unique_ptr<HeadroomIndex> HeadroomIndex::of(const GrantTable& grants, const Engine& engine,
                                                 size_t consumptions, const uint32_t* timeOrder) {
  std::vector<TimedAmount> demand(consumptions);
  for (uint32_t i = 0; i < consumptions; ++i) {
    const uint32_t c = timeOrder ? timeOrder[i] : i;
    demand[i] = {engine.timestampOf(c), engine.amountOf(c)};
  }
  return std::make_unique<HeadroomIndex>(grants, std::move(demand));
}

int64_t HeadroomIndex::chainStartingAt(int64_t timestamp, const GrantTable& grants,
                                       std::vector<TimedAmount> demand) {
  Demand mirror = mirrored(demandByTime(std::move(demand)));
  // The grants starting after t, mirrored ([-end, -start]) and by -start ascending.
  std::vector<Window> windows;
  for (uint32_t g = 0; g < grants.size(); ++g) {
    if (grants.startTime[g] > timestamp) {
      windows.push_back({-grants.endTime[g], -grants.startTime[g], grants.amount[g]});
    }
  }
  sortByEnd(&windows);
  return Side(std::move(mirror.times), std::move(mirror.amounts), std::move(windows))
      .chainEndingAt(-timestamp);
}

int64_t HeadroomIndex::at(int64_t timestamp) const {
  const int64_t left = left_.chainEndingAt(timestamp);
  const int64_t right = right_.chainEndingAt(-timestamp);
  return std::max<int64_t>(0, total_ - left - right + left_.demandAt(timestamp));
}

int64_t Engine::headroomAt(int64_t timestamp) { return headroomIndex()->at(timestamp); }

}  // namespace gcl
