// Serving under load: the engine's serve curve for the workbench's model and
// hardware (output tokens/s per GPU against tokens/s per user, one point per
// number of requests in flight), the point that meets a speed per user, and
// what the figures stand on. Every figure is the engine's (serve_response);
// this module draws them.
import * as fmt from './format.js';
import { chartSvg, el } from './dom.js';
import { chartWidth, labelWidth, niceTicks, redrawOnResize } from './chart-axes.js';
import { cell, figure, number } from './planner-cells.js';

const $ = (id) => document.getElementById(id);
let lastDrawn = () => {};
export const SERVING_ENGINES = new Set(['vllm', 'sglang', 'tensorrt-llm']);
// Drawn at the box's own width (280-760 px, chart-axes.js), so labels keep their size on a phone.
const CHART = { width: 720, height: 300, pad: { top: 28, bottom: 48 } };
const ENGINE_NAMES = { vllm: 'vLLM', sglang: 'SGLang', 'tensorrt-llm': 'TensorRT-LLM', 'llama.cpp': 'llama.cpp (llama-server)',
  ollama: 'Ollama', mlx: 'MLX' };

// Shown for the serving engines, and for any engine with more than one sequence.
export function servingShown(state) {
  return SERVING_ENGINES.has(state.engine) || state.batch > 1;
}

// The request: the workbench's model and hardware, the panel's mix and target.
function servingRequest(p) {
  const request = p.plannerRequest({ prompt: number('serving-in'), output_tokens: number('serving-out') });
  if (!request) return null;
  delete request.ctx;    // each request's window is its own tokens
  delete request.batch;  // the curve sweeps the requests in flight
  const target = number('serving-target');
  if (Number.isFinite(target) && target > 0) request.target_tokens_per_s_per_user = target;
  return request;
}

function draw(chart, points, gpus, target, saturation) {
  const width = chartWidth(chart, CHART.width, 280, 760);
  const height = width < 480 ? 260 : CHART.height;
  const xTicks = niceTicks(Math.max(...points.map((q) => q.tokens_per_s_per_user)));
  const yTicks = niceTicks(Math.max(...points.map((q) => q.output_tokens_per_s_per_gpu)));
  const label = (v) => (v >= 10 || v === 0 ? fmt.tokens(v) : fmt.fixed(v, 1));
  // Room for the longest y label; the last x label is drawn ending at the axis' end.
  const pad = { ...CHART.pad, left: Math.ceil(Math.max(...yTicks.map((v) => labelWidth(label(v))))) + 12, right: 24 };
  const maxX = xTicks[xTicks.length - 1];
  const maxY = yTicks[yTicks.length - 1];
  const x = (v) => pad.left + (v / maxX) * (width - pad.left - pad.right);
  const y = (v) => height - pad.bottom - (v / maxY) * (height - pad.top - pad.bottom);
  const { svg, add } = chartSvg(width, height);
  add('line', { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, class: 'axis' });
  add('line', { x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom, class: 'axis' });
  for (const v of yTicks) add('text', { x: pad.left - 6, y: y(v) + 5, class: 'tick', 'text-anchor': 'end' }, label(v));
  xTicks.forEach((v, i) => add('text', { x: x(v), y: height - pad.bottom + 18, class: 'tick',
    'text-anchor': i === xTicks.length - 1 ? 'end' : 'middle' }, label(v)));
  add('text', { x: pad.left, y: pad.top - 10, class: 'tick' }, `output tok/s per GPU (${gpus} GPU${gpus > 1 ? 's' : ''})`);
  add('text', { x: width - pad.right, y: height - 6, class: 'tick', 'text-anchor': 'end' }, 'tok/s per user');
  add('polyline', { points: points.map((q) => `${x(q.tokens_per_s_per_user)},${y(q.output_tokens_per_s_per_gpu)}`).join(' '), class: 'series' });
  const readout = add('text', { class: 'readout', x: width - pad.right, y: pad.top + 4, 'text-anchor': 'end' }, '');
  // A point that lands on the one before (more requests wait, no more decode) is drawn once.
  const drawn = points.filter((q, i) => i === 0 || Math.abs(q.output_tokens_per_s_per_gpu - points[i - 1].output_tokens_per_s_per_gpu) >
    1e-6 * q.output_tokens_per_s_per_gpu);
  const labelled = [];
  drawn.forEach((q) => {
    const text = `${fmt.tokens(q.concurrency)} in flight: ${fmt.rate(q.tokens_per_s_per_user)} per user, ` +
      `${fmt.rate(q.output_tokens_per_s_per_gpu)} per GPU, first token ${fmt.seconds(q.ttft_s)}`;
    const cls = q.concurrency === target ? 'dot target' : q.concurrency === saturation ? 'dot peak' : 'dot';
    const cx = x(q.tokens_per_s_per_user);
    const cy = y(q.output_tokens_per_s_per_gpu);
    const dot = add('circle', { cx, cy, r: q.concurrency === target ? 8 : 6, tabindex: 0, role: 'img', 'aria-label': text,
      class: cls, 'data-concurrency': q.concurrency });
    add('title', {}, text, dot);
    // Labels that would overlap one already drawn are left to the point's own readout.
    if (!labelled.some(([lx, ly]) => Math.abs(lx - cx) < 34 && Math.abs(ly - cy) < 16)) {
      labelled.push([cx, cy]);
      add('text', { x: cx + 9, y: cy - 8, class: 'tick point-label' }, fmt.tokens(q.concurrency));
    }
    const show = () => { readout.textContent = text; };
    dot.addEventListener('mouseenter', show);
    dot.addEventListener('focus', show);
  });
  chart.replaceChildren(svg);
}

