#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks for building and testing, and nothing
# more. Sourced by the other scripts. Usage: ensure_tools [emscripten] [native] [chromium] [npm]
set -euo pipefail

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

ensure_tools() {
  local need=()
  for tool in "$@"; do
    case "$tool" in
      emscripten) command -v em++ >/dev/null || need+=(emscripten) ;;
      native)
        command -v cmake >/dev/null || need+=(cmake)
        command -v g++ >/dev/null || need+=(g++)
        [ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
        [ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
        ;;
      clang) command -v clang++ >/dev/null || need+=(clang) ;;
      chromium) [ -x /usr/bin/chromium ] || need+=(chromium) ;;
      npm) ;;
    esac
  done
  if [ "${#need[@]}" -gt 0 ]; then
    echo "installing: ${need[*]}"
    apt_install "${need[@]}"
  fi
  if [[ " $* " == *" npm "* ]] && [ ! -d node_modules/vite ]; then
    npm ci --no-audit --no-fund
  fi
}

# em++ from Debian needs acorn & co. from Debian's node modules at link time.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
