#include "replay_engine.h"

#include <algorithm>

#include "replay_check.h"

namespace gcl {

void ReplayEngine::addGrant(uint32_t /*grant*/) {
  index_.reset();
  const bool funded =
      replay(/*noteRedraws=*/true);  // more supply never unfunds an accepted consumption
  (void)funded;
}

bool ReplayEngine::consume(int64_t amount, int64_t timestamp) {
  consumptions_.push_back({amount, timestamp});
  if (replay(/*noteRedraws=*/true)) {
    index_.reset();
    return true;
  }
  consumptions_.pop_back();
  return false;
}

bool ReplayEngine::replay(bool noteRedraws) {
  const std::vector<uint32_t> order = replayOrder(*this, consumptions_.size());
  std::vector<TimedAmount> ordered;
  ordered.reserve(order.size());
  for (uint32_t c : order) ordered.push_back({consumptions_[c].timestamp, consumptions_[c].amount});
  std::vector<std::vector<Draw>> byPosition;
  if (firstUnfunded(grants_, ordered, &byPosition) != ordered.size()) return false;
  // Every consumption is re-drawn; those accepted before this call (draws_ has their old
  // draws) and drawn differently now are the ones it moved.
  std::vector<std::vector<Draw>> before(order.size());
  before.swap(draws_);
  for (size_t i = 0; i < order.size(); ++i) draws_[order[i]] = std::move(byPosition[i]);
  if (noteRedraws) {
    for (uint32_t c = 0; c < before.size() && c < draws_.size(); ++c) {
      const bool same = std::equal(
          before[c].begin(), before[c].end(), draws_[c].begin(), draws_[c].end(),
          [](const Draw& a, const Draw& b) { return a.grant == b.grant && a.amount == b.amount; });
      if (!same) noteRedraw(c, before[c].data(), before[c].data() + before[c].size());
    }
  }
  return true;
}

int64_t ReplayEngine::balance(int64_t timestamp) const {
  int64_t total = 0;
  for (uint32_t g = 0; g < grants_.size(); ++g) {
    if (grants_.validAt(g, timestamp)) total += grants_.amount[g];
  }
  for (uint32_t c = 0; c < consumptions_.size(); ++c) {
    if (consumptions_[c].timestamp > timestamp) continue;
    for (const Draw& draw : draws_[c]) {
      if (grants_.validAt(draw.grant, timestamp)) total -= draw.amount;
    }
  }
  return total;
}

void ReplayEngine::balanceCurve(int64_t from, int64_t to, std::vector<BalancePoint>* out) const {
  // The balance can only change where a grant starts, one ends, or a consumption lands.
  std::vector<int64_t> times{from};
  auto candidate = [&](int64_t t) {
    if (t > from && t <= to) times.push_back(t);
  };
  for (uint32_t g = 0; g < grants_.size(); ++g) {
    candidate(grants_.startTime[g]);
    candidate(grants_.endTime[g] + 1);
  }
  for (const Consumption& c : consumptions_) candidate(c.timestamp);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  for (int64_t t : times) {
    const int64_t value = balance(t);
    if (out->empty() || out->back().balance != value) out->push_back({t, value});
  }
}

bool ReplayEngine::wouldAccept(int64_t amount, int64_t timestamp) {
  std::vector<std::vector<Draw>> kept = draws_;  // replay() replaces them when funded
  consumptions_.push_back({amount, timestamp});
  const bool funded = replay(/*noteRedraws=*/false);
  consumptions_.pop_back();
  draws_ = std::move(kept);
  return funded;
}

void ReplayEngine::drawsOn(uint32_t grant, std::vector<GrantDraw>* out) const {
  out->clear();
  for (uint32_t c = 0; c < consumptions_.size(); ++c) {
    for (const Draw& draw : draws_[c]) {
      if (draw.grant == grant) out->push_back({c, draw.amount});
    }
  }
  std::stable_sort(out->begin(), out->end(), [&](const GrantDraw& a, const GrantDraw& b) {
    return consumptions_[a.consumption].timestamp < consumptions_[b.consumption].timestamp;
  });
}

int64_t ReplayEngine::drawnThrough(uint32_t grant, int64_t timestamp) const {
  int64_t drawn = 0;
  for (uint32_t c = 0; c < consumptions_.size(); ++c) {
    if (consumptions_[c].timestamp > timestamp) continue;
    for (const Draw& draw : draws_[c]) {
      if (draw.grant == grant) drawn += draw.amount;
    }
  }
  return drawn;
}

int64_t ReplayEngine::nextBelow(int64_t threshold, int64_t from) const {
  std::vector<BalancePoint> curve;
  balanceCurve(from, kMaxSafeInteger, &curve);
  for (const BalancePoint& point : curve) {
    if (point.balance < threshold) return point.time;
  }
  return -1;
}

size_t ReplayEngine::bytes() const {
  size_t total =
      consumptions_.capacity() * sizeof(Consumption) + draws_.capacity() * sizeof(draws_[0]);
  for (const auto& draws : draws_) total += draws.capacity() * sizeof(Draw);
  return total + (index_ ? index_->bytes() : 0);
}

const HeadroomIndex* ReplayEngine::headroomIndex() {
  if (!index_) index_ = HeadroomIndex::of(grants_, *this, consumptions_.size());
  return index_.get();
}

}  // namespace gcl
