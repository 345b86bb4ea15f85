#!/usr/bin/env bash
# Installs what building and testing llm-sizer needs on a fresh Debian machine,
# skipping what is already there. `setup.sh native`: the C++ toolchains (g++,
# and clang for the sanitizer and fuzzer tree);
# `setup.sh site`: g++, Emscripten, Node.js, Chromium and the npm packages (to
# build, minify, prerender and serve the page); `setup.sh web` (the default):
# both, for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-web}

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
[[ -f /usr/include/nlohmann/json.hpp ]] || need+=(nlohmann-json3-dev)
[[ -f /usr/include/catch2/catch.hpp ]] || need+=(catch2)
# The CLI reads Hub files (--hf) with libcurl.
[[ -f /usr/include/x86_64-linux-gnu/curl/curl.h || -f /usr/include/curl/curl.h ]] || need+=(libcurl4-openssl-dev)
# The sanitizer tree (tests and fuzzers; not needed to serve the page): clang
# 14, Debian's libFuzzer runtime and llvm-symbolizer for readable stacks.
if [[ $what != site ]]; then
  command -v clang++-14 >/dev/null || need+=(clang-14)
  compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
  command -v llvm-symbolizer-14 >/dev/null || need+=(llvm-14)
fi
if [[ $what == site || $what == web ]]; then
  command -v emcc >/dev/null || need+=(emscripten)
  command -v node >/dev/null || need+=(nodejs)
  command -v npm >/dev/null || need+=(npm)
fi
if [[ $what == site || $what == web ]]; then
  [[ -x /usr/bin/chromium ]] || need+=(chromium)
fi

if ((${#need[@]})); then
  echo "setup: installing ${need[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# esbuild minifies the site; playwright-core drives Chromium in the tests.
if [[ $what != native && ( ! -d node_modules/playwright-core || ! -x node_modules/.bin/esbuild ) ]]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
fi
