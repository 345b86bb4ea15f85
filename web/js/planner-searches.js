// The planner's searches: hardware that fits, buy or rent for many users, what
// can I run. Fetched with their first click (planner.js), beside the engine's
// full module that answers them; each takes the PlannerPanels it draws for.
import * as fmt from './format.js';
import { el } from './dom.js';
import { toHash } from './state.js';
import { cell, figure, number } from './planner-cells.js';
import { priceText } from './recommend.js';

const $ = (id) => document.getElementById(id);
const FIT_ROWS_SHOWN = 300;

// " · as 7 copies of the model, 1 GPU and up to 8 users each", with the
// machines (or instances) alike they run on where more than one; nothing for one copy.
function copiesText(h) {
  if (!(h.copies > 1)) return '';
  const gpus = (n) => `${fmt.tokens(n)} GPU${n > 1 ? 's' : ''}`;
  const spread = h.servers > 1 ? ` on ${fmt.tokens(h.servers)} machines of ${gpus(h.count / h.servers)}`
    : h.instance_count > 1 ? ` on ${fmt.tokens(h.instance_count)} instances of ${gpus(h.count / h.instance_count)}` : '';
  return ` · as ${fmt.tokens(h.copies)} copies of the model, ${gpus(h.gpus_per_copy)} and up to ${fmt.tokens(h.users_per_copy)} users each${spread}`;
}

function hardwareText(p, h) {
  if (!h) return 'nothing in the catalog reaches it';
  const price = ` · ${priceText(h.price, h.count)}`;
  return `${h.count > 1 ? `${h.count} × ` : ''}${p.deviceName(h.gpu)}${price} · ${h.tokens_per_s_per_user == null ? 'decode unknown' : `${fmt.rate(h.tokens_per_s_per_user)} each`}${copiesText(h)}`;
}

// A search's answer, or null once what stops it is written in `list`: a
// scenario the planner cannot take (a GGUF or safetensors file), a module
// that did not load, or the engine's error.
async function searchAnswer(p, list, label, errorField, request, ask) {
  if (!request) {
    list.replaceChildren(figure(label, 'for catalog models or a pasted config.json', errorField, null));
    return null;
  }
  try {
    await p.loadFull(list, label);
    return ask(request);
  } catch (error) {
    list.replaceChildren(figure(label, error.message, errorField, null));
    return null;
  }
}

export async function serve(p) {
  const list = $('serve-results');
  // Each user's requests: the workbench's prompt, the Serving panel's tokens out.
  const request = p.plannerRequest({ users: number('serve-users'), tokens_per_s_per_user: number('serve-speed'),
    output_tokens: p.workbench.state().sout });
  const t = await searchAnswer(p, list, 'Buy or rent', 'target.error', request, (q) => p.engine.target(q));
  if (!t) return;
  const cloud = (c) => (c ? `${c.provider}: ${c.count} × ${p.deviceName(c.gpu)} · ${fmt.usd(c.usd_per_hour)}/h · ${fmt.rate(c.tokens_per_s_per_user)} each${copiesText(c)}` : 'no offer reaches it');
  list.replaceChildren(
    withOpen(p, figure(`Buy, for ${fmt.tokens(t.users)} users`, hardwareText(p, t.buy), 'target.buy.gpu', t.buy?.gpu), t.buy),
    withOpen(p, figure('Rent, on demand', cloud(t.rent), 'target.rent.usd_per_hour', t.rent?.usd_per_hour), t.rent),
    withOpen(p, figure('Rent, any billing', cloud(t.rent_any), 'target.rent_any.usd_per_hour', t.rent_any?.usd_per_hour), t.rent_any),
  );
}

// An answer's link to one copy of the model on the workbench (its GPUs and
// users): its memory and its serving curve, with the launch commands that
// start one machine's (or instance's) copies; every machine runs the same. None past the workbench's 256 sequences.
function withOpen(p, box, h) {
  if (!h || !(h.users_per_copy <= 256)) return box;
  const state = p.workbench.state();
  const link = el('a', {
    class: 'open-copy',
    href: toHash({ ...state, gpu: h.gpu, gpus: h.gpus_per_copy, batch: h.users_per_copy, copies: (h.copies ?? 1) / (h.servers ?? h.instance_count ?? 1), cards: null, split: '', offload: 0 }),
  }, h.copies > 1 ? 'open one copy' : 'open it');
  link.addEventListener('click', openVerdict);
  box.querySelector('dd').append(' · ', link);
  return box;
}

