#!/usr/bin/env bash
# Runs every test of llm-sizer from a fresh clone: installs what is missing,
# checks the catalog, builds natively and runs the Catch2 and CLI suites, builds
# the WebAssembly module and runs its Node tests, then the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase prints the seconds since the start, so a slow run shows where its minutes went.
phase_start=$SECONDS
phase() {
  echo "== ($((SECONDS - phase_start)) s since start) $*"
}

./scripts/setup.sh web

phase "catalog checks"
python3 scripts/catalog/check_catalog.py
python3 -m unittest discover -s tests/catalog  # the offer rules on hand-made rows
python3 scripts/catalog/compact_catalog.py --check
python3 scripts/catalog/distribution.py --check
python3 scripts/catalog/check_seed_coverage.py

phase "native build and tests"
cmake --preset native-release >/dev/null
cmake --build --preset native-release
ctest --preset native-release

phase "native tests under AddressSanitizer and UBSan (clang; the fuzzers build in the same tree)"
cmake --preset native-sanitize >/dev/null
cmake --build --preset native-sanitize
ctest --preset native-sanitize
phase "fuzzing"
./scripts/fuzz.sh  # readers of hostile files under libFuzzer, 20 s per target; fails on any finding

phase "WebAssembly build and site"
./scripts/build-web.sh

phase "wasm tests (Node), the prerendered pages (HTTP) and browser tests (Chromium)"
node --test tests/web/ tests/wasm/ tests/site/ tests/browser/ tests/answers/

phase "performance figures (quick mode: printed, budgets not enforced; a bench that breaks fails)"
./scripts/bench.sh quick
phase "done"
