// Exact headroom (docs/algorithms.md, fact 6): the largest amount a new consumption at time t
// can take while every accepted consumption stays funded. By Hall's condition over chains
// of times x1 < ... < xk, a demand set is fundable iff for every chain
//   Σ d(xi) + L(x1) + Σ W(xi, xi+1) + R(xk) <= C
// (L: credits of grants ending before x1, R: starting after xk, W: lying strictly between
// two neighbours, C: all credits). The best chain through t splits into a left part
//   F(t) = d(t) + max(L(t), max_{p<t} F(p) + W(p, t))
// and a right part G (the same on mirrored time), so
//   headroom(t) = max(0, C - F(t) - G(t) + d(t)).
// Between consumption times and grant ends, L(t) and max_{p<t} F(p) + W(p, t) are
// constant: one sweep records both as step functions, and a query is a binary search.
#ifndef GPU_CREDIT_LEDGER_HEADROOM_H_
#define GPU_CREDIT_LEDGER_HEADROOM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "engine.h"

namespace gcl {

struct TimedAmount {
  int64_t timestamp;
  int64_t amount;
};

class HeadroomIndex {
 public:
  // `demand` holds the accepted consumptions in any order. O((n + G) log(n + G)); O(n + G log n)
  // when the consumptions come in time order and the grant windows in start and end order.
  HeadroomIndex(const GrantTable& grants, std::vector<TimedAmount> demand);
  // The index of an engine's accepted consumptions (handles 0 to consumptions - 1).
  // `timeOrder`, when the engine keeps one, lists those handles in time order: no sort then.
  static std::unique_ptr<HeadroomIndex> of(const GrantTable& grants, const Engine& engine,
                                           size_t consumptions,
                                           const uint32_t* timeOrder = nullptr);
  // O(log(n + G)).
  int64_t at(int64_t timestamp) const;
  // The parts of at() (docs/algorithms.md, fact 20): C, the credit of every grant, and F(t),
  // which depends only on the consumptions at or before t and the grants ending before t.
  int64_t total() const { return total_; }
  int64_t chainEndingAt(int64_t timestamp) const { return left_.chainEndingAt(timestamp); }
  // G(t), from what it depends on alone: `demand`, the consumptions at or after t (in any
  // order), and the grants starting after t. O(k log k) for the k of them, O(k + G) in time
  // order; headroom(t) = max(0, C - F(t) - G(t) + d(t)).
  static int64_t chainStartingAt(int64_t timestamp, const GrantTable& grants,
                                 std::vector<TimedAmount> demand);
  size_t bytes() const { return left_.bytes() + right_.bytes(); }

 private:
  struct Window {
    int64_t startTime;
    int64_t endTime;
    int64_t amount;
  };
  // One direction of the sweep, in its own time coordinates (the right side negates time).
  // The sweep runs on demand: a query at t sweeps as far as t, and no further. A first
  // query at t so costs the events before t on the left side and those after t on the
  // right, one pass over the history instead of two; the sweeps resume from where they
  // stopped, so all queries together cost one full build at most. Not thread-safe: a
  // const query may advance the sweep.
  class Side {
   public:
    // `times` strictly ascending with the demand at each; `windows` by ascending end.
    Side(std::vector<int64_t> times, std::vector<int64_t> demand, std::vector<Window> windows);
    Side(Side&&) noexcept;
    Side& operator=(Side&&) noexcept;
    ~Side();
    int64_t demandAt(int64_t time) const;
    // The best chain score ending at `time`, i.e. F(time).
    int64_t chainEndingAt(int64_t time) const;
    size_t bytes() const;

   private:
    // From `from` on, max(L(t), max_{p<t} F(p) + W(p, t)): what F(t) adds to d(t). A step
    // that would repeat the value before it is left out (0 before the first).
    struct Step {
      int64_t from;
      int64_t value;
    };
    struct Sweep;  // the sweep's state between queries (headroom.cpp)
    // Sweeps every step in effect at or before `time`.
    void sweepThrough(int64_t time) const;

    std::vector<int64_t> times_;            // distinct consumption times, ascending
    std::vector<int64_t> demand_;           // per time
    mutable std::vector<Step> steps_;       // ascending `from`, as far as swept
    mutable std::unique_ptr<Sweep> sweep_;  // null once every step is swept
  };

  int64_t total_ = 0;
  Side left_;
  Side right_;
};

}  // namespace gcl

#endif  // GPU_CREDIT_LEDGER_HEADROOM_H_
