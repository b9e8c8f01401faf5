#!/usr/bin/env bash
# The service's tests (server/test/*.test.js, Node's test runner, one file at a time):
# the REST contract against the package, faults, bad input and auth, restart, cache,
# overload, and the black-box crash and concurrency tests; the postgres*.test.js files
# start their own PostgreSQL 15 (server/test/support/postgres.js, installed with apt when
# missing). Installs what is missing first.
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
exec timeout "${SERVER_TEST_TIMEOUT:-1800}" node --test --test-concurrency=1 server/test/*.test.js
