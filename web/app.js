// The sizing workbench: state in the URL hash, one engine call per input event
// for the headline figures, then the notes, commands, matrix and chart on the
// next frame, and the URL when the input rests.
import { loadEngine, readGgufHeaders, readSafetensorsHeaders } from './js/engine.js';
import { MAX_CARDS, carryQuant, parseCalibration, parseHash, parsePrice, toHash } from './js/state.js';
import { CalibrationBox } from './js/calibration.js';
import * as controls from './js/controls.js';
import * as render from './js/render.js';
import { TokenStream } from './js/simulator.js';
import { tokens, gib } from './js/format.js';
import { PlannerPanels } from './js/planner.js';
import { SERVING_ENGINES } from './js/serving.js';
import { labelColumns } from './js/dom.js';
import { looksLikeHubName, readHub } from './js/hub.js';

performance.mark('llm-sizer:app-start');
const $ = (id) => document.getElementById(id);

const MATRIX_GGUF = ['F16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'IQ4_XS', 'Q3_K_M', 'IQ3_XXS', 'Q2_K', 'UD-Q2_K_XL', 'IQ2_XXS', 'IQ1_S'];
const MATRIX_NATIVE = ['BF16-native', 'native', 'FP8', 'NVFP4', 'AWQ', 'GPTQ-INT4', 'NF4'];
const MATRIX_MLX = ['BF16-native', 'MLX-8bit', 'MLX-4bit'];

class App {
  constructor(engine) {
    this.engine = engine;
    this.catalog = engine.catalog;
    this.models = new Map(this.catalog.models.map((m) => [m.id, m]));
    this.devices = new Map(this.catalog.devices.map((d) => [d.id, d]));
    this.price = null;
    this.pending = 0;
    this.stream = new TokenStream($('stream'));
    this.custom = null;  // {kind: 'config', text} or {kind: 'gguf', parts, bytes, name}
    // An unknown id in a link: the ids the engine says it was likely meant for.
    this.closeIds = (kind, raw) => engine.didYouMean(kind, raw);
  }

  start() {
    controls.fillStatic(this.catalog);
    // A prerendered page (scripts/prerender.mjs) names its scenario; the hash,
    // when there is one, wins over it and recomputes.
    const own = document.documentElement.dataset.scenario;
    this.base = own ? parseHash(own, this.catalog).state : undefined;
    const { state, problems } = parseHash(location.hash, this.catalog, this.base, this.closeIds);
    this.state = state;
    this.readPrice(location.hash, problems);
    // The page's HTML already holds this scenario's answers: the planner keeps
    // them on screen until its own arrive (the same figures).
    const prerendered = own != null && toHash(state) === toHash(this.base);
    controls.fillModels(this.catalog, '', state.model);
    controls.fillDevices(this.catalog, '', state.gpu);
    this.writeControls();
    this.bind();
    this.planner = new PlannerPanels(this.engine, {
      state: () => this.state, request: (o) => this.request(o), custom: () => this.custom, matrixQuants: () => this.matrixQuants(),
      result: () => this.result, model: () => (this.custom ? null : this.models.get(this.state.model)), machine: () => this.machine(),
      calibration: () => this.calibration(), describeChange: (c, x) => this.describeChange(c, x),
    }, { prerendered });
    this.calibrationBox = new CalibrationBox(this.engine, {
      state: () => this.state, calibration: () => this.calibration(), deviceName: (id) => this.devices.get(id)?.name ?? id,
      apply: (changes) => {
        Object.assign(this.state, changes);
        this.writeControls();
        this.update({ replaceHash: false });
      },
    });
    // Without a hash the address stays the page's own (a model page's URL);
    // the first change writes the scenario into it.
    if (!location.hash) this.settledHash = toHash(this.state) + this.priceSuffix();
    this.update({ replaceHash: Boolean(location.hash), settled: true, first: true, notice: problems.length ? `Ignored from the link: ${problems.join('; ')}.` : '' });
    $('status').textContent = '';
    $('status').hidden = true;
    $('workbench').hidden = false;
    performance.mark('llm-sizer:first-figures');
    this.planner.start();
    if (this.state.hf) this.loadHub(this.state.hf, { fromLink: true });
  }

  // Every control from the state; the draft list and the card rows depend on
  // the model and the machine, and a choice the new model lacks is dropped.
  writeControls() {
    const model = this.models.get(this.state.model);
    const draft = controls.fillDrafts(this.catalog, model, this.state.draft);
    const vision = model?.vision ? this.state.vision : 0;
    if (draft !== this.state.draft || vision !== this.state.vision) this.state = { ...this.state, draft, vision };
    controls.writeControls(this.state, model);
    controls.markEngines(this.devices.get(this.state.gpu));
    controls.fillCards(this.catalog, this.state);
  }

  // Mixed cards: the list replaces "N x device" (its first card is the device
  // above); one card left is a single device again.
  setCards(cards) {
    const next = { ...this.state };
    if (cards.length <= 1) Object.assign(next, { cards: null, gpu: cards[0] ?? next.gpu, gpus: 1 });
    else Object.assign(next, { cards, gpu: cards[0], gpus: cards.length });
    this.state = next;
    this.writeControls();
    this.update({});
  }

  bind() {
    const form = $('controls');
    $('add-card').addEventListener('click', () => {
      const s = this.state;
      const cards = s.cards ?? Array(s.gpus).fill(s.gpu);
      if (cards.length < MAX_CARDS) this.setCards([...cards, s.gpu]);
      $(`card-${cards.length}`)?.focus();
    });
    $('cards').addEventListener('click', (event) => {
      const index = Number(event.target.dataset?.remove);
      if (!index || !this.state.cards) return;
      this.setCards(this.state.cards.filter((_, i) => i !== index));
      $('add-card').focus();
    });
    form.addEventListener('submit', (e) => e.preventDefault());
    // While a slider moves, each input event recomputes and replaces the URL;
    // the change event that ends the move adds one history entry.
    form.addEventListener('input', (event) => this.onControl(event, { replaceHash: true }));
    form.addEventListener('change', (event) => this.onControl(event, { replaceHash: false }));
    $('model-search').addEventListener('input', (e) => {
      const count = controls.fillModels(this.catalog, e.target.value, this.state.model);
      if (count > 0 && $('model').value !== this.state.model) this.onControl({ target: $('model') });
      // A Hub name or link: offered, read only when asked.
      const name = e.target.value.trim();
      $('hub-load').hidden = !looksLikeHubName(name);
      if (!$('hub-load').hidden) $('hub-load').textContent = `Read ${name} from the Hugging Face Hub`;
    });
    $('model-search').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && looksLikeHubName(e.target.value)) this.loadHub(e.target.value.trim());
    });
    $('hub-load').addEventListener('click', () => this.loadHub($('model-search').value.trim()));
    $('gpu-search').addEventListener('input', (e) => {
      const count = controls.fillDevices(this.catalog, e.target.value, this.state.gpu);
      if (count > 0 && $('gpu').value !== this.state.gpu) this.onControl({ target: $('gpu') });
    });
    window.addEventListener('hashchange', (event) => {
      // The link navigated to, from the event: a URL-follow timer that was due
      // may already have put the old scenario back into location.hash.
      const hash = new URL(event.newURL).hash;
      clearTimeout(this.hashTimer);
      this.hashPending = false;
      if (hash === toHash(this.state) + this.priceSuffix()) return;  // already shown
      const { state, problems } = parseHash(hash, this.catalog, this.base, this.closeIds);
      this.state = state;
      this.readPrice(hash, problems);
      controls.fillModels(this.catalog, $('model-search').value, state.model);
      controls.fillDevices(this.catalog, $('gpu-search').value, state.gpu);
      this.writeControls();
      if (state.hf && state.hf !== this.custom?.hub) this.loadHub(state.hf, { fromLink: true });
      else if (!state.hf && this.custom?.hub) this.forgetCustom();
      this.update({ replaceHash: true, settled: true, notice: problems.length ? `Ignored from the link: ${problems.join('; ')}.` : '' });
    });
    // Copies side by side: whole numbers the engine takes (1 to 64); anything else puts the last value back.
    $('copies').addEventListener('change', () => {
      const n = Number($('copies').value);
      if (!Number.isInteger(n) || n < 1 || n > 64) {
        $('copies').value = String(this.state.copies);
        return;
      }
      this.state = { ...this.state, copies: n };
      this.update({});
    });
    $('simulate').addEventListener('click', () => this.stream.toggle(this.result, $('simulate')));
    // The planner's inputs are part of the scenario's URL (a shared link
    // reproduces prices and costs); the planner reads and redraws them itself.
    for (const [id, key] of controls.PLANNER_INPUTS) {
      $(id).addEventListener('input', () => {
        const value = Number($(id).value);
        if ($(id).value === '' || !Number.isFinite(value)) return;
        this.state = { ...this.state, [key]: value };
        this.hashPending = true;
        clearTimeout(this.hashTimer);
        this.hashTimer = setTimeout(() => this.followHash(), 250);
      });
    }
    $('gguf-file').addEventListener('change', (e) => this.loadGguf([...e.target.files]));
    $('safetensors-file').addEventListener('change', (e) => this.loadSafetensors([...e.target.files]));
    $('config-text').addEventListener('input', (e) => this.useConfig(e.target.value, 'pasted config.json'));
    $('config-text').addEventListener('dragover', (e) => e.preventDefault());
    $('config-text').addEventListener('drop', async (e) => {
      e.preventDefault();
      const file = e.dataTransfer?.files?.[0];
      if (!file) return;
      if (file.size > (1 << 20)) {
        $('custom-facts').textContent = `${file.name} is larger than 1 MiB; a config.json is a few KB.`;
        return;
      }
      const text = await file.text();
      $('config-text').value = text;
      this.useConfig(text, file.name);
    });
    $('custom-clear').addEventListener('click', () => {
      this.forgetCustom();
      $('config-text').value = '';
      $('gguf-file').value = '';
      $('safetensors-file').value = '';
      this.update({});
    });
  }

  // Back to the catalog model: a file, pasted config or Hub repo goes.
  forgetCustom() {
    this.custom = null;
    this.state = { ...this.state, hf: '' };
    $('custom-facts').textContent = '';
    $('hub-status').textContent = '';
    $('custom-clear').hidden = true;
  }

  // A Hub repo (owner/repo[:QUANT] or a link), read in place: the page's own
  // model from then on, and in the link (hf=). A repo of several GGUF
  // quantizations offers them; a failure says why and changes nothing.
  async loadHub(name, { fromLink = false } = {}) {
    const status = $('hub-status');
    const ticket = (this.hubTicket = (this.hubTicket ?? 0) + 1);
    status.textContent = `Reading ${name} from the Hugging Face Hub…`;
    try {
      const got = await readHub(this.engine, name, this.request({}, true), (text) => {
        if (ticket === this.hubTicket) status.textContent = text;
      });
      if (ticket !== this.hubTicket) return;
      if (got.kind === 'choose') {
        status.replaceChildren(`${got.repo} holds these GGUF quantizations; choose one: `);
        for (const quant of got.quants) {
          const button = document.createElement('button');
          button.type = 'button';
          button.className = 'hub-quant';
          button.textContent = quant;
          button.addEventListener('click', () => this.loadHub(`${got.repo}:${quant}`));
          status.append(button, ' ');
        }
        return;
      }
      const shared = { name: got.label, hub: got.label, readBytes: got.readBytes };
      if (got.kind === 'gguf') this.custom = { kind: 'gguf', parts: got.parts, bytes: got.bytes, info: got.answer.gguf, ...shared };
      else if (got.kind === 'safetensors') this.custom = { kind: 'safetensors', parts: got.parts, bytes: got.bytes, config: got.config, info: got.answer.safetensors, ...shared };
      else this.custom = { kind: 'config', text: got.config, ...shared, name: `${got.label} config.json` };
      this.state = { ...this.state, hf: got.label };
      status.textContent = `Sizing ${got.label} from the Hub: ${got.requests} request${got.requests === 1 ? '' : 's'}` +
        `${got.readBytes ? `, ${(got.readBytes / 1048576).toFixed(1)} MiB of headers` : ''}; nothing was downloaded beyond them. `;
      const back = document.createElement('button');
      back.type = 'button';
      back.className = 'hub-quant';
      back.textContent = 'Back to the catalog model';
      back.addEventListener('click', () => $('custom-clear').click());
      status.append(back);
      $('custom-clear').hidden = false;
      this.update({ replaceHash: fromLink });
    } catch (error) {
      if (ticket !== this.hubTicket) return;
      status.textContent = `Cannot read ${name}: ${error.message}`;
      if (fromLink) this.state = { ...this.state, hf: '' };
    }
  }

  useConfig(text, name) {
    this.custom = text.trim() ? { kind: 'config', text, name } : null;
    this.state = { ...this.state, hf: '' };
    $('custom-clear').hidden = !this.custom;
    // Cleared text: the catalog model is sized again, and the pasted one's facts go.
    if (!this.custom) $('custom-facts').textContent = '';
    this.update({});
  }

  async loadSafetensors(files) {
    if (files.length === 0) return;
    $('custom-facts').textContent = `Reading the headers of ${files.length} file(s)…`;
    try {
      const pasted = $('config-text').value.trim();
      const request = this.request({}, true);
      if (pasted) request.config = pasted;
      const { parts, bytes, answer, readBytes, config } = await readSafetensorsHeaders(this.engine, files, request);
      this.custom = { kind: 'safetensors', parts, bytes, config, name: files.map((f) => f.name).join(', '), info: answer.safetensors, readBytes };
      this.state = { ...this.state, hf: '' };
      $('custom-clear').hidden = false;
      this.update({});
    } catch (error) {
      this.custom = null;
      $('custom-facts').textContent = `Cannot read these files: ${error.message}`;
    }
  }

  async loadGguf(files) {
    if (files.length === 0) return;
    $('custom-facts').textContent = `Reading the header of ${files.map((f) => f.name).join(', ')}…`;
    try {
      const { parts, bytes, answer, readBytes } = await readGgufHeaders(this.engine, files, this.request({}, true));
      this.custom = { kind: 'gguf', parts, bytes, name: answer.gguf.name || files[0].name, info: answer.gguf, readBytes };
      this.state = { ...this.state, hf: '' };
      $('config-text').value = '';
      $('custom-clear').hidden = false;
      this.update({});
    } catch (error) {
      this.custom = null;
      $('custom-facts').textContent = `Cannot read this GGUF: ${error.message}`;
    }
  }

  // The link's rental price, into the state and its input (problems: the link's).
  readPrice(hash, problems) {
    const { price, problems: own } = parsePrice(hash);
    this.price = price;
    $('price').value = price == null ? '' : String(price);
    problems.push(...own);
  }

  priceSuffix() {
    return this.price == null ? '' : `&price=${this.price}`;
  }

  onControl(event, { replaceHash = false } = {}) {
    const name = event.target?.name;
    if (!name || name.endsWith('-search')) return;
    if (name === 'price') {
      const value = event.target.value === '' ? null : Number(event.target.value);
      this.price = value != null && Number.isFinite(value) && value >= 0 && value <= 10000 ? value : null;
      this.update({});
      return;
    }
    if (name === 'card') {
      const cards = [...this.state.cards];
      cards[Number(event.target.dataset.index)] = event.target.value;
      this.setCards(cards);
      return;
    }
    const model = this.models.get(this.state.model);
    const next = controls.readControl(name, this.state, model);
    if (name === 'model' && this.custom) {
      this.forgetCustom();
      next.hf = '';
    }
    if (name === 'model') {
      const chosen = this.models.get(next.model);
      next.quant = carryQuant(next.engine, next.quant, model, chosen);
      controls.setContextRange(controls.contextCeiling(chosen));
      if (chosen?.max_context_tokens && next.ctx > chosen.max_context_tokens) next.ctx = chosen.max_context_tokens;
      $('ctx').value = String(Math.round(Math.log2(next.ctx)));
      this.state = next;
      this.writeControls();  // its drafts, its vision encoder or none
      this.update({ replaceHash });
      return;
    }
    const unchanged = toHash(next) === toHash(this.state);
    this.state = next;
    // The engine, the device count and the model decide whether attention data parallel is offered.
    if (name === 'engine' || name === 'gpus') {
      $('adp-row').hidden = !controls.attentionDpOffered(next, model);
    }
    if (name === 'engine') $('quant').value = next.quant;  // another engine's usual format (controls.readControl)
    if (name === 'gpu') controls.markEngines(this.devices.get(next.gpu));
    if (unchanged && !replaceHash) {
      this.settle();  // the input events of this move already recomputed everything
      return;
    }
    controls.writeOutputs(next);
    this.update({ replaceHash });
  }

  // Browser history gets one entry per settled change: the URL follows a drag
  // (replaceState), and when the drag ends the entry it started from is put back
  // and the new state pushed after it, so back returns to where the move began.
  settle() {
    // The settled URL supersedes a follow still waiting from the move's input events.
    clearTimeout(this.hashTimer);
    this.hashPending = false;
    const hash = toHash(this.state) + this.priceSuffix();
    if (this.settledHash === hash) return;
    if (this.settledHash) history.replaceState(null, '', this.settledHash);
    history.pushState(null, '', hash);
    this.settledHash = hash;
  }

  // The engine request for the current state; a pasted config replaces the
  // catalog model, and a GGUF file request carries no model at all.
  request(overrides = {}, forFile = false) {
    const s = this.state;
    const request = {
      model: s.model, quant: s.quant, ctx: s.ctx, batch: s.batch, kv: s.kv, engine: s.engine,
      gpu: s.cards ? s.cards.join(',') : s.gpu, gpus: s.cards ? s.cards.length : s.gpus,
      offload: s.offload, prompt: s.prompt, ram_gib: s.ram, ...overrides,
    };
    // Only when set: the matrix's fast path takes the plain fields alone.
    if (s.vision === 1 && !('vision' in overrides)) request.vision = true;
    if (s.adp === 1 && !('attention_data_parallel' in overrides)) request.attention_data_parallel = true;
    if (s.draft && !('draft' in overrides)) request.draft = s.draft;
    if (s.offload_mode !== 'auto' && s.offload > 0) request.offload_mode = s.offload_mode;
    if (s.split && !('layer_split' in overrides)) request.layer_split = s.split;
    if (s.gpulimit > 0 && !('gpu_limit_mib' in overrides)) request.gpu_limit_mib = s.gpulimit;
    if (s.rambw > 0 && !('ram_bandwidth_gbs' in overrides)) request.ram_bandwidth_gbs = s.rambw;
    if (s.backend && !s.cards && !('backend' in overrides)) request.backend = s.backend;
    if (this.price != null) request.hourly_price_usd = this.price;
    const calibration = this.calibration();
    if (calibration && !('gpu' in overrides) && !('machine_calibration' in overrides)) {
      const { device, ...factors } = calibration;
      request.machine_calibration = factors;
    }
    if (forFile || this.custom?.kind === 'gguf' || this.custom?.kind === 'safetensors') {
      delete request.model;
      delete request.quant;
    } else if (this.custom?.kind === 'config') {
      delete request.model;
      request.config = this.custom.text;
    }
    return request;
  }

  // This machine's factors from its llama-bench rows, when they are for the
  // device shown (one device, not mixed cards); null otherwise.
  calibration() {
    const c = this.state.cal ? parseCalibration(this.state.cal) : null;
    return c && !this.state.cards && c.device === this.state.gpu ? c : null;
  }

  estimateCurrent(overrides = {}) {
    if (this.custom?.kind === 'gguf' || this.custom?.kind === 'safetensors') {
      try {
        // A Hub repo's files: the commands name the repo.
        const hub = this.custom.hub ? { hub: this.custom.hub } : {};
        const request = { ...this.request(overrides), ...this.copies(), ...hub };
        if (this.custom.kind === 'gguf') return this.engine.estimateGguf(request, this.custom.parts, this.custom.bytes);
        return this.engine.estimateSafetensors({ ...request, config: this.custom.config }, this.custom.parts, this.custom.bytes);
      } catch (error) {
        return { error: { id: error.id, message: error.message } };
      }
    }
    return this.engine.tryEstimate(this.servedRequest({ ...this.request(overrides), ...this.copies() }));
  }

  // Copies side by side change the launch commands alone: asked of the
  // workbench's estimate only (the matrix and charts keep their plain fields).
  copies() {
    return this.state.copies > 1 ? { copies: this.state.copies } : {};
  }

  // Under a serving engine the scenario's sequences are requests: each brings
  // the prompt and leaves with the Serving panel's tokens out, so the cost
  // panel's served figure is for that mix (speed.served).
  servedRequest(request) {
    if (!SERVING_ENGINES.has(this.state.engine) || 'output_tokens' in request) return request;
    return { ...request, output_tokens: this.state.sout };
  }

  update({ replaceHash = false, settled = false, first = false, notice = '' }) {
    const hash = toHash(this.state) + this.priceSuffix();
    if (replaceHash && !settled) {
      // While a slider moves the URL follows once the input rests: each
      // replaceState costs Chromium milliseconds in the page and more in the
      // browser process, which on a small machine land on the next move. The
      // change event that ends a drag settles the URL at once.
      this.hashPending = true;
      clearTimeout(this.hashTimer);
      this.hashTimer = setTimeout(() => this.followHash(), 250);
    } else if (replaceHash) {
      if (location.hash !== hash) history.replaceState(null, '', hash);
      this.settledHash = hash;
    } else {
      this.settle();
    }
    const catalogModel = this.models.get(this.state.model);
    const model = this.custom ? { name: this.custom.kind === 'gguf' ? this.custom.name : this.custom.name, max_context_tokens: catalogModel?.max_context_tokens }
      : catalogModel;
    const device = this.machine();
    // Under the catalog's list: its model, or what is sized in its place.
    const factsKey = this.custom ?? catalogModel;
    if (this.factsFor !== factsKey) {
      this.factsFor = factsKey;
      $('model-facts').textContent = this.custom
        ? `Sized in place of this list's choice: ${this.custom.name}.`
        : catalogModel ? this.facts(catalogModel) : '';
    }
    const chosenDevice = this.devices.get(this.state.gpu);
    if (this.deviceFactsFor !== chosenDevice) {
      this.deviceFactsFor = chosenDevice;
      $('device-facts').textContent = controls.deviceFacts(chosenDevice);
    }
    // The headline without the suggestions (a dozen estimates more where it
    // does not fit): those come with the next frame's panels.
    const result = this.estimateCurrent({ suggestions: false });
    this.describeCustom(result);
    // The rest (notes, commands, matrix, chart, planner panels) one frame
    // later, and only once however many input events arrive in between. At the
    // page's start they run in a task after that frame (rAF, then a timeout),
    // so the frame that first shows the figures lays out and paints only the
    // headline; its raster may still be under way when they run.
    const ticket = ++this.pending;
    const panels = () => {
      if (ticket !== this.pending) return;
      const start = performance.now();
      if (this.planner.started) this.planner.scenarioChanged();
      if (!result.error) {
        // Where it does not fit, what would make it fit (a dozen estimates
        // more) is searched once a slider rests, not on every input event of
        // a drag; the commands and notes are the headline estimate's.
        const dragging = replaceHash && !settled;
        const suggest = result.memory.fits === false && !dragging;
        const full = suggest ? this.estimateCurrent() : result;
        if (full.error) return;
        // The commands of a scenario that does not fit start its first
        // suggestion: they wait with them.
        clearTimeout(this.suggestTimer);
        const waiting = result.memory.fits === false && dragging;
        if (waiting) {
          render.markSuggestionsStale();
          this.suggestTimer = setTimeout(() => {
            if (ticket !== this.pending) return;
            const withSuggestions = this.estimateCurrent();
            if (withSuggestions.error) return;
            this.result = withSuggestions;  // the questions panel reads its quantization fix
            this.renderSuggestions(withSuggestions);
            this.renderCommands(withSuggestions);
          }, 250);
        } else {
          this.result = full;  // the questions panel reads its quantization fix
          this.renderSuggestions(full);
        }
        // The tab's title and the description follow once the input rests, as
        // the URL does: a title change costs Chromium ~4 ms (a profile of a
        // context drag here), not to be paid on every input event of a drag.
        clearTimeout(this.metaTimer);
        const state = this.state;
        const meta = () => render.renderPageMeta(result, state, model, device);
        if (replaceHash && !settled) this.metaTimer = setTimeout(meta, 250);
        else meta();
        this.renderSecondary(model, full, { commands: !waiting });
      }
      // The cost of this frame's panels, for the bench (one entry, replaced).
      performance.clearMeasures('llm-sizer:panels');
      performance.measure('llm-sizer:panels', { start });
    };
    requestAnimationFrame(first ? () => setTimeout(panels, 0) : panels);
    if (result.error) {
      this.result = null;
      render.clearFigures();
      controls.fillBackends(null, this.state.backend);
      $('verdict').className = 'verdict nofit';
      $('verdict').dataset.value = '';
      $('verdict').textContent = `Cannot size this: ${result.error.message}`;
      $('summary').textContent = notice;
      return;
    }
    // The headline figures now, in the same task as the input event.
    this.result = result;
    render.renderVerdict(result, this.state, model, device);
    if (notice) $('summary').textContent = `${notice} ${$('summary').textContent}`;
    render.renderMemory(result, (id) => this.devices.get(id)?.name ?? id);
    render.renderSpeedAndCost(result, this.state);
    controls.fillBackends(result.scenario);
    if (result.memory.fits !== false) $('suggestions-box').hidden = true;
    this.calibrationBox?.showApplied();
  }

  // The device the verdict names: the catalog's, or for mixed cards the
  // machine, "2 × RTX 3090 + RTX 3060 12GB" (the count is in the name).
  machine() {
    const s = this.state;
    if (!s.cards) return this.devices.get(s.gpu);
    const runs = [];
    for (const id of s.cards) {
      const last = runs[runs.length - 1];
      if (last && last.id === id) last.count += 1;
      else runs.push({ id, count: 1 });
    }
    const name = runs.map((r) => `${r.count > 1 ? `${r.count} × ` : ''}${this.devices.get(r.id)?.name ?? r.id}`).join(' + ');
    return { id: s.cards.join(','), name, mixed: true };
  }

  // A suggestion's change in words, with the flag it becomes.
  describeChange(change, x) {
    const device = this.devices.get(this.state.gpu);
    const layers = (n) => `${n} layer${n === 1 ? '' : 's'}`;
    const split = change.layer_split?.replace(/,/g, ' / ');
    // Two changes together (where no one change fits): the quantization, then the offload it needs.
    if (change.quant && change.offload) {
      const offload = this.describeChange({ ...change, quant: undefined }, x);
      return `Quantization ${change.quant}, with ${offload[0].toLowerCase()}${offload.slice(1)}`;
    }
    // Or the quantization with the longest context that fits at it.
    if (change.quant && change.ctx) return `Quantization ${change.quant}, with a context of ${tokens(change.ctx)} tokens`;
    if (change.layer_split && change.offload_mode === 'experts')
      return `Experts of ${layers(x.offloaded_layers)} in system RAM (--n-cpu-moe ${x.offloaded_layers}, ${gib(x.ram_required_bytes)} of RAM), layers split ${split} across the GPUs (--tensor-split)`;
    if (change.layer_split) return `Layers split ${split} across the GPUs (--tensor-split; no cost)`;
    if (change.gpu_limit_mib && change.ctx) return `Raise macOS's GPU memory limit to ${gib(change.gpu_limit_mib * 1048576)} (sudo sysctl iogpu.wired_limit_mb=${change.gpu_limit_mib}), the most it can leave, with a context of ${tokens(change.ctx)} tokens`;
    if (change.gpu_limit_mib) return `Raise macOS's GPU memory limit to ${gib(change.gpu_limit_mib * 1048576)} (sudo sysctl iogpu.wired_limit_mb=${change.gpu_limit_mib}; no cost)`;
    if (change.kv) return `An 8-bit KV cache (${change.kv}): half the cache's bytes`;
    if (change.quant) return `Quantization ${change.quant}`;
    if (change.gpus) return `${change.gpus} × ${device?.name ?? this.state.gpu}`;
    if (change.ctx) return `A context of ${tokens(change.ctx)} tokens`;
    if (change.offload === 0) return 'No offload to system RAM';
    if (change.offload_mode === 'experts') return `Experts of ${layers(x.offloaded_layers)} in system RAM (--n-cpu-moe ${x.offloaded_layers}, ${gib(x.ram_required_bytes)} of RAM)`;
    return `${layers(x.offloaded_layers)} in system RAM (-ngl, ${gib(x.ram_required_bytes)} of RAM)`;
  }

  // Applies a suggestion: the change's keys are the request's (quant, gpus, ctx, offload).
  applyChange(change) {
    const next = { ...this.state };
    if (change.quant) next.quant = change.quant;
    if (change.gpus) {
      next.gpus = change.gpus;
      next.split = '';
    }
    if (change.kv) next.kv = change.kv;
    if (change.gpu_limit_mib) next.gpulimit = change.gpu_limit_mib;
    if (change.ctx) {
      next.ctx = change.ctx;
      next.prompt = Math.min(next.prompt, change.ctx);
    }
    if (change.offload != null) {
      next.split = '';
      next.offload = change.offload;
      next.offload_mode = change.offload_mode ?? 'auto';
    }
    // After the offload: experts in RAM may come with the split that balances the cards.
    if (change.layer_split) next.split = change.layer_split;
    this.state = next;
    this.writeControls();
    this.update({});
    $('verdict').focus?.();
  }

  // The quantizations the matrix shows for this engine (the planner answers
  // the cheapest hardware for each).
  matrixQuants() {
    const s = this.state;
    const list = s.engine === 'llama.cpp' || s.engine === 'ollama' ? MATRIX_GGUF : s.engine === 'mlx' ? MATRIX_MLX : MATRIX_NATIVE;
    return list.includes(s.quant) ? list : [s.quant, ...list];
  }

  followHash() {
    if (!this.hashPending) return;
    this.hashPending = false;
    const hash = toHash(this.state) + this.priceSuffix();
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  describeCustom(result) {
    if (!this.custom) return;
    const facts = $('custom-facts');
    if (result.error) {
      facts.textContent = `${this.custom.name}: ${result.error.message}`;
    } else if (this.custom.kind === 'safetensors') {
      const t = result.safetensors;
      facts.textContent = `Sizing the checkpoint from ${t.from_index ? 'its index' : `${t.shards} shard header(s)`} ` +
        `(${(this.custom.readBytes / 1048576).toFixed(1)} MiB read): ${tokens(result.params.total)} parameters; nothing was uploaded.`;
    } else if (this.custom.kind === 'gguf') {
      const g = result.gguf;
      facts.textContent = `Sizing ${g.name || 'the GGUF'} (${g.architecture}, ${g.quant}, ${g.layers} layers` +
        `${g.split_count > 1 ? `, ${g.split_count} parts` : ''}) from ${(this.custom.readBytes / 1048576).toFixed(1)} MiB of header; nothing was uploaded.`;
    } else {
      facts.textContent = `Sizing the ${this.custom.name}: ${tokens(result.params.total)} parameters.`;
    }
  }

  renderSuggestions(result) {
    render.renderSuggestions(result, (c, x) => this.describeChange(c, x), (c) => this.applyChange(c));
  }

  renderCommands(result) {
    render.renderCommands(result, this.state, (text, button) => this.copy(text, button), (c, x) => this.describeChange(c, x));
  }

  renderSecondary(model, result, { commands = true } = {}) {
    const s = this.state;
    render.renderKvNotes(result, s);
    if (commands) this.renderCommands(result);
    if (this.custom?.kind === 'gguf' || this.custom?.kind === 'safetensors') {
      render.renderMatrix([{ quant: result.scenario.quant, current: true, result }]);
      if (this.chartUnchanged()) return render.moveContextMarker(s.ctx);
      const max = result.gguf ? Math.max(4096, model?.max_context_tokens || 131072) : 131072;
      const points = [];
      for (let ctx = 4096; ctx < max; ctx *= 2) points.push(ctx);
      points.push(max);
      render.renderChart(points.map((ctx) => ({ ctx, result: this.estimateCurrent({ ctx }) })), result.memory.usable_bytes, s.ctx);
      return;
    }
    const quants = this.matrixQuants();
    // The current quantization's row is the headline estimate itself.
    render.renderMatrix(quants.map((quant) => ({
      quant, current: quant === s.quant, result: quant === s.quant ? result : this.engine.figures(this.request({ quant })),
    })));
    if (this.chartUnchanged()) return render.moveContextMarker(s.ctx);
    const max = model?.max_context_tokens || 131072;
    const points = [];
    for (let ctx = 4096; ctx < max; ctx *= 2) points.push(ctx);
    points.push(max);
    render.renderChart(points.map((ctx) => ({ ctx, result: this.engine.figures(this.request({ ctx })) })), result.memory.usable_bytes, s.ctx);
  }

  // The chart spans every context, so a context move leaves it as it was: its
  // estimates are redone only when the rest of the request or the file changes.
  chartUnchanged() {
    const key = JSON.stringify(this.request({ ctx: 0 }));
    if (this.chartKey === key && this.chartCustom === this.custom) return true;
    this.chartKey = key;
    this.chartCustom = this.custom;
    return false;
  }

  facts(m) {
    const badges = [m.moe && 'MoE', m.mla && 'MLA', m.swa && 'sliding window', m.hybrid && 'hybrid', m.estimated && 'estimated'].filter(Boolean);
    return `${m.name} · ${controls.sizeLabel(m)}${badges.length ? ` · ${badges.join(' · ')}` : ''}` +
      `${m.license ? ` · ${m.license}` : ''}${m.max_context_tokens ? ` · up to ${tokens(m.max_context_tokens)} tokens` : ' · context limit not stated'}` +
      `${m.yarn_context_tokens ? ` (${tokens(m.yarn_context_tokens)} with YaRN)` : ''}`;
  }

  async copy(text, button) {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  }
}

