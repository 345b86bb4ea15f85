// The planner panels: buy or rent for many users, cloud and rent vs buy, what
// can I run, and fine-tuning memory. Each reads its own inputs plus the
// workbench's scenario, asks the engine, and writes the answer; the figures
// and every choice among them are the engine's.
import * as fmt from './format.js';
import { el, renderBar } from './render.js';
import { fillDevices } from './controls.js';
import { toHash } from './state.js';

const $ = (id) => document.getElementById(id);
const FIT_CONTEXTS = [4096, 8192, 16384, 32768, 65536, 131072, 262144];
const FINETUNE_SEQUENCES = [512, 1024, 2048, 4096, 8192, 16384, 32768];
const FIT_ROWS_SHOWN = 300;
const OFFERS_SHOWN = 12;

function option(value, text) {
  const o = document.createElement('option');
  o.value = String(value);
  o.textContent = text;
  return o;
}

function figure(label, text, field, value) {
  const box = document.createElement('div');
  const dd = el('dd', {}, text);
  dd.dataset.field = field;
  dd.dataset.value = value == null ? '' : String(value);
  box.append(el('dt', {}, label), dd);
  return box;
}

function cell(text, field, value) {
  const td = el('td', {}, text);
  if (field) td.dataset.field = field;
  if (value !== undefined) td.dataset.value = value == null ? '' : String(value);
  return td;
}

const number = (id) => Number($(id).value === '' ? NaN : $(id).value);

export class PlannerPanels {
  // workbench: {state(), request(overrides), custom()} of the app.
  constructor(engine, workbench) {
    this.engine = engine;
    this.catalog = engine.catalog;
    this.devices = new Map(this.catalog.devices.map((d) => [d.id, d]));
    this.models = new Map(this.catalog.models.map((m) => [m.id, m]));
    this.workbench = workbench;
    this.offersTimer = 0;
  }

  start() {
    this.started = true;
    const state = this.workbench.state();
    fillDevices(this.catalog, '', state.gpu, 'fit-gpu');
    $('fit-ctx').replaceChildren(...FIT_CONTEXTS.map((n) => option(n, `${fmt.contextLabel(n)} tokens`)));
    $('fit-ctx').value = String(FIT_CONTEXTS.includes(state.ctx) ? state.ctx : 8192);
    $('ft-seq').replaceChildren(...FINETUNE_SEQUENCES.map((n) => option(n, `${fmt.tokens(n)} tokens`)));
    $('ft-seq').value = '2048';
    $('recommend').addEventListener('click', () => this.recommend());
    $('serve').addEventListener('click', () => this.serve());
    $('fit').addEventListener('click', () => this.whatFits());
    $('fit-all').addEventListener('change', () => this.renderFit());
    for (const id of ['offers-hours', 'offers-kwh']) $(id).addEventListener('input', () => this.renderOffers());
    $('offers-more').addEventListener('click', () => {
      this.offersAll = !this.offersAll;
      this.renderOffers();
    });
    for (const id of ['ft-method', 'ft-seq', 'ft-batch', 'ft-rank', 'ft-targets', 'ft-optimizer', 'ft-gpus', 'ft-zero', 'ft-checkpointing']) {
      $(id).addEventListener('input', () => this.renderFinetune());
    }
    // The workbench calls scenarioChanged() with its first panels.
  }

  // The workbench's scenario moved: fine-tuning follows the model at once (one
  // engine call); the offers table (one estimate per offer) once the input rests.
  scenarioChanged() {
    const request = this.workbench.request();
    const key = `${request.model}\u0000${request.config ?? ''}\u0000${this.workbench.custom()?.kind ?? ''}\u0000${request.gpu}`;
    if (key !== this.finetuneKey) {
      this.finetuneKey = key;
      this.renderFinetune();
    }
    clearTimeout(this.offersTimer);
    this.offersTimer = setTimeout(() => this.renderOffers(), 150);
  }

  // Planner answers need a catalog model or a config; file headers carry neither.
  plannerRequest(overrides = {}) {
    const custom = this.workbench.custom();
    if (custom && custom.kind !== 'config') return null;
    return this.workbench.request(overrides);
  }

