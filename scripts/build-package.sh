#!/usr/bin/env bash
# Packs the engine as the npm package "llm-sizer" (bindings/npm): the
# JavaScript entry points and types, and the WebAssembly builds they load
# (Node: llmsizer-node.cjs; browsers: llmsizer-full.mjs). Writes
# build/npm/llm-sizer/ and the tarball `npm pack` makes of it,
# build/npm/llm-sizer-<version>.tgz, whose path it prints last.
set -euo pipefail
cd "$(dirname "$0")/.."

export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j2 >/dev/null

package=build/npm/llm-sizer
rm -rf build/npm
mkdir -p "$package"
cp bindings/npm/package.json bindings/npm/README.md bindings/npm/index.d.ts \
   bindings/npm/api.mjs bindings/npm/node.mjs bindings/npm/browser.mjs "$package/"
cp build/wasm/llmsizer-node.cjs build/wasm/llmsizer-node.wasm \
   build/wasm/llmsizer-full.mjs build/wasm/llmsizer-full.wasm "$package/"
(cd build/npm && npm pack ./llm-sizer --silent >/dev/null)
ls "$PWD"/build/npm/llm-sizer-*.tgz
