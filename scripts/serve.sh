#!/usr/bin/env bash
# `npm run serve`: the ledger service with the embedded SQLite store, from a fresh clone.
# Installs the service's dependencies (better-sqlite3 compiles, about 2 minutes) and
# builds the WASM module when missing, then runs server/server.js in this process.
# Settings come from the environment: HOST, PORT, LEDGER_STORE, LEDGER_KEYS, ...
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
if [ ! -f server/node_modules/better-sqlite3/build/Release/better_sqlite3.node ] || [ ! -d server/node_modules/fastify ]; then
  npm ci --prefix server --no-audit --no-fund
fi
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  ensure_tools emscripten
  bash scripts/build-wasm.sh
fi
exec node server/server.js
