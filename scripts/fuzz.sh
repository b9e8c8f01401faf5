#!/usr/bin/env bash
# Builds the libFuzzer harness with clang (ASan + UBSan) in build-fuzz and fuzzes the
# incremental engine against the reference for N seconds (default 60) on a copy of
# tests/fuzz/corpus. Prints libFuzzer's final stats; exits non-zero on a finding, whose
# input lands in build-fuzz/artifacts/ (rerun: build-fuzz/gcl_fuzz <file> prints a repro).
#   scripts/fuzz.sh [seconds] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools clang native

seconds="${1:-60}"
shift || true
# RelWithDebInfo without -DNDEBUG: the engine's own asserts count as findings too.
CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" \
  -DGCL_FUZZ=ON -DGCL_SANITIZE=OFF -DGCL_BENCH=OFF >/dev/null
cmake --build build-fuzz --target gcl_fuzz -j2

work=build-fuzz/corpus
mkdir -p "$work" build-fuzz/artifacts
cp -n tests/fuzz/corpus/* "$work"/ 2>/dev/null || true
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
set +e
build-fuzz/gcl_fuzz "$work" -max_total_time="$seconds" -max_len=1024 -timeout=10 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ "$@" 2>&1 |
  sed -E '/^#[0-9]+\s+(NEW|REDUCE)/d; /^\s+NEW_FUNC/d; /Recommended dictionary/,/End of recommended dictionary/d'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "fuzz: FINDING (exit $status); inputs in build-fuzz/artifacts/" >&2
fi
exit "$status"
