#!/usr/bin/env bash
# `npm run bench:server`: the service benchmark (autocannon on loopback, not a test).
# Installs the service's dependencies (autocannon is one of its devDependencies) and
# builds the WASM module when missing, then runs server/bench/run.js; extra arguments are
# passed on (e.g. --duration 5, --only floor,single, --store postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
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
exec node server/bench/run.js "$@"
