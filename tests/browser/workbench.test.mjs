// The workbench as people drive it (issue 22): controls and answer in one view
// on a desk, the answer first on a phone, errors that clear what they replace,
// a chart with its numbers, machines found by their names, sliders that speak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { nativeResponses } from '../wasm/load.mjs';
import { artifacts, fieldValue, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();

const LLAMA = '#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=rtx-4090';

// Whether an element lies wholly inside the viewport, without scrolling.
const inView = (page, selector) => page.$eval(selector, (e) => {
  const r = e.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.height > 0;
});

test('at 1280x800 the context slider, the device picker and the verdict are in view together', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA, { width: 1280, height: 800 });
  await page.waitForSelector('[data-field="recommend.single.gpu"]:not([data-value=""])', { timeout: 30000 });
  for (const selector of ['input[name="ctx"]', 'select[name="gpu"]', '#verdict', '#memory-bar', '[data-field="speed.decode_tokens_per_s"]']) {
    assert.equal(await inView(page, selector), true, selector);
  }
  assert.equal(await page.evaluate(() => scrollY), 0);
  await page.screenshot({ path: join(artifacts, 'workbench-1280x800.png') });
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('at 360x740 the verdict comes first, within a screen and a half; "Your own model" is behind a disclosure', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA, { width: 360, height: 740 });
  const top = await page.$eval('#verdict', (e) => e.getBoundingClientRect().top + scrollY);
  assert.ok(top < 740 * 1.5, `verdict at ${top} px`);
  assert.ok(top < await page.$eval('input[name="ctx"]', (e) => e.getBoundingClientRect().top + scrollY), 'verdict above the controls');
  assert.equal(await page.$eval('#own-model', (d) => d.open), false);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
  await page.screenshot({ path: join(artifacts, 'workbench-360x740.png') });
  await page.screenshot({ path: join(artifacts, 'workbench-360x740-full.png'), fullPage: true });
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a broken config.json replaces every figure of the previous model with its error', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  assert.ok(Number(await fieldValue(page, 'memory.weights_bytes')) > 0);
  await page.click('#own-model summary');
  await page.fill('#config-text', '{"model_type": "llama", "hidden_size": 40x96}');
  await page.waitForFunction(() => /Cannot size this/.test(document.getElementById('verdict').textContent));
  // It says where: line and column, as an editor counts them.
  assert.match(await page.textContent('#verdict'), /line 1, column 42/);
  // No figure of Llama 3.1 8B is left on screen: every field is empty.
  const left = await page.$$eval('#answer [data-field]:not(#verdict), #matrix [data-field]', (nodes) => nodes.filter((n) => n.dataset.value !== '').map((n) => n.dataset.field));
  assert.deepEqual(left, []);
  assert.equal(await page.$$eval('#matrix tbody tr', (r) => r.length), 0);
  assert.equal(await page.$$eval('#context-chart svg', (r) => r.length), 0);
  assert.equal(await page.$$eval('#commands pre', (r) => r.length), 0);
  assert.equal(await page.$eval('#memory-bar', (b) => b.children.length), 0);
  // The catalog model comes back with its figures.
  await page.click('#custom-clear');
  await page.waitForFunction(() => Number(document.querySelector('[data-field="memory.weights_bytes"]').dataset.value) > 0);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('the context chart: GiB on its axis, the current context marked, a value on focus, a table of the same numbers', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  await page.locator('#context-chart').scrollIntoViewIfNeeded();
  await page.waitForSelector('#context-chart svg circle');
  assert.match(await page.textContent('#context-chart svg'), /GiB/);
  assert.match(await page.textContent('#context-chart svg'), /usable/);
  assert.equal(await page.$eval('#context-chart line.current', (l) => l.getAttribute('visibility')), 'visible');
  const points = await page.$$eval('#context-chart circle', (c) => c.map((n) => Number(n.dataset.ctx)));
  const rows = await page.$$eval('#context-table tbody tr', (r) => r.map((n) => Number(n.dataset.ctx)));
  assert.deepEqual(rows, points);
  // Each row's total is the engine's figure for that context.
  const natives = nativeResponses(points.map((ctx) => ({ model: 'llama-3.1-8b', quant: 'Q4_K_M', gpu: 'rtx-4090', ctx }))).map((l) => JSON.parse(l));
  const totals = await page.$$eval('#context-table [data-field="context.required_bytes"]', (c) => c.map((n) => Number(n.dataset.value)));
  assert.deepEqual(totals, natives.map((n) => n.memory.required_bytes));
  await page.focus('#context-chart circle');
  assert.match(await page.textContent('#context-chart .readout'), /tokens: .* GiB/);
  const marker = await page.$eval('#context-chart line.current', (l) => l.getAttribute('x1'));
  await page.evaluate(() => { const s = document.querySelector('input[name="ctx"]'); s.value = '15'; s.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction((x) => document.querySelector('#context-chart line.current').getAttribute('x1') !== x, marker);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('devices are found by their machine names; sliders say their values', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  for (const [query, pattern] of [['mac studio', /M\d/], ['macbook', /M\d/], ['mac mini', /M\d/], ['dgx spark', /Spark|GB10/], ['framework', /Ryzen AI Max/],
    // Machines sold with the chip under their own names (curated machine_aliases).
    ['evo x2', /Ryzen AI Max/], ['ascent gx10', /Spark|GB10/]]) {
    await page.fill('#gpu-search', query);
    const names = await page.$$eval('select[name="gpu"] option', (o) => o.map((n) => n.textContent));
    assert.ok(names.length > 0, `${query} finds a device`);
    assert.ok(names.every((n) => pattern.test(n)), `${query}: ${names.join(', ')}`);
  }
  await page.fill('#gpu-search', '');
  assert.equal(await page.$eval('input[name="ctx"]', (s) => s.getAttribute('aria-valuetext')), '8,192 tokens');
  for (const name of ['prompt', 'batch', 'gpus', 'offload']) {
    assert.ok(await page.$eval(`input[name="${name}"]`, (s) => s.getAttribute('aria-valuetext')), name);
  }
  // Cloud offers without an instance type are named by their devices, not an id.
  const texts = await page.$$eval('#offers th, [data-field$=".instance"]', (n) => n.map((e) => e.textContent));
  assert.ok(texts.every((t) => !/on-demand-\d{4}-\d\d-\d\d/.test(t)), 'no offer ids shown');
  assert.deepEqual(log.errors, []);
  await page.close();
});
