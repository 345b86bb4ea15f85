// The scenario lives in the URL hash (#model=…&quant=…&ctx=…), so a link
// reproduces the view and back/forward work. Values are checked against the
// catalog; anything unknown or out of range falls back to a default and is
// reported, never inserted into the page as markup.
// The planner's inputs (system RAM, users and their speed, hours a day,
// electricity) are part of it: a shared link reproduces prices and costs.
export const KEYS = ['model', 'quant', 'ctx', 'batch', 'kv', 'engine', 'gpu', 'gpus', 'offload', 'offload_mode', 'prompt',
  'ram', 'rambw', 'users', 'tps', 'hours', 'kwh', 'vision', 'draft', 'split', 'gpulimit', 'sin', 'sout', 'stps', 'adp', 'cal', 'hf', 'backend', 'copies'];
// Cards of one machine in the hash: gpu=rtx-3090,rtx-3090,rtx-3060-12gb.
export const MAX_CARDS = 16;

export const DEFAULTS = {
  model: 'glm-4.5',
  quant: 'Q4_K_M',
  ctx: 8192,
  batch: 1,
  kv: 'f16',
  engine: 'llama.cpp',
  gpu: 'mi300x',
  gpus: 1,
  offload: 0,
  offload_mode: 'auto',
  prompt: 4096,
  ram: 64,      // GiB of system RAM for offloaded layers or experts
  rambw: 0,     // GB/s of that RAM (a discrete card's host), 0 for the engine's default
  users: 8,     // buy or rent for many users
  tps: 20,      // tokens/s each of them needs
  hours: 24,    // hours a day the hardware runs (rent per month, power)
  kwh: 0.15,    // USD per kWh
  vision: 0,    // 1: the model's vision encoder and one image (where it has one)
  draft: '',    // speculative decoding: a catalog model's id, 'mtp', or none
  cards: null,  // mixed cards: every card's id in order (gpu is the first), else null
  split: '',    // llama.cpp over equal cards: layers per GPU ("41,39"), '' for an even split
  gpulimit: 0,  // unified memory: the GPU limit set in MiB (macOS iogpu.wired_limit_mb), 0 for the default
  sin: 1024,    // serving under load: tokens in per request
  sout: 1024,   // ... and out
  stps: 20,     // ... and the speed each user needs (0: no target)
  adp: 0,       // 1: attention data parallel over the devices (serving engines, MoE models)
  cal: '',      // this machine's speed factors from its llama-bench rows (CALIBRATION), '' for none
  hf: '',       // a Hugging Face Hub repo read in place (owner/repo[:QUANT]), '' for the catalog model
  backend: '',  // the engine's backend where the device has several (vulkan on an NVIDIA card), '' for its own
  copies: 1,    // copies of the setup side by side (the users plan's layout): the launch commands start them all
};
// Keys written to a link only when they differ from the defaults.
const ONLY_WHEN_SET = ['sin', 'sout', 'stps', 'adp', 'cal', 'hf', 'backend', 'copies'];
// A Hub repo as the link holds it: owner/repo, and the GGUF quantization chosen.
export const HUB_REPO = /^[A-Za-z0-9._-]{1,96}\/[A-Za-z0-9._-]{1,96}(?::[A-Za-z0-9._-]{1,40})?$/;
// A calibration as the link holds it: the device it was measured on, its
// bandwidth, compute, fixed-cost, attention and KV-read factors, the rows
// behind them and the llama.cpp backend: cal=rtx-4080,1.087,1.509,1,1,1,2,cuda.
const FACTOR = '(?:[0-9]{1,2}(?:\\.[0-9]{1,6})?)';
const FACTORS = ['bandwidth_factor', 'compute_factor', 'overhead_factor', 'attention_factor', 'kv_factor'];
const CALIBRATION = new RegExp(`^([a-z0-9][a-z0-9._-]{0,79}),${FACTORS.map(() => `(${FACTOR})`).join(',')},([0-9]{1,5}),(cuda|rocm|metal|vulkan|sycl|cpu)$`);
export function parseCalibration(text) {
  const m = CALIBRATION.exec(text);
  if (!m) return null;
  const c = { device: m[1] };
  for (const [i, name] of FACTORS.entries()) {
    const value = Number(m[2 + i]);
    if (!(value >= 0.05 && value <= 20)) return null;
    c[name] = value;
  }
  return { ...c, rows: Number(m[2 + FACTORS.length]), backend: m[3 + FACTORS.length] };
}
export function calibrationText(device, factors) {
  const f = (x) => String(Math.round(x * 1e4) / 1e4);
  return [device, ...FACTORS.map((name) => f(factors[name])), factors.rows, factors.backend].join(',');
}

