#!/usr/bin/env bash
# Sourced by the service's scripts (serve, test-server, bench-server): installs the
# service's dependencies when one of server/package.json's is missing (or better-sqlite3's
# native module is: it compiles, about 2 minutes), and builds the WASM module when missing.
source scripts/ensure-tools.sh

ensure_service() {
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
}
