// The finality horizon's definition taken literally, for the randomized tests (valid input
// only). Two brute-force ledgers run side by side:
//  - `fresh` is rebuilt at every compact(h) exactly as the definition says (each grant that
//    has not ended by h, with start max(start, h) and the credit the consumptions before h
//    left in it; then the consumptions at or after h in replay order), and then takes
//    every call the ledger accepts;
//  - `history` never forgets anything: it shows that a compacted ledger answers like the
//    uncompacted one at and after the horizon, and that the draws before it stay final.
// Shares no code with the library.
#ifndef GCL_TESTS_HORIZON_MODEL_H_
#define GCL_TESTS_HORIZON_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "preview_model.h"

namespace gcl_test {

struct HorizonModel {
  PreviewModel fresh;
  PreviewModel history;
  int64_t horizon = 0;
  // Per consumption before the horizon (history's id): its draws when it became final.
  std::map<std::string, std::vector<gcl::Allocation>> finalDraws;

  // Dropped ids are forgotten by the ledger; history keeps the events under a name that
  // cannot collide with a new id (nor with one dropped at another compact). A prefix shared
  // by everything dropped at one compact keeps byte order among those grant ids, so the
  // replay's tie-breaks do not change (grants dropped at different compacts never tie: the
  // earlier ones ended before a horizon the later ones reached).
  int compacts = 0;
  std::string forgotten(const std::string& id) const {
    return "\x7f" + std::to_string(compacts) + "~" + id;
  }

  // A grant that started before the horizon (carried across it, or about to be).
  bool startedBefore(const std::string& grantId) const {
    const PreviewModel::Grant* g = history.grant(grantId);
    return g != nullptr && g->start < horizon;
  }

  gcl::CompactResult compact(int64_t h) {
    gcl::CompactResult result;
    if (h <= horizon) {
      result.horizon = horizon;
      return result;
    }
    result.horizon = h;
    ++compacts;
    const PreviewModel::Replay r = PreviewModel::replay(fresh.grants, fresh.consumptions);
    std::map<std::string, int64_t> drawnBefore;
    std::vector<PreviewModel::Consumption> keptConsumptions;
    for (size_t index : r.order) {
      const PreviewModel::Consumption& c = fresh.consumptions[index];
      if (c.time < h) {
        ++result.droppedConsumptions;
        for (const gcl::Allocation& a : r.draws[index]) drawnBefore[a.grantId] += a.amount;
      } else {
        keptConsumptions.push_back(c);
      }
    }
    std::vector<PreviewModel::Grant> keptGrants;
    for (const PreviewModel::Grant& g : fresh.grants) {
      if (g.end < h) {
        ++result.droppedGrants;
        continue;
      }
      keptGrants.push_back({g.id, g.amount - drawnBefore[g.id], std::max(g.start, h), g.end});
    }
    std::vector<PreviewModel::Consumption> keptPending;
    for (const PreviewModel::Consumption& p : fresh.pending) {
      if (p.time < h) {
        result.droppedPending.push_back({p.id, p.amount, p.time});
      } else {
        keptPending.push_back(p);
      }
    }
    // History forgets the dropped ids (not the events) and the dropped queue entries.
    for (const PreviewModel::Grant& g : fresh.grants) {
      if (g.end >= h) continue;
      for (PreviewModel::Grant& old : history.grants) {
        if (old.id == g.id) old.id = forgotten(old.id);
      }
    }
    for (PreviewModel::Consumption& c : history.consumptions) {
      if (c.time < h && c.id.rfind("\x7f", 0) != 0) c.id = forgotten(c.id);
    }
    history.pending = keptPending;
    fresh.grants = std::move(keptGrants);
    fresh.consumptions = std::move(keptConsumptions);
    fresh.pending = std::move(keptPending);
    horizon = h;
    finalDraws.clear();
    const PreviewModel::Replay all = PreviewModel::replay(history.grants, history.consumptions);
    for (size_t i = 0; i < history.consumptions.size(); ++i) {
      if (history.consumptions[i].time < h) finalDraws[history.consumptions[i].id] = all.draws[i];
    }
    return result;
  }

  // The setGrantEnd refusal for a grant that started before the horizon: some other grant
  // that started before it lies strictly between the grant's old and new place in
  // (endTime, grantId) order.
  bool endChangeReorders(const std::string& grantId, int64_t newEnd) const {
    const PreviewModel::Grant* g = fresh.grant(grantId);
    const auto lo = std::make_pair(std::min(g->end, newEnd), grantId);
    const auto hi = std::make_pair(std::max(g->end, newEnd), grantId);
    for (const PreviewModel::Grant& k : fresh.grants) {
      if (k.id == grantId || !startedBefore(k.id)) continue;
      const auto key = std::make_pair(k.end, k.id);
      if (lo < key && key < hi) return true;
    }
    return false;
  }

  // Empty when history still draws every final consumption exactly as it did at compact().
  std::string finalDrawsChanged() const {
    const PreviewModel::Replay all = PreviewModel::replay(history.grants, history.consumptions);
    if (all.firstUnfunded != all.order.size()) return "history is no longer funded";
    for (size_t i = 0; i < history.consumptions.size(); ++i) {
      const auto found = finalDraws.find(history.consumptions[i].id);
      if (found != finalDraws.end() && found->second != all.draws[i]) {
        return "final draws of " + history.consumptions[i].id + " changed";
      }
    }
    return {};
  }
};

}  // namespace gcl_test

#endif  // GCL_TESTS_HORIZON_MODEL_H_
