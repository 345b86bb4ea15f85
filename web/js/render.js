// Writes engine answers into the page. Every figure carries data-field (the
// CLI's JSON name) and data-value (the raw number); text goes in through
// textContent only.
import * as fmt from './format.js';
import { chartSvg, el } from './dom.js';
import { chartWidth, labelWidth, niceTicks, redrawOnResize } from './chart-axes.js';
import { fillMatrixHardware } from './recommend.js';
import { cell } from './planner-cells.js';
import { hasSpeed, noSpeedNote, speedNote, speedTexts } from './speed-text.js';

export { el };

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

// Writes an element's text and data-value only when they change, comparing
// with what was last written here (kept on the node: no read of the
// document), and replaces text inside its text node: no node is made or
// dropped. A slider move passes some hundred texts through these; a node
// written here is written nowhere else.
export function writeText(node, text) {
  if (node.llmText === text) return;
  node.llmText = text;
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) only.data = text;
  else node.textContent = text;
}

export function writeValue(node, raw) {
  if (node.llmValue === raw) return;
  node.llmValue = raw;
  node.dataset.value = raw;
}

// The page's figure nodes by field, looked up once: a slider move writes some
// twenty fields, and each query walks the whole document.
const fieldNodes = new Map();
function nodesOf(field) {
  let nodes = fieldNodes.get(field);
  if (!nodes || nodes.some((n) => !n.isConnected)) {
    nodes = [...document.querySelectorAll(`[data-field="${field}"]`)];
    fieldNodes.set(field, nodes);
  }
  return nodes;
}

// Writes only what changed: a slider move leaves most figures as they were.
export function setField(field, value, text) {
  const raw = value == null ? '' : String(value);
  for (const node of nodesOf(field)) {
    writeValue(node, raw);
    writeText(node, text);
  }
}

const bytesText = (b) => (b == null ? '—' : fmt.gibAndGb(b));

// The bar is an SVG whose rects carry their widths as attributes: a
// prerendered page (scripts/prerender.mjs) shows it under the strict CSP,
// which refuses inline style attributes. A slider move changes a few
// attributes in place when the same kinds are shown.
export function renderBar(container, parts, capacity, label) {
  // Scale: the larger of what is needed and what is there, so both show.
  const total = parts.reduce((sum, p) => sum + p.bytes, 0);
  const scale = Math.max(total, capacity || 0, 1);
  const specs = [];
  let x = 0;
  for (const p of parts) {
    if (p.bytes <= 0) continue;
    const pct = (p.bytes / scale) * 100;
    specs.push({ tag: 'rect', cls: `segment ${p.kind}`, title: `${p.label}: ${fmt.gib(p.bytes)}`, attrs: { x: `${x}%`, width: `${pct}%` } });
    x += pct;
  }
  if (capacity) {
    const at = `${Math.min(100, (capacity / scale) * 100)}%`;
    specs.push({ tag: 'line', cls: 'capacity', title: `usable ${fmt.gib(capacity)}`, attrs: { x1: at, x2: at } });
  }
  let svg = container.firstElementChild;
  const nodes = svg?.children ?? [];
  const same = svg && nodes.length === specs.length && specs.every((spec, i) => nodes[i].getAttribute('class') === spec.cls);
  if (!same) {
    svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'bar-svg');
    svg.setAttribute('aria-hidden', 'true');
    for (const spec of specs) {
      const node = document.createElementNS(SVG, spec.tag);
      node.setAttribute('class', spec.cls);
      if (spec.tag === 'rect') {
        node.setAttribute('y', '0');
        node.setAttribute('height', '100%');
      } else {
        node.setAttribute('y1', '0');
        node.setAttribute('y2', '100%');
      }
      node.append(document.createElementNS(SVG, 'title'));
      svg.append(node);
    }
    container.replaceChildren(svg);
  }
  specs.forEach((spec, i) => {
    const node = svg.children[i];
    for (const [k, v] of Object.entries(spec.attrs)) if (node.getAttribute(k) !== v) node.setAttribute(k, v);
    if (node.firstChild.textContent !== spec.title) node.firstChild.textContent = spec.title;
  });
  if (container.getAttribute('aria-label') !== label) container.setAttribute('aria-label', label);
}

// Replaces a list's children only when its items' text changed.
function setList(list, texts) {
  const key = texts.join('\u0000');
  if (list.dataset.key === key && list.children.length === texts.length) return;
  list.dataset.key = key;
  list.replaceChildren(...texts.map((t) => el('li', {}, t)));
}

