#!/usr/bin/env bash
# Builds whatever is missing (installing Emscripten and friends on a fresh
# Debian machine) and serves the page on http://127.0.0.1:$PORT/ (default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
# A build served from this machine: its links name http://127.0.0.1:8080/.
export LLMSIZER_LOCAL_BUILD=1 SITE_URL=${SITE_URL:-http://127.0.0.1:${PORT:-8080}/}

./scripts/setup.sh site
./scripts/build-web.sh
exec node scripts/static-server.mjs build/site --port "${PORT:-8080}"
