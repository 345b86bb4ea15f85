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

function hardwareText(p, h) {
  if (!h) return 'nothing in the catalog reaches it';
  const price = ` · ${priceText(h.price, h.count)}`;
  return `${h.count > 1 ? `${h.count} × ` : ''}${p.deviceName(h.gpu)}${price} · ${h.tokens_per_s_per_user == null ? 'decode unknown' : `${fmt.rate(h.tokens_per_s_per_user)} each`}`;
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
  const request = p.plannerRequest({ users: number('serve-users'), tokens_per_s_per_user: number('serve-speed') });
  const t = await searchAnswer(p, list, 'Buy or rent', 'target.error', request, (q) => p.engine.target(q));
  if (!t) return;
  const cloud = (c) => (c ? `${c.provider} ${c.instance || `${c.count} × ${p.deviceName(c.gpu)}`} · ${fmt.usd(c.usd_per_hour)}/h · ${fmt.rate(c.tokens_per_s_per_user)} each` : 'no offer reaches it');
  list.replaceChildren(
    figure(`Buy, for ${fmt.tokens(t.users)} users`, hardwareText(p, t.buy), 'target.buy.gpu', t.buy?.gpu),
    figure('Rent, on demand', cloud(t.rent), 'target.rent.usd_per_hour', t.rent?.usd_per_hour),
    figure('Rent, any billing', cloud(t.rent_any), 'target.rent_any.usd_per_hour', t.rent_any?.usd_per_hour),
  );
}

export function whatFits(p) {
  const state = p.workbench.state();
  const request = {
    gpu: $('fit-gpu').value, gpus: number('fit-gpus'), ram_gib: number('fit-ram'), ctx: Number($('fit-ctx').value), engine: state.engine,
  };
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

export function renderFit(p) {
  if (!p.fit) return;
  const { request, answer } = p.fit;
  const every = $('fit-all').checked;
  // The engine ranks best quality first, then fastest: a model's first row is its best quantization.
  const seen = new Set();
  const rows = every ? answer.results : answer.results.filter((r) => !seen.has(r.model) && seen.add(r.model));
  const state = p.workbench.state();
  const { kv } = answer;  // the KV type the engine sized every row with
  $('fit-table').tBodies[0].replaceChildren(...rows.slice(0, FIT_ROWS_SHOWN).map((r) => {
    const tr = el('tr', { 'data-model': r.model, 'data-quant': r.quant });
    tr.append(el('th', { scope: 'row' }, p.models.get(r.model)?.name ?? r.model));
    const link = el('a', {
      href: toHash({
        ...state, model: r.model, quant: r.quant, gpu: request.gpu, gpus: request.gpus, ctx: request.ctx, batch: 1, kv,
        // The offload slider moves in steps of 0.05: round up, since more
        // experts in RAM only frees GPU memory, so the opened scenario still fits.
        prompt: Math.min(state.prompt, request.ctx), offload: Math.ceil(r.offload_fraction * 20) / 20,
      }),
    }, 'Open');
    const open = el('td');
    open.append(link);
    tr.append(
      cell(r.quant),
      cell(`${fmt.tokens(r.max_ctx)} tokens`, 'fit.max_ctx', r.max_ctx),
      cell(fmt.rate(r.decode_tokens_per_s), 'fit.decode_tokens_per_s', r.decode_tokens_per_s),
      cell(r.offload_bytes > 0 ? fmt.gib(r.offload_bytes) : '—', 'fit.offload_bytes', r.offload_bytes),
      open,
    );
    return tr;
  }));
  const models = new Set(answer.results.map((r) => r.model)).size;
  const hardware = `${request.gpus > 1 ? `${request.gpus} × ` : ''}${p.deviceName(request.gpu)} and ${fmt.tokens(request.ram_gib)} GiB of RAM`;
  $('fit-note').textContent = `${models} models (${answer.results.length} model × quantization pairs) run on ${hardware} ` +
    `with ${fmt.tokens(request.ctx)} tokens of context, one sequence, ${kv} KV cache${rows.length > FIT_ROWS_SHOWN ? `; the first ${FIT_ROWS_SHOWN} shown` : ''}.`;
  $('fit-note').dataset.value = String(answer.results.length);
}
