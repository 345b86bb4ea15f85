// Bytes the page loads: wasm, JS, CSS, raw and gzipped, at start (what
// index.html names and the modules those import statically); apart, its
// engine (llmsizer-full.mjs and its wasm: a prerendered page fetches them
// when the reader first reaches for it, a link with a scenario at once), the
// widget's smaller engine (llmsizer.mjs and its wasm: estimates only), and
// the catalog as embedded in the wasm (data/embedded), for scale.
// scripts/bench/page.mjs counts the same from what Chromium fetches.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, extname, join, normalize } from 'node:path';
import { figure } from './report.mjs';

const site = process.argv[2] ?? 'build/site';
const data = process.argv[3] ?? 'data/embedded';
const kinds = { '.wasm': 'wasm', '.js': 'js', '.mjs': 'js', '.css': 'css', '.html': 'html', '.svg': 'svg' };
const gzipped = (path) => gzipSync(readFileSync(path), { level: 9 }).length;

// A dynamic import() (the engine, the planner's searches) is not on it.
const page = new Set();
function visit(path, set) {
  if (set.has(path) || !existsSync(path)) return;
  set.add(path);
  if (!/\.m?js$/.test(path)) return;
  const code = readFileSync(path, 'utf8');
  for (const [, spec] of code.matchAll(/(?:\bfrom|\bimport)\s*["']([./][^"']+)["']/g)) visit(normalize(join(dirname(path), spec)), set);
}
const index = join(site, 'index.html');
visit(index, page);
for (const [, ref] of readFileSync(index, 'utf8').matchAll(/\b(?:src|href)="([^"#:]+)"/g)) visit(normalize(join(site, ref)), page);
const engineFiles = (name) => [join(site, `${name}.mjs`), join(site, `${name}.wasm`)];
for (const path of [...engineFiles('llmsizer'), ...engineFiles('llmsizer-full')]) {
  if (page.has(path)) throw new Error(`sizes: ${path} is on the page's start path`);
}

const totals = {};
for (const path of page) {
  const kind = kinds[extname(path)];
  if (!kind) continue;
  totals[kind] ??= { raw: 0, gzip: 0 };
  totals[kind].raw += readFileSync(path).length;
  totals[kind].gzip += gzipped(path);
}
let all = 0;
for (const [kind, t] of Object.entries(totals)) {
  figure(`bytes.${kind}.raw`, t.raw / 1024, 'KiB');
  figure(`bytes.${kind}.gzip`, t.gzip / 1024, 'KiB');
  all += t.gzip;
}
// Issue 20's budget: 128 KB gzipped for everything the page loads at start.
figure('bytes.page_total.gzip', all / 1024, 'KiB', 128 * 1000 / 1024);
const engineBytes = engineFiles('llmsizer-full').reduce((sum, path) => sum + gzipped(path), 0);
figure('bytes.engine_on_first_use.gzip', engineBytes / 1024, 'KiB');
// What a reader who changes the scenario has loaded: the page and its engine.
figure('bytes.page_once_live.gzip', (all + engineBytes) / 1024, 'KiB');
figure('bytes.widget_engine.gzip', engineFiles('llmsizer').reduce((sum, path) => sum + gzipped(path), 0) / 1024, 'KiB');
for (const file of readdirSync(data).sort()) {
  const raw = readFileSync(join(data, file));
  figure(`bytes.catalog.${file}.raw`, raw.length / 1024, 'KiB');
  figure(`bytes.catalog.${file}.gzip`, gzipSync(raw, { level: 9 }).length / 1024, 'KiB');
}
