#!/usr/bin/env bash
# Runs every test of llm-sizer from a fresh clone: installs what is missing,
# checks the catalog, builds natively and runs the Catch2 and CLI suites, builds
# the WebAssembly module and runs its Node tests, then the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# A build served from this machine: its links name http://127.0.0.1:8080/.
export LLMSIZER_LOCAL_BUILD=1

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
phase "the site as published (README's 'Publish the site'): SITE_URL=https://example.org/ in build/site-publish"
env -u LLMSIZER_LOCAL_BUILD SITE_URL=https://example.org/ SITE_DIR=build/site-publish ./scripts/build-web.sh

phase "wasm tests (Node), the prerendered pages (HTTP), browser tests (Chromium) and the npm package (packed, installed, called)"
node --test tests/web/ tests/wasm/ tests/site/ tests/publish/ tests/browser/ tests/answers/ tests/package/

phase "performance figures (quick mode: printed, budgets not enforced; a bench that breaks fails)"
./scripts/bench.sh quick
phase "done"
