// The prerendered pages in Chromium: the script takes over without changing
// a figure or moving the layout, the hash wins over the page's own scenario,
// the page reads without JavaScript, and the strict CSP holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { artifacts, fieldValue, useBrowser, waitForApp } from './harness.mjs';

const session = useBrowser({ csp: true });

// Every figure of the answer, the tables and the questions: field -> value
// (several nodes of one field joined).
const figures = () => {
  const out = {};
  const scope = '#answer [data-field], #matrix [data-field], #context-table [data-field], #questions [data-field], #recommendations [data-field]';
  for (const node of document.querySelectorAll(scope)) {
    const key = node.dataset.field;
    out[key] = key in out ? `${out[key]}|${node.dataset.value}` : node.dataset.value;
  }
  return out;
};

test('a model page: the script takes over with the same figures, nothing shifts, no CSP violation', async () => {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  // What the HTML holds before any script runs: the page itself without JavaScript.
  const still = await session.browser.newPage({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
  await still.goto(`${session.server.url}models/qwen3-32b/`);
  const before = await still.evaluate(figures);
  const text = await still.textContent('#verdict');
  await still.screenshot({ path: join(artifacts, 'prerender-nojs-1280.png') });
  await still.close();
  assert.match(text, /^(Fits|Does not fit)/, 'the verdict reads without JavaScript');
  assert.ok(Object.keys(before).length > 40, `${Object.keys(before).length} figures in the HTML`);

  await page.addInitScript(() => {
    window.layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.layoutShift += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(`${session.server.url}models/qwen3-32b/`);
  await waitForApp(page);
  await page.waitForFunction(() => performance.getEntriesByName('llm-sizer:answered').length > 0, null, { timeout: 30000 });
  const afterTakeover = await page.evaluate(figures);
  assert.deepEqual(afterTakeover, before, 'the same figures after the script took over');
  assert.equal(new URL(page.url()).hash, '', 'the address stays the page\'s own');
  const shift = await page.evaluate(() => window.layoutShift);
  assert.ok(shift < 0.01, `layout shift ${shift}`);
  // The bar's segments are SVG attributes: drawn under the CSP with and without script.
  assert.ok(await page.$('#memory-bar rect.segment.weights'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the hash wins over the page\'s scenario and recomputes', async () => {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${session.server.url}models/qwen3-32b/#model=llama-3.1-8b&quant=Q8_0&ctx=16384&gpu=rtx-4090`);
  await waitForApp(page);
  assert.equal(await page.$eval('#model', (e) => e.value), 'llama-3.1-8b');
  assert.equal(await page.$eval('#quant', (e) => e.value), 'Q8_0');
  assert.equal(await fieldValue(page, 'memory.fits'), 'true');
  assert.match(await page.title(), /^Llama 3\.1 8B on NVIDIA GeForce RTX 4090, Q8_0/);
  // A change writes the scenario into the address.
  await page.selectOption('#quant', 'Q4_K_M');
  await page.waitForFunction(() => location.hash.includes('quant=Q4_K_M'));
  await page.close();
});

test('a phone reads a pair page without JavaScript: verdict first, links to the other pages', async () => {
  const page = await session.browser.newPage({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  await page.goto(`${session.server.url}models/llama-3.3-70b-instruct/rtx-4090/`);
  const verdict = await page.$eval('#verdict', (e) => ({ text: e.textContent, top: e.getBoundingClientRect().top }));
  assert.match(verdict.text, /^(Fits|Does not fit)/);
  assert.ok(verdict.top < 740, `verdict at ${verdict.top}px`);
  const links = await page.$$eval('.page-links a', (as) => as.map((a) => a.getAttribute('href')));
  assert.ok(links.includes('../../../models/llama-3.3-70b-instruct/rtx-3090/'), 'this model on other devices');
  assert.ok(links.includes('../../../models/llama-3.1-8b/rtx-4090/'), 'other models on this device');
  await page.screenshot({ path: join(artifacts, 'prerender-pair-nojs-360.png') });
  await page.close();
});

test('a prerendered page fetches its engine when the reader reaches for it, and keeps what was changed before it came', async () => {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const engine = [];
  page.on('request', (r) => { if (/llmsizer/.test(new URL(r.url()).pathname)) engine.push(new URL(r.url()).pathname); });
  let release;
  const held = new Promise((done) => { release = done; });
  await page.route('**/llmsizer-full.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${session.server.url}models/qwen3-32b/`, { waitUntil: 'load' });
  await page.waitForTimeout(1500);
  assert.deepEqual(engine, [], 'nothing of the engine while the page is only read');
  // The lists are whole before the engine is there (a reader may open them first).
  assert.ok(await page.$$eval('#model option', (o) => o.length) > 100);
  assert.ok(await page.$$eval('#gpu option', (o) => o.length) > 100);
  const prerendered = await fieldValue(page, 'memory.required_bytes');
  // The pointer moves: the engine is asked for; a list changed while it is
  // still on its way is applied once it is here.
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => performance.getEntriesByName('llm-sizer:engaged').length > 0);
  await page.selectOption('#quant', 'Q8_0');
  release();
  await waitForApp(page);
  await page.waitForFunction(() => location.hash.includes('quant=Q8_0'));
  assert.equal(await page.$eval('#quant', (e) => e.value), 'Q8_0');
  assert.notEqual(await fieldValue(page, 'memory.required_bytes'), prerendered, 'the figures are Q8_0\'s');
  assert.deepEqual(engine.sort(), ['/llmsizer-full.mjs', '/llmsizer-full.wasm'], 'one engine module');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file picked before the engine came is read once it is here', async () => {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  let release;
  const held = new Promise((done) => { release = done; });
  await page.route('**/llmsizer-full.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${session.server.url}models/qwen3-32b/`, { waitUntil: 'load' });
  await page.mouse.move(5, 5);
  // Not a GGUF: the engine's reader names it (a file input's value cannot be
  // set back, so the replay keeps the files picked).
  const path = join(mkdtempSync(join(tmpdir(), 'llmsizer-early-')), 'notes.gguf');
  writeFileSync(path, 'not a gguf file at all');
  await page.setInputFiles('#gguf-file', path);
  release();
  await waitForApp(page);
  await page.waitForFunction(() => /Cannot read this GGUF/.test(document.getElementById('custom-facts').textContent), null, { timeout: 20000 });
  assert.deepEqual(errors, []);
  await page.close();
});
