// Hardware that fits: the engine's recommendation answer drawn as the seed
// page's four answers (best single device, best value with several devices,
// unified memory, cheapest cloud offer), the devices that fit without a known
// price, and the cheapest hardware per quantization in the matrix. Every
// figure carries data-field (recommend.*, as the CLI's JSON) and data-value.
import * as fmt from './format.js';
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);

// What the catalog's price figure is, in words (data/devices.json price_kind).
const PRICE_KINDS = {
  list: 'list price',
  launch_msrp: 'launch MSRP',
  street_new: 'street price, new',
  street_used: 'street price, used',
  analyst_estimate: 'analyst estimate',
  server_share: 'share of a server price',
  server_system: 'whole server, host included',
  platform_components: 'CPU, board and RAM, summed',
};

function span(text, field, value, cls) {
  const node = el('span', cls ? { class: cls } : {}, text);
  node.dataset.field = field;
  node.dataset.value = value == null ? '' : String(value);
  return node;
}

// "~$9,499 · launch MSRP, 2025-03; $8,000–$12,000 quoted" and the machine it buys.
export function priceText(price, count = 1) {
  if (!price) return 'price unknown';
  const kind = PRICE_KINDS[price.kind] ?? (price.kind || 'price');
  const range = price.low_usd != null && price.high_usd != null && price.low_usd !== price.high_usd
    ? `; ${fmt.usd(price.low_usd)}–${fmt.usd(price.high_usd)} quoted` : '';
  // A module's price buys the GPUs on their baseboard, not the server around them.
  // Modules come only on boards: a price for fewer than a board is a board's.
  const boards = price.board_gpus > 0 ? ` · for the ${price.board_gpus}-GPU boards they are sold on` : '';
  const board = `${boards}${price.server_board && price.kind !== 'server_share' ? ' · GPU modules only, the server is extra' : ''}`;
  // A machine its maker no longer sells new says so: its launch price is history.
  const gone = price.sold_new_until ? ` · no longer sold new (since ${price.sold_new_until})` : '';
  const weak = `${gone}${price.low_confidence ? ' · low confidence' : ''}`;
  // A street price with the launch price beside it: both are what people quote.
  const launch = price.launch_usd != null && price.launch_usd !== price.usd ? ` · launched at ${fmt.usd(price.launch_usd)}` : '';
  return `~${fmt.usd(price.usd)}${count > 1 && !(price.board_gpus > 0) ? ` for ${count}` : ''} · ${kind}${price.as_of ? `, ${price.as_of}` : ''}${range}${board}${launch}${weak}`;
}

function count(h) {
  return h.count > 1 ? `${h.count} × ` : '';
}

// One answer: its title, the hardware, and its price, fit, decode and TTFT;
// said when none of its kind reaches the usable speed (the engine's rule).
function card(title, key, h, deviceName, minRate, empty = 'Nothing in the catalog holds it at a sourced, undoubted price with a bandwidth figure.') {
  const box = el('div', { class: 'recommend-card', 'data-answer': key });
  box.append(el('h3', {}, title));
  if (!h) {
    box.append(span(empty, `recommend.${key}.gpu`, null, 'none'));
    return box;
  }
  const cloud = 'instance' in h;
  const name = el('p', { class: 'recommend-name' });
  if (cloud) {
    // The provider and its instance type where the listing names one; the
    // devices on the line below.
    name.append(el('strong', {}, h.provider), ' ', span(h.instance || '', `recommend.${key}.instance`, h.instance));
    box.append(name, el('p', { class: 'note' }, `${count(h)}${deviceName(h.gpu)} · ${h.billing}`));
    const price = el('p', { class: 'price' });
    price.append(span(`${fmt.usd(h.usd_per_hour)} per hour`, `recommend.${key}.usd_per_hour`, h.usd_per_hour));
    box.append(price);
  } else {
    name.append(count(h), span(h.name || deviceName(h.gpu), `recommend.${key}.gpu`, h.gpu));
    box.append(name);
    // Several whole machines hold it together over the network (llama.cpp's RPC).
    if (h.machines > 1) {
      box.append(span(`${h.machines} machines on a network, through llama.cpp's RPC: its commands start rpc-server on the others.`,
        `recommend.${key}.machines`, h.machines, 'note'));
    }
    const price = el('p', { class: 'price' });
    price.append(span(priceText(h.price, h.count), `recommend.${key}.price_usd`, h.price?.usd ?? null));
    if (h.price?.machine) price.append(el('br'), el('small', {}, h.price.machine));
    box.append(price);
  }
  const facts = el('p', { class: 'recommend-facts' });
  facts.append(
    span(`fits at ${fmt.percent(h.utilization)}`, `recommend.${key}.utilization`, h.utilization), ' · ',
    span(h.tokens_per_s_per_user == null ? 'decode unknown' : `${fmt.rate(h.tokens_per_s_per_user)} decode`,
      `recommend.${key}.tokens_per_s_per_user`, h.tokens_per_s_per_user), ' · ',
    span(h.ttft_s == null ? 'TTFT unknown (no throughput figure)' : `first token ${fmt.seconds(h.ttft_s)}`,
      `recommend.${key}.ttft_s`, h.ttft_s),
  );
  box.append(facts);
  // One memory: experts the GPU's limit leaves out sit in the CPU's share of it.
  if (h.experts_in_ram_layers > 0) {
    box.append(span(`The experts of ${h.experts_in_ram_layers} layers (${fmt.gib(h.offload_bytes)}) in the CPU's share of its memory: --n-cpu-moe ${h.experts_in_ram_layers}.`,
      `recommend.${key}.experts_in_ram_layers`, h.experts_in_ram_layers, 'note'));
  }
  if (h.below_usable_speed) {
    box.append(span(`Below ${fmt.rate(minRate)}: nothing of this kind that holds it decodes faster.`,
      `recommend.${key}.below_usable_speed`, true, 'note'));
  }
  if (cloud && h.usd_per_million_tokens != null) {
    box.append(span(`${fmt.usd(h.usd_per_million_tokens)} per million tokens, one stream`,
      `recommend.${key}.usd_per_million_tokens`, h.usd_per_million_tokens, 'note'));
  }
  return box;
}

