#!/usr/bin/env bash
# Prints what the package's modules weigh, raw and gzipped (gzip -9), as in the "Module
# size" table of docs/performance.md. Builds the modules first unless they exist
# (GCL_SIZE_NO_BUILD=1 measures dist/ as it is).
#   bash scripts/size-report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GCL_SIZE_NO_BUILD:-}" ]; then bash scripts/build-wasm.sh >/dev/null; fi
row() { # label, file
  printf '%-58s %9d B %9d B gz\n' "$1" "$(wc -c <"$2")" "$(gzip -9c "$2" | wc -c)"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The inlined binary as it sits in the main module (base64 of gzip).
node -e "import('./dist/gpu_credit_ledger_inline.mjs').then((m) => process.stdout.write(m.wasmGzipBase64))" >"$tmp/payload.b64"
echo "module sizes, $(date -u '+%Y-%m-%d %H:%M UTC')"
row 'dist/gpu_credit_ledger_wasm.mjs (main module: binary, classes)' dist/gpu_credit_ledger_wasm.mjs
row '  of which the inlined binary (base64 of gzip)' "$tmp/payload.b64"
row 'dist/gpu_credit_ledger.wasm' dist/gpu_credit_ledger.wasm
# Everything `import 'gpu-credit-ledger'` loads (lib/ and the main module), bundled and
# minified as an application's bundler would.
if [ -x node_modules/.bin/esbuild ]; then
  # Split as an application's bundler splits dynamic imports: the entry chunk is what every
  # platform loads; lib/inflate.js (a gunzip only platforms without one of their own
  # import) is a chunk apart.
  node_modules/.bin/esbuild lib/index.js --bundle --minify --format=esm --platform=neutral \
    --splitting --chunk-names='[name]' --log-level=warning --outdir="$tmp/main-entry"
  row "import 'gpu-credit-ledger', bundled (esbuild --minify)" "$tmp/main-entry/index.js"
  row "  and where neither node:zlib nor DecompressionStream is" "$tmp/main-entry/inflate.js"
  node_modules/.bin/esbuild lib/wasm-file.js --bundle --minify --format=esm --platform=neutral \
    --log-level=warning --outfile="$tmp/wasm-file-entry.js"
  row "import 'gpu-credit-ledger/wasm-file', bundled (+ the .wasm)" "$tmp/wasm-file-entry.js"
fi
