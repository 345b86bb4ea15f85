// The planner panels: buy or rent for many users, cloud and rent vs buy, what
// can I run, and fine-tuning memory. Each reads its own inputs plus the
// workbench's scenario, asks the engine, and writes the answer; the figures
// and every choice among them are the engine's.
import * as fmt from './format.js';
import { el } from './render.js';
import { fillDevices } from './controls.js';
import { cell, figure, number } from './planner-cells.js';
import { clearMatrixHardware, holdMatrixHardware, renderRecommendation, renderRecommendationText } from './recommend.js';
import { renderQuestions as drawQuestions } from './report.js';
import { renderServing, servingShown } from './serving.js';

const $ = (id) => document.getElementById(id);
const FIT_CONTEXTS = [4096, 8192, 16384, 32768, 65536, 131072, 262144];
// "What can I run" inputs that follow the workbench: id -> its value there.
const FIT_FOLLOWS = new Map([
  ['fit-gpu', (state, machine) => (machine?.mixed ? machine.id : state.gpu)],
  ['fit-gpus', (state) => String(state.gpus)],
  ['fit-ram', (state) => String(state.ram)],
  ['fit-ctx', (state) => String(state.ctx)],
]);
const FINETUNE_SEQUENCES = [512, 1024, 2048, 4096, 8192, 16384, 32768];
const OFFERS_SHOWN = 12;

function option(value, text) {
  const o = document.createElement('option');
  o.value = String(value);
  o.textContent = text;
  return o;
}

export class PlannerPanels {
  // workbench: {state(), request(overrides), custom(), matrixQuants(), result(),
  // model(), describeChange(change, suggestion)} of the app. prerendered: the page's HTML already holds this
  // scenario's answers (scripts/prerender.mjs), kept until the engine's own.
  constructor(engine, workbench, { prerendered = false } = {}) {
    this.prerendered = prerendered;
    this.engine = engine;
    this.catalog = engine.catalog;
    this.devices = new Map(this.catalog.devices.map((d) => [d.id, d]));
    this.models = new Map(this.catalog.models.map((m) => [m.id, m]));
    this.workbench = workbench;
    this.offersTimer = 0;
    this.fullLoaded = false;  // the engine's full module answers offers and fine-tuning
    this.fullLoading = null;
    this.searches = null;  // planner-searches.js, once imported
  }

  start() {
    this.started = true;
    const state = this.workbench.state();
    fillDevices(this.catalog, '', state.gpu, 'fit-gpu');
    $('fit-ctx').replaceChildren(...FIT_CONTEXTS.map((n) => option(n, `${fmt.contextLabel(n)} tokens`)));
    $('fit-ctx').value = String(FIT_CONTEXTS.includes(state.ctx) ? state.ctx : 8192);
    $('ft-seq').replaceChildren(...FINETUNE_SEQUENCES.map((n) => option(n, `${fmt.tokens(n)} tokens`)));
    $('ft-seq').value = '2048';
    // The searches' code comes with their first click; once here, they run
    // in the event's own task.
    const search = (name, fail) => () => {
      if (this.searches) return this.searches[name](this);
      return import('./planner-searches.js').then((searches) => {
        this.searches = searches;
        return searches[name](this);
      }, (error) => fail(`The planner did not load: ${error.message}`));
    };
    const failIn = (list, label, field) => (text) => $(list).replaceChildren(figure(label, text, field, null));
    const fitFail = (text) => { $('fit-note').textContent = text; };
    $('serve').addEventListener('click', search('serve', failIn('serve-results', 'Buy or rent', 'target.error')));
    $('fit').addEventListener('click', search('whatFits', fitFail));
    // The hardware and context of "what can I run" follow the workbench's
    // until the reader sets one in the panel itself.
    for (const id of FIT_FOLLOWS.keys()) $(id).addEventListener('input', () => { $(id).dataset.own = ''; });
    $('fit-all').addEventListener('change', search('renderFit', fitFail));
    // Their own inputs fetch the full module if it is not there yet (its
    // arrival draws both panels).
    const whenFull = (render) => () => (this.fullLoaded ? render() : this.ensureFull().catch(() => {}));
    for (const id of ['offers-hours', 'offers-kwh']) $(id).addEventListener('input', whenFull(() => this.renderOffers()));
    $('offers-more').addEventListener('click', () => {
      this.offersAll = !this.offersAll;
      this.renderOffers();
    });
    // Serving under load: a preset fills the mix (its inputs carry it into the
    // scenario's link), then the curve is asked again.
    for (const button of document.querySelectorAll('#serving-panel .preset')) {
      button.addEventListener('click', () => {
        for (const [id, value] of [['serving-in', button.dataset.in], ['serving-out', button.dataset.out]]) {
          $(id).value = value;
          $(id).dispatchEvent(new Event('input', { bubbles: true }));
        }
      });
    }
    for (const id of ['serving-in', 'serving-out', 'serving-target']) {
      $(id).addEventListener('input', () => {
        clearTimeout(this.servingTimer);
        this.servingTimer = setTimeout(() => this.renderServing(), 120);
      });
    }
    for (const id of ['ft-seq', 'ft-batch', 'ft-rank', 'ft-targets', 'ft-optimizer', 'ft-gpus', 'ft-zero', 'ft-checkpointing']) {
      $(id).addEventListener('input', whenFull(() => this.renderFinetune()));
    }
    if (this.prerendered) {
      holdMatrixHardware();
    } else {
      this.renderWaiting();
      renderRecommendationText('Trying every device and offer once the first figures are shown…', 'recommend.loading');
    }
    // The workbench calls scenarioChanged() with its first panels.
  }

