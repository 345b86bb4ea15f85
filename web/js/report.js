// The questions people ask about a model (the seed report page's FAQ), each
// answered from the engine: the headline estimate, the recommendation answer
// and figures of the same scenario on a few common cards. The same code fills
// the live page and, at build time, the prerendered model pages
// (scripts/prerender.mjs). Every figure carries data-field (questions.*) and
// data-value.
import * as fmt from './format.js';
import { el } from './dom.js';
import { priceText } from './recommend.js';

const $ = (id) => document.getElementById(id);

// Common cards people ask about: the consumer cards, Macs and datacenter GPUs
// the seed pages list, one of each class (a fixed choice, not a ranking).
export const COMMON_DEVICES = ['rtx-3090', 'rtx-4090', 'rtx-5090', 'rx-7900-xtx', 'mac-m4-max-128gb', 'mac-m3-ultra-512gb',
  'dgx-spark-gb10', 'h100-sxm', 'mi300x'];

function figure(text, field, value) {
  const node = el('span', {}, text);
  node.dataset.field = `questions.${field}`;
  node.dataset.value = value == null ? '' : String(value);
  return node;
}

function qa(list, question, ...parts) {
  const dd = el('dd');
  dd.append(...parts);
  list.append(el('dt', {}, question), dd);
}

const count = (h) => (h.count > 1 ? `${h.count} × ` : '');

// answers: {model, state, result (the headline estimate), recommend (its
// answer), deviceName(id), figuresOn(id) (the scenario on one such device),
// quantFits: [{quant, result}] (the matrix's rows on the chosen device),
// machine (the chosen device, or mixed cards as one named machine)}.
// The weights the device holds: all of them, or (llama.cpp keeps the token
// embedding in system RAM; an offload keeps more) that part of the whole, so
// the parts add up to the figure said before them.
function weightsOnDevice(m) {
  const onDevice = m.weights_on_gpus_bytes ?? m.weights_bytes;
  if (onDevice >= m.weights_bytes) return [figure(fmt.gib(m.weights_bytes), 'memory.weights_bytes', m.weights_bytes), ' of weights'];
  return [figure(fmt.gib(onDevice), 'memory.weights_on_gpus_bytes', onDevice), ' of the ',
    figure(fmt.gib(m.weights_bytes), 'memory.weights_bytes', m.weights_bytes),
    ` of weights (${m.offload_bytes > 0 ? 'the rest in system RAM' : 'llama.cpp keeps the token embedding in system RAM'})`];
}

