// A native driver for instruction and cache-miss counts: one workload of
// bench/workloads.cpp through gcl::Ledger, one call each as the package makes them
// (ids as strings, the same arguments), with the workload generated outside the counted
// part. Build it against a tree (this one, or an older checkout for a before/after):
//   T=. ; g++ -O2 -g -std=c++17 -DNDEBUG -DGCL_NO_REPLAY_ENGINE -I$T/cpp/include -I$T/cpp/src \
//     -I$T/bench $(ls $T/cpp/src/*.cpp | grep -v replay_engine.cpp) $T/bench/workloads.cpp \
//     bench/call_driver.cpp -o build/call_driver
//   valgrind --tool=callgrind --instr-atstart=no build/call_driver mixed 100000
//   valgrind --tool=cachegrind --cache-sim=yes build/call_driver mixed 1000000
// Workloads: mixed or long (long windows), at 10^4, 10^5 or 10^6 calls (the seeds of
// `npm run bench`). Prints the accepted count and the balance checksum, which must not
// change between a before and an after, and the time per call (natively, unloaded only).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "workloads.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

namespace {

using gcl::bench::Op;
using gcl::bench::OpKind;
using gcl::bench::Workload;

struct Ids {
  std::vector<std::string> grant;
  std::vector<std::string> event;
};

__attribute__((noinline)) void runOps(const Workload& workload, const Ids& ids, size_t* accepted,
                                      int64_t* balanceSum) {
  gcl::Ledger ledger(gcl::EngineKind::kIncremental);
  size_t grant = 0;
  size_t event = 0;
  for (const Op& op : workload.ops) {
    if (op.kind == OpKind::kAddGrant) {
      ledger.addGrant(ids.grant[grant++], op.amount, op.a, op.b);
    } else if (op.kind == OpKind::kConsume) {
      bool ok = false;
      ledger.consume(ids.event[event++], op.amount, op.a, &ok);
      *accepted += ok;
    } else {
      int64_t balance = 0;
      ledger.getBalance(op.a, &balance);
      *balanceSum += balance;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s mixed|long CALLS [REPEATS]\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const size_t calls = std::strtoul(argv[2], nullptr, 10);
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 1;
  // The seeds of gcl::bench::standardWorkloads.
  const Workload workload = kind == "mixed"
                                ? gcl::bench::mixed(calls, calls >= 1000000  ? 4
                                                           : calls >= 100000 ? 3
                                                                             : 2)
                                : gcl::bench::longWindows(calls, calls >= 1000000 ? 10 : 9);
  Ids ids;
  for (const Op& op : workload.ops) {
    if (op.kind == OpKind::kAddGrant) ids.grant.push_back("g" + std::to_string(op.id));
    if (op.kind == OpKind::kConsume) ids.event.push_back("c" + std::to_string(op.id));
  }
  for (int r = 0; r < repeats; ++r) {
    size_t accepted = 0;
    int64_t balanceSum = 0;
    const auto start = std::chrono::steady_clock::now();
    CALLGRIND_START_INSTRUMENTATION;
    runOps(workload, ids, &accepted, &balanceSum);
    CALLGRIND_STOP_INSTRUMENTATION;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s %zu: accepted %zu, balance checksum %lld, %.3f us per call\n",
                workload.name.c_str(), calls, accepted, static_cast<long long>(balanceSum),
                1e6 * seconds / static_cast<double>(calls));
  }
  return 0;
}
