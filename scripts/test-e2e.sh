#!/usr/bin/env bash
# Builds the demo and drives it in headless Chromium (tests/e2e/demo.e2e.mjs).
# Assumes the module is built (bash scripts/build-wasm.sh). Screenshots go to test-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools chromium npm
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  echo "dist/gpu_credit_ledger_wasm.mjs is missing: run bash scripts/build-wasm.sh first" >&2
  exit 1
fi
exec timeout --kill-after=10 300 node tests/e2e/demo.e2e.mjs