  deviceName(id) {
    return this.devices.get(id)?.name ?? id;
  }

  hardwareText(h) {
    if (!h) return 'nothing in the catalog reaches it';
    const price = h.price_usd ? ` · ${fmt.usd(h.price_usd)}` : '';
    return `${h.count > 1 ? `${h.count} × ` : ''}${this.deviceName(h.gpu)}${price} · ${fmt.rate(h.tokens_per_s_per_user)} each`;
  }

  // On request, not on every input: it tries every device and offer. The
  // searches are in the engine's full module, fetched the first time.
  async recommend() {
    const list = $('recommendations');
    const request = this.plannerRequest();
    if (!request) {
      list.replaceChildren(figure('Recommendations', 'for catalog models or a pasted config.json', 'recommend.error', null));
      return;
    }
    let r;
    try {
      await this.loadFull(list, 'Recommendations');
      r = this.engine.recommend(request);
    } catch (error) {
      list.replaceChildren(figure('Recommendations', error.message, 'recommend.error', null));
      return;
    }
    const hardware = (h) => (h ? `${h.count > 1 ? `${h.count} × ` : ''}${this.deviceName(h.gpu)}${h.price_usd ? ` · ${fmt.usd(h.price_usd)}` : ''}` : 'none in the catalog');
    const cloud = (c) => (c ? `${c.provider} ${c.instance} · ${fmt.usd(c.usd_per_hour)}/h` : 'none listed');
    const where = r.max_ctx_gpu ? `${r.max_ctx_gpu_count > 1 ? `${r.max_ctx_gpu_count} × ` : ''}${this.deviceName(r.max_ctx_gpu)}` : '';
    list.replaceChildren(
      figure('Cheapest single device', hardware(r.single), 'recommend.single.gpu', r.single?.gpu),
      figure('Best value', hardware(r.value), 'recommend.value.gpu', r.value?.gpu),
      figure('Unified memory', hardware(r.unified), 'recommend.unified.gpu', r.unified?.gpu),
      figure('Cheapest cloud offer (on demand)', cloud(r.cloud), 'recommend.cloud.usd_per_hour', r.cloud?.usd_per_hour),
      figure('Cheapest cloud offer (any billing)', cloud(r.cloud_any), 'recommend.cloud_any.usd_per_hour', r.cloud_any?.usd_per_hour),
      figure(`Largest context${where ? ` on ${where}` : ''}`, r.max_ctx ? `${fmt.tokens(r.max_ctx)} tokens` : '—', 'recommend.max_ctx', r.max_ctx),
      ...r.per_quant.map((q) => figure(`Smallest for ${q.quant}`, q.gpu ? `${q.count > 1 ? `${q.count} × ` : ''}${this.deviceName(q.gpu)}` : 'none in the catalog',
        `recommend.per_quant.${q.quant}`, q.gpu)),
    );
  }

  async serve() {
    const list = $('serve-results');
    const request = this.plannerRequest({ users: number('serve-users'), tokens_per_s_per_user: number('serve-speed') });
    if (!request) {
      list.replaceChildren(figure('Buy or rent', 'for catalog models or a pasted config.json', 'target.error', null));
      return;
    }
    let t;
    try {
      await this.loadFull(list, 'Buy or rent');
      t = this.engine.target(request);
    } catch (error) {
      list.replaceChildren(figure('Buy or rent', error.message, 'target.error', null));
      return;
    }
    const cloud = (c) => (c ? `${c.provider} ${c.instance} · ${fmt.usd(c.usd_per_hour)}/h · ${fmt.rate(c.tokens_per_s_per_user)} each` : 'no offer reaches it');
    list.replaceChildren(
      figure(`Buy, for ${fmt.tokens(t.users)} users`, this.hardwareText(t.buy), 'target.buy.gpu', t.buy?.gpu),
      figure('Rent, on demand', cloud(t.rent), 'target.rent.usd_per_hour', t.rent?.usd_per_hour),
      figure('Rent, any billing', cloud(t.rent_any), 'target.rent_any.usd_per_hour', t.rent_any?.usd_per_hour),
    );
  }

