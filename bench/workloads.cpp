#include "workloads.h"

#include <random>

namespace gcl::bench {
namespace {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  int64_t between(int64_t low, int64_t high) {  // inclusive
    return std::uniform_int_distribution<int64_t>(low, high)(engine_);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(engine_) < p; }

 private:
  std::mt19937_64 engine_;
};

// Time moves forward a little at each event; grants open at "now".
Workload forward(std::string name, size_t events, uint64_t seed, int64_t grantAmount,
                 int64_t grantLength, int64_t drawAmount, int64_t lag) {
  Random random(seed);
  Workload workload{std::move(name), {}, true};
  workload.ops.reserve(events);
  int64_t now = 0;
  int64_t grants = 0;
  int64_t consumptions = 0;
  for (size_t i = 0; i < events; ++i) {
    now += random.between(0, 3);
    const int64_t roll = random.between(0, 9);
    if (roll < 2) {
      const int64_t start = now + random.between(0, 10);
      workload.ops.push_back({OpKind::kAddGrant, grants++,
                              random.between(grantAmount / 2, grantAmount * 3 / 2), start,
                              start + random.between(grantLength / 2, grantLength * 3 / 2)});
    } else if (roll < 9) {
      const int64_t at =
          random.chance(0.1) ? std::max<int64_t>(0, now - random.between(1, lag)) : now;
      workload.ops.push_back(
          {OpKind::kConsume, consumptions++, random.between(1, drawAmount * 2 - 1), at, 0});
    } else {
      workload.ops.push_back({OpKind::kGetBalance, 0, 0, random.between(0, now), 0});
    }
  }
  return workload;
}

std::string countName(size_t events) {
  if (events >= 1000000 && events % 1000000 == 0) return std::to_string(events / 1000000) + "M";
  if (events >= 1000 && events % 1000 == 0) return std::to_string(events / 1000) + "k";
  return std::to_string(events);
}

}  // namespace

Workload mixed(size_t events, uint64_t seed) {
  // Supply slightly above demand (0.2 * 4000 vs 0.7 * 1000 credits per event).
  return forward("mixed " + countName(events), events, seed, 4000, 2000, 1000, 200);
}

Workload longWindows(size_t events, uint64_t seed) {
  // Time moves 1.5 units a call on average: windows of 750-2,250 units (500-1,500 calls,
  // 1,000 on average) and backdating by up to 600 units (about 400 calls).
  return forward("long windows " + countName(events), events, seed, 4000, 1500, 1000, 600);
}

Workload hugeGrant(size_t events, uint64_t seed) {
  Random random(seed);
  Workload workload{"one huge grant " + countName(events), {}, true};
  workload.ops.push_back({OpKind::kAddGrant, 0, int64_t{1} << 52, 0, (int64_t{1} << 53) - 1});
  int64_t now = 0;
  for (size_t i = 1; i < events; ++i) {
    now += random.between(0, 3);
    const int64_t at =
        random.chance(0.1) ? std::max<int64_t>(0, now - random.between(1, 200)) : now;
    workload.ops.push_back(
        {OpKind::kConsume, static_cast<int64_t>(i), random.between(1, 100), at, 0});
  }
  return workload;
}

Workload supplyMatchesDemand(size_t events, uint64_t seed) {
  // 0.2 * 3500 = 700 credits granted per event, 0.7 * 1000 drawn: right at the edge.
  return forward("supply = demand " + countName(events), events, seed, 3500, 20000, 1000, 2000);
}

Workload randomOrder(size_t events, uint64_t seed) {
  Random random(seed);
  Workload workload{"random order " + countName(events), {}, true};
  const int64_t span = static_cast<int64_t>(events) * 2;
  int64_t grants = 0;
  int64_t consumptions = 0;
  for (size_t i = 0; i < events; ++i) {
    const int64_t roll = random.between(0, 9);
    if (roll < 2) {
      const int64_t start = random.between(0, span);
      workload.ops.push_back({OpKind::kAddGrant, grants++, random.between(2000, 6000), start,
                              start + random.between(1000, 3000)});
    } else if (roll < 9) {
      workload.ops.push_back(
          {OpKind::kConsume, consumptions++, random.between(1, 1999), random.between(0, span), 0});
    } else {
      workload.ops.push_back({OpKind::kGetBalance, 0, 0, random.between(0, span), 0});
    }
  }
  return workload;
}

std::vector<Workload> standardWorkloads(bool withTenMillion) {
  std::vector<Workload> workloads;
  workloads.push_back(mixed(2000, 1));
  workloads.back().name = "seed scale 2k";
  workloads.push_back(mixed(10000, 2));
  workloads.push_back(mixed(100000, 3));
  workloads.push_back(mixed(1000000, 4));
  workloads.push_back(hugeGrant(1000000, 5));
  workloads.push_back(longWindows(10000, 9));
  workloads.push_back(longWindows(1000000, 10));
  workloads.push_back(supplyMatchesDemand(100000, 6));
  workloads.push_back(randomOrder(100000, 7));
  if (withTenMillion) {
    workloads.push_back(mixed(10000000, 8));
    workloads.back().wasm = false;
  }
  return workloads;
}

}  // namespace gcl::bench
