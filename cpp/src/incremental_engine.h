// The fast engine: exact under the replay of docs/semantics.md, with a cost that follows
// what a call changes rather than the length of the history (docs/algorithms.md, facts
// 12-14 give each path and why it is exact).
//  - An in-order consumption (at or after every accepted one) is checked against the
//    balance tree and drawn from a heap of the grants live at the head: O(log n).
//  - A backdated consumption re-draws only the consumptions that lose credit: the
//    latest draws on an overdrawn grant are cut and re-drawn in replay order.
//  - A grant that arrives after consumptions in its window walks forward from its start,
//    re-drawing only consumptions that would now prefer a grant with freed credit, and
//    stops as soon as no freed credit is left unexpired.
//  - Balances come from a B+tree of deltas over time (balance_tree.h): O(log n).
//  - A backdated call is first held to an upper bound on its headroom (docs/algorithms.md,
//    fact 18): a headroom index built once, plus the credit added since. A call above the
//    bound is rejected in O(log n) without re-drawing anything. A re-draw that runs past a
//    short budget is rolled back for one pass that bounds the headroom by an interval's
//    spare credit (fact 22), remembered for the retries; past the full budget, the index
//    is rebuilt and the call decided from it exactly. A dry run past the short budget, and
//    the search for tryConsume's blocker, replay from the call's time instead (fact 23);
//    a blocker found is kept and rejects its time for as much or more in O(1).
#ifndef GPU_CREDIT_LEDGER_INCREMENTAL_ENGINE_H_
#define GPU_CREDIT_LEDGER_INCREMENTAL_ENGINE_H_

#include <memory>
#include <queue>
#include <set>
#include <vector>

#include "balance_tree.h"
#include "draw_list.h"
#include "drawer_list.h"
#include "engine.h"
#include "headroom.h"
#include "headroom_tracker.h"
#include "node_arena.h"
#include "sort_keys.h"
#include "time_order.h"
#include "touch_set.h"

namespace gcl {

class IncrementalEngine final : public Engine {
 public:
  explicit IncrementalEngine(const GrantTable& grants)
      : grants_(grants),
        byEnd_(DrawOrder{&grants}, ArenaAllocator<uint32_t>(&byEndNodes_)),
        live_(LiveOrder{&grants}) {}

  void addGrant(uint32_t grant) override;
  bool consume(int64_t amount, int64_t timestamp) override;
  int64_t amountOf(uint32_t handle) const override { return amount_[handle]; }
  int64_t timestampOf(uint32_t handle) const override { return timestamp_[handle]; }
  int64_t balance(int64_t timestamp) const override { return balances_.at(timestamp); }
  void draws(uint32_t handle, std::vector<Draw>* out) const override;
  void balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const override {
    balances_.curve(from, to, out);
  }

  size_t bytes() const override;
  void reserve(size_t count) override;
  size_t reserveBytes(size_t count) const override;
  EngineKind kind() const override { return EngineKind::kIncremental; }
  // A backdated dry run walks the same re-draws as consume() and then rolls them back.
  bool wouldAccept(int64_t amount, int64_t timestamp) override;
  void drawsOn(uint32_t grant, std::vector<GrantDraw>* out) const override;
  int64_t drawnThrough(uint32_t grant, int64_t timestamp) const override;
  // The accepted demand at exactly `timestamp`: O(log n + the consumptions there).
  int64_t demandAt(int64_t timestamp) const;
  // For an engine that will be written at its earliest times (time_mirror.h): the replay
  // order keeps room before its items, so that such an insertion moves nothing.
  void expectWritesAtEarliestTimes() { order_.keepRoomInFront(); }
  // order_ is in replay order: its last is the latest. O(1).
  int64_t latestTimestamp() const override {
    return order_.empty() ? -1 : timestamp_[order_.back()];
  }
  int64_t nextBelow(int64_t threshold, int64_t from) const override {
    return balances_.firstBelow(threshold, from);
  }
  std::string checkInvariants() const override;
  bool blockerOf(int64_t amount, int64_t timestamp, uint32_t* handle) override;
  const HeadroomIndex* headroomIndex() override;
  int64_t headroomAt(int64_t timestamp) override;

