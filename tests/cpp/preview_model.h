// A brute-force reading of docs/semantics.md (previews, grant lifecycle, pending consumptions) for
// the randomized tests: every answer replays everything from scratch, headroom is a binary search
// over trial replays. Valid input only. Shares no code with the library.
#ifndef GCL_TESTS_PREVIEW_MODEL_H_
#define GCL_TESTS_PREVIEW_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"

namespace gcl_test {

class PreviewModel {
 public:
  struct Grant {
    std::string id;
    int64_t amount;
    int64_t start;
    int64_t end;
  };
  struct Consumption {
    std::string id;
    int64_t amount;
    int64_t time;
  };
  struct Replay {
    std::vector<size_t> order;                        // indices into the input, in replay order
    size_t firstUnfunded;                             // position in `order`, or order.size()
    std::vector<std::vector<gcl::Allocation>> draws;  // per input index
    std::vector<int64_t> remaining;                   // per grant (draw order), after everything
  };

  // Grants sorted by (end, id bytes): draw order.
  static std::vector<Grant> drawOrder(std::vector<Grant> grants) {
    std::stable_sort(grants.begin(), grants.end(), [](const Grant& a, const Grant& b) {
      return a.end != b.end ? a.end < b.end : a.id < b.id;
    });
    return grants;
  }

  static Replay replay(const std::vector<Grant>& unordered,
                       const std::vector<Consumption>& consumptions) {
    const std::vector<Grant> grants = drawOrder(unordered);
    Replay r;
    r.order.resize(consumptions.size());
    for (size_t i = 0; i < r.order.size(); ++i) r.order[i] = i;
    std::stable_sort(r.order.begin(), r.order.end(), [&](size_t a, size_t b) {
      return consumptions[a].time < consumptions[b].time;
    });
    r.firstUnfunded = r.order.size();
    r.draws.assign(consumptions.size(), {});
    r.remaining.clear();
    for (const Grant& g : grants) r.remaining.push_back(g.amount);
    for (size_t k = 0; k < r.order.size(); ++k) {
      const Consumption& c = consumptions[r.order[k]];
      int64_t need = c.amount;
      for (size_t g = 0; g < grants.size() && need > 0; ++g) {
        if (grants[g].start > c.time || c.time > grants[g].end) continue;
        const int64_t take = std::min(need, r.remaining[g]);
        if (take == 0) continue;
        r.remaining[g] -= take;
        need -= take;
        r.draws[r.order[k]].push_back({grants[g].id, take});
      }
      if (need > 0 && r.firstUnfunded == r.order.size()) r.firstUnfunded = k;
    }
    return r;
  }

  bool fundable(const std::vector<Grant>& grants,
                const std::vector<Consumption>& consumptions) const {
    return replay(grants, consumptions).firstUnfunded == consumptions.size();
  }

  const Grant* grant(const std::string& id) const {
    for (const Grant& g : grants) {
      if (g.id == id) return &g;
    }
    return nullptr;
  }
  const Consumption* accepted(const std::string& id) const {
    for (const Consumption& c : consumptions) {
      if (c.id == id) return &c;
    }
    return nullptr;
  }
  const Consumption* queued(const std::string& id) const {
    for (const Consumption& c : pending) {
      if (c.id == id) return &c;
    }
    return nullptr;
  }

  // Valid new grants only (the random driver never reuses a live grant id).
  void addGrant(const std::string& id, int64_t amount, int64_t start, int64_t end) {
    grants.push_back({id, amount, start, end});
    retry(&lastAccepted);
  }

  // consume(): nullopt for DUPLICATE_ID.
  std::optional<bool> consume(const std::string& id, int64_t amount, int64_t time) {
    if (const Consumption* c = accepted(id)) {
      if (c->amount != amount || c->time != time) return std::nullopt;
      return true;
    }
    if (const Consumption* c = queued(id)) {
      if (c->amount != amount || c->time != time) return std::nullopt;
    }
    std::vector<Consumption> candidate = consumptions;
    candidate.push_back({id, amount, time});
    if (!fundable(grants, candidate)) return false;
    consumptions = std::move(candidate);
    dropQueued(id);
    return true;
  }

