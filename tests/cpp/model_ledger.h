// A third, independent reading of docs/semantics.md for the differential test: written for
// obviousness, not speed (every mutation replays everything by scanning all grants in
// (endTime, grantId) order). It shares no code with either engine; only isValidId comes
// from the library, and ledger_test.cpp checks that one on its own.
#ifndef GCL_TESTS_MODEL_LEDGER_H_
#define GCL_TESTS_MODEL_LEDGER_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_test {

class ModelLedger {
 public:
  gcl::Status addGrant(std::string_view id, int64_t amount, int64_t startTime, int64_t endTime) {
    if (!gcl::isValidId(id)) return gcl::Status::kInvalidId;
    if (!validAmount(amount)) return gcl::Status::kInvalidAmount;
    if (!validTime(startTime) || !validTime(endTime)) return gcl::Status::kInvalidTime;
    if (startTime > endTime) return gcl::Status::kInvalidWindow;
    for (const Grant& g : grants_) {
      if (g.id != id) continue;
      const bool same = g.amount == amount && g.start == startTime && g.end == endTime;
      return same ? gcl::Status::kOk : gcl::Status::kDuplicateId;
    }
    int64_t total = 0;
    for (const Grant& g : grants_) total += g.amount;
    if (amount > gcl::kMaxSafeInteger - total) return gcl::Status::kTotalOverflow;
    Grant grant{std::string(id), amount, startTime, endTime};
    // Keep grants in draw order: (endTime, id bytes).
    auto at = std::lower_bound(grants_.begin(), grants_.end(), grant, drawnBefore);
    grants_.insert(at, std::move(grant));
    const bool funded = replay(&consumptions_);
    if (!funded) std::abort();  // more supply can never unfund anything (EDF optimality)
    return gcl::Status::kOk;
  }

  gcl::Status consume(std::string_view id, int64_t amount, int64_t timestamp, bool* accepted) {
    if (!gcl::isValidId(id)) return gcl::Status::kInvalidId;
    if (!validAmount(amount)) return gcl::Status::kInvalidAmount;
    if (!validTime(timestamp)) return gcl::Status::kInvalidTime;
    for (const Consumption& c : consumptions_) {
      if (c.id != id) continue;
      if (c.amount != amount || c.time != timestamp) return gcl::Status::kDuplicateId;
      *accepted = true;
      return gcl::Status::kOk;
    }
    std::vector<Consumption> candidate = consumptions_;
    candidate.push_back({std::string(id), amount, timestamp, {}});
    *accepted = replay(&candidate);
    if (*accepted) consumptions_ = std::move(candidate);
    return gcl::Status::kOk;
  }

  gcl::Status getBalance(int64_t timestamp, int64_t* balance) const {
    if (!validTime(timestamp)) return gcl::Status::kInvalidTime;
    int64_t total = 0;
    for (const Grant& g : grants_) {
      if (g.validAt(timestamp)) total += g.amount;
    }
    for (const Consumption& c : consumptions_) {
      if (c.time > timestamp) continue;
      for (const auto& [grant, drawn] : c.draws) {
        if (grants_[grant].validAt(timestamp)) total -= drawn;
      }
    }
    *balance = total;
    return gcl::Status::kOk;
  }

  // The definition taken literally: replay only the consumptions up to `timestamp`, then
  // add up what is left in the grants valid at `timestamp`.
  int64_t balanceByPrefixReplay(int64_t timestamp) const {
    std::vector<Consumption> past;
    for (const Consumption& c : consumptions_) {
      if (c.time <= timestamp) past.push_back({c.id, c.amount, c.time, {}});
    }
    std::vector<int64_t> remaining;
    if (!replay(&past, &remaining)) std::abort();  // a prefix of a funded replay is funded
    int64_t total = 0;
    for (size_t g = 0; g < grants_.size(); ++g) {
      if (grants_[g].validAt(timestamp)) total += remaining[g];
    }
    return total;
  }

  gcl::Status allocations(std::string_view id, std::vector<gcl::Allocation>* out) const {
    out->clear();
    if (!gcl::isValidId(id)) return gcl::Status::kInvalidId;
    for (const Consumption& c : consumptions_) {
      if (c.id != id) continue;
      for (const auto& [grant, drawn] : c.draws) out->push_back({grants_[grant].id, drawn});
      return gcl::Status::kOk;
    }
    return gcl::Status::kUnknownId;
  }

  gcl::Status balanceCurve(int64_t from, int64_t to, std::vector<gcl::BalancePoint>* out) const {
    out->clear();
    if (!validTime(from) || !validTime(to)) return gcl::Status::kInvalidTime;
    if (from > to) return gcl::Status::kInvalidWindow;
    std::vector<int64_t> times{from};
    for (const Grant& g : grants_) {
      times.push_back(g.start);
      times.push_back(g.end + 1);
    }
    for (const Consumption& c : consumptions_) times.push_back(c.time);
    std::sort(times.begin(), times.end());
    for (int64_t t : times) {
      if (t < from || t > to) continue;
      int64_t value = 0;
      getBalance(t, &value);
      if (out->empty() || out->back().balance != value) out->push_back({t, value});
    }
    return gcl::Status::kOk;
  }

  size_t grantCount() const { return grants_.size(); }
  size_t consumptionCount() const { return consumptions_.size(); }

 private:
  struct Grant {
    std::string id;
    int64_t amount, start, end;
    bool validAt(int64_t t) const { return start <= t && t <= end; }
  };
  struct Consumption {
    std::string id;
    int64_t amount, time;
    std::vector<std::pair<size_t, int64_t>> draws;  // (index into grants_, amount)
  };

  static bool validAmount(int64_t a) { return a >= 1 && a <= gcl::kMaxSafeInteger; }
  static bool validTime(int64_t t) { return t >= 0 && t <= gcl::kMaxSafeInteger; }
  static bool drawnBefore(const Grant& a, const Grant& b) {
    if (a.end != b.end) return a.end < b.end;
    return a.id < b.id;  // std::string compares bytes: UTF-8 byte order is code point order
  }

  // Replays `consumptions` (acceptance order) in (time, acceptance) order; fills their
  // draws. Returns false when one of them cannot be covered.
  bool replay(std::vector<Consumption>* consumptions,
              std::vector<int64_t>* remainingOut = nullptr) const {
    std::vector<size_t> order(consumptions->size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return (*consumptions)[a].time < (*consumptions)[b].time;
    });
    std::vector<int64_t> remaining;
    for (const Grant& g : grants_) remaining.push_back(g.amount);
    for (size_t index : order) {
      Consumption& c = (*consumptions)[index];
      c.draws.clear();
      int64_t need = c.amount;
      for (size_t g = 0; g < grants_.size() && need > 0; ++g) {
        if (!grants_[g].validAt(c.time) || remaining[g] == 0) continue;
        const int64_t take = std::min(need, remaining[g]);
        remaining[g] -= take;
        need -= take;
        c.draws.push_back({g, take});
      }
      if (need > 0) return false;
    }
    if (remainingOut != nullptr) *remainingOut = std::move(remaining);
    return true;
  }

  std::vector<Grant> grants_;              // in draw order
  std::vector<Consumption> consumptions_;  // accepted, in acceptance order
};

}  // namespace gcl_test

#endif  // GCL_TESTS_MODEL_LEDGER_H_
