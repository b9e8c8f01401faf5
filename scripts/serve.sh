#!/usr/bin/env bash
# `npm run serve`: the ledger service with the embedded SQLite store, from a fresh clone.
# Installs the service's dependencies (better-sqlite3 compiles, about 2 minutes) and
# builds the WASM module when missing, then runs server/server.js in this process.
# Settings come from the environment: HOST, PORT, LEDGER_STORE, LEDGER_KEYS, ...
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-service.sh
ensure_service
exec node server/server.js
