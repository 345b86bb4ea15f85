#!/usr/bin/env bash
# Builds the WebAssembly engine and assembles the static site in build/site.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where the site goes (SITE_DIR, default build/site), and the address it will
# be served at (SITE_URL: canonical links, Open Graph, sitemap.xml). A build
# for this machine (serve.sh, test.sh) says so with LLMSIZER_LOCAL_BUILD=1 and
# gets http://127.0.0.1:8080/; any other build must name its address, and a
# loopback one is refused: it would publish links that lead nowhere.
site=${SITE_DIR:-build/site}
[[ $site == build/* && $site != *..* ]] || { echo "build-web: SITE_DIR must be a folder under build/, not '$site'" >&2; exit 2; }
node scripts/prerender.mjs --check-site-url

# Debian's emcc runs its JS optimizer with the system Node, which needs acorn
# from Debian's own folder.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
if [[ ! -f build/wasm/CMakeCache.txt ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j2

rm -rf "$site"
mkdir -p "$site"
cp -R web/. "$site/"
cp build/wasm/llmsizer.mjs build/wasm/llmsizer.wasm build/wasm/llmsizer-full.mjs build/wasm/llmsizer-full.wasm "$site/"

# The same files, modules and names on the wire, minified (esbuild, an npm
# devDependency that scripts/setup.sh installs): ~10 KB less gzipped.
esbuild=node_modules/.bin/esbuild
if [[ ! -x $esbuild ]]; then
  echo "build-web: $esbuild is missing; run scripts/setup.sh site" >&2
  exit 1
fi
while IFS= read -r -d '' file; do
  "$esbuild" "$file" --minify --log-level=warning --outfile="$file.min"
  mv "$file.min" "$file"
done < <(find "$site" -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.css' \) -print0)

# The page's own scripts as one module (js/page.js): one request and one
# gzip stream instead of eight. The engine's glue, its full module, the
# planner's searches (fetched with their first click) and the early wasm
# compile stay separate files (the widget imports js/*.js as they
# are); their paths are written relative to js/, where the bundle lives.
"$esbuild" web/app.js --bundle --format=esm --minify --log-level=warning \
  --external:../llmsizer.mjs --external:../llmsizer-full.mjs --external:./wasm-module.js \
  --external:./planner-searches.js --outfile="$site/js/page.js"
rm "$site/app.js"
python3 scripts/page_bundle_html.py "$site/index.html"

# The pages with their answers in the HTML (the home page, one per model, the
# pairs of data/pages.json), sitemap.xml and robots.txt: the live page run in
# headless Chromium on each scenario, at SITE_URL.
node scripts/prerender.mjs "$site"
echo "site: $site"
