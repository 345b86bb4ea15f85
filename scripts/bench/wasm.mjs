// Engine latency in wasm under Node: one estimate, one page's worth of estimates
// (headline + quantization matrix + context chart), and the catalog sweep.
import { figure, percentile } from './report.mjs';
import { loadModule } from '../../tests/wasm/load.mjs';

const runs = Number(process.argv[2] ?? 300);
const module = await loadModule();
let t = performance.now();
const sizer = new module.Sizer();
figure('wasm.startup', performance.now() - t, 'ms');
const catalog = JSON.parse(sizer.catalog());

const base = { model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x', engine: 'llama.cpp' };
const ask = (r) => sizer.estimate(JSON.stringify(r));
for (let i = 0; i < 20; i += 1) ask(base);  // warm up

const single = [];
for (let i = 0; i < runs; i += 1) {
  const ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  ask({ ...base, ctx });
  single.push((performance.now() - t) * 1000);
}
figure('wasm.estimate_json.p50', percentile(single, 50), 'us');
figure('wasm.estimate_json.p95', percentile(single, 95), 'us');

const figures = [];
for (let i = 0; i < runs; i += 1) {
  const ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  sizer.figures(JSON.stringify({ ...base, ctx }));
  figures.push((performance.now() - t) * 1000);
}
figure('wasm.figures.p50', percentile(figures, 50), 'us', 20);
figure('wasm.figures.p95', percentile(figures, 95), 'us', 20);

// The same through the RequestFields value object (what the page's matrix and chart use).
const NONE = { config: '', kv: '', batch: NaN, gpus: NaN, offload: NaN, prompt: NaN };
for (let i = 0; i < 20; i += 1) sizer.figuresFor({ ...NONE, ...base });
const values = [];
for (let i = 0; i < runs; i += 1) {
  const ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  sizer.figuresFor({ ...NONE, ...base, ctx });
  values.push((performance.now() - t) * 1000);
}
figure('wasm.figures_value.p50', percentile(values, 50), 'us', 20);
figure('wasm.figures_value.p95', percentile(values, 95), 'us', 20);

const quants = ['F16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'IQ4_XS', 'Q3_K_M', 'IQ3_XXS', 'Q2_K', 'UD-Q2_K_XL', 'IQ2_XXS', 'IQ1_S'];
const contexts = [4096, 8192, 16384, 32768, 65536, 131072];
const panels = [];
for (let i = 0; i < Math.max(20, runs / 10); i += 1) {
  t = performance.now();
  ask({ ...base, ctx: 8192 + i });
  for (const quant of quants) sizer.figures(JSON.stringify({ ...base, quant }));
  for (const ctx of contexts) sizer.figures(JSON.stringify({ ...base, ctx }));
  panels.push(performance.now() - t);
}
figure('wasm.full_page_estimate.p50', percentile(panels, 50), 'ms', 4);
figure('wasm.full_page_estimate.p95', percentile(panels, 95), 'ms', 4);

if (typeof sizer.sweep === 'function') {
  // Every model x device x the engine's standard quantizations, answered as JSON.
  const sweeps = [];
  let answer;
  for (let i = 0; i < 5; i += 1) {
    t = performance.now();
    answer = JSON.parse(sizer.sweep(JSON.stringify({ ctx: 8192 })));
    sweeps.push(performance.now() - t);
  }
  if (!answer.ok) throw new Error(answer.error.message);
  figure('wasm.catalog_sweep.first', sweeps[0], 'ms');
  figure('wasm.catalog_sweep', percentile(sweeps, 50), 'ms', 50);
  figure('wasm.catalog_sweep.scenarios', answer.scenarios, 'scenarios');
} else {
  const pairs = catalog.models.length * catalog.devices.length * catalog.quants.length;
  figure('wasm.catalog_sweep.missing', pairs, 'scenarios');
}
