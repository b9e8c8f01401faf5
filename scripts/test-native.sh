#!/usr/bin/env bash
# Builds and runs the native GoogleTest suite.
#   scripts/test-native.sh             Release build in build/native
#   scripts/test-native.sh --sanitize  ASan + UBSan (RelWithDebInfo) build in build/asan
# Extra arguments go to ctest (e.g. -R Differential). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools native

build_dir=build/native
config=(-DCMAKE_BUILD_TYPE=Release -DGCL_SANITIZE=OFF)
if [ "${1:-}" = "--sanitize" ]; then
  shift
  build_dir=build/asan
  # RelWithDebInfo without -DNDEBUG, so that the engine's asserts run too.
  config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
          -DGCL_SANITIZE=ON)
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  # Sanitizers look for memory errors and UB, not breadth: 30% of the random sequences
  # keeps the run to a few minutes (the Release run does them all).
  export GCL_DIFF_SCALE="${GCL_DIFF_SCALE:-0.3}"
fi
# One builder of a build folder at a time (several shells may run the tests at once).
mkdir -p "$build_dir"
exec 9>"$build_dir.lock"
flock 9
cmake -S . -B "$build_dir" "${config[@]}" -DGCL_FUZZ=OFF -DGCL_BENCH=OFF >/dev/null
cmake --build "$build_dir" --target gcl_tests gcl_script -j2
cd "$build_dir"
start=$(date +%s)
ctest --output-on-failure -j2 "$@"
echo "ctest in $build_dir: $(( $(date +%s) - start )) s"