// Whole numbers of layers, one per GPU; the engine checks they add up.
const SPLIT = /^[1-9][0-9]{0,5}(,[1-9][0-9]{0,5}){1,63}$/;

// Kept as decimals; the rest are whole numbers.
const DECIMAL = new Set(['offload', 'tps', 'kwh', 'rambw', 'stps']);

const LIMITS = {
  ctx: [512, 16777216],
  batch: [1, 256],
  gpus: [1, 64],
  offload: [0, 1],
  prompt: [16, 1048576],
  ram: [0, 65536],
  rambw: [0, 10000],
  users: [1, 4096],
  tps: [0.1, 10000],
  hours: [1, 24],
  kwh: [0, 10],
  vision: [0, 1],
  gpulimit: [0, 16777216],
  sin: [1, 1048576],
  sout: [1, 1048576],
  stps: [0, 10000],
  adp: [0, 1],
  copies: [1, 64],
};

// The quantization kept across an engine change where the new engine loads
// its format, else that engine's usual one (the engine's own default): GGUF
// for llama.cpp and Ollama, MLX's for MLX-LM, the checkpoint as published for
// the serving engines. A link that names an engine but no quantization gets
// the same, as the CLI's default for that engine.
export function ggufQuantNames(catalog) {
  return new Set(catalog.quants.filter((q) => q.gguf).map((q) => q.name));
}

export function formatFor(engine, quant, model, ggufQuants) {
  const gguf = ggufQuants.has(quant);
  if (engine === 'llama.cpp' || engine === 'ollama') return gguf ? quant : ownGguf(model);
  if (engine === 'mlx') return quant.startsWith('MLX-') || quant === 'BF16-native' ? quant : 'MLX-4bit';
  return gguf || quant.startsWith('MLX-') ? 'native' : quant;
}

// The GGUF type llama.cpp and Ollama take for a model unasked: its own where
// the catalog names one (gpt-oss: MXFP4_MOE, the MXFP4 experts as released and
// Ollama's only tag), else Q4_K_M; the engine's default_quant_name says the same.
export function ownGguf(model) {
  return model?.gguf_default_quant || DEFAULTS.quant;
}

// The quantization kept when another model is chosen: the one the user chose,
// unless it was the old model's own GGUF default, which becomes the new one's.
export function carryQuant(engine, quant, fromModel, toModel) {
  if (engine !== 'llama.cpp' && engine !== 'ollama') return quant;
  return quant === ownGguf(fromModel) ? ownGguf(toModel) : quant;
}

// id or older id (alias) -> id, as the engine resolves them (Catalog::find_model:
// ids first, then aliases, the first entry winning): a link made before a
// rename still opens its scenario.
function idsOf(entries) {
  const ids = new Map(entries.map((e) => [e.id, e.id]));
  for (const e of entries) for (const alias of e.aliases ?? []) if (!ids.has(alias)) ids.set(alias, e.id);
  return ids;
}