export function renderQuestions({ model, state, result, recommend: r, deviceName, figuresOn, quantFits, machine, describeChange }) {
  const list = $('questions');
  const panel = list.closest('section');
  if (!model || !result || result.error || !r) {
    panel.hidden = true;
    list.replaceChildren();
    return;
  }
  panel.hidden = false;
  $('questions-title').textContent = `Questions about ${model.name}`;
  const m = result.memory;
  const at = `at ${state.quant} with ${fmt.tokens(state.ctx)} tokens of context`;
  const items = el('dl', { class: 'questions' });

  qa(items, `How much memory does ${model.name} need?`,
    `${at[0].toUpperCase()}${at.slice(1)}, about `, figure(fmt.gibAndGb(m.required_bytes), 'memory.required_bytes', m.required_bytes),
    ' on the device: ', ...weightsOnDevice(m), ', ',
    figure(fmt.gib(m.kv_cache_bytes), 'memory.kv_cache_bytes', m.kv_cache_bytes), ` of KV cache (${state.kv}) and `,
    figure(fmt.gibOrMib(m.runtime_bytes), 'memory.runtime_bytes', m.runtime_bytes), ' of runtime buffers. ' +
    'The tables below give every quantization and every context up to the model\'s maximum.');

  const single = r.single;
  const minimum = [];
  // The recommendation's rule: the cheapest at the usable speed, else the
  // cheapest that holds it (below_usable_speed), said as such.
  const usable = fmt.rate(r.min_tokens_per_s);
  if (single) {
    minimum.push(single.below_usable_speed
      ? `No single priced device runs it ${at} at ${usable}; the cheapest that holds it is `
      : `The cheapest single device in the catalog that runs it ${at} at ${usable} or faster is `,
    figure(`${count(single)}${single.name || deviceName(single.gpu)}`, 'minimum.gpu', single.gpu),
    ` (${priceText(single.price, single.count)}), at ${fmt.percent(single.utilization)} of its usable memory`,
    single.tokens_per_s_per_user == null ? '.' : `, decoding about ${fmt.rate(single.tokens_per_s_per_user)}.`);
  } else {
    minimum.push(figure(`No single priced device in the catalog holds it ${at}.`, 'minimum.gpu', null));
  }
  if (r.value && !single) {
    minimum.push(' Several cards: ', figure(`${count(r.value)}${r.value.name || deviceName(r.value.gpu)}`, 'minimum.value_gpu', r.value.gpu),
      ` (${priceText(r.value.price, r.value.count)}).`);
  }
  if (r.cloud) {
    minimum.push(' To rent: ', figure(`${r.cloud.provider}: ${r.cloud.count} × ${deviceName(r.cloud.gpu)}`, 'minimum.cloud', r.cloud.instance),
      ` at ${fmt.usd(r.cloud.usd_per_hour)} per hour, on demand.`);
  }
  qa(items, `What is the minimum hardware for ${model.name}?`, ...minimum);

  // The Mac answer is a Mac's; a cheaper unified machine (Strix Halo, DGX
  // Spark) is said beside it, never in its place.
  const mac = r.mac;
  const unsoldMac = mac ? null : (r.unpriced ?? []).find((u) => u.gpu.startsWith('mac-') && u.fits);
  const unified = r.unified && !r.unified.gpu.startsWith('mac-') ? r.unified : null;
  const other = unified ? [' A cheaper unified-memory machine that is not a Mac: ',
    figure(`${unified.name || deviceName(unified.gpu)}`, 'mac.other_unified_gpu', unified.gpu),
    ` (${priceText(unified.price, unified.count)}), at ${fmt.percent(unified.utilization)} of the memory its GPU may use.`] : [];
  // Below the usable speed, the Mac that reaches it where the unified answer is one.
  const fasterMac = mac?.below_usable_speed && r.unified?.gpu.startsWith('mac-') && r.unified.gpu !== mac.gpu &&
    !r.unified.below_usable_speed ? r.unified : null;
  const faster = fasterMac ? [` At the usable ${fmt.rate(r.min_tokens_per_s)} or faster: `,
    figure(`${fasterMac.name || deviceName(fasterMac.gpu)}`, 'mac.usable_gpu', fasterMac.gpu),
    ` (${priceText(fasterMac.price, fasterMac.count)}), about `,
    figure(fmt.rate(fasterMac.tokens_per_s_per_user), 'mac.usable_decode_tokens_per_s', fasterMac.tokens_per_s_per_user), '.'] : [];
  // One memory: the experts macOS's GPU limit leaves out sit in the CPU's share of it.
  const experts = (h) => (h.experts_in_ram_layers > 0
    ? [' with the experts of ', figure(String(h.experts_in_ram_layers), 'mac.experts_in_ram_layers', h.experts_in_ram_layers),
      ` layers in the CPU's share of its memory (--n-cpu-moe ${h.experts_in_ram_layers})`] : []);
  qa(items, `Can I run ${model.name} on a Mac?`, ...(mac
    ? ['Yes: ', figure(`${mac.name || deviceName(mac.gpu)}`, 'mac.gpu', mac.gpu),
      ` (${priceText(mac.price, mac.count)}) holds it ${at}`, ...experts(mac), `, at ${fmt.percent(mac.utilization)} of the memory macOS lets the GPU use`,
      mac.tokens_per_s_per_user == null ? '.' : ', decoding about ',
      ...(mac.tokens_per_s_per_user == null ? [] : [figure(fmt.rate(mac.tokens_per_s_per_user), 'mac.decode_tokens_per_s', mac.tokens_per_s_per_user), '.']),
      ...faster, ...other]
    : unsoldMac
      // A Mac that holds it but has no price to rank it by (no longer sold
      // new, its used asking prices doubted): the answer is still yes.
      ? ['No Mac sold new at a sourced price holds it ', at, '; ', figure(`${unsoldMac.name || deviceName(unsoldMac.gpu)}`, 'mac.gpu', unsoldMac.gpu),
        ` does (${priceText(unsoldMac.price, unsoldMac.count)})`, ...experts(unsoldMac), `, at ${fmt.percent(unsoldMac.utilization)} of the memory macOS lets the GPU use`,
        ...(unsoldMac.tokens_per_s_per_user == null ? ['.'] : [', decoding about ',
          figure(fmt.rate(unsoldMac.tokens_per_s_per_user), 'mac.decode_tokens_per_s', unsoldMac.tokens_per_s_per_user), '.']), ...other]
      : [figure(`No Mac in the catalog holds it ${at}.`, 'mac.gpu', null), ' A smaller quantization or a shorter context may.', ...other]));

  // Where it does not fit, the engine's own quantization fix (the largest of
  // llama.cpp's K- and I-quants that fits); else the table's best that fits.
  const fix = (result.suggestions ?? []).find((x) => x.change.quant);
  const best = result.memory.fits === false && fix
    ? { quant: fix.change.quant, result: { memory: { required_bytes: fix.required_bytes } } }
    : quantFits.find((q) => !q.result.error && q.result.memory.fits === true);
  const where = machine?.mixed ? machine.name : `${state.gpus > 1 ? `${state.gpus} × ` : ''}${deviceName(state.gpu)}`;
  // Where the quantization asked for does not fit but runs with part of it in
  // system RAM (an MoE's experts: --n-cpu-moe), that is the other answer: a
  // 30B-A3B on a 16 GB card keeps Q4_K_M at about the smaller quant's speed.
  const kept = result.memory.fits === false && best
    ? (result.suggestions ?? []).find((x) => x.change.offload != null && !x.change.quant && x.decode_tokens_per_s != null) : null;
  const change = kept ? describeChange(kept.change, kept) : '';
  const keep = kept ? [' Or keep ', figure(state.quant, 'quant.kept', state.quant), ' with ',
    `${change[0].toLowerCase()}${change.slice(1)}`,
    ', decoding about ', figure(fmt.rate(kept.decode_tokens_per_s), 'quant.kept_decode_tokens_per_s', kept.decode_tokens_per_s),
    fix?.decode_tokens_per_s != null && fix.change.quant === best.quant ? ` against ${fmt.rate(fix.decode_tokens_per_s)} at ${best.quant}.` : '.'] : [];
  qa(items, `Which quantization should I use for ${model.name}?`, ...(best
    ? ['On ', where, ` with ${fmt.tokens(state.ctx)} tokens, the highest-precision quantization that fits is `,
      figure(best.quant, 'quant.best', best.quant), ` (${fmt.gib(best.result.memory.required_bytes)}). ` +
      'Fewer bits per weight leave room for a longer context or more sequences (the table below gives each one\'s memory).', ...keep]
    : ['None of the table\'s quantizations fits ', where, ` with ${fmt.tokens(state.ctx)} tokens; `,
      figure(single ? `${single.name || deviceName(single.gpu)} holds ${state.quant}` : 'see the cheapest hardware per quantization in the table',
        'quant.best', null), '.']));

  const speeds = el('ul', { class: 'common-devices' });
  for (const id of COMMON_DEVICES) {
    const f = figuresOn(id);
    if (!f || f.error) continue;
    const fits = f.memory.fits === true;
    const decode = f.speed.decode_tokens_per_s;
    const li = el('li', {}, `${deviceName(id)}: `);
    li.append(figure(!fits ? 'does not fit' : decode == null ? 'fits; decode unknown' : `${fmt.rate(decode)} decode`,
      `common.${id}.decode_tokens_per_s`, fits ? decode : null));
    speeds.append(li);
  }
  qa(items, `How fast is ${model.name} on popular cards?`,
    `One sequence decoding with ${fmt.tokens(state.ctx)} tokens cached, ${state.quant}, one card each, ${state.engine}:`, speeds);

  list.replaceChildren(items);
}