  // How backdated calls and headroom queries were decided, for tests and benchmarks
  // (cumulative).
  struct RejectionStats {
    uint64_t boundRejections = 0;     // rejected by the headroom bound, nothing re-drawn
    uint64_t indexBuilds = 0;         // headroom index (re)built for the bound
    uint64_t budgetRunOuts = 0;       // re-draws rolled back because they ran past the budget
    uint64_t touched = 0;             // consumptions re-drawn (or drawn, the new one) by re-draws
    uint64_t suffixHeadrooms = 0;     // headroom queries answered from the suffix (fact 20)
    uint64_t trackerStarts = 0;       // headroom trackers started (fact 21)
    uint64_t trackerAnswers = 0;      // headroom queries and backdated calls a tracker decided
    uint64_t intervalScans = 0;       // interval bounds computed by a scan (fact 22)
    uint64_t replays = 0;             // dry runs and blockers decided by a replay from their time
    uint64_t replayRuns = 0;          // ... whose live grants began as a run of the table
    uint64_t replayRunsEnded = 0;     // ... that a grant joining out of draw order ended
    uint64_t blockerRejections = 0;   // rejected by a blocker found before, nothing re-drawn
    uint64_t intervalRejections = 0;  // rejected by an interval bound, scanned or remembered
  };
  const RejectionStats& rejectionStats() const { return stats_; }
  // Fact 22: every time in [from, to] has headroom at most `value`, the credit of the
  // grants valid somewhere in [from, to] less the accepted demand in it. Kept exact for
  // that interval under every write the engine sees; an open one's `to` is the head time
  // and moves with it (the grants that start as it passes join it).
  struct IntervalBound {
    int64_t from;
    int64_t to;
    int64_t value;
    bool open;
  };
  // The interval through `timestamp` with the least such value (closed), and the same
  // from its `from` to the head time (open), over the accepted consumptions (none may be
  // pushed): one pass over the consumptions and the grants.
  struct ScannedIntervals {
    IntervalBound closed;
    IntervalBound open;
    size_t work;  // events read plus kProbeWork per search probe
  };
  ScannedIntervals scanInterval(int64_t timestamp) const;
  int64_t headTime() const { return headTime_; }
  static constexpr size_t kBudgetDivisor = 8;
  // What building a headroom index may allocate per event (grants and consumptions), at
  // its peak: the index itself and the sweep's scratch (HeadroomIndex, headroom.cpp).
  static constexpr size_t kIndexBuildBytesPerEvent = 256;
  // Headroom trackers kept at once (fact 21), the least recently used dropped first, and how
  // many recent times are remembered: a time asked again after a write gets a tracker.
  static constexpr size_t kMaxTrackers = 4;
  static constexpr size_t kRecentTimes = 4;
  // A re-draw that touches more than max(minimum budget, events / kScanDivisor)
  // consumptions without deciding is rolled back once for the interval scan of fact 22,
  // or, for a dry run, the replay of fact 23 (a few operations per event, against a
  // re-draw's thousand per consumption touched).
  // After a scan that decided nothing, the next one waits until re-draws have touched a
  // kScanPayback-th of its work in consumptions (its work: events read, plus kProbeWork
  // per search probe, a random read where the rest is sequential; a consumption re-drawn
  // costs about a hundred such steps): scans that do not pay stay a few per cent of the
  // work, also where grants arrive out of time order (a search per grant).
  static constexpr size_t kScanDivisor = 256;
  static constexpr size_t kScanPayback = 2;
  static constexpr size_t kProbeWork = 4;
  // Interval bounds remembered at once (fact 22), the oldest replaced first.
  static constexpr size_t kMaxIntervals = 4;

 private:
  // (endTime, grantId) order; `int64_t` probes find the first grant ending at or after it.
  struct DrawOrder {
    const GrantTable* grants;
    using is_transparent = void;
    bool operator()(uint32_t a, uint32_t b) const { return grants->drawsBefore(a, b); }
    bool operator()(uint32_t a, int64_t end) const { return grants->endTime[a] < end; }
    bool operator()(int64_t end, uint32_t b) const { return end < grants->endTime[b]; }
  };
  using ByEnd = std::set<uint32_t, DrawOrder, ArenaAllocator<uint32_t>>;
  // std::priority_queue puts the largest first; this makes it the earliest-drawn grant.
  struct LiveOrder {
    const GrantTable* grants;
    bool operator()(uint32_t a, uint32_t b) const { return grants->drawsBefore(b, a); }
  };
  struct StartOrder {
    const GrantTable* grants;
    bool operator()(uint32_t a, uint32_t b) const {
      return grants->startTime[a] > grants->startTime[b];
    }
  };
  // Replay order of consumptions: (timestamp, acceptance order).
  bool before(uint32_t a, uint32_t b) const {
    return timestamp_[a] != timestamp_[b] ? timestamp_[a] < timestamp_[b] : a < b;
  }
  // A consumption touched by a backdated call: its draws before, in rollbackDraws_.
  struct RollbackEntry {
    uint32_t handle;
    uint32_t begin;
    uint32_t size;
  };