  // What tryConsume reports for a new consumption: accepted, or the reason.
  struct Trial {
    bool accepted;
    gcl::RejectReason reason;
    std::string blocking;
    std::vector<gcl::Allocation> allocations;
  };
  Trial trial(const std::string& id, int64_t amount, int64_t time) const {
    std::vector<Consumption> candidate = consumptions;
    candidate.push_back({id, amount, time});
    const Replay r = replay(grants, candidate);
    if (r.firstUnfunded == candidate.size()) {
      return {true, gcl::RejectReason::kNone, "", r.draws.back()};
    }
    const size_t blocked = r.order[r.firstUnfunded];
    if (blocked == candidate.size() - 1)
      return {false, gcl::RejectReason::kInsufficientCredit, "", {}};
    return {false, gcl::RejectReason::kWouldUnfund, candidate[blocked].id, {}};
  }

  int64_t balance(int64_t t) const {
    const std::vector<Grant> ordered = drawOrder(grants);
    const std::vector<int64_t> left = remainingAt(t);
    int64_t total = 0;
    for (size_t g = 0; g < ordered.size(); ++g) {
      if (ordered[g].start <= t && t <= ordered[g].end) total += left[g];
    }
    return total;
  }

  // Per grant in draw order: amount minus draws by consumptions at or before t.
  std::vector<int64_t> remainingAt(int64_t t) const {
    std::vector<Consumption> past;
    for (const Consumption& c : consumptions) {
      if (c.time <= t) past.push_back(c);
    }
    return replay(grants, past).remaining;
  }

  int64_t headroom(int64_t t) const {
    int64_t lo = 0;
    int64_t hi = balance(t);
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      std::vector<Consumption> candidate = consumptions;
      candidate.push_back({"?", mid, t});
      if (fundable(grants, candidate)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  std::vector<gcl::GrantState> grantsAt(int64_t t) const {
    const std::vector<Grant> ordered = drawOrder(grants);
    const std::vector<int64_t> left = remainingAt(t);
    std::vector<gcl::GrantState> out;
    for (size_t g = 0; g < ordered.size(); ++g) {
      const Grant& grant = ordered[g];
      if (grant.start <= t && t <= grant.end) {
        out.push_back({grant.id, grant.amount, grant.start, grant.end, left[g]});
      }
    }
    return out;
  }

  std::optional<int64_t> nextBelow(int64_t threshold, int64_t from, int64_t horizon) const {
    for (int64_t t = from; t <= horizon; ++t) {
      if (balance(t) < threshold) return t;
    }
    return std::nullopt;  // the caller picks a horizon past every breakpoint
  }

  // voidGrant / setGrantEnd: the blocking id, or "" when applied.
  std::string change(const std::string& id, std::optional<int64_t> newEnd) {
    lastAccepted.clear();
    std::vector<Grant> changed;
    for (const Grant& g : grants) {
      if (g.id != id) {
        changed.push_back(g);
      } else if (newEnd) {
        changed.push_back({g.id, g.amount, g.start, *newEnd});
      }
    }
    const Replay r = replay(changed, consumptions);
    if (r.firstUnfunded < consumptions.size()) return consumptions[r.order[r.firstUnfunded]].id;
    const Grant* old = grant(id);
    const bool extends = newEnd && *newEnd > old->end;
    grants = std::move(changed);
    if (extends) retry(&lastAccepted);
    return "";
  }

  // submit(): nullopt for DUPLICATE_ID, else whether accepted.
  std::optional<bool> submit(const std::string& id, int64_t amount, int64_t time) {
    if (const Consumption* c = queued(id)) {
      if (c->amount != amount || c->time != time) return std::nullopt;
      return false;
    }
    const std::optional<bool> result = consume(id, amount, time);
    if (result && !*result) {
      pending.push_back({id, amount, time});
      std::stable_sort(pending.begin(), pending.end(),
                       [](const Consumption& a, const Consumption& b) { return a.time < b.time; });
    }
    return result;
  }

  bool cancel(const std::string& id) { return dropQueued(id); }

  std::vector<Grant> grants;              // in arrival order
  std::vector<Consumption> consumptions;  // in acceptance order
  std::vector<Consumption> pending;       // in retry order
  std::vector<std::string> lastAccepted;  // by the latest addGrant or grant change

 private:
  bool dropQueued(const std::string& id) {
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (it->id == id) {
        pending.erase(it);
        return true;
      }
    }
    return false;
  }
  void retry(std::vector<std::string>* acceptedIds) {
    acceptedIds->clear();
    const std::vector<Consumption> waiting = pending;
    for (const Consumption& c : waiting) {
      std::vector<Consumption> candidate = consumptions;
      candidate.push_back(c);
      if (!fundable(grants, candidate)) continue;
      consumptions = std::move(candidate);
      dropQueued(c.id);
      acceptedIds->push_back(c.id);
    }
  }
};

}  // namespace gcl_test

#endif  // GCL_TESTS_PREVIEW_MODEL_H_