// nameOf(id): a device's name, for the rows of mixed cards.
export function renderMemory(r, nameOf = (id) => id) {
  const m = r.memory;
  setField('memory.weights_bytes', m.weights_bytes, bytesText(m.weights_bytes));
  setField('memory.kv_cache_bytes', m.kv_cache_bytes, bytesText(m.kv_cache_bytes));
  setField('memory.runtime_bytes', m.runtime_bytes, bytesText(m.runtime_bytes));
  setField('memory.weights_on_gpus_bytes', m.weights_on_gpus_bytes, bytesText(m.weights_on_gpus_bytes));
  setField('memory.kv_cache_on_gpus_bytes', m.kv_cache_on_gpus_bytes, bytesText(m.kv_cache_on_gpus_bytes));
  setField('memory.ram_required_bytes', m.ram_required_bytes, bytesText(m.ram_required_bytes));
  setField('memory.required_bytes', m.required_bytes, bytesText(m.required_bytes));
  setField('memory.usable_bytes', m.usable_bytes, bytesText(m.usable_bytes));
  setField('memory.headroom_bytes', m.headroom_bytes, bytesText(m.headroom_bytes));
  setField('memory.utilization', m.utilization, m.utilization == null ? '—' : fmt.percent(m.utilization));
  const onDevice = m.weights_on_gpus_bytes;
  const kvOnDevice = m.kv_cache_on_gpus_bytes;
  const projector = m.projector_bytes ?? 0;
  const draft = m.per_gpu.reduce((s, g) => s + (g.draft_bytes ?? 0), 0);
  $('projector-item').hidden = projector === 0;
  $('draft-item').hidden = draft === 0;
  setField('memory.projector_bytes', projector, bytesText(projector));
  setField('memory.draft_weights_bytes', m.draft_weights_bytes ?? 0,
    `${fmt.gib(draft)} (weights ${fmt.gib(m.draft_weights_bytes ?? 0)}, KV ${fmt.gib(m.draft_kv_cache_bytes ?? 0)})`);
  renderBar($('memory-bar'), [
    { kind: 'weights', label: 'weights on device', bytes: onDevice },
    { kind: 'kv', label: 'KV cache', bytes: kvOnDevice },
    { kind: 'runtime', label: 'runtime buffers', bytes: m.runtime_bytes },
    { kind: 'projector', label: 'vision encoder', bytes: projector },
    { kind: 'draft', label: 'draft model', bytes: draft },
    { kind: 'offload', label: 'in system RAM', bytes: m.ram_required_bytes },
  ], m.usable_bytes, `Required ${fmt.gib(m.required_bytes)}${m.usable_bytes ? ` of ${fmt.gib(m.usable_bytes)} usable` : ''}`);

  const perGpu = $('per-gpu');
  if (m.per_gpu.length <= 1) {
    perGpu.replaceChildren();
    return;
  }
  const rows = m.per_gpu.map((g, i) => {
    const row = el('div', { class: 'gpu-row' });
    const who = r.scenario?.mixed_cards && g.gpu ? `${i + 1}. ${nameOf(g.gpu)}` : `Device ${i + 1}`;
    const layers = g.last_layer > g.first_layer ? `, layers ${g.first_layer}–${g.last_layer - 1}` : '';
    const label = el('span', { class: 'gpu-label' },
      `${who}: ${fmt.gib(g.required_bytes)}${g.usable_bytes ? ` / ${fmt.gib(g.usable_bytes)}` : ''}${layers}${g.fits === false ? ' — does not fit' : ''}`);
    const bar = el('div', { class: 'bar small', role: 'img' });
    renderBar(bar, [
      { kind: 'weights', label: 'weights', bytes: g.weights_bytes },
      { kind: 'kv', label: 'KV cache', bytes: g.kv_cache_bytes },
      { kind: 'runtime', label: 'runtime', bytes: g.runtime_bytes },
      { kind: 'projector', label: 'vision encoder', bytes: g.projector_bytes ?? 0 },
      { kind: 'draft', label: 'draft model', bytes: g.draft_bytes ?? 0 },
    ], g.usable_bytes, `${who} needs ${fmt.gib(g.required_bytes)}`);
    row.append(label, bar);
    return row;
  });
  perGpu.replaceChildren(el('h3', {}, 'Per device'), ...rows);
}