  uint32_t pushConsumption(int64_t amount, int64_t timestamp);
  void popConsumption();

  bool consumeAtHead(int64_t amount, int64_t timestamp);
  // The backdated path with the headroom bound in front (fact 18): decides consume (commit)
  // or a dry run (no commit) of the consumption just pushed as `handle`, and pops it unless
  // it is accepted and committed.
  bool decideBackdated(uint32_t handle, bool commit);
  // The same, given whether the time was asked or rejected recently (then it may get a
  // tracker); the wrapper above notes the time of a rejection.
  bool decideBackdated(uint32_t handle, bool commit, bool retried);
  enum class Redraw { kAccepted, kRejected, kOverBudget };
  // The re-draw of fact 13. With commit false, or when rejected or over budget (more than
  // `budget` consumptions touched), rolls everything back.
  Redraw consumeBackdated(uint32_t handle, bool commit, size_t budget);
  size_t redrawBudget() const;
  // Whether a headroom index of the current state fits the index allowance.
  bool indexAffordable() const {
    return (amount_.size() + drawn_.size()) * kIndexBuildBytesPerEvent <= indexAllowance();
  }
  // Builds the headroom index over the accepted consumptions (none may be pushed).
  void rebuildHeadroomIndex();
  // Whether the index describes the current state, with `pushed` trial consumptions pushed.
  bool indexExact(size_t pushed) const {
    return headroomIndex_ && indexConsumptions_ + pushed == amount_.size() &&
           indexGrants_ == drawn_.size();
  }
  // Headroom at `timestamp` is at most this (fact 18); INT64_MAX without an index.
  int64_t headroomBound(int64_t timestamp) const;
  // The least remembered bound on an interval holding `timestamp`; INT64_MAX if none.
  int64_t intervalBoundAt(int64_t timestamp) const;
  bool scanAffordable() const { return (order_.size() + 2) * 8 <= indexAllowance(); }
  // The replay's scratch: its heap, at most every grant with its end and what remains of
  // it, and out of start order a sort of the grants by start.
  bool replayAffordable() const {
    return (drawn_.size() + 2) * (grantsInStartOrder_ ? 24 : 40) <= indexAllowance();
  }
  // The re-draw budget before a scan or a replay takes over.
  size_t shortBudget() const {
    return std::max(minimumRedrawBudget(), (amount_.size() + drawn_.size()) / kScanDivisor);
  }
  bool knowsBlocker(int64_t amount, int64_t timestamp) const {
    return blocked_.valid && blocked_.amount == amount && blocked_.timestamp == timestamp;
  }
  // A dry run's answer from replayWith; a rejection's blocker is kept in blocked_.
  bool replayDecides(int64_t amount, int64_t timestamp);
  static constexpr uint32_t kNoBlocker = UINT32_MAX;
  struct Replayed {
    uint32_t blocker = kNoBlocker;  // the first later consumption left unfunded
    bool newUnfunded = false;       // the new one itself
    size_t work = 0;                // grants and consumptions read
    bool run = false;               // the live grants began as a run of the table
    bool runEnded = false;          // and a grant joining out of draw order ended it
  };
  // The replay with a consumption of `amount` at `timestamp` added, from that time on
  // (replay_check.h). O((k + G) log G) for the k consumptions later than `timestamp`.
  Replayed replayWith(int64_t amount, int64_t timestamp) const;
  // Whether the scan may run now: never yet undecided, or re-draws have done enough since.
  bool scanDue() const {
    return stats_.touched - touchedAtScan_ >= undecidedScanWork_ / kScanPayback;
  }
  // The remembered intervals see an added grant, a grant the head time passes the start of
  // (open ones), or an accepted consumption.
  void intervalsSeeGrant(int64_t amount, int64_t start, int64_t end);
  void intervalsSeeStart(int64_t amount, int64_t end);
  void intervalsSeeConsumption(int64_t amount, int64_t timestamp);
  void rememberInterval(const IntervalBound& interval) {
    intervals_[intervalCount_++ % kMaxIntervals] = interval;
  }
  void spreadGrant(uint32_t grant);
  // Sorts draws into draw order (spreadGrant's offers, on distinct grants).
  void sortInDrawOrder(std::vector<Draw>* draws) const;
  static constexpr size_t kShortSort = 16;
  // Whether the index's left part F(t) still holds at t (fact 20): every consumption
  // accepted since it was built is later than t, every grant added since ends at or after t
  // (with `pushed` trial consumptions pushed, which do not count).
  bool indexLeftHolds(int64_t timestamp, size_t pushed) const;
  // The tracker of `timestamp`, made the most recently used; null if there is none.
  HeadroomTracker* trackerAt(int64_t timestamp);
  // The last few times asked for headroom or rejected (the times that get a tracker when
  // they come again).
  bool recent(int64_t timestamp) const;
  void noteRecent(int64_t timestamp);
  // A tracker of `timestamp` from the index's left part, if the index's left part holds there
  // (indexLeftHolds), a consumption is later and it fits the index allowance; else null.
  HeadroomTracker* startTracker(int64_t timestamp, size_t pushed);
  // The trackers see an added grant (those it no longer applies to go) or a consumption
  // accepted at the head.
  void trackGrant(uint32_t grant);
  void trackConsumption(int64_t amount, int64_t timestamp);
  // C, the credit of every grant (an index must exist): its total and the grants added since.
  int64_t totalCredit() const;
  size_t trackerBytes() const {
    size_t bytes = trackers_.capacity() * sizeof(trackers_[0]);
    for (const auto& tracker : trackers_) bytes += sizeof(HeadroomTracker) + tracker->bytes();
    return bytes;
  }

