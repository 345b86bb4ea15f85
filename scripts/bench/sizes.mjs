// Bytes the page loads: wasm, JS, CSS, raw and gzipped, at start (what
// index.html names and the modules those import statically); apart, the
// engine (llmsizer.mjs and its wasm: a prerendered page fetches them when the
// reader first reaches for it, a link with a scenario at once) and the full
// module (fetched when a planner answer or a file reader is first asked for);
// and the catalog as embedded in the wasm (data/embedded), for scale.
// scripts/bench/page.mjs counts the same from what Chromium fetches.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, extname, join, normalize } from 'node:path';
import { figure } from './report.mjs';

const site = process.argv[2] ?? 'build/site';
const data = process.argv[3] ?? 'data/embedded';
const kinds = { '.wasm': 'wasm', '.js': 'js', '.mjs': 'js', '.css': 'css', '.html': 'html', '.svg': 'svg' };
const gzipped = (path) => gzipSync(readFileSync(path), { level: 9 }).length;

// A dynamic import() is fetched on demand, with its module's own wasm.
const page = new Set();
const onDemand = new Set();
function visit(path, set) {
  if (set.has(path) || !existsSync(path)) return;
  set.add(path);
  if (!/\.m?js$/.test(path)) return;
  const code = readFileSync(path, 'utf8');
  for (const [, spec] of code.matchAll(/(?:\bfrom|\bimport)\s*["']([./][^"']+)["']/g)) visit(normalize(join(dirname(path), spec)), set);
  for (const [, spec] of code.matchAll(/\bimport\(\s*["']([./][^"']+)["']\s*\)/g)) {
    const target = normalize(join(dirname(path), spec));
    visit(target, onDemand);
    visit(target.replace(/\.mjs$/, '.wasm'), onDemand);  // the module's own wasm
  }
}
const index = join(site, 'index.html');
visit(index, page);
for (const [, ref] of readFileSync(index, 'utf8').matchAll(/\b(?:src|href)="([^"#:]+)"/g)) visit(normalize(join(site, ref)), page);
for (const path of page) onDemand.delete(path);
const engine = [join(site, 'llmsizer.mjs'), join(site, 'llmsizer.wasm')];
for (const path of engine) {
  if (page.has(path)) throw new Error(`sizes: ${path} is on the page's start path`);
  onDemand.delete(path);
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
const engineBytes = engine.reduce((sum, path) => sum + gzipped(path), 0);
figure('bytes.engine_on_first_use.gzip', engineBytes / 1024, 'KiB');
// What a reader who changes the scenario has loaded: the page, the engine,
// and the full module the recommendations then ask for.
const fullBytes = [...onDemand].reduce((sum, path) => sum + gzipped(path), 0);
figure('bytes.full_module_on_demand.gzip', fullBytes / 1024, 'KiB');
figure('bytes.page_once_changed.gzip', (all + engineBytes + fullBytes) / 1024, 'KiB');
for (const file of readdirSync(data).sort()) {
  const raw = readFileSync(join(data, file));
  figure(`bytes.catalog.${file}.raw`, raw.length / 1024, 'KiB');
  figure(`bytes.catalog.${file}.gzip`, gzipSync(raw, { level: 9 }).length / 1024, 'KiB');
}