// A scenario that does not fit has neither (the engine answers null): the
// fields say so instead of a speed that reads as if it ran.
export function renderSpeedAndCost(r, state) {
  const s = hasSpeed(r.speed) ? r.speed : null;
  const c = r.cost;
  const none = '—';  // where it does not fit, the notes below say so once
  const deviceChosen = Boolean(r.scenario?.gpu);
  for (const [field, [value, text]] of Object.entries(speedTexts(s, r.memory.fits, deviceChosen).fields)) setField(field, value, text);
  const spec = s?.speculative;
  $('speculative-row').hidden = !spec;
  setField('speed.speculative.decode_tokens_per_s_low', spec?.decode_tokens_per_s_low,
    spec ? `${fmt.rate(spec.decode_tokens_per_s_low)} – ${fmt.rate(spec.decode_tokens_per_s_high)}` : '—');
  setField('cost.usd_per_million_tokens', c?.usd_per_million_tokens, c ? fmt.usd(c.usd_per_million_tokens) : none);
  setField('cost.usd_per_million_tokens_batch', c?.usd_per_million_tokens_batch, c ? fmt.usd(c.usd_per_million_tokens_batch) : none);
  setField('cost.usd_per_hour', c?.usd_per_hour, c ? fmt.usd(c.usd_per_hour) : none);
  // A serving engine's requests (speed.served): what a million output tokens
  // cost at the scenario's sequences in flight, labelled with their mix.
  const served = s?.served;
  $('served-cost-row').hidden = !served;
  if (served) {
    writeText($('served-cost-label'), `Per million output tokens, ${fmt.tokens(served.concurrency)} in flight ` +
      `(${fmt.tokens(served.input_tokens)} in, ${fmt.tokens(served.output_tokens)} out)`);
    setField('cost.usd_per_million_output_tokens', c?.usd_per_million_output_tokens,
      c?.usd_per_million_output_tokens == null ? '—' : fmt.usd(c.usd_per_million_output_tokens));
  }
  writeText($('speed-note'), !s ? noSpeedNote(r.memory.fits, deviceChosen) +
    (r.memory.fits === false ? ' Each change listed under the verdict has its own speed.' : '')
    : speedNote(s, state, r.scenario) + (spec ? ` With the draft: ${spec.basis}` : ''));
  $('cost-note').textContent = !c ? (r.memory.fits === false ? 'No cost: as set it does not fit; the costs appear once it does.' : '')
    : c.usd_per_million_tokens == null
      ? 'Enter a rental price per hour, or pick a device with a catalog price, to see the cost per million tokens.'
      : `At ${fmt.usd(c.usd_per_hour)} an hour (${c.basis === 'owned' ? `owning it: ${fmt.usd(c.purchase_usd)}, ${c.purchase_note}, over 3 years plus power` : 'rent'}) and ${fmt.rate(s.decode_tokens_per_s)} for one stream.`;
}

const whereText = (state, device) => (!device ? 'the chosen device'
  : device.mixed ? device.name : `${state.gpus > 1 ? `${state.gpus} × ` : ''}${device.name}`);

// The engine's binding limit in words: which GPU (of how many), system RAM,
// or the unified memory GPU and CPU share.
// The host RAM's bandwidth the estimate read offloaded bytes at: its kind
// selected when one has that figure, the figure itself beside it. On unified
// memory or a CPU-only machine the device's own memory is that RAM.
function showRamKind(basis, unified) {
  const select = $('rambw');
  const number = $('rambw-gbs');
  const hostRam = !unified && basis != null && basis.host_ram !== false;
  select.disabled = !hostRam;
  number.disabled = !hostRam;
  writeText($('rambw-label'), hostRam ? 'RAM kind (offload reads it)' : basis ? "RAM kind: the device's own memory" : 'RAM kind');
  if (!basis) {
    // No estimate: no bandwidth was read, so none is shown (not the list's first kind).
    select.selectedIndex = -1;
    if (document.activeElement !== number) number.value = '';
    return;
  }
  const gbs = basis.ram_bandwidth_bytes_per_s / 1e9;
  // The device's own memory is named as such, never as a RAM kind that merely
  // has the same bandwidth (DDR5-3600 on two channels is not "DDR4-3600").
  const value = hostRam ? String(Math.round(gbs * 1000) / 1000) : `own:${Math.round(gbs * 1000) / 1000}`;
  select.querySelector('option[data-custom]')?.remove();
  if (![...select.options].some((o) => o.value === value)) {
    const own = document.createElement('option');
    own.value = value;
    own.dataset.custom = '';
    own.textContent = hostRam ? `${fmt.fixed(gbs, 1)} GB/s (set here)` : `the device's memory · ${fmt.fixed(gbs, 1)} GB/s`;
    select.append(own);
  }
  select.value = value;
  if (document.activeElement !== number) number.value = String(Math.round(gbs * 10) / 10);
}

// machines > 1: the devices are whole computers on a network (scenario.machines).
function limitPlace(m, machines = 0) {
  const l = m.limit;
  const n = m.per_gpu?.length ?? 1;
  const unit = machines > 1 ? 'machine' : 'GPU';
  if (!l || l.where === 'gpu') return n > 1 ? `${unit} ${(l?.gpu_index ?? 0) + 1} of ${n}` : 'the GPU';
  return l.where === 'ram' ? 'system RAM' : 'unified memory (GPU and CPU together)';
}

function verdictText(m, machines = 0) {
  if (m.fits == null) return 'No device chosen';
  const l = m.limit;
  if (m.fits) {
    const fullest = l && l.where === 'gpu' && (m.per_gpu?.length ?? 1) > 1 ? `; the fullest, ${limitPlace(m, machines)}, at ${fmt.percent(l.utilization)}` : '';
    return `Fits: ${fmt.percent(m.utilization)} of usable memory${fullest}`;
  }
  if (!l) return `Does not fit: needs ${fmt.percent(m.utilization)} of usable memory`;
  return `Does not fit: ${limitPlace(m, machines)} needs ${fmt.gib(l.required_bytes)} of ${fmt.gib(l.available_bytes)} (${fmt.percent(l.utilization)})`;
}