  int64_t leftover(uint32_t g) const { return grants_.amount[g] - drawn_[g]; }
  // Consumption c's draws: its list read with its amount (the one place that pairs them).
  DrawList::View drawsOf(uint32_t c) const { return draws_[c].view(amount_[c]); }
  // Credit of grant g available to consumption c under the current draws, capped at `need`
  // (c's own draws must already be removed).
  int64_t availableTo(uint32_t g, uint32_t c, int64_t need) const;
  // Greedy earliest-expiry draw for c, scanning grants from `first` in draw order.
  bool drawGreedy(uint32_t c, ByEnd::const_iterator first, std::vector<Draw>* out) const;
  // A (re-)draw in two steps that keeps c's place in the draw lists of the grants it draws
  // before and after (a re-drawn consumption keeps its grants as a rule, and adds later
  // ones): releaseDraws returns c's credit to its grants, leaving its draws listed (c is
  // then invisible to availableTo(., c, .), which reads only later drawers); setDraws
  // gives c `draws` instead of what it drew, erasing and inserting c only where its grants
  // differ (a new consumption draws nothing yet: no release).
  void releaseDraws(uint32_t c);
  void setDraws(uint32_t c, const std::vector<Draw>& draws);
  // A change to the draws is bracketed by beginChange() and commitChange(): every grant
  // whose drawn total is about to move is noted first, and the commit turns the net moves
  // (plus the newly accepted consumption, if any) into balance-tree updates.
  static constexpr uint32_t kNoConsumption = UINT32_MAX;
  void beginChange();
  void noteDrawn(uint32_t g);
  void commitChange(uint32_t accepted);
  // Where consumption c is, or belongs, in a range of handles sorted in replay order.
  template <typename Iterator>
  Iterator placeOf(Iterator begin, Iterator end, uint32_t c) const;
  void eraseDrawer(uint32_t g, uint32_t c);
  void insertDrawer(uint32_t g, uint32_t c);
  // A late grant's walk (spreadGrant) moves consumptions off a grant in replay order,
  // from the front of its drawer list: erased one by one, each shifted the rest of the
  // list, O(n^2) for a grant whose n drawers all move. While deferErasures_ is set,
  // eraseDrawer notes (grant, consumption) instead, past the walk's first few, and
  // eraseDeferred removes each grant's in one pass from the first of them, after the walk
  // (which reads no drawer list).
  void eraseDeferred();
  static constexpr size_t kFewErasures = 16;  // a walk's first, erased at once
  bool deferErasures_ = false;
  size_t walkErasures_ = 0;
  std::vector<SortKey> deferredErasures_;  // (grant, consumption), in the walk's order
  void advanceHead(int64_t timestamp);
  void revive(uint32_t g);
  // Pops expired and exhausted grants off the top of live_.
  void dropSpentLive();

