#!/usr/bin/env bash
# The service's tests (server/test/*.test.js, Node's test runner, one file at a time):
# the REST contract against the package, faults, bad input and auth, restart, cache,
# overload, and the black-box crash and concurrency tests; the postgres*.test.js files
# start their own PostgreSQL 15 (server/test/support/postgres.js, installed with apt when
# missing). Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-service.sh
ensure_service
exec timeout "${SERVER_TEST_TIMEOUT:-1800}" node --test --test-concurrency=1 server/test/*.test.js