// Unified memory: one pool, the OS's share, the GPU's limit and where the
// CPU-side bytes come from; a paged engine's queue.
function poolSentences(r, state) {
  const m = r.memory;
  const out = [];
  if (m.unified_pool) {
    const rule = m.gpu_limit_basis === 'apple-wired-limit' ? "macOS's default GPU limit"
      : m.gpu_limit_basis === 'user-gpu-limit' ? 'the GPU limit set' : 'its GPU limit';
    // Several machines (llama.cpp's RPC): the pool is each one's.
    const each = (r.scenario?.machines ?? 0) > 1 ? `On each of the ${r.scenario.machines} machines, GPU and CPU share its` : 'GPU and CPU share its';
    out.push(`${each} ${fmt.gib(m.shared_pool_bytes)}: the GPU may use ${fmt.gib(m.gpu_limit_bytes)} (${rule}), ` +
      `${fmt.gib(m.os_reserve_bytes)} is left to the operating system` +
      `${m.ram_required_bytes > 0 ? `, and the ${fmt.gib(m.ram_required_bytes)} llama.cpp keeps on the CPU side comes out of the same memory` : ''}.`);
  }
  if (m.max_concurrent_sequences != null && m.concurrent_sequences < state.batch) {
    out.push(`The engine's KV pool holds ${m.max_concurrent_sequences} sequence${m.max_concurrent_sequences === 1 ? '' : 's'} of ` +
      `${fmt.tokens(state.ctx)} tokens at once: ${m.concurrent_sequences} of the ${state.batch} run together and the rest wait in its queue.`);
  }
  return out;
}

// The verdict's sentences: under the verdict, and the page's description.
function summarySentences(r, state, model, device) {
  const m = r.memory;
  const where = whereText(state, device);
  return [
    `${model.name} at ${r.scenario.quant} holds ${fmt.gib(m.weights_bytes)} of weights; ` +
      `${fmt.tokens(state.ctx)} tokens of context${state.batch > 1 ? ` for each of ${state.batch} sequences` : ''} ` +
      `take ${fmt.gib(m.kv_cache_bytes)} of KV cache (${state.kv}).`,
    m.usable_bytes == null ? '' : m.fits
      ? `On ${where} it needs ${fmt.gib(m.required_bytes)} of ${fmt.gib(m.usable_bytes)} usable, leaving ${fmt.gib(m.headroom_bytes)}.`
      : m.limit?.where === 'gpu' && (m.per_gpu?.length ?? 1) > 1
        ? `On ${where}, ${limitPlace(m, r.scenario?.machines)} needs ${fmt.gib(m.limit.required_bytes)} but has ${fmt.gib(m.limit.available_bytes)} usable (all ${r.scenario?.machines > 1 ? 'machines' : 'GPUs'}: ${fmt.gib(m.required_bytes)} of ${fmt.gib(m.usable_bytes)}).`
        : m.limit && m.limit.where !== 'gpu'
          ? `On ${where} the GPU's share is ${fmt.gib(m.required_bytes)} of ${fmt.gib(m.usable_bytes)} usable, and ${limitPlace(m)} cannot hold the ${fmt.gib(m.ram_required_bytes)} kept on the CPU side (${fmt.gib(m.system_ram_bytes)} is left for it).`
          : `On ${where} it needs ${fmt.gib(m.required_bytes)} but only ${fmt.gib(m.usable_bytes)} is usable.`,
    ...poolSentences(r, state),
    !hasSpeed(r.speed) ? '' : state.batch > 1
      ? `With ${m.concurrent_sequences < state.batch ? `${m.concurrent_sequences} sequences` : `all ${state.batch} sequences`} decoding together, each gets about ${fmt.rate(r.speed.decode_tokens_per_s_per_sequence)}, ${fmt.rate(r.speed.decode_tokens_per_s_total)} in total.`
      : `Expect about ${fmt.rate(r.speed.decode_tokens_per_s)}${r.speed.prefill_tokens_per_s > 0 ? ` and a first token after ${fmt.seconds(r.speed.ttft_s)} for a ${fmt.tokens(state.prompt)}-token prompt` : ''}.`,
  ].filter(Boolean);
}