// base: the state keys absent from the hash take (a prerendered page's own
// scenario, <html data-scenario>), else the defaults. closeIds(kind, raw), where
// given, names the ids an unknown model ('model') or device ('gpu') was likely
// meant for (the engine's " (did you mean ...?)").
export function parseHash(hash, catalog, base = DEFAULTS, closeIds = () => '') {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = { ...base };
  const problems = [];
  const current = { model: idsOf(catalog.models.filter((m) => m.sizable)), gpu: idsOf(catalog.devices) };
  current.draft = current.model;
  const ids = {
    model: new Set(catalog.models.filter((m) => m.sizable).map((m) => m.id)),
    gpu: new Set(catalog.devices.map((d) => d.id)),
    quant: new Set(catalog.quants.map((q) => q.name)),
    kv: new Set(catalog.kv_types),
    engine: new Set(catalog.engines),
    offload_mode: new Set(['auto', 'layers', 'experts']),
    backend: new Set(['cuda', 'rocm', 'metal', 'vulkan', 'sycl', 'cann', 'musa', 'cpu']),
  };
  ids.draft = new Set(['', 'mtp', ...ids.model]);
  for (const key of KEYS) {
    if (!params.has(key)) continue;
    const raw = params.get(key);
    if (key === 'gpu' && raw.includes(',')) {
      const cards = raw.split(',').map((id) => current.gpu.get(id) ?? id);
      const unknown = cards.find((id) => !ids.gpu.has(id));
      if (unknown !== undefined) problems.push(`unknown gpu “${unknown.slice(0, 60)}”${closeIds('gpu', unknown)}`);
      else if (cards.length > MAX_CARDS) problems.push(`more than ${MAX_CARDS} cards`);
      else Object.assign(state, { gpu: cards[0], gpus: cards.length, cards });
      continue;
    }
    if (key === 'gpus' && state.cards) continue;  // the list says how many
    if (key === 'cal') {
      const c = parseCalibration(raw);
      if (c && ids.gpu.has(c.device)) state.cal = raw;
      else problems.push(`calibration “${raw.slice(0, 60)}” is not device,bandwidth,compute,overhead,attention,kv,rows,backend`);
      continue;
    }
    if (key === 'hf') {
      if (HUB_REPO.test(raw) && !raw.split(/[/:]/).some((part) => part === '.' || part === '..')) state.hf = raw;
      else problems.push(`Hub repo “${raw.slice(0, 60)}” is not owner/repo or owner/repo:QUANT`);
      continue;
    }
    if (key === 'split') {
      if (raw === '' || SPLIT.test(raw)) state.split = raw;
      else problems.push(`split “${raw.slice(0, 60)}” is not a list of layers per GPU such as 41,39`);
      continue;
    }
    if (key in ids) {
      const id = current[key]?.get(raw) ?? raw;
      if (ids[key].has(id)) {
        state[key] = id;
        if (key === 'gpu') state.cards = null;
      }
      else problems.push(`unknown ${key} “${raw.slice(0, 60)}”${key === 'gpu' || key === 'model' || key === 'draft' ? closeIds(key === 'gpu' ? 'gpu' : 'model', raw) : ''}`);
    } else {
      const value = Number(raw);
      const [low, high] = LIMITS[key];
      if (raw.trim() !== '' && Number.isFinite(value) && value >= low && value <= high) {
        state[key] = DECIMAL.has(key) ? value : Math.round(value);
      } else {
        problems.push(`${key} “${raw.slice(0, 60)}” is not between ${low} and ${high}`);
      }
    }
  }
  // Unasked, the context is the default or the model's whole window if that
  // is shorter (Llama 2 7B's 4096), as choosing the model in the list gives.
  const model = catalog.models.find((m) => m.id === state.model);
  if (!params.has('ctx') && model?.max_context_tokens && state.ctx > model.max_context_tokens) state.ctx = model.max_context_tokens;
  if (params.has('engine') && !params.has('quant') && !params.has('hf')) {
    state.quant = formatFor(state.engine, state.quant, model, ggufQuantNames(catalog));
  }
  if (params.has('model') && !params.has('quant') && !params.has('hf')) {
    state.quant = carryQuant(state.engine, state.quant, catalog.models.find((m) => m.id === base.model), model);
  }
  return { state, problems };
}

export function toHash(state) {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    // Set only when used: most links have neither.
    if ((key === 'split' && !state.split) || (key === 'gpulimit' && !state.gpulimit)) continue;
    if (ONLY_WHEN_SET.includes(key) && state[key] === DEFAULTS[key]) continue;
    params.set(key, key === 'gpu' && state.cards ? state.cards.join(',') : String(state[key]));
  }
  return `#${params.toString().replace(/%2C/g, ',')}`;  // commas read better and are valid in a fragment
}

// The rental price (USD per hour for the whole machine, as typed) is
// kept beside the scenario (#...&price=0.69) so a shared link shows the
// receiver the sender's costs. Absent: null; out of range: null and a problem.
export const PRICE_LIMITS = [0, 10000];
export function parsePrice(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (!params.has('price')) return { price: null, problems: [] };
  const raw = params.get('price');
  const value = Number(raw);
  const [low, high] = PRICE_LIMITS;
  if (raw.trim() !== '' && Number.isFinite(value) && value >= low && value <= high) return { price: value, problems: [] };
  return { price: null, problems: [`price “${raw.slice(0, 60)}” is not between ${low} and ${high}`] };
}
