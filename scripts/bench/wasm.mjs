// Engine latency in wasm under Node: one estimate, one page's worth of estimates
// (headline + quantization matrix + context chart), and the catalog sweep.
import { figure, percentile } from './report.mjs';
import { loadModule } from '../../tests/wasm/load.mjs';

const runs = Number(process.argv[2] ?? 300);
const module = await loadModule();
let t = performance.now();
const sizer = new module.Sizer();
figure('wasm.startup', performance.now() - t, 'ms');
const catalog = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));

// V8 runs new wasm code from its baseline compiler until the optimizing tier
// has caught up: each path runs for half a second before it is timed.
function warm(call) {
  const start = performance.now();
  while (performance.now() - start < 500) call();
}

const base = { model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x', engine: 'llama.cpp' };
const ask = (r) => sizer.estimate(JSON.stringify(r));
warm(() => ask(base));

const single = [];
for (let i = 0; i < runs; i += 1) {
  const ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  ask({ ...base, ctx });
  single.push((performance.now() - t) * 1000);
}
figure('wasm.estimate_json.p50', percentile(single, 50), 'us');
figure('wasm.estimate_json.p95', percentile(single, 95), 'us');

warm(() => sizer.figuresFromJson(JSON.stringify(base)));
const figures = [];
for (let i = 0; i < runs; i += 1) {
  const ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  sizer.figuresFromJson(JSON.stringify({ ...base, ctx }));
  figures.push((performance.now() - t) * 1000);
}
// From JSON text: requests the fields cannot carry (a pasted config.json).
figure('wasm.figures_json.p50', percentile(figures, 50), 'us');
figure('wasm.figures_json.p95', percentile(figures, 95), 'us');

// One estimate as the page asks for it (each row of the quantization matrix
// and each point of the context chart): the fields as arguments, the figures
// read from the shared buffer. The budget of one estimate applies here.
const NONE = { config: '', kv: '', batch: NaN, gpus: NaN, offload: NaN, prompt: NaN, ram_gib: NaN };
const into = (f) => sizer.figuresInto(f.model, f.config, f.quant, f.kv, f.engine, f.gpu, f.ctx, f.batch, f.gpus, f.offload, f.prompt, f.ram_gib);
const fields = { ...NONE, ...base };
warm(() => into(fields));
const view = sizer.figuresView();
const values = [];
let sum = 0;
// At least 2000 samples even in quick mode (some 30 ms): with 200, one stall
// of this machine moves the p95 by itself.
for (let i = 0; i < Math.max(runs, 2000); i += 1) {
  fields.ctx = 4096 * (1 + (i % 16));
  t = performance.now();
  into(fields);
  sum += view[1];
  values.push((performance.now() - t) * 1000);
}
if (!(sum > 0)) throw new Error('figuresInto wrote no KV cache figure');
figure('wasm.figures_into.p50', percentile(values, 50), 'us', 20);
figure('wasm.figures_into.p95', percentile(values, 95), 'us', 20);

const quants = ['F16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'IQ4_XS', 'Q3_K_M', 'IQ3_XXS', 'Q2_K', 'UD-Q2_K_XL', 'IQ2_XXS', 'IQ1_S'];
const contexts = [4096, 8192, 16384, 32768, 65536, 131072];
const panels = [];
for (let i = 0; i < Math.max(20, runs / 10); i += 1) {
  t = performance.now();
  ask({ ...base, ctx: 8192 + i });
  for (const quant of quants) into({ ...fields, quant, ctx: 8192 });
  for (const ctx of contexts) into({ ...fields, ctx });
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

if (typeof sizer.serve === 'function') {
  // The Serving panel's curve for the seed's scenario (GLM-4.5 FP8, vLLM, 8x
  // MI300X), swept to saturation: asked again on each of the panel's inputs,
  // so it answers within a planner question's budget.
  const request = JSON.stringify({ model: 'glm-4.5', quant: 'FP8', engine: 'vllm', gpu: 'mi300x', gpus: 8, kv: 'bf16',
    target_tokens_per_s_per_user: 20 });
  warm(() => sizer.serve(request));
  const curves = [];
  let answer;
  for (let i = 0; i < Math.max(10, runs / 30); i += 1) {
    t = performance.now();
    answer = JSON.parse(sizer.serve(request));
    curves.push(performance.now() - t);
  }
  if (!answer.ok) throw new Error(answer.error.message);
  figure('wasm.serve_curve', percentile(curves, 50), 'ms', 50);
  figure('wasm.serve_curve.points', answer.points.length, 'points');
}