export function renderVerdict(r, state, model, device) {
  const m = r.memory;
  const verdict = $('verdict');
  verdict.dataset.value = m.fits == null ? '' : String(m.fits);
  verdict.className = `verdict ${m.fits == null ? 'unknown' : m.fits ? 'fits' : 'nofit'}`;
  verdict.textContent = verdictText(m, r.scenario?.machines);
  $('summary').textContent = summarySentences(r, state, model, device).join(' ');
  // One memory on a Mac, DGX Spark or Strix Halo: no second pool to size.
  const ram = $('ram');
  const unified = m.unified_pool === true;
  // A CPU-only machine: its memory is the RAM, the model's whole home; there is
  // no second pool to size and nothing to offload to.
  const cpuOnly = !unified && r.scenario.ram_is_host === false && device?.memory_bytes > 0;
  ram.disabled = unified || cpuOnly;
  $('offload').disabled = cpuOnly;
  if (unified) ram.value = String(Math.round(m.shared_pool_bytes / 1073741824));
  else if (cpuOnly) ram.value = String(Math.round(device.memory_bytes / 1073741824));
  else if (document.activeElement !== ram) ram.value = String(state.ram);  // back from a Mac or a CPU machine
  writeText($('ram-label'), unified ? `System RAM: unified with the GPU's (${fmt.gib(m.shared_pool_bytes)} in all)`
    : cpuOnly ? `System RAM: the machine's own (${fmt.gib(device.memory_bytes)}), which holds the model`
      : `System RAM, GiB (${fmt.gib(m.os_reserve_bytes)} for the OS)`);
  // Without a speed (it does not fit), the scenario says which RAM the estimate reads.
  showRamKind(r.speed?.basis ?? { ram_bandwidth_bytes_per_s: r.scenario.ram_bandwidth_gbs * 1e9, host_ram: r.scenario.ram_is_host }, unified);
  setList($('warnings'), r.warnings);
  const margin = m.fit_margin_bytes_per_gpu;
  writeText($('fit-rule'), m.usable_bytes == null ? '' :
    `"Fits": within usable memory, the driver's capacity (or macOS's GPU wired limit) less the runtime` +
    `${margin > 0 ? ` and the ${fmt.gib(margin)} per device llama.cpp leaves free (its --fit-target)` : ''}` +
    `${state.engine === 'vllm' || state.engine === 'sglang' || state.engine === 'tensorrt-llm' ? `, within the engine's memory fraction` : ''}. ` +
    'The planner uses the same rule.');
}

// The document's title and description (and their Open Graph copies) name
// the scenario and its answer: what a link preview, a search result or a
// tab shows, on the live page and in the prerendered HTML alike.
export function renderPageMeta(r, state, model, device) {
  const m = r.memory;
  const title = `${model.name} on ${whereText(state, device)}, ${state.quant}: ${fmt.gib(m.required_bytes)}` +
    `${m.fits == null ? '' : m.fits ? ', fits' : ', does not fit'} · llm-sizer`;
  const description = `${verdictText(m, r.scenario?.machines)}. ${summarySentences(r, state, model, device).join(' ')}`;
  if (document.title !== title) document.title = title;
  const heading = document.querySelector('.masthead h1[data-question]');
  if (heading) writeText(heading, questionText(heading.dataset.question, state, model, device));
  for (const [selector, text] of [['meta[name="description"]', description], ['meta[property="og:title"]', title],
    ['meta[property="og:description"]', description]]) {
    const node = document.head.querySelector(selector);
    if (node && node.getAttribute('content') !== text) node.setAttribute('content', text);
  }
}

// The question a model's or a model-and-device page answers, for its h1: the
// prerendered page names its own, and it follows the reader's choices after.
export function questionText(kind, state, model, device) {
  return kind === 'pair' && device ? `Can you run ${model.name} on ${whereText(state, device)}? Fit, speed and fixes`
    : `Can you run ${model.name}? Memory, speed and hardware`;
}

// An error replaces every figure it invalidates: nothing of the previous
// scenario stays on screen beside the message.
export function clearFigures() {
  for (const node of document.querySelectorAll('#answer [data-field], #matrix [data-field]')) {
    if (node.id === 'verdict') continue;
    writeValue(node, '');
    writeText(node, '—');
  }
  $('memory-bar').replaceChildren();
  $('per-gpu').replaceChildren();
  for (const id of ['projector-item', 'draft-item', 'speculative-row']) $(id).hidden = true;
  $('suggestions-box').hidden = true;
  $('suggestions').replaceChildren();
  setList($('warnings'), []);
  writeText($('fit-rule'), '');
  writeText($('speed-note'), '');
  $('cost-note').textContent = '';
  const body = $('matrix').tBodies[0];
  body.dataset.shape = '';
  body.replaceChildren();
  const chart = $('context-chart');
  chart.dataset.key = '';
  chart.replaceChildren();
  $('context-table').tBodies[0].replaceChildren();
  writeText($('kv-notes'), '');
  const commands = $('commands');
  commands.dataset.shape = '';
  commands.replaceChildren();
  writeText($('commands-note'), 'No commands: the scenario cannot be sized.');
  showRamKind(null, false);
}

// What each kind of change costs the user, as the engine ranks them.
const COST_WORDS = {
  none: 'costs nothing', kv_precision: 'costs KV precision', quality: 'costs model quality',
  speed: 'costs speed', context: 'costs context', hardware: 'costs hardware',
};

