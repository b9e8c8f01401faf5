#!/usr/bin/env bash
# `npm run serve`: the ledger service with the embedded SQLite store, from a fresh clone.
# Installs the service's dependencies (better-sqlite3 compiles, about 2 minutes) and
# builds the WASM module when missing, then runs server/server.js in this process.
# Settings come from the environment: HOST, PORT, LEDGER_STORE, LEDGER_KEYS, ...
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
# Installs the service's dependencies when one of server/package.json's is missing (or
# better-sqlite3's native module is: it compiles, about 2 minutes).
if [ ! -f server/node_modules/better-sqlite3/build/Release/better_sqlite3.node ] ||
  ! node -e 'const p = require("./server/package.json"); const fs = require("fs");
    const names = Object.keys({ ...p.dependencies, ...p.devDependencies });
    process.exit(names.every((n) => fs.existsSync(`server/node_modules/${n}/package.json`)) ? 0 : 1)'; then
  npm ci --prefix server --no-audit --no-fund
fi
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  ensure_tools emscripten
  bash scripts/build-wasm.sh
fi
exec node server/server.js
