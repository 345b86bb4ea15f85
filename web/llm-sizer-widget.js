// <llm-sizer model="glm-4.5" gpu="mi300x" quant="Q4_K_M" ctx="8192"></llm-sizer>
// A live sizer for any page: Shadow DOM (no style leaks either way), attributes
// read and observed, an `llm-sizer-change` event with the estimate. The module
// and its wasm resolve relative to this file, load lazily when the element comes
// into view, and are shared by every widget on the page.
import { loadEngine } from './js/engine.js';
import * as fmt from './js/format.js';
import { hasSpeed, noSpeedNote, speedNote, speedTexts } from './js/speed-text.js';
import { WIDGET_CSS } from './widget-styles.js';

const ATTRIBUTES = ['model', 'gpu', 'quant', 'ctx', 'gpus', 'engine', 'kv', 'batch', 'offload', 'prompt', 'variant', 'theme'];
let sheet = null;

function node(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text != null) el.textContent = text;
  return el;
}

function numberAttr(el, name, fallback) {
  const value = Number(el.getAttribute(name));
  return el.hasAttribute(name) && Number.isFinite(value) ? value : fallback;
}

class LlmSizerElement extends HTMLElement {
  static get observedAttributes() { return ATTRIBUTES; }

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(WIDGET_CSS);
    }
    this.root.adoptedStyleSheets = [sheet];
    this.card = node('div', { class: 'card', part: 'card' });
    this.card.append(node('p', { class: 'sub' }, 'Loading the sizer…'));
    this.root.append(this.card);
    this.engine = null;
    this.builtFor = null;
  }

  connectedCallback() {
    if (this.engine || this.observer) return;
    // Lazy: the engine loads when the widget is about to be seen.
    if ('IntersectionObserver' in window) {
      this.observer = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          this.observer.disconnect();
          this.load();
        }
      }, { rootMargin: '200px' });
      this.observer.observe(this);
    } else {
      this.load();
    }
  }

  disconnectedCallback() {
    this.observer?.disconnect();
    this.observer = null;
  }

  attributeChangedCallback() {
    if (this.engine) this.render();
  }

  async load() {
    try {
      this.engine = await loadEngine();
      this.render();
    } catch (error) {
      this.card.replaceChildren(node('p', { class: 'error' }, `llm-sizer could not start: ${error.message}`));
    }
  }

  request() {
    const engine = this.getAttribute('engine') || 'llama.cpp';
    const request = {
      model: this.getAttribute('model') || 'llama-3.1-8b',
      ctx: Math.round(numberAttr(this, 'ctx', 8192)),
      batch: Math.round(numberAttr(this, 'batch', 1)),
      gpus: Math.round(numberAttr(this, 'gpus', 1)),
      offload: numberAttr(this, 'offload', 0),
      prompt: Math.round(numberAttr(this, 'prompt', 4096)),
      engine,
    };
    for (const key of ['gpu', 'quant', 'kv']) if (this.getAttribute(key)) request[key] = this.getAttribute(key);
    return request;
  }

  build(full) {
    const catalog = this.engine.catalog;
    const title = node('p', { class: 'title' });
    const sub = node('p', { class: 'sub' });
    const verdict = node('p', { class: 'verdict', 'data-field': 'memory.fits' });
    const bar = node('div', { class: 'bar', role: 'img' });
    const figs = node('div', { class: 'figs' });
    const fig = (label, field) => {
      const box = node('div', { class: 'fig' });
      box.append(node('span', {}, label), node('b', { 'data-field': field }));
      figs.append(box);
    };
    fig('Required', 'memory.required_bytes');
    fig('Usable', 'memory.usable_bytes');
    fig('Decode, full window', 'speed.decode_tokens_per_s');
    if (full) {
      fig('Decode, after prompt', 'speed.decode_tokens_per_s_after_prompt');
      fig('Weights', 'memory.weights_bytes');
      fig('KV cache', 'memory.kv_cache_bytes');
      fig('Prefill', 'speed.prefill_tokens_per_s');
      fig('First token', 'speed.ttft_s');
      fig('Utilization', 'memory.utilization');
    }
    // What each speed assumes, in the page's words (js/speed-text.js).
    const note = node('p', { class: 'note' });
    const controls = node('div', { class: 'controls' });
    const id = (name) => `llm-sizer-${name}`;
    const select = (name, label, options) => {
      const wrap = node('label', { for: id(name) }, label);
      const s = node('select', { id: id(name), name });
      for (const [value, text] of options) s.append(node('option', { value }, text));
      s.addEventListener('change', () => this.setAttribute(name, s.value));
      wrap.append(s);
      controls.append(wrap);
      return s;
    };
    const range = (name, label, min, max, step) => {
      const wrap = node('label', { for: id(name) });
      const text = node('span');
      const r = node('input', { id: id(name), name, type: 'range', min: String(min), max: String(max), step: String(step) });
      wrap.append(text, r);
      controls.append(wrap);
      return { input: r, text, label };
    };
    this.parts = { title, sub, verdict, bar, controls, note };
    this.parts.quant = select('quant', 'Quantization', catalog.quants.map((q) => [q.name, q.name]));
    this.parts.ctx = range('ctx', 'Context', 9, 20, 1);
    this.parts.ctx.input.addEventListener('input', () => {
      const model = catalog.models.find((m) => m.id === this.getAttribute('model'));
      const tokens = 2 ** Number(this.parts.ctx.input.value);
      this.setAttribute('ctx', String(model?.max_context_tokens ? Math.min(tokens, model.max_context_tokens) : tokens));
    });
    if (full) {
      this.parts.gpu = select('gpu', 'Device', catalog.devices.map((d) => [d.id, d.name]));
      this.parts.gpus = range('gpus', 'Devices', 1, 16, 1);
      this.parts.gpus.input.addEventListener('input', () => this.setAttribute('gpus', this.parts.gpus.input.value));
      this.parts.engine = select('engine', 'Engine', catalog.engines.map((e) => [e, e]));
    }
    const foot = node('p', { class: 'foot' }, 'Computed in your browser by llm-sizer; nothing is uploaded.');
    this.card.replaceChildren(title, sub, verdict, bar, figs, note, controls, foot);
    this.builtFor = full ? 'full' : 'compact';
  }

  setField(field, value, text) {
    for (const el of this.card.querySelectorAll(`[data-field="${field}"]`)) {
      el.dataset.value = value == null ? '' : String(value);
      el.textContent = text;
    }
  }

  render() {
    const full = this.getAttribute('variant') === 'full';
    if (this.builtFor !== (full ? 'full' : 'compact')) this.build(full);
    const request = this.request();
    const result = this.engine.tryEstimate(request);
    const catalog = this.engine.catalog;
    const model = catalog.models.find((m) => m.id === request.model);
    const device = catalog.devices.find((d) => d.id === request.gpu);
    const p = this.parts;
    p.title.textContent = model ? model.name : request.model;
    p.sub.textContent = `${request.quant ?? 'default quantization'} · ${fmt.tokens(request.ctx)} tokens · ` +
      `${device ? `${request.gpus > 1 ? `${request.gpus} × ` : ''}${device.name}` : 'no device'} · ${request.engine}`;
    if (result.error) {
      p.verdict.className = 'verdict nofit';
      p.verdict.dataset.value = '';
      p.verdict.textContent = result.error.message;
      p.bar.replaceChildren();
      p.note.textContent = '';
      // The error replaces the figures it invalidates: none of the previous
      // scenario's stays on screen beside it.
      for (const el of this.card.querySelectorAll('[data-field]')) {
        if (el === p.verdict) continue;
        el.dataset.value = '';
        el.textContent = '—';
      }
      this.dispatchEvent(new CustomEvent('llm-sizer-change', { detail: { error: result.error, request }, bubbles: true, composed: true }));
      return;
    }
    const m = result.memory;
    p.verdict.className = `verdict ${m.fits == null ? '' : m.fits ? 'fits' : 'nofit'}`;
    p.verdict.dataset.value = m.fits == null ? '' : String(m.fits);
    p.verdict.textContent = m.fits == null ? 'Pick a device' : m.fits ? `Fits · ${fmt.percent(m.utilization)} used` : `Does not fit · ${fmt.percent(m.utilization)}`;
    const scale = Math.max(m.required_bytes + m.offload_bytes, m.usable_bytes || 0, 1);
    const segs = [['weights', m.per_gpu.reduce((s, g) => s + g.weights_bytes, 0)], ['kv', m.per_gpu.reduce((s, g) => s + g.kv_cache_bytes, 0)],
      ['runtime', m.runtime_bytes], ['offload', m.offload_bytes]].filter(([, b]) => b > 0).map(([kind, bytes]) => {
      const seg = node('span', { class: `seg ${kind}`, title: `${kind}: ${fmt.gib(bytes)}` });
      seg.style.width = `${(bytes / scale) * 100}%`;
      return seg;
    });
    if (m.usable_bytes) {
      const cap = node('span', { class: 'cap' });
      cap.style.left = `${Math.min(99.5, (m.usable_bytes / scale) * 100)}%`;
      segs.push(cap);
    }
    p.bar.replaceChildren(...segs);
    p.bar.setAttribute('aria-label', `Needs ${fmt.gib(m.required_bytes)}${m.usable_bytes ? ` of ${fmt.gib(m.usable_bytes)} usable` : ''}`);
    this.setField('memory.fits', m.fits, p.verdict.textContent);
    this.setField('memory.required_bytes', m.required_bytes, fmt.gib(m.required_bytes));
    this.setField('memory.usable_bytes', m.usable_bytes, m.usable_bytes == null ? '—' : fmt.gib(m.usable_bytes));
    this.setField('memory.weights_bytes', m.weights_bytes, fmt.gib(m.weights_bytes));
    this.setField('memory.kv_cache_bytes', m.kv_cache_bytes, fmt.gib(m.kv_cache_bytes));
    this.setField('memory.utilization', m.utilization, m.utilization == null ? '—' : fmt.percent(m.utilization));
    // No speed where it does not fit (the engine answers null): it would read as if it ran.
    const sp = hasSpeed(result.speed) ? result.speed : null;
    const deviceChosen = Boolean(result.scenario?.gpu);
    for (const [field, [value, text]] of Object.entries(speedTexts(sp, m.fits, deviceChosen).fields)) this.setField(field, value, text);
    p.note.textContent = sp ? speedNote(sp, result.scenario, result.scenario) : m.fits === false || deviceChosen ? noSpeedNote(m.fits, deviceChosen) : '';
    p.quant.value = result.scenario.quant;
    p.ctx.input.max = String(Math.max(9, Math.ceil(Math.log2(model?.max_context_tokens || 131072))));
    p.ctx.input.value = String(Math.round(Math.log2(request.ctx)));
    p.ctx.text.textContent = `Context ${fmt.contextLabel(request.ctx)}`;
    if (p.gpu) {
      if (request.gpu) p.gpu.value = request.gpu;
      p.gpus.input.value = String(request.gpus);
      p.gpus.text.textContent = `Devices ${request.gpus}`;
      p.engine.value = request.engine;
    }
    this.dispatchEvent(new CustomEvent('llm-sizer-change', { detail: { estimate: result, request }, bubbles: true, composed: true }));
  }
}

if (!customElements.get('llm-sizer')) customElements.define('llm-sizer', LlmSizerElement);
