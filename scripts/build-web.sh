#!/usr/bin/env bash
# Builds the WebAssembly engine and assembles the static site in build/site.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's emcc runs its JS optimizer with the system Node, which needs acorn
# from Debian's own folder.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j2

rm -rf build/site
mkdir -p build/site
cp -R web/. build/site/
cp build/wasm/llmsizer.mjs build/wasm/llmsizer.wasm build/site/
echo "site: build/site"
