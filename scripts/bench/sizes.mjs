// Bytes the page loads: wasm, JS, CSS, raw and gzipped; apart, the full engine
// module it fetches only when a planner search or a file reader is first asked
// for; and the catalog as embedded in the wasm (data/embedded), for scale.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, extname, join, normalize } from 'node:path';
import { figure } from './report.mjs';

const site = process.argv[2] ?? 'build/site';
const data = process.argv[3] ?? 'data/embedded';
const kinds = { '.wasm': 'wasm', '.js': 'js', '.mjs': 'js', '.css': 'css', '.html': 'html', '.svg': 'svg' };
const gzipped = (path) => gzipSync(readFileSync(path), { level: 9 }).length;

// What index.html pulls in at start: the files it names (scripts, styles,
// preloads, icon) and every module those import statically; a dynamic
// import() (the full module) is fetched on demand and counted apart.
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
  // The wasm a module fetches (new URL('../llmsizer.wasm', import.meta.url)).
  for (const [, spec] of code.matchAll(/new URL\(\s*["']([./][^"']+\.wasm)["']/g)) visit(normalize(join(dirname(path), spec)), set);
}
const index = join(site, 'index.html');
visit(index, page);
for (const [, ref] of readFileSync(index, 'utf8').matchAll(/\b(?:src|href)="([^"#:]+)"/g)) visit(normalize(join(site, ref)), page);
for (const path of page) onDemand.delete(path);

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
// Issue 20's budget: 128 KB gzipped for everything the page loads at start, nlohmann/json inside.
figure('bytes.page_total.gzip', all / 1024, 'KiB', 128 * 1000 / 1024);
figure('bytes.full_module_on_demand.gzip', [...onDemand].reduce((sum, path) => sum + gzipped(path), 0) / 1024, 'KiB');
for (const file of readdirSync(data).sort()) {
  const raw = readFileSync(join(data, file));
  figure(`bytes.catalog.${file}.raw`, raw.length / 1024, 'KiB');
  figure(`bytes.catalog.${file}.gzip`, gzipSync(raw, { level: 9 }).length / 1024, 'KiB');
}
