#!/usr/bin/env bash
# `npm run bench:server`: the service benchmark (autocannon on loopback, not a test).
# Installs the service's dependencies and builds the WASM module when missing, then runs
# server/bench/run.js; extra arguments are passed on (e.g. --duration 5, --store PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d server/node_modules/autocannon ] || [ ! -d server/node_modules/better-sqlite3 ]; then
  npm ci --prefix server
fi
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  bash scripts/build-wasm.sh
fi
exec node server/bench/run.js "$@"