function costBasis(answer) {
  if (answer.cost_basis === 'rent') return `at the rented ${fmt.usd(answer.usd_per_hour)}/h`;
  if (answer.cost_basis === 'owned') return `owned: ${answer.purchase_note ?? 'its price'}, over its years of use plus power, ${fmt.usd(answer.usd_per_hour)}/h`;
  return 'no price: pick a cloud offer or a device with a catalog price';
}

// A serving row ("vllm/rocm/mxfp4", "sglang/rocm/mla") in words: "vLLM on ROCm, MXFP4 weights".
const BACKEND_NAMES = { cuda: 'CUDA', rocm: 'ROCm', metal: 'Metal', vulkan: 'Vulkan', sycl: 'SYCL', cpu: 'CPU' };
function rowName(row) {
  const [engine, backend, weights] = row.split('/');
  // The third part names the kernels: a weight format, MLA's attention, or attention data parallel's steps.
  const KERNELS = { mla: ', MLA attention', 'attention-dp': ', attention data parallel', int4: ', INT4 MoE experts' };
  const kernels = !weights ? '' : KERNELS[weights] ?? `, ${weights.toUpperCase()} weights`;
  return `${ENGINE_NAMES[engine] ?? engine} on ${BACKEND_NAMES[backend] ?? backend}${kernels}`;
}

function basisNote(answer) {
  const b = answer.points[0].basis;
  const runs = `${fmt.tokens(b.fitted_records)} measured serving run${b.fitted_records > 1 ? 's' : ''}`;
  const measured = b.fitted_records > 0
    ? `fitted on ${runs}${b.typical_error_pct != null ? `, which it reproduces within ${b.typical_error_pct}% on median` : ''}${b.note ? `, ${b.note}` : ''}`
    : `fitted on no runs of its own: ${b.note}`;
  // A row no run fitted gives its basis as the reason: said once.
  const rough = b.rough ? (b.rough_because === b.note ? ' Rough estimate.' : ` Rough estimate: ${b.rough_because}.`)
    : b.ttft_rough_because ? ` The first-token times are rougher than the rest (${b.ttft_rough_because}).` : '';
  return `Serving constants of ${rowName(b.row)}, ${measured} (docs/accuracy.md).${rough} ` +
    `Each engine's own step budget and request limit; a scheduler step decodes a token for every request past its prompt ` +
    `and takes prompt chunks in the room left. Expert parallel's all-to-all is not modelled.`;
}

