#!/usr/bin/env bash
# Format and lint gates (run by .ci/run): clang-format with the repository's .clang-format
# on the C++, eslint on every JavaScript file, prettier on JS, TS, CSS, HTML and JSON.
#   scripts/lint.sh         check only; exits non-zero on any difference or lint error
#   scripts/lint.sh --fix   rewrite files in place
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_tools npm
command -v clang-format >/dev/null || apt_install clang-format

mapfile -t cpp_files < <(git ls-files '*.cpp' '*.h')
prettier_globs=('**/*.{js,mjs,cjs,ts,mts,cts,css,html,json}')

if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${cpp_files[@]}"
  npx prettier --log-level warn --write "${prettier_globs[@]}"
  npx eslint --fix .
  exit 0
fi

status=0
echo "clang-format: ${#cpp_files[@]} files"
clang-format --dry-run -Werror "${cpp_files[@]}" || status=1
echo "prettier"
npx prettier --log-level warn --check "${prettier_globs[@]}" || status=1
echo "eslint"
npx eslint . || status=1
exit "$status"
