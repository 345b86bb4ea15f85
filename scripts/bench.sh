#!/usr/bin/env bash
# Prints one JSON line per performance figure with its budget:
#   {"figure": "...", "value": 12.3, "unit": "ms", "budget": 50, "met": true}
# Engine latency natively and in wasm, the catalog sweep, the page in headless
# Chromium, and the bytes the page loads. `bench.sh quick` runs fewer rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
# A build served from this machine: its links name http://127.0.0.1:8080/.
export LLMSIZER_LOCAL_BUILD=1
runs=2000
[[ ${1:-} == quick ]] && runs=200

[[ -x build/native-release/tests/llmsizer_bench ]] || { cmake --preset native-release >/dev/null; cmake --build --preset native-release >/dev/null; }
[[ -f build/site/llmsizer.wasm ]] || ./scripts/build-web.sh >/dev/null

build/native-release/tests/llmsizer_bench "$runs"
node scripts/bench/wasm.mjs "$runs"
node scripts/bench/page.mjs
node scripts/bench/sizes.mjs build/site data/embedded
