#!/usr/bin/env bash
# `npm run bench [-- --quick]`: native and WASM figures for the same workloads, same run.
# --quick leaves out the native-only 10^7 workload and runs the finality-horizon stream
# (bench/horizon_bench.mjs) at 10^6 events instead of 10^7, and bulk loading
# (bench/load_bench.mjs) and headroom after a write (bench/headroom_bench.mjs) up to 10^5
# events instead of 10^6, and the rejected backdated call (bench/rejection_bench.mjs) up to
# n = 10^4 instead of 10^5. GCL_BENCH_BEFORE=DIR adds headroom_bench.mjs's,
# rejection_bench.mjs's and cold_start.mjs's figures for the package in DIR (an older
# checkout with its dist/ built), for a before/after table. bench/page_faults.mjs prints
# what memory costs the first time it is touched here, and how much of a bulk load that
# is. The cold start (bench/cold_start.mjs: fresh Node processes, import to first answer)
# and the module's size (scripts/size-report.sh) close the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools emscripten native npm
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench --target gcl_bench -j2 >/dev/null
bash scripts/build-wasm.sh >/dev/null
mkdir -p build/bench/out
echo "$(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
./build/bench/gcl_bench build/bench/out "$@"
node bench/wasm_bench.mjs build/bench/out
node bench/horizon_bench.mjs "$@"
node bench/load_bench.mjs "$@"
node bench/page_faults.mjs "$@"
node bench/headroom_bench.mjs "$@"
node bench/rejection_bench.mjs "$@"
node bench/cold_start.mjs
echo
GCL_SIZE_NO_BUILD=1 bash scripts/size-report.sh
