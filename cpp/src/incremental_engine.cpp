#include "incremental_engine.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "gpu_credit_ledger/cold_code.h"
#include "replay_check.h"
#include "sort_keys.h"

namespace gcl {

void IncrementalEngine::addGrant(uint32_t grant) {
  drawn_.push_back(0);
  drawers_.emplace_back();
  live_flag_.push_back(0);
  changeMark_.push_back(0);
  assert(byEndAt_.size() == grant);
  if (grant > 0 && grants_.startTime[grant] < grants_.startTime[grant - 1]) {
    grantsInStartOrder_ = false;
  }
  byEndAt_.push_back(byEnd_.insert(grant).first);
  // A grant carried across the horizon may hold nothing: no balance change to record.
  if (grants_.amount[grant] > 0) {
    balances_.addRange(grants_.startTime[grant], grants_.endTime[grant], grants_.amount[grant]);
  }
  if (grants_.startTime[grant] > headTime_) {
    notStarted_.push(grant);
    live_flag_[grant] = 1;
  } else {
    spreadGrant(grant);
  }
  // New credit raises any headroom by at most its amount, and a grant starting after every
  // accepted consumption leaves the headroom before its start as it was (fact 18).
  const int64_t start = grants_.startTime[grant];
  if (start > latestTimestamp()) {
    futureCreditSinceIndex_ += grants_.amount[grant];
    futureCreditFrom_ = std::min(futureCreditFrom_, start);
  } else {
    creditSinceIndex_ += grants_.amount[grant];
  }
  // Draws before its start stay as they were (fact 3), in the trial too.
  if (start <= blocked_.blockerTime) blocked_.valid = false;
  if (!trackers_.empty()) trackGrant(grant);
  if (intervalCount_ > 0) intervalsSeeGrant(grants_.amount[grant], start, grants_.endTime[grant]);
}

void IncrementalEngine::trackGrant(uint32_t grant) {
  // A tracker goes when the grant ends before the latest consumption (fact 21).
  for (size_t i = trackers_.size(); i-- > 0;) {
    if (!trackers_[i]->addGrant(grants_.amount[grant], grants_.startTime[grant],
                                grants_.endTime[grant])) {
      trackers_.erase(trackers_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

void IncrementalEngine::trackConsumption(int64_t amount, int64_t timestamp) {
  for (const auto& tracker : trackers_) tracker->consume(amount, timestamp);
}

bool IncrementalEngine::consume(int64_t amount, int64_t timestamp) {
  if (timestamp >= headTime_) return consumeAtHead(amount, timestamp);
  // Every accepted consumption at or before `timestamp` was already funded out of the
  // grants valid then, so the balance at `timestamp` bounds what the new one can get.
  if (balances_.at(timestamp) < amount) return false;
  return decideBackdated(pushConsumption(amount, timestamp), /*commit=*/true);
}

uint32_t IncrementalEngine::pushConsumption(int64_t amount, int64_t timestamp) {
  amount_.push_back(amount);
  timestamp_.push_back(timestamp);
  draws_.emplace_back();
  return static_cast<uint32_t>(amount_.size() - 1);
}

void IncrementalEngine::popConsumption() {
  amount_.pop_back();
  timestamp_.pop_back();
  draws_.back().release(&drawPool_);
  draws_.pop_back();
}

bool IncrementalEngine::consumeAtHead(int64_t amount, int64_t timestamp) {
  // Last in replay order: it sees every grant's leftover. Moving the head to `timestamp`
  // stands even if it is rejected, since no accepted consumption lies after it.
  advanceHead(timestamp);
  dropSpentLive();
  // Usually the first live grant covers it; otherwise the balance at the head, which is the
  // sum of the leftovers of the grants valid there, decides.
  if (live_.empty()) return false;
  if (leftover(live_.top()) < amount && balances_.at(timestamp) < amount) return false;
  const uint32_t c = pushConsumption(amount, timestamp);
  int64_t need = amount;
  fresh_.clear();
  while (need > 0) {
    dropSpentLive();
    assert(!live_.empty());
    const uint32_t g = live_.top();
    const int64_t take = std::min(need, leftover(g));
    fresh_.push_back({g, take});
    need -= take;
    if (take == leftover(g)) {
      live_.pop();
      live_flag_[g] = 0;
    }
  }
  order_.push_back(c);
  beginChange();
  setDraws(c, fresh_);
  commitChange(c);
  if (!trackers_.empty()) trackConsumption(amount, timestamp);
  if (intervalCount_ > 0) intervalsSeeConsumption(amount, timestamp);
  return true;
}

bool IncrementalEngine::wouldAccept(int64_t amount, int64_t timestamp) {
  if (balances_.at(timestamp) < amount) return false;
  if (timestamp >= headTime_) return true;  // at the head, the balance check is the answer
  return decideBackdated(pushConsumption(amount, timestamp), /*commit=*/false);
}

bool IncrementalEngine::decideBackdated(uint32_t c, bool commit) {
  const int64_t timestamp = timestamp_[c];
  const bool accepted = decideBackdated(c, commit, recent(timestamp));
  if (!accepted) noteRecent(timestamp);
  return accepted;
}

bool IncrementalEngine::decideBackdated(uint32_t c, bool commit, bool retried) {
  // docs/algorithms.md, fact 18: the index built at some point, plus the credit of the grants
  // added since, bounds the headroom from above; a call above it is rejected as the re-draw
  // would reject it, without touching anything. So do the intervals of fact 22.
  const int64_t amount = amount_[c];
  const int64_t timestamp = timestamp_[c];
  // A blocker found at this time for at most this amount is still left unfunded (fact 18,
  // The blocker): more demand at the same time only takes more.
  if (blocked_.valid && timestamp == blocked_.timestamp && amount >= blocked_.amount) {
    ++stats_.blockerRejections;
    popConsumption();
    return false;
  }
  // An interval remembered from an earlier scan (fact 22) bounds it too.
  if (amount > intervalBoundAt(timestamp)) {
    ++stats_.intervalRejections;
    popConsumption();
    return false;
  }
  const int64_t bound = headroomBound(timestamp);
  // A tracker at this time (fact 21) knows the headroom exactly. A time rejected before
  // gets one when the bound cannot decide and the index's left part still holds there: its
  // retries then stay O(1) while the ledger grows at its latest times.
  HeadroomTracker* tracker = trackerAt(timestamp);
  if (tracker == nullptr && retried && amount <= bound && !indexExact(1)) {
    tracker = startTracker(timestamp, /*pushed=*/1);
  }
  if (tracker != nullptr) ++stats_.trackerAnswers;
  if (amount > (tracker != nullptr ? tracker->headroom() : bound)) {
    ++stats_.boundRejections;
    popConsumption();
    return false;
  }
  // With an index of the current state, or a tracker, amount <= headroom: the re-draw
  // accepts, and an accepted call pays for what it changes, so no budget.
  // Without room for an index, the re-draw decides alone, to its end (as exact; the cost
  // of a rejection is then the whole re-draw again).
  const bool exact = tracker != nullptr || indexExact(1);
  const bool budgeted = !exact && indexAffordable();
  const size_t budget = budgeted ? redrawBudget() : SIZE_MAX;
  // A re-draw still going after a short budget is rolled back for the interval scan of fact
  // 22: a pass of a few operations per event that rejects, without the cascade, a call
  // whose credit around its time is spoken for. If it cannot tell, the re-draw runs again
  // with the whole budget (or, when that is the short one, the index decides), and the
  // next scan waits for re-draws worth a fraction of a rebuild (scanDue).
  const bool scan = !exact && scanAffordable() && scanDue();
  const size_t scanBudget = std::min(budget, shortBudget());
  Redraw outcome = consumeBackdated(c, commit, scan ? scanBudget : budget);
  if (scan && outcome == Redraw::kOverBudget) {
    popConsumption();
    // A dry run wants the answer alone (and, when it is no, the blocker): the replay from
    // its time gives both, exactly, where the scan may decide nothing.
    if (!commit && replayAffordable()) return replayDecides(amount, timestamp);
    const ScannedIntervals scanned = scanInterval(timestamp);
    ++stats_.intervalScans;
    if (amount > scanned.closed.value) {
      // Kept for the retries, both forms: exact for their intervals under every later write.
      rememberInterval(scanned.closed);
      if (amount > scanned.open.value) rememberInterval(scanned.open);
      ++stats_.intervalRejections;
      return false;
    }
    undecidedScanWork_ = scanned.work;
    touchedAtScan_ = stats_.touched;
    c = pushConsumption(amount, timestamp);
    if (budget > scanBudget) outcome = consumeBackdated(c, commit, budget);
  }
  if (outcome == Redraw::kOverBudget) {
    // Rolled back after as much work as a rebuild: rebuild, and decide exactly.
    ++stats_.budgetRunOuts;
    popConsumption();
    rebuildHeadroomIndex();
    if (amount > headroomIndex_->at(timestamp)) {
      ++stats_.boundRejections;
      return false;
    }
    c = pushConsumption(amount, timestamp);
    outcome = consumeBackdated(c, commit, SIZE_MAX);
    assert(outcome == Redraw::kAccepted);
  } else if (outcome == Redraw::kRejected && rollbackLog_.size() > minimumRedrawBudget() &&
             indexAffordable()) {
    // A long re-draw for nothing: build the index now, so that a retry is rejected by the
    // bound in O(log n) instead of re-drawing again.
    popConsumption();
    rebuildHeadroomIndex();
    return false;
  }
  if (outcome == Redraw::kAccepted && commit) {
    // Draws moved from its position on (fact 3): a blocker before it is still the first.
    if (timestamp < blocked_.blockerTime) blocked_.valid = false;
    trackers_.clear();  // a change at or before the latest times: F or a swept F_t may move
    if (intervalCount_ > 0) intervalsSeeConsumption(amount, timestamp);
    return true;
  }
  popConsumption();
  return outcome == Redraw::kAccepted;
}

int64_t IncrementalEngine::demandAt(int64_t timestamp) const {
  auto it = std::partition_point(order_.begin(), order_.end(),
                                 [&](uint32_t h) { return timestamp_[h] < timestamp; });
  int64_t demand = 0;
  for (; it != order_.end() && timestamp_[*it] == timestamp; ++it) demand += amount_[*it];
  return demand;
}

size_t IncrementalEngine::redrawBudget() const {
  return std::max(minimumRedrawBudget(), (amount_.size() + drawn_.size()) / kBudgetDivisor);
}

void IncrementalEngine::rebuildHeadroomIndex() {
  headroomIndex_.reset();  // free the old one first: the WASM heap may be tight
  assert(order_.size() == amount_.size());
  headroomIndex_ = HeadroomIndex::of(grants_, *this, amount_.size(), order_.data());
  indexConsumptions_ = amount_.size();
  indexGrants_ = drawn_.size();
  creditSinceIndex_ = 0;
  futureCreditSinceIndex_ = 0;
  futureCreditFrom_ = INT64_MAX;
  ++stats_.indexBuilds;
}

const HeadroomIndex* IncrementalEngine::headroomIndex() {
  if (!indexExact(0)) rebuildHeadroomIndex();
  return headroomIndex_.get();
}

bool IncrementalEngine::indexLeftHolds(int64_t timestamp, size_t pushed) const {
  if (!headroomIndex_) return false;
  for (size_t c = indexConsumptions_; c + pushed < amount_.size(); ++c) {
    if (timestamp_[c] <= timestamp) return false;
  }
  for (size_t g = indexGrants_; g < drawn_.size(); ++g) {
    if (grants_.endTime[g] < timestamp) return false;
  }
  return true;
}

HeadroomTracker* IncrementalEngine::trackerAt(int64_t timestamp) {
  for (size_t i = 0; i < trackers_.size(); ++i) {
    if (trackers_[i]->time() != timestamp) continue;
    for (; i + 1 < trackers_.size(); ++i) trackers_[i].swap(trackers_[i + 1]);  // used last
    return trackers_.back().get();
  }
  return nullptr;
}

bool IncrementalEngine::recent(int64_t timestamp) const {
  const size_t noted = std::min(recentCount_, kRecentTimes);
  return std::find(recentTimes_, recentTimes_ + noted, timestamp) != recentTimes_ + noted;
}

void IncrementalEngine::noteRecent(int64_t timestamp) {
  if (!recent(timestamp)) recentTimes_[recentCount_++ % kRecentTimes] = timestamp;
}

HeadroomTracker* IncrementalEngine::startTracker(int64_t timestamp, size_t pushed) {
  if (!indexLeftHolds(timestamp, pushed)) return nullptr;
  const auto from = std::partition_point(order_.begin(), order_.end(),
                                         [&](uint32_t c) { return timestamp_[c] <= timestamp; });
  const size_t later = static_cast<size_t>(order_.end() - from);
  if (later == 0 || HeadroomTracker::bytesFor(later, drawn_.size()) > indexAllowance()) {
    return nullptr;
  }
  if (trackers_.size() == kMaxTrackers) trackers_.erase(trackers_.begin());
  trackers_.push_back(std::make_unique<HeadroomTracker>(
      timestamp, headroomIndex_->chainEndingAt(timestamp), totalCredit(), grants_, later));
  HeadroomTracker& tracker = *trackers_.back();
  for (auto it = from; it != order_.end(); ++it) tracker.consume(amount_[*it], timestamp_[*it]);
  ++stats_.trackerStarts;
  return &tracker;
}

int64_t IncrementalEngine::totalCredit() const {
  int64_t total = headroomIndex_->total();
  for (size_t g = indexGrants_; g < drawn_.size(); ++g) total += grants_.amount[g];
  return total;
}

int64_t IncrementalEngine::headroomAt(int64_t timestamp) {
  if (HeadroomTracker* tracker = trackerAt(timestamp)) {
    ++stats_.trackerAnswers;
    return tracker->headroom();
  }
  const bool again = recent(timestamp);
  noteRecent(timestamp);
  const size_t events = amount_.size() + drawn_.size();
  if (events != suffixEvents_) {
    suffixEvents_ = events;
    suffixWork_ = 0;
  }
  if (!headroomIndex_ || indexExact(0)) return headroomIndex()->at(timestamp);
  // A time asked again after a write gets a tracker (fact 21), which answers from then on
  // in O(1) while the ledger grows at its latest times.
  if (again) {
    if (HeadroomTracker* tracker = startTracker(timestamp, /*pushed=*/0)) {
      ++stats_.trackerAnswers;
      return tracker->headroom();
    }
  }
  // docs/algorithms.md, fact 20: F(t) depends only on the consumptions at or before t and the
  // grants ending before t. When nothing of that changed since the index was built (every
  // consumption accepted since is later than t, every grant added since ends at or after
  // t), the index's F(t) holds, and G(t) comes from the consumptions at or after t and the
  // grants starting after t alone.
  const auto from = std::partition_point(order_.begin(), order_.end(),
                                         [&](uint32_t c) { return timestamp_[c] < timestamp; });
  // Its work: the suffix, the changes since the index, and a scan of the grant table (a
  // sixteenth of a sorted element, roughly). Until the suffix answers since the last change
  // add up to half a rebuild's elements, they are cheaper; then the index is rebuilt and
  // answers every query in O(log n) until the next change.
  const size_t changes = amount_.size() - indexConsumptions_ + drawn_.size() - indexGrants_;
  const size_t work = static_cast<size_t>(order_.end() - from) + changes + drawn_.size() / 16;
  if (suffixWork_ + work > events / 2) return headroomIndex()->at(timestamp);
  if (!indexLeftHolds(timestamp, /*pushed=*/0)) return headroomIndex()->at(timestamp);
  const int64_t total = totalCredit();
  suffixWork_ += work;
  ++stats_.suffixHeadrooms;
  std::vector<TimedAmount> suffix;
  suffix.reserve(static_cast<size_t>(order_.end() - from));
  int64_t demandAt = 0;
  for (auto it = from; it != order_.end(); ++it) {
    suffix.push_back({timestamp_[*it], amount_[*it]});
    if (timestamp_[*it] == timestamp) demandAt += amount_[*it];
  }
  const int64_t right = HeadroomIndex::chainStartingAt(timestamp, grants_, std::move(suffix));
  return std::max<int64_t>(0, total - headroomIndex_->chainEndingAt(timestamp) - right + demandAt);
}

int64_t IncrementalEngine::headroomBound(int64_t timestamp) const {
  if (!headroomIndex_) return INT64_MAX;
  // Each term is at most 2^53 - 1: no overflow.
  return headroomIndex_->at(timestamp) + creditSinceIndex_ +
         (timestamp >= futureCreditFrom_ ? futureCreditSinceIndex_ : 0);
}

bool IncrementalEngine::blockerOf(int64_t amount, int64_t timestamp, uint32_t* handle) {
  if (!knowsBlocker(amount, timestamp)) {
    if (timestamp >= headTime_ || balances_.at(timestamp) < amount) return false;
    // A re-draw that fails stops at the first consumption it cannot cover, and notes it.
    // It moves each consumption it touches at the cost of many operations: past a short
    // budget, the replay from the call's time finds the same one at a few per event.
    const bool replay = replayAffordable();
    const Redraw outcome = consumeBackdated(pushConsumption(amount, timestamp), /*commit=*/false,
                                            replay ? shortBudget() : SIZE_MAX);
    popConsumption();
    if (outcome == Redraw::kOverBudget) replayDecides(amount, timestamp);
    if (!knowsBlocker(amount, timestamp)) return false;
  }
  *handle = blocked_.blocker;
  return true;
}

bool IncrementalEngine::replayDecides(int64_t amount, int64_t timestamp) {
  const Replayed replayed = replayWith(amount, timestamp);
  ++stats_.replays;
  stats_.replayRuns += replayed.run ? 1 : 0;
  stats_.replayRunsEnded += replayed.runEnded ? 1 : 0;
  if (replayed.blocker != kNoBlocker) {
    blocked_ = {true, amount, timestamp, replayed.blocker, timestamp_[replayed.blocker]};
    return false;
  }
  if (replayed.newUnfunded) return false;  // unreachable: the balance check comes first
  // Accepted, but possibly at more cost than the re-draw: as after a scan that decided
  // nothing, the next waits for re-draws worth a part of this one's work.
  undecidedScanWork_ = replayed.work;
  touchedAtScan_ = stats_.touched;
  return true;
}

IncrementalEngine::Replayed IncrementalEngine::replayWith(int64_t amount, int64_t timestamp) const {
  // The replay that defines the ledger (docs/semantics.md), from `timestamp` on, with a new
  // consumption of `amount` there. Every consumption at or before `timestamp` precedes the
  // new one in replay order and keeps its draws (fact 3): a grant valid at `timestamp`
  // starts from what they left of it, one starting later from its amount, and only the new
  // one and the later consumptions are drawn.
  const size_t grants = drawn_.size();
  const int64_t* startTime = grants_.startTime.data();  // locals: read once, not per use
  const int64_t* endTime = grants_.endTime.data();
  const int64_t* grantAmount = grants_.amount.data();
  const int64_t* times = timestamp_.data();
  const int64_t* amounts = amount_.data();
  // Whether grant a comes after grant b in draw order: GrantTable::drawsBefore(b, a), with
  // the ends read through the local pointer above (the run's loop was 5% slower through
  // the table's vectors).
  const auto after = [&](size_t a, size_t b) {
    return endTime[a] != endTime[b]
               ? endTime[a] > endTime[b]
               : grants_.idBefore(static_cast<uint32_t>(b), static_cast<uint32_t>(a));
  };
  Replayed out;
  // In start order (ledgers that grow in time order add their grants so), the grants
  // starting later are a suffix of the table, and only the prefix before it is read here.
  const size_t startedBy =
      grantsInStartOrder_
          ? static_cast<size_t>(std::upper_bound(startTime, startTime + grants, timestamp) -
                                startTime)
          : grants;
  // The grants valid at `timestamp`, with what remains of each. `run`: they are the
  // grants [front, startedBy) of the table, in draw order, all but the first whole (which
  // draw order implies: a consumption draws a grant only when those before it in draw
  // order are spent; checked all the same).
  std::vector<LiveGrant> valid0;
  bool run = grantsInStartOrder_;
  size_t front = startedBy;
  for (uint32_t g = 0; g < startedBy; ++g) {
    const bool validAt = startTime[g] <= timestamp && endTime[g] >= timestamp;
    const int64_t remaining = validAt ? grantAmount[g] - drawnThrough(g, timestamp) : 0;
    if (remaining > 0) {
      valid0.push_back({endTime[g], remaining, g});
      if (valid0.size() == 1) {
        front = g;
      } else if (remaining != grantAmount[g] || !after(g, g - 1)) {
        run = false;
      }
    } else if (!valid0.empty()) {
      run = false;  // a gap in the range
    }
  }
  out.work = startedBy;
  const auto later = std::partition_point(order_.begin(), order_.end(),
                                          [&](uint32_t c) { return times[c] <= timestamp; });
  const auto last = order_.end();
  int64_t time = timestamp;
  int64_t need = amount;
  auto it = later;
  bool funded = true;
  size_t next = startedBy;
  if (run) {
    out.run = true;
    // The chain of fact 8's case, and of any replay whose grants join in draw order: the
    // live grants are the table's grants [front, next), only the first partly drawn
    // (frontLeft), so a step reads the table and writes nothing. A grant that joins out
    // of draw order ends the run: the loop below takes over from there.
    int64_t frontLeft =
        front < grants ? (valid0.empty() ? grantAmount[front] : valid0[0].remaining) : 0;
    for (;; ++it) {
      for (;;) {  // draw `need` at `time`
        if (front == next) {
          funded = false;
          break;
        }
        if (endTime[front] >= time) {
          if (need <= frontLeft) {
            frontLeft -= need;
            break;
          }
          need -= frontLeft;
        }
        ++front;
        frontLeft = front < grants ? grantAmount[front] : 0;
      }
      if (!funded || it == last) break;
      const uint32_t c = *it;
      time = times[c];
      need = amounts[c];
      for (; next < grants; ++next) {
        if (startTime[next] > time) break;
        if (next > front && !after(next, next - 1)) break;
      }
      if (next < grants && startTime[next] <= time) break;  // out of draw order
    }
    valid0.clear();
    if (funded && it != last) {  // the run ended: its live grants go to the loop below
      out.runEnded = true;
      for (size_t g = front; g < next; ++g) {
        const int64_t left = g == front ? frontLeft : grantAmount[g];
        if (left > 0) valid0.push_back({endTime[g], left, static_cast<uint32_t>(g)});
      }
    }
  }
  if (funded && (!run || it != last)) {
    DrawOrderHeap heap(&grants_);
    LiveGrants valid(&grants_, &heap);  // each grant with what remains of it
    for (const LiveGrant& live : valid0) valid.push(live.grant, live.end, live.remaining);
    std::vector<LiveGrant>().swap(valid0);
    // Out of start order, the grants starting later are sorted by (start, grant).
    std::vector<SortKey> byStart;
    if (!grantsInStartOrder_) {
      for (uint32_t g = 0; g < grants; ++g) {
        if (startTime[g] > timestamp) byStart.push_back({startTime[g], g});
      }
      sortKeys(&byStart);
      out.work += byStart.size();
    }
    const bool inStartOrder = grantsInStartOrder_;
    size_t end = inStartOrder ? grants : byStart.size();
    if (!inStartOrder) next = 0;
    // The new consumption first (no grant joins at its time: those valid there are in),
    // then the later ones. When the run above ended at a consumption, its grants join
    // first. One step in the loop, whose code is the replay's largest. Its state is kept
    // small (the work is counted once, after it): V8 keeps it in registers then.
    bool joining = run;
    for (;; ++it) {
      if (joining) {
        joining = false;
      } else {
        if (!drawFrom(time, need, &valid, nullptr)) {
          funded = false;
          break;
        }
        if (it == last) break;
        const uint32_t c = *it;
        time = times[c];
        need = amounts[c];
      }
      for (; next < end; ++next) {
        const auto g = static_cast<uint32_t>(inStartOrder ? next : byStart[next].value);
        if (startTime[g] > time) break;
        valid.push(g, endTime[g], grantAmount[g]);
      }
    }
  }
  out.work += static_cast<size_t>(it - later);
  if (!funded) {  // the step of `it`'s predecessor (or of the new consumption) ran out
    if (it == later) {
      out.newUnfunded = true;
    } else {
      out.blocker = it[-1];
    }
  }
  return out;
}

IncrementalEngine::Redraw IncrementalEngine::consumeBackdated(uint32_t c, bool commit,
                                                              size_t budget) {
  // A new consumption only takes credit away, so whoever loses credit on a grant is later
  // than whoever gained on it: cut the latest draws of an overdrawn grant and re-draw
  // those consumptions, in replay order, until nothing is overdrawn (docs/algorithms.md, fact 13).
  // Everything here reuses member scratch: this path runs for every backdated call.
  rollbackLog_.clear();
  rollbackDraws_.clear();
  queue_.clear();
  beginChange();
  order_.insert(placeOf(order_.begin(), order_.end(), c), c);
  auto later = [&](const Touched& a, const Touched& b) { return before(b.handle, a.handle); };
  auto touch = [&](uint32_t h) {
    const auto slot = static_cast<uint32_t>(rollbackLog_.size());
    if (!touched_.insert(h)) return;
    rollbackLog_.push_back({h, static_cast<uint32_t>(rollbackDraws_.size()),
                            static_cast<uint32_t>(drawsOf(h).size())});
    drawsOf(h).forEach([this](const Draw& d) { rollbackDraws_.push_back(d); });
    queue_.push_back({h, slot});
    std::push_heap(queue_.begin(), queue_.end(), later);
  };
  touch(c);
  bool funded = true;
  bool overBudget = false;
  while (!queue_.empty()) {
    if (rollbackLog_.size() > budget) {
      overBudget = true;
      break;
    }
    std::pop_heap(queue_.begin(), queue_.end(), later);
    const uint32_t h = queue_.back().handle;
    const RollbackEntry& original = rollbackLog_[queue_.back().slot];
    queue_.pop_back();
    // Before this call h drew from its first grant onward; with less credit about it can
    // only draw later grants, so the scan starts there.
    const auto first = original.size == 0 ? byEnd_.lower_bound(timestamp_[h])
                                          : byEndAt_[rollbackDraws_[original.begin].grant];
    releaseDraws(h);
    if (!drawGreedy(h, first, &fresh_)) {
      setDraws(h, {});
      funded = false;
      // h is the first consumption of the replay with c inserted that goes unfunded (fact
      // 13): tryConsume's blocker. c itself only when amount > balance, checked before.
      if (h != c) blocked_ = {true, amount_[c], timestamp_[c], h, timestamp_[h]};
      break;
    }
    setDraws(h, fresh_);
    for (const Draw& draw : fresh_) {
      const uint32_t g = draw.grant;
      int64_t excess = drawn_[g] - grants_.amount[g];
      while (excess > 0) {
        const uint32_t victim = drawers_[g].back();
        assert(victim != h && before(h, victim));
        touch(victim);
        const int64_t amount = std::min(drawsOf(victim).amountFrom(g), excess);
        noteDrawn(g);
        drawn_[g] -= amount;
        excess -= amount;
        if (draws_[victim].cut(g, amount, amount_[victim], &drawPool_)) {
          drawers_[g].pop_back();
          --drawCount_;
        }
      }
    }
  }
  stats_.touched += rollbackLog_.size();
  if (!funded || overBudget || !commit) {
    for (auto it = rollbackLog_.rbegin(); it != rollbackLog_.rend(); ++it) {
      cut_.assign(rollbackDraws_.begin() + it->begin,
                  rollbackDraws_.begin() + it->begin + it->size);
      releaseDraws(it->handle);
      setDraws(it->handle, cut_);
    }
    order_.erase(placeOf(order_.begin(), order_.end(), c));
  } else {
    commitChange(c);
    for (const RollbackEntry& entry : rollbackLog_) {
      if (entry.handle == c) continue;  // the new consumption had no draws before
      const Draw* before = rollbackDraws_.data() + entry.begin;
      noteRedraw(entry.handle, before, before + entry.size);
    }
  }
  touched_.clear();
  if (overBudget) return Redraw::kOverBudget;
  return funded ? Redraw::kAccepted : Redraw::kRejected;
}

void IncrementalEngine::spreadGrant(uint32_t grant) {
  // More supply never rejects anything; it lets consumptions in the grant's window move to
  // grants they would rather draw. Walk forward from its start carrying `freed`: for each
  // grant, how much more credit it has now than before at the walk's position. A
  // consumption changes only if it skipped or drained a grant ordered before its last one
  // that now has freed credit (docs/algorithms.md, fact 14).
  std::vector<std::pair<uint32_t, int64_t>> freed{{grant, grants_.amount[grant]}};
  std::vector<uint32_t> revived{grant};
  auto freedOf = [&](uint32_t g) -> int64_t& {
    for (auto& entry : freed) {
      if (entry.first == g) return entry.second;
    }
    freed.emplace_back(g, 0);
    revived.push_back(g);
    return freed.back().second;
  };
  auto from = std::partition_point(order_.begin(), order_.end(), [&](uint32_t h) {
    return timestamp_[h] < grants_.startTime[grant];
  });
  std::vector<Draw> old;
  std::vector<Draw> fresh;
  beginChange();
  deferErasures_ = true;
  walkErasures_ = 0;
  for (auto it = from; it != order_.end(); ++it) {
    const uint32_t c = *it;
    const int64_t t = timestamp_[c];
    freed.erase(std::remove_if(freed.begin(), freed.end(),
                               [&](const auto& entry) {
                                 return entry.second == 0 || grants_.endTime[entry.first] < t;
                               }),
                freed.end());
    if (freed.empty()) break;
    const uint32_t last = drawsOf(c).back().grant;
    auto prefers = [&](uint32_t g) {
      return grants_.startTime[g] <= t && grants_.drawsBefore(g, last);
    };
    const bool changes = std::any_of(freed.begin(), freed.end(), [&](const auto& entry) {
      return entry.second > 0 && prefers(entry.first);
    });
    if (!changes) continue;
    // Grants before `last` held exactly what c drew from them (it drained them); freed
    // credit comes on top. `last` held at least what c drew, so it covers the rest.
    drawsOf(c).copyTo(&old);
    std::vector<Draw> offers;
    for (const Draw& draw : old) {
      if (draw.grant != last) offers.push_back(draw);
    }
    for (const auto& entry : freed) {
      const uint32_t g = entry.first;
      if (!prefers(g)) continue;
      auto found =
          std::find_if(offers.begin(), offers.end(), [&](const Draw& d) { return d.grant == g; });
      if (found == offers.end()) {
        offers.push_back({g, entry.second});
      } else {
        found->amount += entry.second;
      }
    }
    sortInDrawOrder(&offers);
    int64_t need = amount_[c];
    fresh.clear();
    for (const Draw& offer : offers) {
      if (need == 0) break;
      const int64_t take = std::min(need, offer.amount);
      if (take > 0) fresh.push_back({offer.grant, take});
      need -= take;
    }
    if (need > 0) fresh.push_back({last, need});
    for (const Draw& draw : old) freedOf(draw.grant) += draw.amount;
    for (const Draw& draw : fresh) freedOf(draw.grant) -= draw.amount;
    noteRedraw(c, old.data(), old.data() + old.size());
    releaseDraws(c);
    setDraws(c, fresh);
  }
  eraseDeferred();
  commitChange(kNoConsumption);
  for (uint32_t g : revived) revive(g);
}

void IncrementalEngine::sortInDrawOrder(std::vector<Draw>* draws) const {
  // A binary insertion sort where it is short (most are: a consumption's draws and the few
  // grants that freed credit for it). A long one goes by end time through the core's one
  // sort first (sort_keys.h: no sort code of its own in the module), and the insertion
  // then runs only within runs of equal ends: O(k log k) comparisons, plus moves that are
  // quadratic only in a run of grants ending at the same time.
  std::vector<Draw>& items = *draws;
  const bool byEnd = items.size() > kShortSort;
  if (byEnd) {
    std::vector<SortKey> keys(items.size());  // (end, position in items)
    for (size_t i = 0; i < items.size(); ++i) {
      keys[i] = {grants_.endTime[items[i].grant], static_cast<int64_t>(i)};
    }
    sortKeys(&keys);
    std::vector<Draw> sorted;
    sorted.reserve(items.size());
    for (const SortKey& key : keys) sorted.push_back(items[static_cast<size_t>(key.value)]);
    items.swap(sorted);
  }
  const auto drawnBefore = [&](const Draw& a, const Draw& b) {
    return grants_.drawsBefore(a.grant, b.grant);
  };
  size_t run = 0;  // where the current run of equal ends starts (everything, if short)
  for (size_t i = 1; i < items.size(); ++i) {
    const Draw item = items[i];
    if (byEnd && grants_.endTime[item.grant] != grants_.endTime[items[i - 1].grant]) {
      run = i;
      continue;
    }
    const auto first = items.begin() + static_cast<std::ptrdiff_t>(run);
    const auto at = items.begin() + static_cast<std::ptrdiff_t>(i);
    const auto place = std::upper_bound(first, at, item, drawnBefore);
    std::move_backward(place, at, at + 1);
    *place = item;
  }
}

int64_t IncrementalEngine::availableTo(uint32_t g, uint32_t c, int64_t need) const {
  // What g holds before c = its leftover + what later consumptions drew from it. Most
  // grants end with enough left over, and then no draw list is read.
  int64_t available = leftover(g);
  const DrawerList& drawers = drawers_[g];
  for (auto it = drawers.rbegin(); available < need && it != drawers.rend() && before(c, *it);
       ++it) {
    available += drawsOf(*it).amountFrom(g);
  }
  return std::max<int64_t>(0, std::min(available, need));
}

bool IncrementalEngine::drawGreedy(uint32_t c, ByEnd::const_iterator first,
                                   std::vector<Draw>* out) const {
  out->clear();
  int64_t need = amount_[c];
  for (auto it = first; need > 0 && it != byEnd_.end(); ++it) {
    const uint32_t g = *it;
    if (!grants_.validAt(g, timestamp_[c])) continue;
    const int64_t take = availableTo(g, c, need);
    if (take == 0) continue;
    out->push_back({g, take});
    need -= take;
  }
  return need == 0;
}

void IncrementalEngine::releaseDraws(uint32_t c) {
  drawsOf(c).forEach([this](const Draw& d) {
    noteDrawn(d.grant);
    drawn_[d.grant] -= d.amount;
  });
}

void IncrementalEngine::setDraws(uint32_t c, const std::vector<Draw>& draws) {
  const DrawList::View before = drawsOf(c);
  const size_t beforeSize = before.size();
  before.forEach([&](const Draw& old) {
    for (const Draw& draw : draws) {
      if (draw.grant == old.grant) return;  // kept
    }
    eraseDrawer(old.grant, c);
  });
  for (const Draw& draw : draws) {
    noteDrawn(draw.grant);
    drawn_[draw.grant] += draw.amount;
    if (!before.holds(draw.grant)) insertDrawer(draw.grant, c);
  }
  drawCount_ += draws.size();
  drawCount_ -= beforeSize;
  draws_[c].assign(draws, amount_[c], &drawPool_);
}

void IncrementalEngine::beginChange() {
  ++changeEpoch_;
  changed_.clear();
}

void IncrementalEngine::noteDrawn(uint32_t g) {
  if (changeMark_[g] == changeEpoch_) return;
  changeMark_[g] = changeEpoch_;
  changed_.push_back({g, drawn_[g]});
}

void IncrementalEngine::commitChange(uint32_t accepted) {
  // balance(t) = credits of the grants valid at t - amounts consumed at or before t
  //            + what was drawn from the grants that expired before t.
  // Moving draws between grants changes only the last term, once per grant, however
  // many consumptions moved: a long chain of re-draws costs one update per grant.
  if (accepted != kNoConsumption) balances_.add(timestamp_[accepted], -amount_[accepted]);
  for (const Draw& before : changed_) {
    const int64_t net = drawn_[before.grant] - before.amount;
    const int64_t end = grants_.endTime[before.grant];
    if (net != 0 && end < kMaxSafeInteger) balances_.add(end + 1, net);
  }
}

template <typename Iterator>
Iterator IncrementalEngine::placeOf(Iterator begin, Iterator end, uint32_t c) const {
  // Backdated positions are almost always recent: gallop back from the end to an element
  // not after c, then binary search the short suffix. O(log distance from the end).
  const auto size = static_cast<size_t>(end - begin);
  size_t bound = 1;
  while (bound <= size && before(c, *(end - static_cast<std::ptrdiff_t>(bound)))) bound *= 2;
  const Iterator from = bound > size ? begin : end - static_cast<std::ptrdiff_t>(bound);
  return std::lower_bound(from, end, c, [&](uint32_t a, uint32_t b) { return before(a, b); });
}

void IncrementalEngine::eraseDrawer(uint32_t g, uint32_t c) {
  // A walk's first few erasures go at once (most walks are short); the rest wait.
  if (deferErasures_ && ++walkErasures_ > kFewErasures) {
    deferredErasures_.push_back({g, c});
    return;
  }
  DrawerList& drawers = drawers_[g];
  uint32_t* const at = placeOf(drawers.begin(), drawers.end(), c);
  assert(at != drawers.end() && *at == c);
  drawers.erase(at);
}

void IncrementalEngine::eraseDeferred() {
  deferErasures_ = false;
  if (deferredErasures_.empty()) return;
  // By grant; within a grant in the walk's order, which is replay order, the list's order.
  std::vector<SortKey> byGrant(deferredErasures_.size());
  for (size_t i = 0; i < byGrant.size(); ++i) {
    byGrant[i] = {deferredErasures_[i].key, static_cast<int64_t>(i)};
  }
  sortKeys(&byGrant);
  for (size_t i = 0; i < byGrant.size();) {
    const auto g = static_cast<uint32_t>(byGrant[i].key);
    auto erased = [&](size_t k) {
      return static_cast<uint32_t>(deferredErasures_[static_cast<size_t>(byGrant[k].value)].value);
    };
    DrawerList& drawers = drawers_[g];
    uint32_t* kept = placeOf(drawers.begin(), drawers.end(), erased(i));
    for (uint32_t* at = kept; at != drawers.end(); ++at) {
      if (i < byGrant.size() && byGrant[i].key == g && *at == erased(i)) {
        ++i;  // erased: not kept
      } else {
        *kept++ = *at;
      }
    }
    assert(i == byGrant.size() || byGrant[i].key != g);
    drawers.truncate(kept);
  }
  deferredErasures_.clear();
}

void IncrementalEngine::insertDrawer(uint32_t g, uint32_t c) {
  DrawerList& drawers = drawers_[g];
  // A consumption at the head is the latest drawer: append without a search.
  if (drawers.empty() || before(drawers.back(), c)) {
    drawers.insert(drawers.end(), c, &drawerPool_);
  } else {
    drawers.insert(placeOf(drawers.begin(), drawers.end(), c), c, &drawerPool_);
  }
}

void IncrementalEngine::advanceHead(int64_t timestamp) {
  headTime_ = timestamp;
  while (!notStarted_.empty() && grants_.startTime[notStarted_.top()] <= timestamp) {
    const uint32_t g = notStarted_.top();
    notStarted_.pop();
    if (intervalCount_ > 0) intervalsSeeStart(grants_.amount[g], grants_.endTime[g]);
    if (grants_.endTime[g] >= timestamp && leftover(g) > 0) {
      live_.push(g);
    } else {
      live_flag_[g] = 0;
    }
  }
}

void IncrementalEngine::dropSpentLive() {
  while (!live_.empty() &&
         (grants_.endTime[live_.top()] < headTime_ || leftover(live_.top()) <= 0)) {
    live_flag_[live_.top()] = 0;
    live_.pop();
  }
}

void IncrementalEngine::revive(uint32_t g) {
  if (live_flag_[g] || leftover(g) <= 0 || !grants_.validAt(g, headTime_)) return;
  live_.push(g);
  live_flag_[g] = 1;
}

void IncrementalEngine::draws(uint32_t handle, std::vector<Draw>* out) const {
  drawsOf(handle).copyTo(out);
}

void IncrementalEngine::drawsOn(uint32_t grant, std::vector<GrantDraw>* out) const {
  out->clear();
  for (uint32_t c : drawers_[grant]) out->push_back({c, drawsOf(c).amountFrom(grant)});
}

int64_t IncrementalEngine::drawnThrough(uint32_t grant, int64_t timestamp) const {
  // drawers_ is in replay order: take back the draws later than `timestamp`.
  int64_t drawn = drawn_[grant];
  const DrawerList& drawers = drawers_[grant];
  for (auto it = drawers.rbegin(); it != drawers.rend() && timestamp_[*it] > timestamp; ++it) {
    drawn -= drawsOf(*it).amountFrom(grant);
  }
  return drawn;
}

// Bytes per consumption of the arrays reserve() grows: amount_, timestamp_, draws_ and
// order_.
constexpr size_t kBytesPerConsumption = 8 + 8 + sizeof(DrawList) + 4;

void IncrementalEngine::reserve(size_t count) {
  reserveMore(amount_, count);
  reserveMore(timestamp_, count);
  reserveMore(draws_, count);
  reserveMore(order_, count);
}

size_t IncrementalEngine::reserveBytes(size_t count) const {
  return std::max(amount_.size() + count, 2 * amount_.capacity()) * kBytesPerConsumption;
}

size_t IncrementalEngine::bytes() const {
  // O(1): counted draws stand in for the per-grant drawer lists and spilled draw lists.
  return amount_.capacity() * 8 + timestamp_.capacity() * 8 + draws_.capacity() * sizeof(DrawList) +
         order_.capacity() * 4 + drawn_.capacity() * 8 + drawers_.capacity() * sizeof(DrawerList) +
         live_flag_.capacity() + changeMark_.capacity() * 4 + touched_.bytes() + balances_.bytes() +
         byEnd_.size() * 40 + byEndAt_.capacity() * sizeof(byEndAt_[0]) +
         (live_.size() + notStarted_.size()) * 4 +
         drawCount_ * (2 * sizeof(uint32_t) + sizeof(Draw)) +
         (headroomIndex_ ? headroomIndex_->bytes() : 0) + trackerBytes();
}

}  // namespace gcl