  renderOffers() {
    const body = $('offers').tBodies[0];
    const note = $('offers-note');
    const request = this.plannerRequest({ hours_per_day: number('offers-hours'), electricity_usd_per_kwh: number('offers-kwh') });
    if (!request) {
      body.replaceChildren();
      note.textContent = 'Cloud offers are priced for catalog models or a pasted config.json.';
      return;
    }
    let answer;
    try {
      answer = this.engine.offers(request);
    } catch (error) {
      body.replaceChildren();
      note.textContent = `Cannot price the offers: ${error.message}`;
      return;
    }
    const batch = this.workbench.state().batch > 1;
    const fitting = answer.offers.filter((o) => o.fits);
    const shown = this.offersAll ? fitting : fitting.slice(0, OFFERS_SHOWN);
    body.replaceChildren(...shown.map((o) => {
      const tr = el('tr', { 'data-offer': `${o.provider} ${o.instance}` });
      const th = el('th', { scope: 'row' });
      th.append(el('strong', {}, o.provider), ` ${o.instance}`, el('br'),
        el('small', {}, `${o.count > 1 ? `${o.count} × ` : ''}${this.deviceName(o.gpu)}`));
      tr.append(th);
      const perMillion = batch ? o.usd_per_million_tokens_batch : o.usd_per_million_tokens;
      const payback = o.break_even_months != null ? `${fmt.fixed(o.break_even_months, 1)} months`
        : o.purchase_usd != null ? 'never at this use' : '—';
      tr.append(
        cell(o.billing),
        cell(fmt.usd(o.usd_per_hour), 'offer.usd_per_hour', o.usd_per_hour),
        cell(fmt.usd(o.usd_per_month), 'offer.usd_per_month', o.usd_per_month),
        cell(fmt.rate(batch ? o.decode_tokens_per_s_total : o.decode_tokens_per_s), 'offer.decode_tokens_per_s', o.decode_tokens_per_s),
        cell(fmt.usd(perMillion), 'offer.usd_per_million_tokens', perMillion),
        cell(fmt.usd(o.purchase_usd), 'offer.purchase_usd', o.purchase_usd),
        cell(fmt.usd(o.power_usd_per_month), 'offer.power_usd_per_month', o.power_usd_per_month),
        cell(payback, 'offer.break_even_months', o.break_even_months),
      );
      return tr;
    }));
    const more = $('offers-more');
    more.hidden = fitting.length <= OFFERS_SHOWN;
    more.textContent = this.offersAll ? `Show the ${OFFERS_SHOWN} cheapest` : `Show all ${fitting.length} offers`;
    const left = answer.offers.length - fitting.length;
    note.textContent = `${fitting.length} offers hold this scenario${left ? `; ${left} more are too small` : ''}. ` +
      `A month is ${fmt.tokens(answer.hours_per_day)} h a day for 365.25/12 days; ${batch ? 'decode and $/M tokens are for all sequences together' : 'decode and $/M tokens are for one stream'}; ` +
      'buying pays off once the rent saved, less the power of the same GPUs at TDP, has paid their catalog price. Hourly and purchase prices are the catalog\'s, each with its source in data/.';
  }

  whatFits() {
    const state = this.workbench.state();
    const request = {
      gpu: $('fit-gpu').value, gpus: number('fit-gpus'), ram_gib: number('fit-ram'), ctx: Number($('fit-ctx').value), engine: state.engine,
    };
    $('fit-note').textContent = 'Sizing every catalog model…';
    $('fit-table').tBodies[0].replaceChildren();
    // One frame for the note to show: the sweep takes a moment.
    this.engine.loadFull().then(() => new Promise((done) => setTimeout(done, 0))).then(() => {
      this.fit = { request, answer: this.engine.fit(request) };
      this.renderFit();
    }).catch((error) => {
      this.fit = null;
      $('fit-note').textContent = `Cannot list models: ${error.message}`;
    });
  }

  // A note in `list` while the full module is fetched (its first use only).
  async loadFull(list, label) {
    const loading = this.engine.loadFull();
    if (!this.fullLoaded) list.replaceChildren(figure(label, 'Loading the planner…', 'planner.loading', null));
    await loading;
    this.fullLoaded = true;
  }

