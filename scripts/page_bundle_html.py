#!/usr/bin/env python3
"""Points the built index.html at the bundled page script (scripts/build-web.sh):
app.js becomes js/page.js and the modulepreload hints for the modules the
bundle holds go. Fails when index.html no longer has what it replaces, so the
page and the build cannot drift apart silently."""
import re
import sys
from pathlib import Path

path = Path(sys.argv[1])
html = path.read_text(encoding="utf-8")
script = '<script type="module" src="app.js"></script>'
if html.count(script) != 1:
    sys.exit(f"page_bundle_html: {path} must load app.js once as {script}")
html = html.replace(script, '<script type="module" src="js/page.js"></script>')
bundled = re.compile(r'\s*<link rel="modulepreload" href="js/(?!wasm-module)[a-z-]+\.js">')
html, removed = bundled.subn("", html)
if removed == 0:
    sys.exit(f"page_bundle_html: {path} has no modulepreload of js/*.js to drop")
path.write_text(html, encoding="utf-8")