// What the reader did on a prerendered page before its engine arrived: the
// controls they moved (with the value they left) and the buttons they
// pressed, done again once the page is live, so that nothing is lost.
class EarlyInput {
  constructor() {
    this.controls = new Map();
    this.clicks = [];
    // Every form control: the workbench's (named), the files and the pasted
    // config (by id), the planner's inputs.
    this.onInput = (e) => {
      const t = e.target;
      if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) {
        this.controls.set(t, t.type === 'checkbox' ? t.checked : t.value);
      }
    };
    this.onClick = (e) => {
      const button = e.target?.closest?.('button');
      if (button && !this.clicks.includes(button)) this.clicks.push(button);
    };
    document.addEventListener('input', this.onInput, true);
    document.addEventListener('change', this.onInput, true);
    document.addEventListener('click', this.onClick, true);
  }

  replay() {
    document.removeEventListener('input', this.onInput, true);
    document.removeEventListener('change', this.onInput, true);
    document.removeEventListener('click', this.onClick, true);
    for (const [target, value] of this.controls) {
      if (!target.isConnected) continue;
      // A file input keeps the files picked (its value cannot be set).
      if (target.type === 'checkbox') target.checked = value;
      else if (target.type !== 'file') target.value = value;
      target.dispatchEvent(new Event('input', { bubbles: true }));
      target.dispatchEvent(new Event('change', { bubbles: true }));
    }
    for (const button of this.clicks) if (button.isConnected && !button.disabled) button.click();
  }
}