  const GrantTable& grants_;
  // Per consumption, by handle (acceptance order).
  std::vector<int64_t> amount_;
  std::vector<int64_t> timestamp_;
  DrawPool drawPool_;            // the arrays of draws_'s lists that spill
  std::vector<DrawList> draws_;  // read through drawsOf()
  TimeOrder order_;              // handles in replay order
  size_t drawCount_ = 0;
  // Per grant, by index.
  std::vector<int64_t> drawn_;
  DrawerPool drawerPool_;             // the arrays of drawers_'s lists
  std::vector<DrawerList> drawers_;   // consumptions drawing on it, in replay order
  std::vector<uint8_t> live_flag_;    // in live_ (or notStarted_)
  std::vector<uint32_t> changeMark_;  // == changeEpoch_: noted in changed_
  NodeArena byEndNodes_;              // byEnd_'s nodes
  ByEnd byEnd_;                       // all grants in draw order
  // Each grant's place in byEnd_ (a set's iterators stay valid): a re-draw starts there.
  std::vector<ByEnd::const_iterator> byEndAt_;
  // Grants valid at the head time with credit left (lazily cleaned), and those not yet started.
  std::priority_queue<uint32_t, std::vector<uint32_t>, LiveOrder> live_;
  std::priority_queue<uint32_t, std::vector<uint32_t>, StartOrder> notStarted_{
      StartOrder{&grants_}};
  bool grantsInStartOrder_ = true;  // each grant starts at or after the one added before it
  int64_t headTime_ = -1;  // the time live_ describes: at or after every accepted consumption
  BalanceTree balances_;
  // Scratch for one backdated consumption: who was touched and their draws before (the
  // rollback log).
  std::vector<RollbackEntry> rollbackLog_;
  std::vector<Draw> rollbackDraws_;
  TouchSet touched_;  // the handles in rollbackLog_
  struct Touched {
    uint32_t handle;
    uint32_t slot;  // its index in rollbackLog_
  };
  std::vector<Touched> queue_;  // heap of touched consumptions to re-draw, earliest first
  std::vector<Draw> fresh_;
  std::vector<Draw> cut_;
  // Grants whose drawn total moved in the current change, with the total before it.
  std::vector<Draw> changed_;
  uint32_t changeEpoch_ = 0;
  // The rejection bound (fact 18): an index built at some point and the credit of the grants
  // added since; with nothing added or accepted since, the index is exact.
  std::unique_ptr<HeadroomIndex> headroomIndex_;
  int64_t creditSinceIndex_ = 0;
  // Grants added since that started after every accepted consumption then: they count only
  // from the earliest of their starts on.
  int64_t futureCreditSinceIndex_ = 0;
  int64_t futureCreditFrom_ = INT64_MAX;
  size_t indexConsumptions_ = 0;  // what it was built from: exact while both are unchanged
  size_t indexGrants_ = 0;
  // The work of the suffix answers (fact 20) since the engine held `suffixEvents_` events
  // (grants and consumptions only grow, so a change of that count is a change of state).
  size_t suffixWork_ = 0;
  size_t suffixEvents_ = 0;
  // Headroom at a few fixed times, kept exact under in-order writes (fact 21); the most
  // recently used last. Any backdated acceptance drops them.
  std::vector<std::unique_ptr<HeadroomTracker>> trackers_;
  int64_t recentTimes_[kRecentTimes] = {};
  size_t recentCount_ = 0;  // times noted so far (the ring holds the last kRecentTimes)
  // The last re-draw that found a blocker: valid until a change reaches the blocker's
  // position, i.e. an accepted consumption earlier in time or a grant starting at or before
  // it (anything later leaves every draw up to the blocker alone, fact 3). Its time is
  // always later than the trial's.
  struct Blocked {
    bool valid = false;
    int64_t amount = 0;
    int64_t timestamp = 0;
    uint32_t blocker = 0;
    int64_t blockerTime = INT64_MIN;
  };
  Blocked blocked_;
  IntervalBound intervals_[kMaxIntervals] = {};
  size_t intervalCount_ = 0;      // intervals remembered so far (the ring holds the last few)
  size_t undecidedScanWork_ = 0;  // the work of the last scan, if it rejected nothing
  uint64_t touchedAtScan_ = 0;    // stats_.touched then
  RejectionStats stats_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_INCREMENTAL_ENGINE_H_