// A rank or use changed after a first listing asks again (the engine ranks and filters).
let fitChoicesWired = false;
function wireFitChoices(p) {
  if (fitChoicesWired) return;
  fitChoicesWired = true;
  for (const id of ['fit-rank', 'fit-use', 'fit-speed']) $(id).addEventListener('change', () => { if (p.fit) whatFits(p); });
}

export function whatFits(p) {
  wireFitChoices(p);
  const state = p.workbench.state();
  const gpu = $('fit-gpu').value;
  const request = {
    gpu, gpus: gpu.includes(',') ? gpu.split(',').length : number('fit-gpus'), ram_gib: number('fit-ram'), ctx: Number($('fit-ctx').value),
    engine: state.engine, rank: $('fit-rank').value,
  };
  if ($('fit-use').value) request.use = $('fit-use').value;
  // The machine's own factors where the device is the one they were measured on.
  const calibration = p.workbench.calibration?.();
  if (calibration && calibration.device === gpu) {
    const { device, ...factors } = calibration;
    request.machine_calibration = factors;
  }
  const speed = Number($('fit-speed').value);
  if ($('fit-speed').value !== '' && Number.isFinite(speed)) request.min_tokens_per_s = speed;
  $('fit-note').textContent = 'Sizing every catalog model…';
  $('fit-table').tBodies[0].replaceChildren();
  // One frame for the note to show: the sweep takes a moment.
  p.ensureFull().then(() => new Promise((done) => setTimeout(done, 0))).then(() => {
    p.fit = { request, answer: p.engine.fit(request) };
    renderFit(p);
  }).catch((error) => {
    p.fit = null;
    $('fit-note').textContent = `Cannot list models: ${error.message}`;
  });
}

const PLAIN_WEIGHTS = new Set(['bf16', 'fp16', 'fp32']);

// What the row's weights are: a GGUF file type, or a checkpoint format; a
// catalog entry that is itself a quantized checkpoint (NVIDIA's NVFP4 release)
// sized at a GGUF type was sized from its architecture, not from that file.
export function formatText(r) {
  const own = r.native_format ? r.native_format.toUpperCase() : '';
  if (r.format === 'gguf') {
    return r.native_format && !PLAIN_WEIGHTS.has(r.native_format)
      ? `GGUF ${r.quant} · sized from the architecture; this entry's own checkpoint is ${own}`
      : `GGUF ${r.quant}`;
  }
  return r.own_format ? `${r.quant} · its own checkpoint` : `${r.quant} (${r.format})`;
}

function contextCell(r) {
  const td = cell(r.max_ctx_known ? `${fmt.tokens(r.max_ctx)} tokens` : `${fmt.tokens(r.max_ctx)} tokens fit (the model's own limit is not known)`,
    'fit.max_ctx', r.max_ctx);
  // Reached with more of the experts in RAM than the asked context needs (the engine's placement for it).
  if (r.max_ctx_offload_bytes > r.offload_bytes) td.append(el('br'), el('small', {}, ` with ${fmt.gib(r.max_ctx_offload_bytes)} of experts in RAM`));
  return td;
}

// 'Open': the row's scenario is the link's hash; once the page has applied it
// (its hashchange listener runs first), the reader is brought to the verdict.
function openVerdict(event) {
  const href = event.currentTarget.getAttribute('href');
  const show = () => {
    const verdict = $('verdict');
    verdict.scrollIntoView({ block: 'center' });
    verdict.focus({ preventScroll: true });
  };
  if (location.hash === href) {
    setTimeout(show, 0);
    return;
  }
  window.addEventListener('hashchange', () => setTimeout(show, 0), { once: true });
}