  renderFit() {
    if (!this.fit) return;
    const { request, answer } = this.fit;
    const every = $('fit-all').checked;
    // The engine ranks best quality first, then fastest: a model's first row is its best quantization.
    const seen = new Set();
    const rows = every ? answer.results : answer.results.filter((r) => !seen.has(r.model) && seen.add(r.model));
    const state = this.workbench.state();
    const { kv } = answer;  // the KV type the engine sized every row with
    $('fit-table').tBodies[0].replaceChildren(...rows.slice(0, FIT_ROWS_SHOWN).map((r) => {
      const tr = el('tr', { 'data-model': r.model, 'data-quant': r.quant });
      tr.append(el('th', { scope: 'row' }, this.models.get(r.model)?.name ?? r.model));
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
    const hardware = `${request.gpus > 1 ? `${request.gpus} × ` : ''}${this.deviceName(request.gpu)} and ${fmt.tokens(request.ram_gib)} GiB of RAM`;
    $('fit-note').textContent = `${models} models (${answer.results.length} model × quantization pairs) run on ${hardware} ` +
      `with ${fmt.tokens(request.ctx)} tokens of context, one sequence, ${kv} KV cache${rows.length > FIT_ROWS_SHOWN ? `; the first ${FIT_ROWS_SHOWN} shown` : ''}.`;
    $('fit-note').dataset.value = String(answer.results.length);
  }

  renderFinetune() {
    const note = $('ft-note');
    const fields = ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes', 'total_bytes', 'trainable_params', 'device'];
    const show = (answer) => {
      for (const key of fields) {
        const node = document.querySelector(`[data-field="finetune.${key}"]`);
        const value = answer?.[key];
        node.dataset.value = value == null ? '' : String(value);
        node.textContent = value == null ? '—'
          : key === 'device' ? this.deviceName(value)
          : key === 'trainable_params' ? fmt.params(value) : fmt.gibAndGb(value);
      }
    };
    const request = this.plannerRequest();
    if (!request) {
      show(null);
      note.textContent = 'Fine-tuning memory is for catalog models or a pasted config.json.';
      return;
    }
    const asked = {
      method: $('ft-method').value, seq: Number($('ft-seq').value), micro_batch: number('ft-batch'), lora_rank: number('ft-rank'),
      lora_targets: $('ft-targets').value, optimizer: $('ft-optimizer').value, gpus: number('ft-gpus'), zero: Number($('ft-zero').value),
      gradient_checkpointing: $('ft-checkpointing').checked,
    };
    const ask = request.config ? { config: request.config, ...asked } : { model: request.model, ...asked };
    let f;
    try {
      f = this.engine.finetune(ask);
    } catch (error) {
      show(null);
      $('ft-bar').replaceChildren();
      note.textContent = `Cannot size the fine-tuning: ${error.message}`;
      return;
    }
    show(f);
    const device = this.devices.get(this.workbench.state().gpu);
    renderBar($('ft-bar'), [
      { kind: 'weights', label: 'Weights', bytes: f.weights_bytes },
      { kind: 'kv', label: 'Gradients', bytes: f.gradients_bytes },
      { kind: 'runtime', label: 'Optimizer state', bytes: f.optimizer_bytes },
      { kind: 'offload', label: 'Activations', bytes: f.activations_bytes },
    ], device?.usable_bytes, `Fine-tuning needs ${fmt.gib(f.total_bytes)} per GPU${device ? ` against ${fmt.gib(device.usable_bytes)} usable on ${device.name}` : ''}`);
    const lora = f.method !== 'full';
    note.textContent = `Per GPU, for ${f.gpus} GPU${f.gpus > 1 ? 's' : ''}: ${f.method === 'full' ? 'BF16 weights and gradients, FP32 master weights and AdamW moments'
      : `${f.method === 'qlora' ? 'NF4' : 'BF16'} frozen base, FP32 adapters with their gradients and moments`}; ` +
      `activations for ${fmt.tokens(asked.seq)} tokens × ${asked.micro_batch}${asked.gradient_checkpointing ? ' with checkpointing' : ''}. ` +
      `The bar's line is the usable memory of the device chosen above. ${lora ? 'LoRA rank and targets set the adapter size.' : ''}`;
  }
}