  // The full module, once for every panel; offers and fine-tuning are drawn
  // when it arrives. A failed fetch is named in both panels and tried again
  // on the next request.
  ensureFull() {
    if (!this.fullLoading) {
      this.fullLoading = this.engine.loadFull().then(() => {
        this.fullLoaded = true;
        this.renderFinetune();
        this.renderOffers();
        this.renderServing();
        if (!this.recommendKey) this.scheduleRecommendation();  // after a failed load
      }, (error) => {
        this.fullLoading = null;
        this.renderWaiting(`The planner module did not load: ${error.message}`);
        throw error;
      });
      if (!this.fullLoaded) this.renderWaiting();  // "Loading the planner…"
    }
    return this.fullLoading;
  }

  // The offers and fine-tuning panels before the full module is there.
  renderWaiting(message) {
    const text = message ?? (this.fullLoading ? 'Loading the planner…' : 'Computed when this panel comes into view.');
    $('offers').tBodies[0].replaceChildren();
    $('offers-more').hidden = true;
    $('offers-note').textContent = text;
    $('ft-table').tBodies[0].replaceChildren();
    $('ft-note').textContent = text;
  }

  // The workbench's scenario moved: fine-tuning follows the model at once (one
  // engine call); the offers table (one estimate per offer) once the input rests.
  scenarioChanged() {
    this.offerMachine();
    this.followWorkbench();
    const request = this.workbench.request();
    const key = `${request.model}\u0000${request.config ?? ''}\u0000${this.workbench.custom()?.kind ?? ''}\u0000${request.gpu}`;
    if (key !== this.finetuneKey) {
      this.finetuneKey = key;
      this.renderFinetune();
    }
    clearTimeout(this.offersTimer);
    this.offersTimer = setTimeout(() => {
      this.renderOffers();
      this.renderServing();
    }, 150);
    this.scheduleRecommendation();
  }

  // Serving under load: shown for the serving engines (or several sequences),
  // its module and the engine's full one fetched when first shown.
  renderServing() {
    const shown = servingShown(this.workbench.state());
    $('serving-panel').hidden = !shown;
    if (!shown) return;
    if (!this.fullLoaded) {
      $('serving-note').textContent = 'Loading the planner…';
      this.ensureFull().catch(() => {});
      return;
    }
    renderServing(this);
  }

