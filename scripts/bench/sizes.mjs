// Bytes the page loads: wasm, JS, CSS, raw and gzipped; apart, the full engine
// module it fetches only when a planner search or a file reader is first asked
// for; and the catalog as embedded in the wasm (data/embedded), for scale.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { extname, join } from 'node:path';
import { figure } from './report.mjs';

const site = process.argv[2] ?? 'build/site';
const data = process.argv[3] ?? 'data/embedded';
const kinds = { '.wasm': 'wasm', '.js': 'js', '.mjs': 'js', '.css': 'css', '.html': 'html', '.svg': 'svg' };
const totals = {};
let onDemand = 0;
// What index.html pulls in: everything but the widget and embed files, and
// the full module (counted apart).
const pageOnly = (name) => !/^(llm-sizer-widget|widget-styles|embed)/.test(name);
const fullModule = (name) => name.startsWith('llmsizer-full.');
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) { walk(path); continue; }
    if (!pageOnly(name)) continue;
    const kind = kinds[extname(name)];
    if (!kind) continue;
    const raw = readFileSync(path);
    if (fullModule(name)) {
      onDemand += gzipSync(raw, { level: 9 }).length;
      continue;
    }
    totals[kind] ??= { raw: 0, gzip: 0 };
    totals[kind].raw += raw.length;
    totals[kind].gzip += gzipSync(raw, { level: 9 }).length;
  }
}
walk(site);
let all = 0;
for (const [kind, t] of Object.entries(totals)) {
  figure(`bytes.${kind}.raw`, t.raw / 1024, 'KiB');
  figure(`bytes.${kind}.gzip`, t.gzip / 1024, 'KiB');
  all += t.gzip;
}
figure('bytes.page_total.gzip', all / 1024, 'KiB', 120 * 1000 / 1024);
figure('bytes.full_module_on_demand.gzip', onDemand / 1024, 'KiB');
for (const file of readdirSync(data).sort()) {
  const raw = readFileSync(join(data, file));
  figure(`bytes.catalog.${file}.raw`, raw.length / 1024, 'KiB');
  figure(`bytes.catalog.${file}.gzip`, gzipSync(raw, { level: 9 }).length / 1024, 'KiB');
}
