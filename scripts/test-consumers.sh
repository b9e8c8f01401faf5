#!/usr/bin/env bash
# The consumer matrix (tests/consumers/): the packed tarball installed into fresh Node,
# TypeScript 5.9, Vite, esbuild and webpack projects, run in Node or headless Chromium.
# Usage: bash scripts/test-consumers.sh [cell-name ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools emscripten native chromium npm
# A node_modules installed before esbuild, TypeScript 5.9 and webpack joined the devDependencies.
if [ ! -d node_modules/esbuild ] || [ ! -d node_modules/typescript-5 ] || [ ! -d node_modules/webpack ]; then
  npm ci --no-audit --no-fund
fi
bash scripts/build-wasm.sh >/dev/null
exec node tests/consumers/run.mjs "$@"