// What would make it fit (the estimate's suggestions): one line each with its
// own fit and speed, and a button that applies the change.
export function renderSuggestions(r, describe, onApply) {
  const box = $('suggestions-box');
  const list = $('suggestions');
  list.removeAttribute('aria-busy');
  const items = r.suggestions ?? [];
  box.hidden = items.length === 0 && r.memory.fits !== false;
  if (r.memory.fits === false && items.length === 0) {
    list.replaceChildren(el('li', {}, 'No single change (layer split, GPU limit, KV type, quantization, offload, context or device count) makes it fit on this device.'));
    return;
  }
  list.replaceChildren(...items.map((x, i) => {
    const li = el('li', { 'data-field': `suggestions.${i}.fits`, 'data-value': String(x.fits) });
    const what = el('strong', {}, describe(x.change, x));
    const cost = COST_WORDS[x.cost];
    const facts = el('span', {}, ` — fits at ${fmt.fixed(x.utilization * 100, 1)}% (${fmt.gib(x.required_bytes)} of ${fmt.gib(x.usable_bytes)})` +
      `${x.ram_required_bytes > 0 && x.change.offload ? `, ${fmt.gib(x.ram_required_bytes)} in system RAM` : ''}, `);
    const speed = el('span', { 'data-field': `suggestions.${i}.decode_tokens_per_s`, 'data-value': x.decode_tokens_per_s == null ? '' : String(x.decode_tokens_per_s) },
      x.decode_tokens_per_s == null ? 'decode unknown' : `${fmt.rate(x.decode_tokens_per_s)} decode`);
    const button = el('button', { type: 'button', 'data-field': `suggestions.${i}.change`, 'data-value': JSON.stringify(x.change) }, 'Apply');
    button.addEventListener('click', () => onApply(x.change));
    li.append(what, facts, speed, cost ? ` · ${cost}` : '', ' ', button);
    return li;
  }));
}

// While a slider moves a scenario that does not fit, the suggestions (a dozen
// estimates) wait until it rests: the list shown is the last one, marked as
// being searched again, and its figures are not the new scenario's.
export function markSuggestionsStale() {
  $('suggestions').setAttribute('aria-busy', 'true');
  $('commands').setAttribute('aria-busy', 'true');  // they start the first suggestion
}

function setCell(td, text, value) {
  writeValue(td, value == null ? '' : String(value));
  writeText(td, text);
}

// Rows are rebuilt only when the list of quantizations (or which of them fail)
// changes; a context move rewrites the cells' text in place.
export function renderMatrix(rows) {
  const body = $('matrix').tBodies[0];
  const shape = rows.map(({ quant, result, current }) => `${quant}${current ? '*' : ''}${result.error ? '!' : ''}`).join(' ');
  if (body.dataset.shape !== shape) {
    body.dataset.shape = shape;
    body.replaceChildren(...rows.map(({ quant, result, current }) => {
      const tr = el('tr', { 'data-quant': quant, class: current ? 'current' : '' });
      tr.append(el('th', { scope: 'row' }, quant));
      if (result.error) tr.append(el('td', { colspan: '6' }));
      else for (let i = 0; i < 6; i += 1) tr.append(el('td'));
      return tr;
    }));
  }
  rows.forEach(({ result }, i) => {
    const cells = body.rows[i].cells;
    if (result.error) {
      if (cells[1].textContent !== result.error.message) cells[1].textContent = result.error.message;
      return;
    }
    const m = result.memory;
    setCell(cells[1], fmt.gib(m.weights_bytes), m.weights_bytes);
    setCell(cells[2], fmt.gib(m.kv_cache_bytes), m.kv_cache_bytes);
    setCell(cells[3], fmt.gib(m.required_bytes), m.required_bytes);
    // No speed where it does not fit: it would read as if it ran.
    const decode = result.speed?.decode_tokens_per_s ?? null;
    setCell(cells[4], m.fits === false ? 'does not fit' : fmt.rate(decode), decode);
    setCell(cells[5], m.fits == null ? '—' : m.fits ? 'yes' : 'no', m.fits);
  });
  fillMatrixHardware();
}

// Memory against context: an SVG line with GiB on its axis, the usable line
// labelled, the current context marked, each point's value on hover and on
// keyboard focus, and a table of the same numbers beside it. The points span
// every context, so a context move only moves the marker.
let chartPoints = [];
let chartUsable = null;
let chartCtx = null;
export function renderChart(points, usable, currentCtx) {
  const chart = $('context-chart');
  const ok = points.filter((p) => !p.result.error);
  chartPoints = ok;
  const key = `${usable}|${ok.map((p) => `${p.ctx}:${p.result.memory.required_bytes}:${p.result.memory.fits}`).join(',')}`;
  if (chart.dataset.key !== key) {
    chart.dataset.key = key;
    drawChart(chart, ok, usable);
    renderContextTable(ok);
  }
  markContext(chart, ok, currentCtx);
  redrawOnResize(chart, () => {
    drawChart(chart, chartPoints, chartUsable);
    markContext(chart, chartPoints, chartCtx);
  });
  chartUsable = usable;
  chartCtx = currentCtx;
}

