#!/usr/bin/env bash
# `npm test`: every test, from a fresh clone on Debian 12: native C++ (GoogleTest), the
# WASM package (types, Vitest, npm pack), and the demo in headless Chromium.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools emscripten native chromium npm || exit 1

passed=0
failed=0
suite() {
  local name=$1
  shift
  echo "== $name: $*"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "== FAILED: $name"
  fi
}

suite "native C++ tests" bash scripts/test-native.sh
suite "WASM module" bash scripts/build-wasm.sh
suite "types (tsc)" npx tsc -p tsconfig.json
suite "package JS against its types (tsc checkJs)" npx tsc -p tsconfig.lib.json
suite "JS tests (Vitest)" npx vitest run
suite "npm pack install" node tests/pack/pack-smoke.mjs
suite "consumer matrix (Node, TypeScript 5.9, Vite, esbuild, webpack, Chromium)" bash scripts/test-consumers.sh
suite "service" bash scripts/test-server.sh
suite "demo end-to-end (Chromium)" bash scripts/test-e2e.sh
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
