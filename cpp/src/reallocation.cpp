// Which accepted consumptions a call re-routed (Ledger::reallocated). The engine notes
// each consumption it re-draws with its draws before (RedrawLog, engine.h); a rebuild
// compares the old and the new engine. A read compares each noted consumption's first
// "before" with its draws now, so a consumption re-drawn onto the same grants is not listed.
#include <algorithm>

#include "engine.h"
#include "gpu_credit_ledger/cold_code.h"
#include "gpu_credit_ledger/ledger.h"
#include "id_index.h"
#include "sort_keys.h"

GCL_COLD_CODE_BEGIN

namespace gcl {
namespace {

bool sameDraws(const Draw* begin, const Draw* end, const std::vector<Draw>& other) {
  return std::equal(begin, end, other.begin(), other.end(), [](const Draw& a, const Draw& b) {
    return a.grant == b.grant && a.amount == b.amount;
  });
}

}  // namespace

void Ledger::startReallocations() {
  redrawLog_->clear();
  reallocationFrom_ = consumptionCount();
}

void Ledger::noteRebuildRedraws(const GrantTable& table, const Engine& engine,
                                const std::vector<uint32_t>& order) {
  // Consumption order[i] is consumption i of the rebuilt engine; grants are matched by id
  // (a voided grant has none: kNotFound never matches a real draw).
  redrawLog_->clear();
  std::vector<Draw> before;
  std::vector<Draw> now;
  for (uint32_t i = 0; i < order.size(); ++i) {
    engine_->draws(order[i], &before);
    engine.draws(i, &now);
    for (Draw& draw : before) draw.grant = table.ids.find(grants_->ids.at(draw.grant));
    if (!sameDraws(before.data(), before.data() + before.size(), now)) {
      redrawLog_->add(i, before.data(), before.data() + before.size());
    }
  }
  // The handles of the consumptions the call accepted stay where they were (their count
  // does not change); a rebuild that drops consumptions (compact) accepts none.
  reallocationFrom_ = std::min(reallocationFrom_, order.size());
}

void Ledger::reallocated(std::vector<Reallocation>* out) const {
  out->clear();
  std::vector<uint32_t> moved;
  reallocatedIndexes(&moved);
  out->reserve(moved.size());
  for (const uint32_t c : moved) {
    const ConsumptionRecord consumption = this->consumption(c);
    out->push_back(
        {std::string(consumption.eventId), consumption.amount, consumption.timestamp, {}});
    allocations(consumption.eventId, &out->back().allocations);
  }
}

void Ledger::reallocatedIndexes(std::vector<uint32_t>* out) const {
  out->clear();
  // The first entry of each consumption holds its draws before the call: (handle, entry)
  // sorted puts each handle's first entry first.
  std::vector<SortKey> first;
  first.reserve(redrawLog_->size());
  for (size_t i = 0; i < redrawLog_->size(); ++i) {
    const uint32_t c = redrawLog_->handle(i);
    if (c < reallocationFrom_) first.push_back({c, static_cast<int64_t>(i)});
  }
  sortKeys(&first);
  first.erase(std::unique(first.begin(), first.end(),
                          [](const SortKey& a, const SortKey& b) { return a.key == b.key; }),
              first.end());
  // Replay order: (timestamp, acceptance order), the handle keeping equal times in
  // acceptance order.
  std::vector<SortKey> byTime;
  std::vector<Draw> now;
  for (const SortKey& entry : first) {
    const auto c = static_cast<uint32_t>(entry.key);
    const auto i = static_cast<size_t>(entry.value);
    engine_->draws(c, &now);
    if (sameDraws(redrawLog_->beforeBegin(i), redrawLog_->beforeEnd(i), now)) continue;
    byTime.push_back({engine_->timestampOf(c), c});
  }
  sortKeys(&byTime);
  out->reserve(byTime.size());
  for (const SortKey& entry : byTime) out->push_back(static_cast<uint32_t>(entry.value));
}

}  // namespace gcl

GCL_COLD_CODE_END
