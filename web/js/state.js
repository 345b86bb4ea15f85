// The scenario lives in the URL hash (#model=…&quant=…&ctx=…), so a link
// reproduces the view and back/forward work. Values are checked against the
// catalog; anything unknown or out of range falls back to a default and is
// reported, never inserted into the page as markup.
export const KEYS = ['model', 'quant', 'ctx', 'batch', 'kv', 'engine', 'gpu', 'gpus', 'offload', 'prompt'];

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
  prompt: 4096,
};

const LIMITS = {
  ctx: [512, 16777216],
  batch: [1, 256],
  gpus: [1, 64],
  offload: [0, 1],
  prompt: [16, 1048576],
};

export function parseHash(hash, catalog) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = { ...DEFAULTS };
  const problems = [];
  const ids = {
    model: new Set(catalog.models.filter((m) => m.sizable).map((m) => m.id)),
    gpu: new Set(catalog.devices.map((d) => d.id)),
    quant: new Set(catalog.quants.map((q) => q.name)),
    kv: new Set(catalog.kv_types),
    engine: new Set(catalog.engines),
  };
  for (const key of KEYS) {
    if (!params.has(key)) continue;
    const raw = params.get(key);
    if (key in ids) {
      if (ids[key].has(raw)) state[key] = raw;
      else problems.push(`unknown ${key} “${raw.slice(0, 60)}”`);
    } else {
      const value = Number(raw);
      const [low, high] = LIMITS[key];
      if (raw.trim() !== '' && Number.isFinite(value) && value >= low && value <= high) {
        state[key] = key === 'offload' ? value : Math.round(value);
      } else {
        problems.push(`${key} “${raw.slice(0, 60)}” is not between ${low} and ${high}`);
      }
    }
  }
  return { state, problems };
}

export function toHash(state) {
  const params = new URLSearchParams();
  for (const key of KEYS) params.set(key, String(state[key]));
  return `#${params.toString()}`;
}
