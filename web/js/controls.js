// The form: fills its lists from the catalog, maps sliders to scenario values
// (context and prompt are logarithmic, snapping to powers of two) and back.
import * as fmt from './format.js';
import { writeText, writeValue } from './render.js';
import { SERVING_ENGINES } from './serving.js';
import { backendLabel } from './speed-text.js';
import { formatFor, ggufQuantNames } from './state.js';

const $ = (id) => document.getElementById(id);

function option(value, text) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  return o;
}

// The groups are filled while detached and put in with one call: options
// added one by one to a select in the document each update its list (some
// 250 of them at startup).
function groupedOptions(select, items, groupOf, labelOf, selected) {
  const groups = new Map();
  for (const item of items) {
    const group = groupOf(item);
    if (!groups.has(group)) {
      const g = document.createElement('optgroup');
      g.label = group;
      groups.set(group, g);
    }
    groups.get(group).append(option(item.id, labelOf(item)));
  }
  select.replaceChildren(...groups.values());
  if (selected && items.some((i) => i.id === selected)) select.value = selected;
}

export function sizeLabel(m) {
  return m.moe ? `${fmt.params(m.params_total)} / ${fmt.params(m.params_active)} active` : fmt.params(m.params_total);
}

// A name that states its size ("Llama 3.1 8B", "GLM-4.5 (355B-A32B)") is not
// followed by it again: the closed list's box shows the name whole, and the
// facts line under it gives the exact counts.
export function modelLabel(m) {
  const namesSize = /\d(\.\d+)?\s?[BMT]\b/.test(m.name);
  return `${m.name}${namesSize ? '' : ` · ${sizeLabel(m)}`}${m.estimated ? ' · estimated' : ''}`;
}

// A closed list shows its choice in a narrow box: the vendor is its group's
// name already, and the device's figures are in the line under the list
// (deviceFacts), so the name and its memory are what must fit.
function deviceLabel(d) {
  const vendor = VENDOR_NAMES[d.vendor] || '';
  const name = vendor && d.name.startsWith(`${vendor} `) ? d.name.slice(vendor.length + 1) : d.name;
  return `${name} · ${fmt.gib(d.memory_bytes)}`;
}

// The chosen device's figures beside its name and memory in the list: memory
// bandwidth (decode) and 16-bit throughput (prefill), or that nobody sourced the bandwidth.
export function deviceFacts(d) {
  if (!d) return '';
  const bandwidth = d.bandwidth_bytes_per_s > 0 ? `${fmt.tokens(d.bandwidth_bytes_per_s / 1e9)} GB/s` : 'bandwidth not sourced';
  // CPU machines and parts whose maker states only FP32 have no FP16 figure;
  // the speed note says what their prefill stands on.
  return d.fp16_flops > 0 ? `${bandwidth} · ${fmt.tokens(d.fp16_flops / 1e12)} TFLOPS FP16` : bandwidth;
}

const VENDOR_NAMES = {
  nvidia: 'NVIDIA', amd: 'AMD', apple: 'Apple', intel: 'Intel', huawei: 'Huawei', cambricon: 'Cambricon',
  hygon: 'Hygon', metax: 'MetaX', kunlunxin: 'Kunlunxin', 'moore-threads': 'Moore Threads',
};

function matches(text, query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = text.toLowerCase();
  return words.every((w) => haystack.includes(w));
}

