// "Your measurements": pasted llama-bench output in, this machine's speed
// factors out (the engine's calibrate). The page shows the rows as the engine
// sized them and, once applied, every speed it asks for carries the factors
// (the link too: cal=device,bandwidth,compute,overhead,attention,kv,rows,backend). And a
// pasted load log's buffers beside the estimate for its settings (checkLog).
import { el, labelColumns } from './dom.js';
import * as fmt from './format.js';
import { calibrationText } from './state.js';

const $ = (id) => document.getElementById(id);

export class CalibrationBox {
  // app: {state(), calibration(), deviceName(id), apply(changes)}.
  constructor(engine, app) {
    this.engine = engine;
    this.app = app;
    labelColumns($('calibrate-table'));
    $('calibrate').addEventListener('click', () => this.run());
    $('calibrate-clear').addEventListener('click', () => {
      this.show(null);
      this.app.apply({ cal: '' });
    });
    labelColumns($('check-log-table'));
    $('check-log').addEventListener('click', () => this.checkLog());
    // A file dropped on either text area is read here, as if pasted, then used.
    droppable($('bench-text'), $('calibrate-note'), 4 << 20, () => this.run());
    droppable($('log-text'), $('check-log-note'), 8 << 20, () => this.checkLog());
    this.showApplied();
  }

  // The model and GPU the log states; where it states none the catalog
  // knows, those chosen above.
  async checkLog() {
    const text = $('log-text').value;
    const note = $('check-log-note');
    note.textContent = 'Reading the log…';
    try {
      await this.engine.loadFull();
      const state = this.app.state();
      const request = {};
      let answer = null;
      for (let attempt = 0; attempt < 3 && !answer; attempt += 1) {
        try {
          answer = this.engine.checkLog(request, text);
        } catch (error) {
          if (error.id === 'log.no_device' && !request.gpu) request.gpu = state.gpu;
          else if (error.id === 'log.no_model' && !request.model) Object.assign(request, { model: state.model, quant: state.quant });
          else throw error;
        }
      }
      if (!answer) throw new Error('the log names neither a model nor a GPU the catalog knows');
      this.showCheck(answer);
    } catch (error) {
      this.showCheck(null);
      note.textContent = `Not checked: ${error.message}`;
    }
  }

  showCheck(answer) {
    const table = $('check-log-table');
    table.tBodies[0].replaceChildren();
    $('check-log-warnings').replaceChildren();
    $('check-log-note').textContent = '';
    table.hidden = !answer;
    if (!answer) return;
    const mib = (x) => `${fmt.fixed(x, 2)} MiB`;
    for (const l of answer.lines) {
      const row = el('tr', l.differs ? { class: 'differs' } : {});
      row.append(el('td', {}, l.item), el('td', {}, l.where ?? ''), el('td', {}, mib(l.log_mib)),
        el('td', {}, l.estimate_mib == null ? 'not estimated' : mib(l.estimate_mib)),
        el('td', {}, l.difference_pct == null ? '' : `${l.difference_pct >= 0 ? '+' : ''}${fmt.fixed(l.difference_pct, 1)}%`),
        el('td', {}, l.hint ?? ''));
      table.tBodies[0].append(row);
    }
    for (const w of answer.warnings) $('check-log-warnings').append(el('li', {}, w));
    const differ = answer.lines.filter((l) => l.differs).length;
    $('check-log-note').textContent = `${answer.model} ${answer.quant} on ${answer.gpus > 1 ? `${answer.gpus} × ` : ''}` +
      `${this.app.deviceName(answer.device)}, ${fmt.tokens(answer.context_tokens)} tokens` +
      `${answer.sequences > 1 ? ` × ${answer.sequences} sequences` : ''}, KV ${answer.kv_type}, flash attention ` +
      `${answer.flash_attention ? 'on' : 'off'}: ${differ === 0 ? 'every buffer the estimate sizes agrees within 2%.'
        : `${differ} buffer${differ === 1 ? '' : 's'} more than 2% apart.`}`;
  }