export function renderRecommendation(r, deviceName, note) {
  $('recommendations').replaceChildren(
    card('Best single device', 'single', r.single, deviceName, r.min_tokens_per_s),
    card('Best value: several devices', 'value', r.value, deviceName, r.min_tokens_per_s,
      r.value_beaten_by_single ? 'No set of several devices costs less than the single device.' : undefined),
    card('Apple or unified memory', 'unified', r.unified, deviceName, r.min_tokens_per_s),
    card('Cheapest cloud offer (on demand)', 'cloud', r.cloud, deviceName, r.min_tokens_per_s),
    card('Cheapest cloud offer (any billing)', 'cloud_any', r.cloud_any, deviceName, r.min_tokens_per_s),
  );
  const more = $('recommend-more');
  const parts = [];
  if (r.unpriced.length) {
    const list = el('ul', { class: 'unpriced' });
    r.unpriced.forEach((h, i) => {
      const li = el('li');
      // A doubted price (a Mac no longer sold new, at a used asking price) is shown with its label.
      li.append(span(h.name || deviceName(h.gpu), `recommend.unpriced.${i}.gpu`, h.gpu),
        ' · ', span(priceText(h.price, h.count), `recommend.unpriced.${i}.price_usd`, h.price ? h.price.usd : null),
        ` · fits at ${fmt.percent(h.utilization)}`,
        ...(h.experts_in_ram_layers > 0 ? [' with ', span(`the experts of ${h.experts_in_ram_layers} layers in the CPU's share`,
          `recommend.unpriced.${i}.experts_in_ram_layers`, h.experts_in_ram_layers)] : []),
        ' · ',
        span(h.tokens_per_s_per_user == null ? 'decode unknown (no bandwidth figure)' : fmt.rate(h.tokens_per_s_per_user),
          `recommend.unpriced.${i}.tokens_per_s_per_user`, h.tokens_per_s_per_user));
      list.append(li);
    });
    parts.push(el('h3', {}, 'Also holds it alone, with no price to rank it by'), list);
  }
  const where = r.max_ctx_gpu ? `${r.max_ctx_gpu_count > 1 ? `${r.max_ctx_gpu_count} × ` : ''}${deviceName(r.max_ctx_gpu)}` : null;
  if (where) {
    const p = el('p', {}, `Largest context on ${where}: `);
    p.append(span(r.max_ctx_known ? `${fmt.tokens(r.max_ctx)} tokens` : `at least ${fmt.tokens(r.max_ctx)} tokens (the model states no limit)`,
      'recommend.max_ctx', r.max_ctx));
    parts.push(p);
  }
  if (note) parts.push(el('p', { class: 'note' }, note));
  more.replaceChildren(...parts);
  renderMatrixHardware(r.per_quant, deviceName);
}

export function renderRecommendationText(text, field) {
  $('recommendations').replaceChildren(span(text, field, null, 'note'));
  $('recommend-more').replaceChildren();
}

// The matrix's last column: each row's cheapest hardware at the usable speed
// (else the cheapest that holds it, marked), by the answers' rule, kept
// for the rows the matrix draws later (a context move rebuilds none, a new
// model or engine rebuilds them with "…" until the next answer).
let perQuant = new Map();
let nameOf = (id) => id;
export function renderMatrixHardware(list, deviceName) {
  held = false;
  perQuant = new Map(list.map((q) => [q.quant, q]));
  nameOf = deviceName;
  fillMatrixHardware();
}

export function clearMatrixHardware() {
  held = false;
  perQuant = new Map();
  fillMatrixHardware();
}

// A prerendered page's column stays as its HTML has it until the engine's
// first answer (the same scenario, the same names).
let held = false;
export function holdMatrixHardware() {
  held = true;
}

export function fillMatrixHardware() {
  if (held) return;
  const body = $('matrix').tBodies[0];
  for (const tr of body.rows) {
    const td = tr.cells[6];
    if (!td) continue;
    const q = perQuant.get(tr.dataset.quant);
    const speed = q?.tokens_per_s_per_user ? ` · ${fmt.rate(q.tokens_per_s_per_user)}${q.below_usable_speed ? ' (below usable speed)' : ''}` : '';
    const holder = !q ? '…' : q.gpu ? `${q.count > 1 ? `${q.count} × ` : ''}${q.name || nameOf(q.gpu)} · ${q.price ? `~${fmt.usd(q.price.usd)}` : 'price unknown'}${speed}`
      : 'nothing in the catalog';
    const text = q && q.starts === false ? `no ${q.quant} checkpoint of this model is known to start · ${holder}` : holder;
    // Attributes written only when they change: a context drag clears this
    // column on every input event.
    const field = `recommend.per_quant.${tr.dataset.quant}.gpu`;
    const value = q?.gpu ?? '';
    if (td.dataset.field !== field) td.dataset.field = field;
    if (td.dataset.value !== value) td.dataset.value = value;
    if (td.textContent !== text) td.textContent = text;
  }
}
