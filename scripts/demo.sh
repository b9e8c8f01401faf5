#!/usr/bin/env bash
# Builds the WASM module and serves the browser demo (web/) with Vite's dev server.
# Usage: bash scripts/demo.sh   (PORT=5173 and HOST=127.0.0.1 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/build-wasm.sh
host="${HOST:-127.0.0.1}"
port="${PORT:-5173}"
echo "Demo: http://${host}:${port}/"
exec node node_modules/vite/bin/vite.js web --host "$host" --port "$port" --strictPort
