#!/usr/bin/env bash
# Builds whatever is missing (installing Emscripten and friends on a fresh
# Debian machine) and serves the page on http://127.0.0.1:$PORT/ (default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh site
./scripts/build-web.sh
exec node scripts/static-server.mjs build/site --port "${PORT:-8080}"
