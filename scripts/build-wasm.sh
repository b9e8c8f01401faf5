#!/usr/bin/env bash
# Builds the npm package's modules: the separate-.wasm variant, dist/gpu_credit_ledger.mjs +
# dist/gpu_credit_ledger.wasm (one link), and from them the main module,
# dist/gpu_credit_ledger_wasm.mjs (the same glue, the binary gzipped and inlined, and the
# package's classes, bundled).
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
# relinked nothing may run it again. esbuild (a devDependency) also bundles the main
# module (scripts/inline-wasm.mjs).
if [ ! -x node_modules/.bin/esbuild ]; then
  echo "build-wasm.sh: node_modules/.bin/esbuild is missing: run npm ci first" >&2
  exit 1
fi
node_modules/.bin/esbuild dist/gpu_credit_ledger.mjs --minify --log-level=warning \
  --outfile=dist/gpu_credit_ledger.mjs.min
mv dist/gpu_credit_ledger.mjs.min dist/gpu_credit_ledger.mjs
node scripts/inline-wasm.mjs
ls -l dist/gpu_credit_ledger_wasm.mjs dist/gpu_credit_ledger.mjs dist/gpu_credit_ledger.wasm
