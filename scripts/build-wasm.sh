#!/usr/bin/env bash
# Builds the npm package's modules: dist/gpu_credit_ledger_wasm.mjs (wasm inlined) and the
# separate-.wasm variant, dist/gpu_credit_ledger.mjs + dist/gpu_credit_ledger.wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
if [ -n "${GCL_SKIP_PREPACK_BUILD:-}" ] && [ -f dist/gpu_credit_ledger_wasm.mjs ] \
  && [ -f dist/gpu_credit_ledger.mjs ] && [ -f dist/gpu_credit_ledger.wasm ]; then
  exit 0
fi
ensure_tools emscripten native
# Several shells (or helpers) may build at once: one builder of build/wasm at a time.
mkdir -p build
exec 9>build/wasm.lock
flock 9
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j2
# Emscripten leaves the glue's local names long without closure: esbuild's minifier
# renames them (about 3.5 kB less gzipped, same behaviour). Idempotent, so a build that
# relinked nothing may run it again.
if [ -x node_modules/.bin/esbuild ]; then
  for glue in dist/gpu_credit_ledger_wasm.mjs dist/gpu_credit_ledger.mjs; do
    node_modules/.bin/esbuild "$glue" --minify --log-level=warning --outfile="$glue.min"
    mv "$glue.min" "$glue"
  done
else
  echo "build-wasm.sh: node_modules/.bin/esbuild missing (npm install): the glue is left unminified" >&2
fi
ls -l dist/gpu_credit_ledger_wasm.mjs dist/gpu_credit_ledger.mjs dist/gpu_credit_ledger.wasm