  // The machine: the GPU the text names; when it names none the catalog
  // knows, the device chosen above.
  async run() {
    const text = $('bench-text').value;
    const note = $('calibrate-note');
    note.textContent = 'Sizing the rows…';
    try {
      await this.engine.loadFull();
      const state = this.app.state();
      let answer;
      try {
        answer = this.engine.calibrate({}, text);
      } catch (error) {
        if (error.id !== 'bench.no_device') throw error;
        answer = this.engine.calibrate({ gpu: state.gpu, gpus: state.cards ? 1 : state.gpus }, text);
      }
      this.show(answer);
      this.app.apply({ gpu: answer.device, gpus: answer.gpus, cards: null, cal: calibrationText(answer.device, answer.factors) });
    } catch (error) {
      // One message; the figures of a calibration that failed are not kept.
      this.show(null);
      note.textContent = `Not calibrated: ${error.message}`;
    }
  }

  show(answer) {
    const table = $('calibrate-table');
    const body = table.tBodies[0];
    body.replaceChildren();
    $('calibrate-warnings').replaceChildren();
    $('calibrate-note').textContent = '';
    table.hidden = !answer;
    if (!answer) return;
    for (const r of answer.rows) {
      const row = el('tr');
      row.append(el('td', {}, r.where), el('td', {}, r.test), el('td', {}, r.model ? `${r.model} ${r.quant}` : r.model_as_stated),
        el('td', {}, fmt.rate(r.measured_tokens_per_s)));
      if (r.left_out) row.append(el('td', { colspan: '3' }, `left out: ${r.left_out}`));
      else {
        row.append(el('td', {}, fmt.rate(r.estimated_tokens_per_s)), el('td', {}, fmt.rate(r.calibrated_tokens_per_s)),
          el('td', {}, `${r.residual_pct >= 0 ? '+' : ''}${fmt.fixed(r.residual_pct, 1)}%`));
      }
      body.append(row);
    }
    for (const w of answer.warnings) $('calibrate-warnings').append(el('li', {}, w));
    const used = answer.rows.filter((r) => !r.left_out).length;
    $('calibrate-note').textContent = `Calibrated on ${used} of ${answer.rows.length} rows, measured on ` +
      `${answer.gpus > 1 ? `${answer.gpus} × ` : ''}${this.app.deviceName(answer.device)} (llama.cpp, ${answer.factors.backend}). ` +
      `${capitalized(factorsText(answer.factors, answer.fitted))} Every speed on the page is now for this machine.`;
  }

  // The calibration in the state (from the link, or kept after the device
  // changed): applied, or for another device. Kept as it is while the rows
  // it came from are on screen.
  showApplied() {
    const cal = this.app.state().cal;
    $('calibrate-clear').hidden = !cal;
    // The matrix's speeds are the scenario's requests: calibrated with it.
    const applied = this.app.calibration();
    $('matrix-calibrated').hidden = !applied;
    $('matrix-calibrated').textContent = applied
      ? `Decode speeds calibrated on your ${applied.rows} measurements of ${this.app.deviceName(applied.device)}.` : '';
    if (!$('calibrate-table').hidden && cal) return;
    const c = this.app.calibration();
    const note = $('calibrate-note');
    if (c) note.textContent = `Calibrated on ${c.rows} measurements on ${this.app.deviceName(c.device)} (llama.cpp, ${c.backend}): ${factorsText(c)}`;
    else if (cal) note.textContent = `The calibration is for ${this.app.deviceName(cal.split(',')[0])}: choose that device (one card) to apply it.`;
    else if (!note.textContent.startsWith('Not calibrated')) note.textContent = '';
  }
}

// The text of a file dropped on `area` (at most `limit` bytes, the engine's
// own bound), then `use()`; nothing leaves the machine.
function droppable(area, note, limit, use) {
  area.addEventListener('dragover', (e) => e.preventDefault());
  area.addEventListener('drop', async (e) => {
    e.preventDefault();
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    if (file.size > limit) {
      note.textContent = `${file.name} is larger than ${limit >> 20} MiB: not read.`;
      return;
    }
    area.value = await file.text();
    use();
  });
}

const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const FACTOR_NAMES = {
  bandwidth_factor: 'bandwidth', compute_factor: 'compute', overhead_factor: 'fixed cost per layer',
  attention_factor: 'attention', kv_factor: 'KV cache reads',
};

// "bandwidth × 1.09, compute × 1.51 of the model fitted on everyone's
// measurements": the factors fitted, and any other that is not 1.
export function factorsText(f, fitted = []) {
  const parts = Object.entries(FACTOR_NAMES).filter(([key]) => fitted.includes(key) || f[key] !== 1)
    .map(([key, name]) => `${name} × ${fmt.fixed(f[key], 2)}`);
  return parts.length ? `${parts.join(', ')} of the model fitted on everyone's measurements.` : '';
}