// Case-insensitive order of plain names. Not localeCompare: its first call
// builds ICU's collator, ~50 ms of the page's start on a small machine.
function byName(a, b) {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export function fillModels(catalog, query, selected) {
  const models = catalog.models
    .filter((m) => m.sizable)
    .filter((m) => !query || matches(`${m.id} ${m.name} ${m.family}`, query))
    .sort((a, b) => byName(a.family, b.family) || a.params_total - b.params_total);
  groupedOptions($('model'), models, (m) => m.family || 'Other', modelLabel, selected);
  return models.length;
}

export function fillDevices(catalog, query, selected, selectId = 'gpu') {
  return fillDeviceSelect($(selectId), catalog, query, selected);
}

function fillDeviceSelect(select, catalog, query, selected) {
  const devices = catalog.devices
    .filter((d) => !query || matches(`${d.id} ${d.name} ${d.vendor} ${(d.aliases ?? []).join(' ')} ${d.machine ?? ''}`.replace(/-/g, ' '), query))
    .sort((a, b) => byName(a.vendor, b.vendor) || a.memory_bytes - b.memory_bytes);
  groupedOptions(select, devices, (d) => VENDOR_NAMES[d.vendor] || d.vendor || 'Other', deviceLabel, selected);
  return devices.length;
}

// Mixed cards: a row per card after the first (the device list above is the
// first), each with its own list and a remove button; rebuilt only when the
// number of cards changes. The count slider follows the list.
// The backends the engine answers this engine runs on the device (the
// estimate's scenario.backends): a choice only where there are several.
// Without an estimate (a refusal) the list is unknown: only a backend the
// link chose is kept, beside the device's own, so the way back stays open.
export function fillBackends(scenario, chosen = '') {
  const list = scenario?.backends ?? (chosen ? [chosen, ''] : []);
  const select = $('backend');
  const show = list.length > 1;
  $('backend-box').hidden = !show;
  if (!show) return;
  const key = list.join(',');
  if (select.dataset.list !== key) {
    select.replaceChildren(...list.map((b) => option(b, b ? backendLabel(b) : "the device's own")));
    select.dataset.list = key;
  }
  select.value = scenario ? scenario.backend : chosen;
}

export function fillCards(catalog, state) {
  const box = $('cards');
  const cards = state.cards ?? [];
  $('gpus').disabled = cards.length > 0;
  // The same number of cards: the lists keep their nodes (and the focus).
  if (box.children.length === Math.max(0, cards.length - 1) && box.dataset.count === String(cards.length)) {
    cards.slice(1).forEach((id, i) => { box.children[i].querySelector('select').value = id; });
    return;
  }
  box.dataset.count = String(cards.length);
  box.replaceChildren(...cards.slice(1).map((id, i) => {
    const row = document.createElement('div');
    row.className = 'card-row';
    const label = document.createElement('label');
    label.htmlFor = `card-${i + 1}`;
    label.textContent = `Card ${i + 2}`;
    const select = document.createElement('select');
    select.id = `card-${i + 1}`;
    select.name = 'card';
    select.dataset.index = String(i + 1);
    fillDeviceSelect(select, catalog, '', id);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'small-button';
    remove.dataset.remove = String(i + 1);
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove card ${i + 2}`);
    row.append(label, select, remove);
    return row;
  }));
}

// Speculative decoding: the model's own MTP layers where it has them, and the
// smaller models of its family (a quarter of its size or less) as drafts.
export function fillDrafts(catalog, model, selected) {
  const drafts = model ? catalog.models
    .filter((m) => m.sizable && m.id !== model.id && m.family === model.family && m.params_total * 4 <= model.params_total)
    .sort((a, b) => a.params_total - b.params_total) : [];
  const options = [option('', 'none')];
  if (model?.mtp) options.push(option('mtp', 'its own MTP layers'));
  for (const m of drafts) options.push(option(m.id, `draft: ${modelLabel(m)}`));
  const select = $('draft');
  select.replaceChildren(...options);
  select.value = options.some((o) => o.value === selected) ? selected : '';
  return select.value;
}

export function fillStatic(catalog) {
  $('quant').replaceChildren(...catalog.quants.map((q) => option(q.name, q.approximate ? `${q.name} (third-party mix, size approximate)` : q.name)));
  ggufQuants = ggufQuantNames(catalog);
  $('kv').replaceChildren(...catalog.kv_types.map((k) => option(k, k)));
  $('engine').replaceChildren(...catalog.engines.map((e) => option(e, e)));
  // The kinds of host RAM (data/system_ram.json), valued in GB/s; a figure
  // none of them has gets an option of its own when the estimate names it.
  $('rambw').replaceChildren(...(catalog.ram_profiles ?? []).map((p) =>
    option(String(Math.round(p.bandwidth_bytes_per_s / 1e6) / 1000), `${p.name} · ${fmt.fixed(p.bandwidth_bytes_per_s / 1e9, 1)} GB/s${p.platform ? ` (${p.platform})` : ''}`)));
}

const log2 = (n) => Math.log2(n);

// Planner inputs kept in the scenario (and so in the URL): element id -> state key.
export const PLANNER_INPUTS = [['serve-users', 'users'], ['serve-speed', 'tps'], ['offers-hours', 'hours'], ['offers-kwh', 'kwh'],
  ['serving-in', 'sin'], ['serving-out', 'sout'], ['serving-target', 'stps']];

// The longest context the slider reaches: the model's own, or the one its
// publisher documents with YaRN (the estimate warns past the own, the commands set YaRN).
export function contextCeiling(model) {
  return model?.yarn_context_tokens || model?.max_context_tokens;
}

export function setContextRange(maxTokens) {
  const ctx = $('ctx');
  ctx.max = String(Math.max(9, Math.ceil(log2(Math.max(512, maxTokens || 131072)))));
}

// Slider position -> tokens: a power of two, capped at the model's maximum.
export function contextFromSlider(position, maxTokens) {
  const tokens = 2 ** Number(position);
  return maxTokens ? Math.min(tokens, maxTokens) : tokens;
}

// Attention data parallel is a serving engine's layout over several equal devices.
// Attention data parallel keeps each GPU's attention whole and splits the
// experts: the engine applies it to MoE models only (a dense model's is ignored).
export function attentionDpOffered(state, model) {
  return SERVING_ENGINES.has(state.engine) && state.gpus > 1 && !state.cards && model?.moe !== false;
}

// The engines without a build for the chosen device, labelled so in the list
// (the catalog's device.engines, from the engine): choosing one still shows why.
export function markEngines(device) {
  for (const o of $('engine').options) {
    const runs = !device?.engines || device.engines.includes(o.value);
    const text = runs ? o.value : `${o.value} (not on this device)`;
    if (o.textContent !== text) o.textContent = text;
  }
}

let ggufQuants = new Set();  // the catalog's GGUF file types (fillStatic)

export function writeControls(state, model) {
  $('model').value = state.model;
  $('quant').value = state.quant;
  $('kv').value = state.kv;
  $('engine').value = state.engine;
  $('gpu').value = state.gpu;
  $('vision-row').hidden = !model?.vision;
  $('vision').checked = state.vision === 1;
  $('adp-row').hidden = !attentionDpOffered(state, model);
  $('adp').checked = state.adp === 1;
  $('draft').value = state.draft;
  $('copies').value = String(state.copies);
  setContextRange(contextCeiling(model));
  $('ctx').value = String(Math.round(log2(state.ctx)));
  $('prompt').value = String(Math.round(log2(state.prompt)));
  $('batch').value = String(state.batch);
  $('gpus').value = String(state.gpus);
  $('offload').value = String(state.offload);
  $('ram').value = String(state.ram);
  // The planner's inputs live outside the form but in the same state.
  for (const [id, key] of PLANNER_INPUTS) $(id).value = String(state[key]);
  writeOutputs(state);
}

// A slider move changes one of the five (writeText and writeValue skip the rest).
export function writeOutputs(state) {
  writeText($('ctx-out'), `${fmt.tokens(state.ctx)} tokens (${fmt.contextLabel(state.ctx)})`);
  writeText($('prompt-out'), `${fmt.tokens(state.prompt)} tokens`);
  writeText($('batch-out'), String(state.batch));
  writeText($('gpus-out'), String(state.gpus));
  writeText($('offload-out'), fmt.percent(state.offload));
  for (const name of ['ctx', 'prompt', 'batch', 'gpus', 'offload']) writeValue($(name), String(state[name]));
  // What a screen reader says for each slider: the value, not its position.
  const spoken = {
    ctx: `${fmt.tokens(state.ctx)} tokens`, prompt: `${fmt.tokens(state.prompt)} tokens`,
    batch: `${state.batch} sequence${state.batch > 1 ? 's' : ''}`, gpus: `${state.gpus} device${state.gpus > 1 ? 's' : ''}`,
    offload: `${fmt.percent(state.offload)} of layers in system RAM`,
  };
  for (const [name, text] of Object.entries(spoken)) {
    const input = $(name);
    if (input.llmSpoken !== text) {
      input.llmSpoken = text;
      input.setAttribute('aria-valuetext', text);
    }
  }
}

// The control that changed -> the new state (the caller re-renders).
export function readControl(name, state, model) {
  const el = $(name);
  const next = { ...state };
  switch (name) {
    case 'ctx': next.ctx = contextFromSlider(el.value, contextCeiling(model)); break;
    case 'prompt': next.prompt = 2 ** Number(el.value); break;
    case 'batch': next.batch = Number(el.value); break;
    case 'gpus': next.gpus = Number(el.value); next.split = ''; break;  // a split is per GPU
    case 'offload': next.offload = Number(el.value); next.offload_mode = 'auto'; next.split = ''; break;
    case 'ram': {
      const gib = Number(el.value);
      if (el.value !== '' && Number.isFinite(gib) && gib >= 0 && gib <= 65536) next.ram = gib;
      break;
    }
    case 'rambw':
    case 'rambw-gbs': {
      const gbs = Number(el.value);
      if (el.value !== '' && Number.isFinite(gbs) && gbs >= 1 && gbs <= 10000) next.rambw = gbs;
      break;
    }
    case 'price': next.price = el.value === '' ? null : Number(el.value); break;
    case 'vision': next.vision = el.checked ? 1 : 0; break;
    case 'adp': next.adp = el.checked ? 1 : 0; break;
    case 'model': next.model = el.value; next.split = ''; break;  // layer counts are the model's
    case 'engine':
      next.engine = el.value;
      next.backend = '';  // each engine has its own builds
      next.quant = formatFor(next.engine, state.quant, model, ggufQuants);
      break;
    case 'gpu':
      next.gpu = el.value;
      next.split = '';
      next.gpulimit = 0;  // a limit set on one machine is not another's
      next.backend = '';  // nor a backend
      if (state.cards) next.cards = [el.value, ...state.cards.slice(1)];
      break;
    default: next[name] = el.value;
  }
  return next;
}
