#include "time_mirror.h"

#include <algorithm>
#include <cassert>
#include <vector>

#include "gpu_credit_ledger/cold_code.h"
#include "sort_keys.h"

namespace gcl {

namespace {

// A write may re-draw a 32nd of the mirror's events (or the minimum budget) before the mirror
// is given up: past that, keeping it costs a write more than a preview's sweep saves.
constexpr size_t kBudgetDivisor = 32;

}  // namespace

GCL_COLD_CODE_BEGIN

TimeMirror::TimeMirror(const GrantTable& grants, const Engine& engine, uint32_t count,
                       size_t minimumBudget)
    : grants_(std::make_unique<GrantTable>()),
      engine_(std::make_unique<IncrementalEngine>(*grants_)),
      minimumBudget_(minimumBudget) {
  // The mirror answers balances only: no headroom index or tracker of its own.
  engine_->setIndexAllowance(0);
  engine_->setRedrawLog(&redraws_);
  grants_->amount.reserve(grants.size());
  grants_->startTime.reserve(grants.size());
  grants_->endTime.reserve(grants.size());
  for (uint32_t g = 0; g < grants.size(); ++g) {
    mirrorGrant(grants, g);
    engine_->addGrant(g);
  }
  // Latest first: each one then comes at the mirror's head, and every prefix of a fundable
  // set is fundable (Hall's condition reads the same in reversed time), so all are accepted.
  // By mirrored time, through the core's one sort (sort_keys.h): no sort code of its own.
  std::vector<SortKey> byMirroredTime(count);
  for (uint32_t c = 0; c < count; ++c) byMirroredTime[c] = {mirrored(engine.timestampOf(c)), c};
  sortKeys(&byMirroredTime);
  engine_->reserve(count);
  for (const SortKey& entry : byMirroredTime) {
    const bool accepted =
        engine_->consume(engine.amountOf(static_cast<uint32_t>(entry.value)), entry.key);
    assert(accepted);
    (void)accepted;
  }
  engine_->expectWritesAtEarliestTimes();
  redraws_.clear();
  events_ = grants.size() + count;
}

void TimeMirror::mirrorGrant(const GrantTable& grants, uint32_t g) {
  grants_->ids.add(grants.ids.at(g));
  grants_->amount.push_back(grants.amount[g]);
  grants_->startTime.push_back(mirrored(grants.endTime[g]));
  grants_->endTime.push_back(mirrored(grants.startTime[g]));
  validCredit_.addRange(grants.startTime[g], grants.endTime[g], grants.amount[g]);
}

size_t TimeMirror::bytes() const {
  return grants_->ids.bytes() + grants_->amount.capacity() * 3 * sizeof(int64_t) +
         engine_->bytes() + validCredit_.bytes() + redraws_.bytes();
}

GCL_COLD_CODE_END

bool TimeMirror::addGrant(const GrantTable& grants, uint32_t g) {
  assert(g == grants_->size());
  mirrorGrant(grants, g);
  engine_->addGrant(g);
  return withinBudget();
}

bool TimeMirror::consume(int64_t amount, int64_t timestamp) {
  const bool accepted = engine_->consume(amount, mirrored(timestamp));
  assert(accepted);  // the ledger accepted it: the set stays fundable in either direction
  (void)accepted;
  return withinBudget();
}

bool TimeMirror::withinBudget() {
  ++events_;
  const bool within = redraws_.size() <= std::max(minimumBudget_, events_ / kBudgetDivisor);
  redraws_.clear();
  return within;
}

int64_t TimeMirror::headroom(int64_t timestamp, int64_t balance) const {
  const int64_t mirroredTime = mirrored(timestamp);
  const int64_t amount = balance + engine_->balance(mirroredTime) - validCredit_.at(timestamp) +
                         engine_->demandAt(mirroredTime);
  return std::max<int64_t>(0, amount);
}

}  // namespace gcl
