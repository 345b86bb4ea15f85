#!/usr/bin/env bash
# Runs every test of llm-sizer from a fresh clone: installs what is missing,
# checks the catalog, builds natively and runs the Catch2 and CLI suites.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

echo "== catalog checks"
python3 scripts/catalog/check_catalog.py

echo "== native build and tests"
cmake --preset native-release >/dev/null
cmake --build --preset native-release
ctest --preset native-release