// Drawn at its box's width (chart-axes.js); the margins hold the longest label.
let chartGeometry = { width: 640, left: 64, right: 16 };

function chartX(ok, i) {
  const { width, left, right } = chartGeometry;
  return left + (i * (width - left - right)) / (ok.length - 1);
}

// GiB ticks at round steps: "100 GiB", or "2.5 GiB" below ten.
const gibTick = (gibValue, step) => `${step >= 1 ? fmt.tokens(gibValue) : fmt.fixed(gibValue, 1)} GiB`;

function drawChart(chart, ok, usable) {
  if (ok.length < 2) {
    chart.replaceChildren(el('p', { class: 'note' }, 'Not enough context range to draw.'));
    return;
  }
  const width = chartWidth(chart, 640);
  const height = width < 480 ? 220 : 260;
  const top = 24;
  const bottom = 44;
  const maxBytes = Math.max(...ok.map((p) => p.result.memory.required_bytes), usable || 0);
  const yTicks = niceTicks(maxBytes / fmt.GIB);
  const step = yTicks[1] - yTicks[0];
  const yLabels = yTicks.map((v) => gibTick(v, step));
  const xLabels = ok.map((p) => fmt.contextLabel(p.ctx));
  // Room for the longest y label on the left and half the last x label on the right.
  chartGeometry = { width, left: Math.ceil(Math.max(...yLabels.map((t) => labelWidth(t)))) + 16,
    right: Math.ceil(labelWidth(xLabels[xLabels.length - 1]) / 2) + 6 };
  const { left, right } = chartGeometry;
  const maxY = yTicks[yTicks.length - 1] * fmt.GIB;
  const y = (bytes) => height - bottom - (bytes / maxY) * (height - top - bottom);
  const { svg, add } = chartSvg(width, height);
  add('line', { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: 'axis' });
  add('line', { x1: left, y1: top, x2: left, y2: height - bottom, class: 'axis' });
  yTicks.forEach((v, i) => add('text', { x: left - 10, y: y(v * fmt.GIB) + 5, class: 'tick', 'text-anchor': 'end' }, yLabels[i]));
  add('text', { x: left, y: height - 4, class: 'tick' }, 'context, tokens');
  // Every label where they fit; every other one (the last always) where they would overlap.
  const room = (width - left - right) / (ok.length - 1);
  const every = Math.max(1, Math.ceil((Math.max(...xLabels.map((t) => labelWidth(t))) + 8) / room));
  ok.forEach((p, i) => {
    const last = i === ok.length - 1;
    if ((i % every === 0 && (last || ok.length - 1 - i >= every)) || last)
      add('text', { x: chartX(ok, i), y: height - bottom + 18, class: 'tick', 'text-anchor': 'middle' }, xLabels[i]);
  });
  if (usable) {
    add('line', { x1: left, y1: y(usable), x2: width - right, y2: y(usable), class: 'usable' });
    // Beside the line on the side the curve is not: below it where the larger contexts do not fit.
    const below = ok[ok.length - 1].result.memory.required_bytes > usable && y(usable) + 18 < height - bottom;
    add('text', { x: width - right, y: y(usable) + (below ? 18 : -6), class: 'tick', 'text-anchor': 'end' }, `usable ${fmt.gib(usable)}`);
  }
  add('polyline', { points: ok.map((p, i) => `${chartX(ok, i)},${y(p.result.memory.required_bytes)}`).join(' '), class: 'series' });
  add('line', { class: 'current', x1: 0, x2: 0, y1: top, y2: height - bottom, visibility: 'hidden' });
  const readout = add('text', { class: 'readout', x: left + 8, y: top - 8 }, '');
  ok.forEach((p, i) => {
    const m = p.result.memory;
    const text = `${fmt.tokens(p.ctx)} tokens: ${fmt.gib(m.required_bytes)}${m.fits == null ? '' : m.fits ? ', fits' : ', does not fit'}`;
    const dot = add('circle', { cx: chartX(ok, i), cy: y(m.required_bytes), r: 6, tabindex: 0, role: 'img', 'aria-label': text,
      class: m.fits === false ? 'dot over' : 'dot', 'data-ctx': p.ctx });
    add('title', {}, text, dot);
    const show = () => { readout.textContent = text; };
    dot.addEventListener('mouseenter', show);
    dot.addEventListener('focus', show);
  });
  chart.replaceChildren(svg);
}

export function moveContextMarker(ctx) {
  chartCtx = ctx;
  markContext($('context-chart'), chartPoints, ctx);
}