export function renderServing(p) {
  const section = $('serving-panel');
  const state = p.workbench.state();
  section.hidden = !servingShown(state);
  if (section.hidden || !p.fullLoaded) return;
  const summary = $('serving-summary');
  const body = $('serving-table').tBodies[0];
  const chart = $('serving-chart');
  const note = $('serving-note');
  const table = $('serving-table');
  // No curve: the reason alone, without an empty table under it.
  const clear = (text) => {
    summary.replaceChildren(figure('Serving', text, 'serving.error', null));
    body.replaceChildren();
    chart.replaceChildren();
    table.hidden = true;
    note.textContent = '';
  };
  const request = servingRequest(p);
  if (!request) {
    clear('for catalog models or a pasted config.json');
    return;
  }
  let answer;
  try {
    answer = p.engine.serve(request);
  } catch (error) {
    clear(error.message);
    return;
  }
  const points = answer.points;
  const at = (c) => points.find((q) => q.concurrency === c);
  const peak = at(answer.saturation);
  const hit = answer.target == null ? null : at(answer.target);
  const mix = `${fmt.tokens(answer.input_tokens)} in, ${fmt.tokens(answer.output_tokens)} out`;
  const wanted = request.target_tokens_per_s_per_user;
  const targetText = wanted == null ? 'set the speed each user needs'
    : hit ? `up to ${fmt.tokens(hit.concurrency)} in flight: ${fmt.rate(hit.output_tokens_per_s)} in all, first token ${fmt.seconds(hit.ttft_s)}${hit.usd_per_million_output_tokens == null ? '' : `, ${fmt.usd(hit.usd_per_million_output_tokens)}/M out`}`
      : 'no load on this hardware is that fast';
  summary.replaceChildren(
    figure(wanted == null ? 'Each user' : `Each user at ${fmt.rate(wanted)} or more`, targetText, 'serving.target', answer.target),
    figure('Peak output', `${fmt.rate(peak.output_tokens_per_s)} at ${fmt.tokens(peak.concurrency)} in flight (${fmt.rate(peak.tokens_per_s_per_user)} each)`,
      'serving.peak_output_tokens_per_s', peak.output_tokens_per_s),
    figure('KV pool holds', answer.max_concurrency == null ? 'no pool limit' : `${fmt.tokens(answer.max_concurrency)} requests of ${mix}`,
      'serving.max_concurrency', answer.max_concurrency),
    figure('One request alone', `${fmt.rate(points[0].tokens_per_s_per_user)}, first token ${fmt.seconds(points[0].ttft_s)}`,
      'serving.single_tokens_per_s', points[0].tokens_per_s_per_user),
  );
  // What the estimate warns of these requests and not of the workbench's
  // scenario above (a prompt and answer past the model's context).
  const shown = new Set(p.workbench.result()?.warnings ?? []);
  const own = (answer.warnings ?? []).filter((w) => !shown.has(w));
  if (own.length) summary.append(figure('Warning', own.join(' '), 'serving.warnings', own.length));
  const basis = points[0].basis;
  if (basis.rough) {
    summary.append(figure('Read as', `a rough estimate: ${basis.rough_because}`, 'serving.rough', true));
  } else if (basis.ttft_rough_because) {
    summary.append(figure('First token, read as', `rough: ${basis.ttft_rough_because}`, 'serving.ttft_rough', true));
  }
  table.hidden = false;
  draw(chart, points, answer.gpus, answer.target, answer.saturation);
  lastDrawn = () => draw(chart, points, answer.gpus, answer.target, answer.saturation);
  redrawOnResize(chart, () => lastDrawn());
  body.replaceChildren(...points.map((q) => {
    const tr = el('tr', { 'data-concurrency': String(q.concurrency) });
    if (q.concurrency === answer.target) tr.className = 'current';
    const queued = q.admitted_concurrency < q.concurrency ? ` · ${fmt.tokens(q.admitted_concurrency)} run` : '';
    const cells = [
      cell(fmt.rate(q.tokens_per_s_per_user), 'serving.tokens_per_s_per_user', q.tokens_per_s_per_user),
      cell(fmt.rate(q.output_tokens_per_s_per_gpu), 'serving.output_tokens_per_s_per_gpu', q.output_tokens_per_s_per_gpu),
      cell(fmt.seconds(q.ttft_s), 'serving.ttft_s', q.ttft_s),
      cell(fmt.usd(q.usd_per_million_output_tokens), 'serving.usd_per_million_output_tokens', q.usd_per_million_output_tokens),
    ];
    tr.append(el('th', { scope: 'row' }, `${fmt.tokens(q.concurrency)} in flight${queued}`), ...cells);
    return tr;
  }));
  note.textContent = `Requests of ${mix} on ${answer.gpus > 1 ? `${answer.gpus} GPUs` : 'one GPU'} under ${ENGINE_NAMES[answer.engine] ?? answer.engine}; ` +
    'where more are in flight than run at once (· N run), the rest wait for a place and their first token waits with them; ' +
    `$/M out ${costBasis(answer)}. ${basisNote(answer)}` +
    (request.machine_calibration ? ` The device's rates are calibrated on your ${request.machine_calibration.rows} llama-bench measurements (single stream; the serving row's factors apply on top).` : '');
}