// Tables read as cards on a phone: every cell names its column.
for (const table of document.querySelectorAll('table.matrix')) labelColumns(table);

function startApp(early) {
  return loadEngine({ full: true }).then(
    (engine) => {
      new App(engine).start();
      early?.replay();
    },
    (error) => {
      $('status').textContent = `The sizing engine could not start: ${error.message}`;
      $('status').hidden = false;
    },
  );
}

// A prerendered page opened without a hash already shows its answers, and the
// engine is most of what the page would download (scripts/bench.sh: bytes at
// start, and once live). It is fetched when the reader first reaches for the
// page: a pointer that moves or presses, a touch, a key, a focus, a wheel, a
// new hash. A page whose hash names another scenario needs it at once.
const ENGAGING = ['pointermove', 'pointerdown', 'touchstart', 'keydown', 'focusin', 'wheel'];
if (document.documentElement.dataset.scenario != null && !location.hash) {
  const early = new EarlyInput();
  const engage = () => {
    for (const type of ENGAGING) removeEventListener(type, engage, true);
    removeEventListener('hashchange', engage);
    performance.mark('llm-sizer:engaged');
    startApp(early);
  };
  for (const type of ENGAGING) addEventListener(type, engage, { capture: true, passive: true });
  addEventListener('hashchange', engage);
} else {
  startApp(null);
}
