#!/usr/bin/env bash
# `npm run bench:server`: the service benchmark (autocannon on loopback, not a test).
# Installs the service's dependencies (autocannon is one of its devDependencies) and
# builds the WASM module when missing, then runs server/bench/run.js; extra arguments are
# passed on (e.g. --duration 5, --only floor,single, --store postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-service.sh
ensure_service
exec node server/bench/run.js "$@"
