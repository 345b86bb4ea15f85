// A small static file server for the page and the tests: serves one folder on
// 127.0.0.1 with the right MIME types (.mjs, .wasm) and, with --csp, the strict
// Content-Security-Policy the page must work under.
// Usage: node scripts/static-server.mjs DIR [--port 8080] [--csp] [--cache]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const root = resolve(args[0] ?? 'build/site');
const port = Number(args[args.indexOf('--port') + 1] || process.env.PORT || 8080);
const csp = args.includes('--csp');
// --cache: responses may be kept an hour (the prerender's many loads of one
// site then reuse Chromium's compiled WebAssembly instead of compiling again).
const cache = args.includes('--cache') ? 'max-age=3600' : 'no-cache';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

const server = createServer(async (req, res) => {
  try {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    // Any origin may load the widget and its module (the README's embed snippet).
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': cache,
      'Access-Control-Allow-Origin': '*' };
    // The page fetches from nowhere but itself and, when the reader asks for a
    // Hub repo (web/js/hub.js), the Hub's hosts: its API and its file CDNs.
    if (csp) {
      headers['Content-Security-Policy'] = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
        "connect-src 'self' https://huggingface.co https://*.huggingface.co https://*.hf.co";
    }
    res.writeHead(200, headers);
    res.end(body);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  }
});

server.listen(port, '127.0.0.1', () => {
  console.log(`llm-sizer: serving ${root} at http://127.0.0.1:${server.address().port}/`);
});
