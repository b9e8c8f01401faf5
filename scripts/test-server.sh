#!/usr/bin/env bash
# The service's tests (server/test/*.test.js, Node's test runner, one file at a time):
# the REST contract against the package, faults, bad input and auth, restart, cache,
# overload, and the black-box crash and concurrency tests; the postgres*.test.js files
# start their own PostgreSQL 15 (server/test/support/postgres.js, installed with apt when
# missing). Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
if [ ! -f server/node_modules/better-sqlite3/build/Release/better_sqlite3.node ] || [ ! -d server/node_modules/fastify ] || [ ! -d server/node_modules/pg ]; then
  npm ci --prefix server --no-audit --no-fund
fi
if [ ! -f dist/gpu_credit_ledger_wasm.mjs ]; then
  ensure_tools emscripten
  bash scripts/build-wasm.sh
fi
exec timeout "${SERVER_TEST_TIMEOUT:-1200}" node --test --test-concurrency=1 server/test/*.test.js