// The marker sits where the current context falls between the points (powers
// of two: its place on the axis is its log).
function markContext(chart, ok, ctx) {
  const line = chart.querySelector('line.current');
  if (!line || ok.length < 2 || !ctx) return;
  const logs = ok.map((p) => Math.log2(p.ctx));
  const t = Math.log2(Math.min(Math.max(ctx, ok[0].ctx), ok[ok.length - 1].ctx));
  let i = 0;
  while (i < logs.length - 2 && t > logs[i + 1]) i += 1;
  const frac = logs[i + 1] === logs[i] ? 0 : (t - logs[i]) / (logs[i + 1] - logs[i]);
  const x = chartX(ok, i) + frac * (chartX(ok, i + 1) - chartX(ok, i));
  line.setAttribute('x1', String(x));
  line.setAttribute('x2', String(x));
  line.setAttribute('visibility', 'visible');
}

function renderContextTable(ok) {
  const body = $('context-table').tBodies[0];
  body.replaceChildren(...ok.map((p) => {
    const m = p.result.memory;
    const tr = el('tr', { 'data-ctx': String(p.ctx) });
    tr.append(el('th', { scope: 'row' }, `${fmt.tokens(p.ctx)} (${fmt.contextLabel(p.ctx)})`));
    tr.append(
      cell(fmt.gib(m.kv_cache_bytes), 'context.kv_cache_bytes', m.kv_cache_bytes),
      cell(fmt.gib(m.required_bytes), 'context.required_bytes', m.required_bytes),
      cell(m.fits == null ? '—' : m.fits ? 'yes' : 'no', 'context.fits', m.fits),
    );
    return tr;
  }));
}

export function renderKvNotes(r, state) {
  const byType = r.memory.kv_cache_bytes_by_type || {};
  const others = Object.entries(byType).filter(([type]) => type !== state.kv);
  const parts = others.map(([type, bytes]) => `${type} ${fmt.gib(bytes)}`);
  const text = parts.length === 0 ? '' :
    `KV cache for this request: ${fmt.gib(r.memory.kv_cache_bytes)} in ${state.kv}; the same tokens in ${parts.join(', ')}.` +
    (state.engine === 'llama.cpp' || state.engine === 'ollama' ? ' A quantized V cache needs flash attention in llama.cpp.' : '');
  writeText($('kv-notes'), text);
}

// One block per engine: each step its own command with a Copy button
// (Ollama's server and client are two), and the engine's note: why it has no
// command for this scenario, or what to check. A scenario that does not fit
// has no commands of its own: those of its first suggestion are shown, named.
// The blocks are rebuilt when their shape changes; a context move only
// rewrites the text, and Copy copies whatever the block shows.
export function renderCommands(r, state, onCopy, describe) {
  $('commands').removeAttribute('aria-busy');
  const first = !r.commands && r.suggestions?.length ? r.suggestions[0] : null;
  const commands = r.commands ?? first?.commands ?? {};
  // Copies side by side (the users plan's layout): the commands start them all.
  const sc = r.scenario;
  const copies = sc?.copies > 1
    ? `These start ${sc.copies} copies of this setup side by side, each on ${sc.gpus} device${sc.gpus > 1 ? 's' : ''} of its own with up to ${fmt.tokens(sc.batch)} user${sc.batch > 1 ? 's' : ''}; every figure above is one copy's.`
    : '';
  const fit = r.commands ? ''
    : first ? `As set it does not fit, so these start the first change listed under the verdict: ${describe(first.change, first)}.`
      : r.memory.fits === false ? 'As set it does not fit: no command would run it.' : '';
  writeText($('commands-note'), [copies, fit].filter(Boolean).join(' '));
  const order = [state.engine === 'ollama' ? 'ollama' : state.engine, ...Object.keys(commands)];
  const names = [...new Set(order.filter((name) => name in commands))];
  const box = $('commands');
  const shape = names.map((name) => `${name}:${commands[name].steps.length}`).join(' ');
  if (box.dataset.shape !== shape) {
    box.dataset.shape = shape;
    box.replaceChildren(...names.map((name) => {
      const block = el('div', { class: 'command', 'data-engine': name });
      block.append(el('div', { class: 'command-head' }, name));
      commands[name].steps.forEach((_, i) => {
        const step = el('div', { class: 'command-step' });
        const copy = el('button', { type: 'button', 'data-engine': name, 'data-step': String(i) }, 'Copy');
        const pre = el('pre');
        copy.addEventListener('click', () => onCopy(pre.textContent, copy));
        step.append(pre, copy);
        block.append(step);
      });
      block.append(el('p', { class: 'note command-note' }));
      return block;
    }));
  }
  names.forEach((name, i) => {
    const block = box.children[i];
    const { steps, note } = commands[name];
    steps.forEach((text, k) => {
      const pre = block.children[1 + k].firstElementChild;
      if (pre.textContent !== text) pre.textContent = text;
    });
    writeText(block.lastElementChild, note);
  });
}
