// The headroom at one fixed time t, kept exact while the ledger grows at its latest times
// (docs/algorithms.md, fact 21). With fact 6's parts,
//   headroom(t) = max(0, C - F(t) - G(t) + d(t)),
// F(t) and d(t) stay while every new consumption is later than t and every new grant ends
// at or after t (fact 20). G(t) is read left to right, from t:
//   G(t) = d(t) + max(R(t), max over consumption times y > t of F_t(y) + R(y)),
//   F_t(y) = d(y) + max(W(t, y), max over t < p < y of F_t(p) + W(p, y)),
// the best chain that starts just after t and ends at y. A consumption at or after the
// latest one extends that sweep by one step, and a grant ending at or after the latest
// consumption changes no F_t(y) already swept: it raises R(y) for the times before its
// start (an add over a prefix of them) and waits for the sweep to pass its end. Each write
// so costs O(log n) amortized, and the headroom at t is read in O(1).
#ifndef GPU_CREDIT_LEDGER_HEADROOM_TRACKER_H_
#define GPU_CREDIT_LEDGER_HEADROOM_TRACKER_H_

#include <cstdint>
#include <queue>
#include <vector>

#include "engine.h"
#include "prefix_add_max.h"

namespace gcl {

class HeadroomTracker {
 public:
  // A tracker of `time` with F(time) = `leftPart` and C = `total`, over `grants` (only those
  // starting after `time` count), to be given the accepted consumptions later than `time`
  // through consume(), in time order, before its first headroom(): at least one. (d(t) is
  // counted in F(t) and G(t) alike, and cancels.) O(k + G log G) for k consumptions and G
  // grants starting after `time`, plus a scan of the table.
  HeadroomTracker(int64_t time, int64_t leftPart, int64_t total, const GrantTable& grants,
                  size_t consumptions);

  int64_t time() const { return time_; }
  int64_t latest() const { return openTime_; }
  // max(0, C - F(t) - G(t) + d(t)) for the state now. O(1).
  int64_t headroom() const;
  // A grant was added. False when it ends before the latest consumption: F_t of a time
  // already swept may change, and the tracker no longer applies.
  bool addGrant(int64_t amount, int64_t start, int64_t end);
  // A consumption at or after the latest one was accepted.
  void consume(int64_t amount, int64_t timestamp);

  size_t bytes() const;
  // What a tracker over `consumptions` later times and `grants` grants takes, at most
  // (before it grows).
  static size_t bytesFor(size_t consumptions, size_t grants);

 private:
  // What happens to a grant starting after t as the sweep advances past `key`: its end is
  // passed (the grant lies inside the gaps that start before it), or its start is no longer
  // after the latest consumption (key = start - 1: consumption times are integers).
  struct Event {
    int64_t key;
    int64_t start;
    int64_t amount;
    bool end;
    bool operator<(const Event& other) const { return key > other.key; }  // earliest on top
  };
  // Closes the open time (it joins both structures) and opens `timestamp`.
  void advance(int64_t amount, int64_t timestamp);
  // Consumption times swept, t first: how many are earlier than `time`.
  size_t sweptBefore(int64_t time) const;

  int64_t time_;
  int64_t leftPart_;         // F(t)
  int64_t total_;            // C
  int64_t startsAfter_ = 0;  // R(t)
  // Position 0 is t (value W(t, x)); position i > 0 the i-th consumption time after t (value
  // F_t(p) + W(p, x)), x being where the sweep stands.
  std::vector<int64_t> times_;
  PrefixAddMax chains_;
  // Position i: F_t(p) + R(p) for the consumption time p at chains_' position i + 1.
  PrefixAddMax scores_;
  // The latest consumption time is open: more demand may still arrive at it, so it joins
  // the structures only when a later one arrives. F_t(open) = openDemand_ + openBest_.
  bool open_ = false;
  int64_t openTime_ = 0;
  int64_t openDemand_ = 0;
  int64_t openBest_ = 0;
  std::priority_queue<Event> events_;
  int64_t futureCredit_ = 0;  // R(openTime_): the grants starting after the latest time
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_HEADROOM_TRACKER_H_
