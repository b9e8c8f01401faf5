// Invariant checks in the style of a ledger that trusts nothing it has not recounted:
// every structure the engines keep for speed is rebuilt here from the plainest data
// (each consumption's draws) and compared. Tests call it after every step of randomized
// sequences and the fuzzer after every call; nothing in the library calls it.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "incremental_engine.h"
#include "replay_engine.h"

namespace gcl {
namespace {

std::string handleText(uint32_t c) { return "consumption #" + std::to_string(c); }

// What holds for any engine: each consumption drawn in full, in draw order, only from grants
// valid at its time, and no grant drawn beyond its amount. Fills *drawn with the recount.
std::string checkDraws(const GrantTable& grants, const Engine& engine, size_t consumptions,
                       std::vector<int64_t>* drawn) {
  drawn->assign(grants.size(), 0);
  std::vector<Draw> draws;
  for (uint32_t c = 0; c < consumptions; ++c) {
    engine.draws(c, &draws);
    int64_t sum = 0;
    for (size_t i = 0; i < draws.size(); ++i) {
      const Draw& d = draws[i];
      if (d.grant >= grants.size())
        return handleText(c) + " draws from a grant that does not exist";
      if (d.amount <= 0) return handleText(c) + " has a draw of " + std::to_string(d.amount);
      if (!grants.validAt(d.grant, engine.timestampOf(c))) {
        return handleText(c) + " draws from a grant not valid at its time";
      }
      if (i > 0 && !grants.drawsBefore(draws[i - 1].grant, d.grant)) {
        return handleText(c) + "'s draws are not in draw order";
      }
      sum += d.amount;
      (*drawn)[d.grant] += d.amount;
    }
    if (sum != engine.amountOf(c)) {
      return handleText(c) + " drew " + std::to_string(sum) + " of " +
             std::to_string(engine.amountOf(c));
    }
  }
  for (uint32_t g = 0; g < grants.size(); ++g) {
    if ((*drawn)[g] > grants.amount[g]) {
      return "grant " + std::string(grants.ids.at(g)) +
             " is overdrawn: " + std::to_string((*drawn)[g]) + " of " +
             std::to_string(grants.amount[g]);
    }
  }
  return {};
}

// The balance step function recounted from the grants and the draws, as the breakpoints
// where it changes: balance(t) = credits of grants valid at t - draws at or before t on
// grants valid at t.
std::vector<BalancePoint> recountCurve(const GrantTable& grants, const Engine& engine,
                                       size_t consumptions, const std::vector<int64_t>& drawn) {
  std::map<int64_t, int64_t> delta{{0, 0}};
  for (uint32_t g = 0; g < grants.size(); ++g) {
    delta[grants.startTime[g]] += grants.amount[g];
    // At its end a grant takes away what is left of it; its draws went when they happened.
    if (grants.endTime[g] < kMaxSafeInteger)
      delta[grants.endTime[g] + 1] -= grants.amount[g] - drawn[g];
  }
  for (uint32_t c = 0; c < consumptions; ++c) delta[engine.timestampOf(c)] -= engine.amountOf(c);
  std::vector<BalancePoint> curve;
  int64_t value = 0;
  for (const auto& [time, change] : delta) {
    value += change;
    if (curve.empty() || curve.back().balance != value) curve.push_back({time, value});
  }
  return curve;
}

std::string checkCurve(const GrantTable& grants, const Engine& engine, size_t consumptions,
                       const std::vector<int64_t>& drawn) {
  const std::vector<BalancePoint> want = recountCurve(grants, engine, consumptions, drawn);
  for (const BalancePoint& point : want) {
    if (engine.balance(point.time) != point.balance) {
      return "balance(" + std::to_string(point.time) + ") is " +
             std::to_string(engine.balance(point.time)) + ", recounted " +
             std::to_string(point.balance);
    }
  }
  std::vector<BalancePoint> got;
  engine.balanceCurve(0, kMaxSafeInteger, &got);
  if (got != want)
    return "the balance curve has " + std::to_string(got.size()) + " breakpoints, recounted " +
           std::to_string(want.size());
  return {};
}

}  // namespace

std::string IncrementalEngine::checkInvariants() const {
  const size_t n = amount_.size();
  if (timestamp_.size() != n || draws_.size() != n || order_.size() != n) {
    return "per-consumption arrays differ in length";
  }
  const size_t g = grants_.size();
  if (drawn_.size() != g || drawers_.size() != g || live_flag_.size() != g || byEnd_.size() != g ||
      byEndAt_.size() != g) {
    return "per-grant arrays differ in length";
  }
  for (uint32_t grant = 0; grant < g; ++grant) {
    if (*byEndAt_[grant] != grant)
      return "grant " + std::to_string(grant) + ": wrong place in byEnd_";
  }
  std::vector<int64_t> drawn;
  std::string problem = checkDraws(grants_, *this, n, &drawn);
  if (!problem.empty()) return problem;
  // Drawn totals and drawer lists match the draws; the draw count too.
  std::vector<std::vector<uint32_t>> drawers(g);
  size_t draws = 0;
  for (uint32_t c : order_) {
    const DrawList::View list = drawsOf(c);
    for (size_t i = 0; i < list.size(); ++i) drawers[list[i].grant].push_back(c);
    draws += list.size();
    // A settled list of one draw is of the whole amount (checkDraws): it takes no array.
    if (list.size() == 1 && draws_[c].spilled())
      return handleText(c) + " holds an array for a single draw";
  }
  if (draws != drawCount_)
    return "draw count " + std::to_string(drawCount_) + ", recounted " + std::to_string(draws);
  for (uint32_t k = 0; k < g; ++k) {
    const std::string id(grants_.ids.at(k));
    if (drawn_[k] != drawn[k])
      return "grant " + id + " drawn total " + std::to_string(drawn_[k]) + ", recounted " +
             std::to_string(drawn[k]);
    if (!drawers_[k].equals(drawers[k]))
      return "grant " + id + "'s drawer list is not its drawers in replay order";
    // Every grant valid at the head with credit left can be drawn by the next in-order call.
    if (grants_.validAt(k, headTime_) && leftover(k) > 0 && !live_flag_[k]) {
      return "grant " + id + " has credit at the head but is neither live nor waiting to start";
    }
    if (grants_.startTime[k] > headTime_ && !live_flag_[k])
      return "grant " + id + " is not waiting to start";
  }
  if (touched_.size() != 0) return "a re-draw left consumptions marked touched";
  // order_ is every handle once, in replay order, none after the head.
  for (size_t i = 0; i < n; ++i) {
    if (order_[i] >= n || (i > 0 && !before(order_[i - 1], order_[i])))
      return "order_ is not the replay order";
    if (timestamp_[order_[i]] > headTime_) return handleText(order_[i]) + " is after the head";
  }
  return checkCurve(grants_, *this, n, drawn);
}

std::string ReplayEngine::checkInvariants() const {
  std::vector<int64_t> drawn;
  const std::string problem = checkDraws(grants_, *this, consumptions_.size(), &drawn);
  if (!problem.empty()) return problem;
  return checkCurve(grants_, *this, consumptions_.size(), drawn);
}

}  // namespace gcl