  // The panel's inputs the reader has not set take the workbench's values:
  // its device (or its mixed cards), their count, the RAM and the context.
  followWorkbench() {
    const state = this.workbench.state();
    const machine = this.workbench.machine();
    for (const [id, value] of FIT_FOLLOWS) {
      const input = $(id);
      if ('own' in input.dataset) continue;
      const next = value(state, machine);
      if (input.tagName === 'SELECT' && ![...input.options].some((o) => o.value === next)) continue;
      input.value = next;
    }
  }

  // "What can I run" offers the workbench's mixed cards as one choice, first.
  offerMachine() {
    const machine = this.workbench.machine();
    const select = $('fit-gpu');
    let mine = select.querySelector('option[data-machine]');
    if (!machine?.mixed) {
      mine?.remove();
      return;
    }
    if (!mine) {
      mine = option('', '');
      mine.dataset.machine = 'cards';
      select.prepend(mine);
    }
    mine.value = machine.id;
    mine.textContent = `This machine: ${machine.name}`;
  }

  // Hardware that fits comes without a click, after the headline figures: the
  // search
  // (an estimate per candidate it rejects) runs when the input has rested and
  // the browser is idle, so a drag stays fast. A later scenario drops the answer
  // of an earlier one.
  scheduleRecommendation() {
    const request = this.plannerRequest({ quants: this.workbench.matrixQuants() });
    const key = JSON.stringify(request);
    if (key === this.recommendKey) return;
    const first = this.recommendKey === undefined;
    this.recommendKey = key;
    if (!(first && this.prerendered)) clearMatrixHardware();
    clearTimeout(this.recommendTimer);
    if (!request) {
      renderRecommendationText('Recommendations are for catalog models or a pasted config.json.', 'recommend.error');
      this.renderQuestions(null);
      return;
    }
    const idle = (fn) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 500 }) : setTimeout(fn, 0));
    this.recommendTimer = setTimeout(() => idle(() => this.renderRecommend(request, key)), this.recommendedOnce ? 250 : 0);
  }

  async renderRecommend(request, key) {
    try {
      await this.ensureFull();
    } catch (error) {
      renderRecommendationText(`The planner module did not load: ${error.message}`, 'recommend.error');
      this.recommendKey = null;  // tried again on the next change
      return;
    }
    if (key !== this.recommendKey) return;
    let r;
    try {
      r = this.engine.recommend(request);
    } catch (error) {
      renderRecommendationText(`Cannot search the hardware: ${error.message}`, 'recommend.error');
      this.renderQuestions(null);
      return;
    }
    if (key !== this.recommendKey) return;
    this.recommendedOnce = true;
    renderRecommendation(r, (id) => this.deviceName(id),
      r.unpriced.length ? 'Devices without a sourced price are listed apart, never ranked by a guessed one.' : '');
    this.renderQuestions(r);
    // Every answer of this scenario is on the page (the prerender waits for it).
    performance.mark('llm-sizer:answered');
  }

  // The questions people ask about the model, answered from the
  // recommendation and figures of the same scenario on common cards.
  renderQuestions(r) {
    const result = this.workbench.result();
    const model = this.workbench.model();
    if (!r || !model || !result) {
      drawQuestions({});
      return;
    }
    const state = this.workbench.state();
    const quantFits = this.workbench.matrixQuants().map((quant) => ({ quant, result: this.engine.figures(this.workbench.request({ quant })) }));
    drawQuestions({
      model, state, result, recommend: r, deviceName: (id) => this.deviceName(id), quantFits, machine: this.workbench.machine(),
      describeChange: (c, x) => this.workbench.describeChange(c, x),
      figuresOn: (id) => (this.devices.has(id) ? this.engine.figures(this.workbench.request({ gpu: id, gpus: 1 })) : null),
    });
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

  renderOffers() {
    if (!this.fullLoaded) return;  // drawn when the full module arrives (ensureFull)
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
      // An offer priced per GPU rents at several sizes: the smallest that holds
      // this scenario is the row; the others are said.
      const sizes = o.rentable_gpu_counts?.length > 1 ? ` · ${fmt.usd(o.usd_per_gpu_hour)} per GPU, rents ${o.rentable_gpu_counts.join(', ')} GPUs` : '';
      th.append(el('strong', {}, o.provider), o.instance ? ` ${o.instance}` : '', el('br'),
        el('small', {}, `${o.count > 1 ? `${o.count} × ` : ''}${this.deviceName(o.gpu)}${sizes}`));
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

  // A note in `list` while the full module is fetched (its first use only).
  async loadFull(list, label) {
    const loading = this.ensureFull();
    if (!this.fullLoaded) list.replaceChildren(figure(label, 'Loading the planner…', 'planner.loading', null));
    await loading;
  }

  // QLoRA, LoRA and full fine-tuning side by side for the chosen model, each
  // with the cheapest catalog device that holds it and whether the device
  // chosen above does (the engine's answers, one per method).
  renderFinetune() {
    if (!this.fullLoaded) return;  // drawn when the full module arrives (ensureFull)
    const note = $('ft-note');
    const body = $('ft-table').tBodies[0];
    const request = this.plannerRequest();
    if (!request) {
      body.replaceChildren();
      note.textContent = 'Fine-tuning memory is for catalog models or a pasted config.json.';
      return;
    }
    const asked = {
      seq: Number($('ft-seq').value), micro_batch: number('ft-batch'), lora_rank: number('ft-rank'),
      lora_targets: $('ft-targets').value, optimizer: $('ft-optimizer').value, gpus: number('ft-gpus'), zero: Number($('ft-zero').value),
      gradient_checkpointing: $('ft-checkpointing').checked,
    };
    const base = request.config ? { config: request.config, ...asked } : { model: request.model, ...asked };
    if (request.gpu) base.gpu = request.gpu;
    const methods = ['qlora', 'lora', 'full'];
    let answers;
    try {
      // QLoRA as PEFT sets it up, with checkpointing (the engine's default
      // when the request leaves it out); the box sets it for LoRA and full.
      answers = methods.map((method) => {
        const asks = { ...base, method };
        if (method === 'qlora' && !asked.gradient_checkpointing) delete asks.gradient_checkpointing;
        return this.engine.finetune(asks);
      });
    } catch (error) {
      body.replaceChildren();
      note.textContent = `Cannot size the fine-tuning: ${error.message}`;
      return;
    }
    const device = this.devices.get(this.workbench.state().gpu);
    const rows = [
      ['Weights', 'weights_bytes', (v) => fmt.gibAndGb(v)],
      ['Gradients', 'gradients_bytes', (v) => fmt.gibAndGb(v)],
      ['Optimizer state', 'optimizer_bytes', (v) => fmt.gibAndGb(v)],
      ['Activations', 'activations_bytes', (v) => fmt.gibAndGb(v)],
      ['Total per GPU', 'total_bytes', (v) => fmt.gibAndGb(v)],
      ['Trainable parameters', 'trainable_params', (v) => fmt.params(v)],
      ['Cheapest device that holds it', 'device', (v) => (v == null ? 'none in the catalog' : this.deviceName(v))],
      [`Fits ${device ? device.name : 'the chosen device'}`, 'gpu_holds', (v) => (v == null ? '—' : v ? 'yes' : 'no')],
    ];
    body.replaceChildren(...rows.map(([label, key, text]) => {
      const tr = el('tr', { 'data-row': key });
      tr.append(el('th', { scope: 'row' }, label));
      answers.forEach((a, i) => tr.append(cell(text(a[key]), `finetune.${methods[i]}.${key}`, a[key] ?? null)));
      return tr;
    }));
    note.textContent = `Per GPU, for ${asked.gpus} GPU${asked.gpus > 1 ? 's' : ''}: full fine-tuning keeps BF16 weights and gradients, FP32 master weights and AdamW moments; ` +
      `LoRA and QLoRA a frozen BF16 or NF4 base with FP32 adapters, their gradients and moments (rank and targets set their size); ` +
      `activations for ${fmt.tokens(asked.seq)} tokens × ${asked.micro_batch}${asked.gradient_checkpointing ? ' with checkpointing' : ''}.`;
  }
}
