#!/usr/bin/env bash
# Builds the npm package's modules: the WebAssembly binary, dist/gpu_credit_ledger.wasm (one
# link; the separate-.wasm variant loads it as a file), and from it the main module,
# dist/gpu_credit_ledger_wasm.mjs (the binary gzipped and inlined, and the package's
# classes, bundled). No Emscripten glue: lib/instantiate.js instantiates the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
if [ -n "${GCL_SKIP_PREPACK_BUILD:-}" ] && [ -f dist/gpu_credit_ledger_wasm.mjs ] \
  && [ -f dist/gpu_credit_ledger.wasm ]; then
  exit 0
fi
# npm: esbuild (a devDependency) bundles the main module; a clone that never ran npm ci
# (npm run serve on a fresh machine) gets it here.
ensure_tools emscripten native npm
# Several shells (or helpers) may build at once: one builder of build/wasm at a time.
mkdir -p build
exec 9>build/wasm.lock
flock 9
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j2
mkdir -p dist
cp build/wasm/gpu_credit_ledger.wasm dist/gpu_credit_ledger.wasm
rm -f dist/gpu_credit_ledger.mjs # the glue of earlier builds
# esbuild (a devDependency) bundles the main module (scripts/inline-wasm.mjs).
if [ ! -x node_modules/.bin/esbuild ]; then
  echo "build-wasm.sh: node_modules/.bin/esbuild is missing: run npm ci first" >&2
  exit 1
fi
node scripts/inline-wasm.mjs
ls -l dist/gpu_credit_ledger_wasm.mjs dist/gpu_credit_ledger.wasm