export function renderFit(p) {
  if (!p.fit) return;
  const { request, answer } = p.fit;
  const every = $('fit-all').checked;
  // The engine ranks in the asked order: a model's first row is its best one for it
  // (best quantization, fastest, or longest context).
  const seen = new Set();
  const rows = every ? answer.results : answer.results.filter((r) => !seen.has(r.model) && seen.add(r.model));
  const state = p.workbench.state();
  const { kv } = answer;  // the KV type the engine sized every row with
  $('fit-table').tBodies[0].replaceChildren(...rows.slice(0, FIT_ROWS_SHOWN).map((r) => {
    const tr = el('tr', { 'data-model': r.model, 'data-quant': r.quant });
    tr.append(el('th', { scope: 'row' }, p.models.get(r.model)?.name ?? r.model));
    const link = el('a', {
      href: toHash({
        ...state, model: r.model, quant: r.quant, gpu: request.gpu.split(',')[0], gpus: request.gpus, ctx: request.ctx, batch: 1, kv,
        cards: request.gpu.includes(',') ? request.gpu.split(',') : null, vision: 0, draft: '',
        // The offload slider moves in steps of 0.05: round up, since more
        // experts in RAM only frees GPU memory, so the opened scenario still fits.
        prompt: Math.min(state.prompt, request.ctx), offload: Math.ceil(r.offload_fraction * 20) / 20,
        // The layers split to balance the cards where llama.cpp's own split would not fit.
        split: r.layer_split ?? '',
      }),
    }, 'Open');
    link.addEventListener('click', openVerdict);
    const open = el('td');
    open.append(link);
    tr.append(
      cell(formatText(r), 'fit.format', r.format),
      cell(r.uses.length ? r.uses.join(', ') : '—', 'fit.uses', r.uses.join(',')),
      contextCell(r),
      cell(r.usable_speed ? fmt.rate(r.decode_tokens_per_s) : `${fmt.rate(r.decode_tokens_per_s)} · below the usable speed`,
        'fit.decode_tokens_per_s', r.decode_tokens_per_s),
      cell(r.offload_bytes > 0 ? fmt.gib(r.offload_bytes) : '—', 'fit.offload_bytes', r.offload_bytes),
      open,
    );
    return tr;
  }));
  if (answer.refused) {
    $('fit-note').textContent = `Nothing runs here: ${answer.refused}.`;
    $('fit-note').dataset.value = '0';
    return;
  }
  const models = new Set(answer.results.map((r) => r.model)).size;
  // One memory (a Mac, a Strix Halo): no RAM beside it; the experts "in RAM" are its CPU's share.
  const memory = answer.unified_memory_bytes > 0
    ? ` (${fmt.gib(answer.unified_memory_bytes)} shared by GPU and CPU: experts "in RAM" are in the CPU's share)`
    : ` and ${fmt.tokens(request.ram_gib)} GiB of RAM`;
  const hardware = `${request.gpus > 1 ? `${request.gpus} × ` : ''}${p.deviceName(request.gpu)}${memory}`;
  const order = {
    quality: `models at ${fmt.rate(answer.min_tokens_per_s)} or faster first, 4 bits and up before 3 and 2, then the larger (an MoE as √(total × active))`,
    speed: 'fastest first', context: 'longest context first',
  }[answer.rank];
  const use = answer.use ? `${answer.use} ` : '';
  $('fit-note').textContent = `${models} ${use}models (${answer.results.length} model × quantization pairs) run on ${hardware} ` +
    `with ${fmt.tokens(request.ctx)} tokens of context, one sequence, ${kv} KV cache; ${order}${rows.length > FIT_ROWS_SHOWN ? `; the first ${FIT_ROWS_SHOWN} shown` : ''}.` +
    (request.machine_calibration ? ` Speeds calibrated on your ${request.machine_calibration.rows} measurements of this device.` : '') +
    (answer.left_out_no_checkpoint > 0 ? ` ${answer.left_out_no_checkpoint} more pairs fit but are left out: no checkpoint of them is known for ${request.engine} to start.` : '');
  $('fit-note').dataset.value = String(answer.results.length);
}
