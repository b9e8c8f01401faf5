#!/usr/bin/env bash
# Browser tests of the demo (tests/e2e/*.spec.js) with @playwright/test and Debian's
# Chromium: builds web/ with Vite, serves it with `vite preview` on 127.0.0.1, runs each
# test on its own page. Assumes the module is built (bash scripts/build-wasm.sh).
# Screenshots go to test-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools chromium npm
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  echo "dist/gpu_credit_ledger_wasm.mjs is missing: run bash scripts/build-wasm.sh first" >&2
  exit 1
fi
exec timeout --kill-after=10 660 node node_modules/@playwright/test/cli.js test -c tests/e2e/playwright.config.js "$@"
