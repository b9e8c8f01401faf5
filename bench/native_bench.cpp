// Native half of `npm run bench`: runs every workload through gcl::Ledger (incremental
// engine, and the reference replay where it finishes within 60 s), prints the figures,
// and writes the workloads plus the native results for bench/wasm_bench.mjs.
//   gcl_bench OUT_DIR [--quick]
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gpu_credit_ledger/ledger.h"
#include "workloads.h"

namespace {

using gcl::bench::Op;
using gcl::bench::OpKind;
using gcl::bench::Workload;
using Clock = std::chrono::steady_clock;

struct Result {
  double seconds = 0;  // < 0: stopped at the time limit
  size_t accepted = 0;
  int64_t balanceSum = 0;  // a checksum: the WASM run must print the same
  double bytesPerEvent = 0;
};

struct Ids {
  std::vector<std::string> grant;
  std::vector<std::string> event;
};

// glibc serves big blocks with mmap and counts them apart (hblkhd): both are heap here.
size_t heapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

Ids makeIds(const Workload& workload) {
  Ids ids;
  for (const Op& op : workload.ops) {
    if (op.kind == OpKind::kAddGrant) ids.grant.push_back("g" + std::to_string(op.id));
    if (op.kind == OpKind::kConsume) ids.event.push_back("c" + std::to_string(op.id));
  }
  return ids;
}

Result run(const Workload& workload, const Ids& ids, gcl::EngineKind kind, double limitSeconds) {
  Result result;
  const size_t heapBefore = heapInUse();
  const auto start = Clock::now();
  {
    gcl::Ledger ledger(kind);
    size_t grant = 0;
    size_t event = 0;
    size_t events = 0;
    for (size_t i = 0; i < workload.ops.size(); ++i) {
      const Op& op = workload.ops[i];
      if (op.kind == OpKind::kAddGrant) {
        ledger.addGrant(ids.grant[grant++], op.amount, op.a, op.b);
        ++events;
      } else if (op.kind == OpKind::kConsume) {
        bool accepted = false;
        ledger.consume(ids.event[event++], op.amount, op.a, &accepted);
        result.accepted += accepted;
        events += accepted;
      } else {
        int64_t balance = 0;
        ledger.getBalance(op.a, &balance);
        result.balanceSum += balance;
      }
      if ((i & 63) == 0 && limitSeconds > 0 &&
          std::chrono::duration<double>(Clock::now() - start).count() > limitSeconds) {
        result.seconds = -1;
        return result;
      }
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.bytesPerEvent = static_cast<double>(heapInUse() - heapBefore) / events;
  }
  return result;
}

int repeatsFor(const Workload& workload) {
  if (workload.ops.size() <= 10000) return 5;
  return workload.ops.size() <= 100000 ? 3 : 1;
}

void writeOps(const Workload& workload, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  // Doubles, exact for every value here (all < 2^53): the JS side reads them without
  // allocating a BigInt per field, which would leave garbage to collect mid-run.
  for (const Op& op : workload.ops) {
    const double row[5] = {static_cast<double>(op.kind), static_cast<double>(op.id),
                           static_cast<double>(op.amount), static_cast<double>(op.a),
                           static_cast<double>(op.b)};
    out.write(reinterpret_cast<const char*>(row), sizeof(row));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [--quick]\n", argv[0]);
    return 2;
  }
  const std::string outDir = argv[1];
  const bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  std::vector<Workload> workloads = gcl::bench::standardWorkloads(!quick);
  std::printf(
      "native (g++ -O3), best of 5 runs up to 10^4 ops, of 3 up to 10^5, else one; reference = "
      "full replay per call, one run, stopped at 60 s\n");
  std::printf("%-22s %10s %12s %9s %10s %12s %9s\n", "workload", "ops", "ops/s", "us/op",
              "bytes/ev", "ref s", "speed-up");
  std::ofstream json(outDir + "/native.json");
  json << "[\n";
  for (size_t w = 0; w < workloads.size(); ++w) {
    const Workload& workload = workloads[w];
    const Ids ids = makeIds(workload);
    // Best of several for the small workloads, where one cold run is mostly warm-up.
    Result fast = run(workload, ids, gcl::EngineKind::kIncremental, 0);
    for (int again = 1; again < repeatsFor(workload); ++again) {
      const Result next = run(workload, ids, gcl::EngineKind::kIncremental, 0);
      if (next.seconds < fast.seconds) fast = next;
    }
    Result reference;
    reference.seconds = -2;  // not attempted
    if (workload.ops.size() <= 10000) {
      reference = run(workload, ids, gcl::EngineKind::kReplay, 60);
      if (reference.seconds >= 0 &&
          (reference.accepted != fast.accepted || reference.balanceSum != fast.balanceSum)) {
        std::fprintf(stderr, "MISMATCH between engines on %s\n", workload.name.c_str());
        return 1;
      }
    }
    const double n = static_cast<double>(workload.ops.size());
    char refText[32] = "-";
    char speedText[32] = "-";
    if (reference.seconds >= 0) {
      std::snprintf(refText, sizeof refText, "%.3f", reference.seconds);
      std::snprintf(speedText, sizeof speedText, "%.0fx", reference.seconds / fast.seconds);
    } else if (reference.seconds == -1) {
      std::snprintf(refText, sizeof refText, "> 60");
    }
    std::printf("%-22s %10.0f %12.0f %9.3f %10.1f %12s %9s\n", workload.name.c_str(), n,
                n / fast.seconds, 1e6 * fast.seconds / n, fast.bytesPerEvent, refText, speedText);
    std::fflush(stdout);
    std::string file;
    if (workload.wasm) {
      file = outDir + "/workload-" + std::to_string(w) + ".ops";
      writeOps(workload, file);
    }
    json << "  {\"name\": \"" << workload.name << "\", \"file\": \"" << file << "\", \"ops\": " << n
         << ", \"seconds\": " << fast.seconds << ", \"accepted\": " << fast.accepted
         << ", \"balanceSum\": " << fast.balanceSum << ", \"bytesPerEvent\": " << fast.bytesPerEvent
         << ", \"referenceSeconds\": " << reference.seconds << "}"
         << (w + 1 < workloads.size() ? "," : "") << "\n";
  }
  json << "]\n";
  return 0;
}
