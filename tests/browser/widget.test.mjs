// The embeddable widget: two on a hostile page, attributes observed, events,
// no style leaks, the iframe embed, and the README snippet from another origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { nativeResponses } from '../wasm/load.mjs';
import { artifacts, startServer, useBrowser } from './harness.mjs';

const session = useBrowser();

// Reads a figure inside a widget's shadow root.
const widgetField = (page, id, field) =>
  page.evaluate(([i, f]) => document.getElementById(i).shadowRoot.querySelector(`[data-field="${f}"]`)?.dataset.value, [id, field]);

async function waitForWidget(page, id) {
  await page.waitForFunction((i) => {
    const el = document.getElementById(i)?.shadowRoot?.querySelector('[data-field="memory.required_bytes"]');
    return el && el.dataset.value;
  }, id, { timeout: 20000 });
}

test('two widgets render on a page with aggressive CSS and update independently', async () => {
  const page = await session.browser.newPage({ viewport: { width: 900, height: 1200 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${session.server.url}embed-example.html`);
  await waitForWidget(page, 'first');
  await waitForWidget(page, 'second');
  const firstBefore = await widgetField(page, 'first', 'memory.kv_cache_bytes') ?? await widgetField(page, 'first', 'memory.required_bytes');
  const secondBefore = await widgetField(page, 'second', 'memory.kv_cache_bytes');
  // 32768 tokens of Llama-3.1-8B at f16: 4 GiB of KV (131072 B per token).
  assert.equal(Number(secondBefore), 4 * 2 ** 30);

  // Changing an attribute re-renders that widget only.
  await page.evaluate(() => document.getElementById('second').setAttribute('ctx', '65536'));
  await page.waitForFunction(() => document.getElementById('second').shadowRoot.querySelector('[data-field="memory.kv_cache_bytes"]').dataset.value === String(8 * 2 ** 30));
  assert.equal(await widgetField(page, 'first', 'memory.kv_cache_bytes') ?? await widgetField(page, 'first', 'memory.required_bytes'), firstBefore);

  // A control inside the widget changes its attribute.
  const required = await widgetField(page, 'first', 'memory.required_bytes');
  await page.evaluate(() => {
    const s = document.getElementById('first').shadowRoot.querySelector('select[name="quant"]');
    s.value = 'Q2_K';
    s.dispatchEvent(new Event('change'));
  });
  await page.waitForFunction((r) => document.getElementById('first').shadowRoot.querySelector('[data-field="memory.required_bytes"]').dataset.value !== r, required);
  assert.equal(await page.getAttribute('#first', 'quant'), 'Q2_K');

  // The event reaches the host page with the estimate.
  assert.match(await page.textContent('#last-event'), /first: glm-4\.5 needs \d+ bytes/);

  // No leaks: host rules stop at the shadow root; widget rules stay inside it.
  const inside = await page.evaluate(() => {
    const fig = document.getElementById('first').shadowRoot.querySelector('.fig b');
    const style = getComputedStyle(fig);
    return { color: style.color, font: style.fontFamily, size: style.fontSize, border: style.borderTopStyle };
  });
  assert.notEqual(inside.color, 'rgb(204, 0, 0)');
  assert.ok(!/comic/i.test(inside.font), inside.font);
  assert.notEqual(inside.size, '22px');
  assert.equal(inside.border, 'none');
  const hostCard = await page.evaluate(() => getComputedStyle(document.querySelector('h1.card')).borderTopWidth);
  assert.equal(hostCard, '6px');
  await page.screenshot({ path: join(artifacts, 'embed-example.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('an unknown model id replaces the previous figures with its error, and a known one brings them back', async () => {
  const page = await session.browser.newPage({ viewport: { width: 900, height: 1200 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${session.server.url}embed-example.html`);
  await waitForWidget(page, 'second');
  const figures = () => page.evaluate(() => [...document.getElementById('second').shadowRoot.querySelectorAll('[data-field]')]
    .filter((e) => e.dataset.field !== 'memory.fits').map((e) => [e.dataset.field, e.dataset.value, e.textContent]));
  assert.ok((await figures()).some(([, value]) => value !== ''), 'figures before');
  const barSegments = () => page.evaluate(() => document.getElementById('second').shadowRoot.querySelector('.bar').children.length);
  assert.ok(await barSegments() > 0, 'memory bar before');
  await page.evaluate(() => document.getElementById('second').setAttribute('model', 'no-such-model'));
  await page.waitForFunction(() => /no-such-model/.test(document.getElementById('second').shadowRoot.querySelector('.verdict').textContent));
  // Not one figure of Llama 3.1 8B is left beside the error.
  for (const [field, value, text] of await figures()) {
    assert.equal(value, '', field);
    assert.equal(text, '—', field);
  }
  assert.equal(await barSegments(), 0);
  // An id in another case: the error names the catalog id it was likely meant for.
  await page.evaluate(() => document.getElementById('second').setAttribute('model', 'Llama-3.1-8B'));
  await page.waitForFunction(() => /unknown model 'Llama-3\.1-8B' \(did you mean llama-3\.1-8b\?\)/
    .test(document.getElementById('second').shadowRoot.querySelector('.verdict').textContent));
  await page.evaluate(() => document.getElementById('second').setAttribute('model', 'llama-3.1-8b'));
  await waitForWidget(page, 'second');
  assert.equal(Number(await widgetField(page, 'second', 'memory.kv_cache_bytes')), 4 * 2 ** 30);
  assert.deepEqual(errors, []);
  await page.close();
});

const native = (request) => JSON.parse(nativeResponses([{ batch: 1, kv: 'f16', engine: 'llama.cpp', offload: 0, prompt: 4096, ...request }])[0]);

test('the widget labels what each speed assumes, as the page does: full window, after the prompt, unknown speeds', async () => {
  const page = await session.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${session.server.url}embed-example.html`);
  await waitForWidget(page, 'first');
  await page.evaluate(() => {
    // The PPU runs vLLM (T-Head's build), not llama.cpp (runtime_support.hpp).
    for (const [id, gpu, engine, quant] of [['fast', 'rtx-4090', 'llama.cpp', 'Q4_K_M'], ['no-bandwidth', 'alibaba-ppu-zw810e', 'vllm', 'native']]) {
      const w = document.createElement('llm-sizer');
      Object.entries({ id, model: 'llama-3.1-8b', quant, engine, ctx: '32768', prompt: '4096', gpu, variant: 'full' })
        .forEach(([k, v]) => w.setAttribute(k, v));
      document.body.prepend(w);
    }
  });
  await waitForWidget(page, 'fast');
  await waitForWidget(page, 'no-bandwidth');
  const text = (id, selector) => page.evaluate(([i, s]) => document.getElementById(i).shadowRoot.querySelector(s).textContent, [id, selector]);

  const fast = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 32768, gpu: 'rtx-4090' });
  // The prompt's 4,096 tokens are an eighth of the window: the step after it reads less cache.
  assert.ok(fast.speed.decode_tokens_per_s_after_prompt > fast.speed.decode_tokens_per_s);
  for (const field of ['decode_tokens_per_s', 'decode_tokens_per_s_after_prompt', 'prefill_tokens_per_s', 'ttft_s']) {
    assert.ok(Math.abs(Number(await widgetField(page, 'fast', `speed.${field}`)) / fast.speed[field] - 1) < 1e-9, field);
  }
  assert.match(await text('fast', '.note'), /full window of 32,768 tokens cached, and right after the prompt with 4,096/);

  // data/devices.json has no memory bandwidth for the Alibaba PPU (T-Head states none): the
  // engine gives no speed and says why; the widget reads "unknown", not a blank.
  const ppu = native({ model: 'llama-3.1-8b', quant: 'native', engine: 'vllm', ctx: 32768, gpu: 'alibaba-ppu-zw810e' });
  assert.equal(ppu.memory.fits, true);
  assert.equal(ppu.speed.decode_tokens_per_s, null);
  assert.ok(ppu.warnings.some((w) => /no sourced memory bandwidth/.test(w)));
  for (const field of ['decode_tokens_per_s', 'prefill_tokens_per_s', 'ttft_s']) {
    assert.equal(await widgetField(page, 'no-bandwidth', `speed.${field}`), '');
    assert.equal(await text('no-bandwidth', `[data-field="speed.${field}"]`), 'unknown');
  }
  assert.match(await text('no-bandwidth', '.note'), /memory bandwidth is not sourced/);
  await page.screenshot({ path: join(artifacts, 'widget-speeds-360.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the iframe embed renders from its hash and reports its height', async () => {
  const page = await session.browser.newPage();
  await page.goto(`${session.server.url}embed-example.html`);
  const frame = page.frameLocator('#frame');
  await frame.locator('llm-sizer').waitFor();
  await page.waitForFunction(() => parseInt(document.getElementById('frame').style.height, 10) > 100, null, { timeout: 20000 });
  const weights = await page.frame({ url: /embed\.html/ }).evaluate(() =>
    document.getElementById('widget').shadowRoot.querySelector('[data-field="memory.weights_bytes"]').dataset.value);
  assert.ok(Number(weights) > 15e9, `qwen3-30b-a3b Q4_K_M weights ${weights}`);
  await page.close();
});

test('the README snippet works in a blank page served from another origin', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmsizer-host-'));
  writeFileSync(join(dir, 'index.html'), `<!doctype html>
<script type="module" src="${session.server.url}llm-sizer-widget.js"></script>
<llm-sizer model="glm-4.5" gpu="mi300x" quant="Q4_K_M" ctx="8192"></llm-sizer>
`);
  const other = await startServer({ dir });
  try {
    const { url } = other;
    assert.notEqual(new URL(url).port, new URL(session.server.url).port);
    const page = await session.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('llm-sizer')?.shadowRoot?.querySelector('[data-field="memory.required_bytes"]')?.dataset.value, null, { timeout: 20000 });
    const fits = await page.evaluate(() => document.querySelector('llm-sizer').shadowRoot.querySelector('[data-field="memory.fits"]').dataset.value);
    assert.ok(fits === 'true' || fits === 'false');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    other.stop();
  }
});
