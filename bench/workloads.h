// The benchmark's workloads, generated once natively and written to a file so that the
// WASM run (bench/wasm_bench.mjs) replays exactly the same calls.
#ifndef GPU_CREDIT_LEDGER_BENCH_WORKLOADS_H_
#define GPU_CREDIT_LEDGER_BENCH_WORKLOADS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gcl::bench {

enum class OpKind : int64_t { kAddGrant = 0, kConsume = 1, kGetBalance = 2 };

// addGrant("g<id>", amount, a, b); consume("c<id>", amount, a); getBalance(a).
struct Op {
  OpKind kind;
  int64_t id;
  int64_t amount;
  int64_t a;
  int64_t b;
};

struct Workload {
  std::string name;
  std::vector<Op> ops;
  bool wasm = true;  // the 10^7 run is native only
};

// mixed: 20% grants, 70% consumptions (10% of them backdated within a bounded lag), 10%
// balance queries at random past times.
Workload mixed(size_t events, uint64_t seed);
// One grant for everything, `events` small draws, 10% backdated.
Workload hugeGrant(size_t events, uint64_t seed);
// Grants arrive at about the rate consumptions use them, with long windows: many grants
// near exhaustion and long chains when a backdated draw moves credit.
Workload supplyMatchesDemand(size_t events, uint64_t seed);
// mixed with long windows: grants span about 1,000 calls and 10% of consumptions are
// backdated by up to about 400 calls, so backdated draws and late grants re-draw more.
Workload longWindows(size_t events, uint64_t seed);
// Grants and consumptions at uniformly random times: most calls are out of order.
Workload randomOrder(size_t events, uint64_t seed);

std::vector<Workload> standardWorkloads(bool withTenMillion);

}  // namespace gcl::bench

#endif  // GPU_CREDIT_LEDGER_BENCH_WORKLOADS_H_
