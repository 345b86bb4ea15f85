// Sizing a model on the Hugging Face Hub by its name, in the page (issue 31),
// against tests/hub/hub_server.mjs: the Hub's URL layout over the model files
// tests/fixtures/model_files.py writes, with CORS, range requests, a redirect
// to another host for large files and refusing owners. The page's figures
// must be those of the same files sized locally by the CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cliBin } from '../wasm/load.mjs';
import { artifacts, useBrowser, waitForApp } from './harness.mjs';

const root = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'llmsizer-hub-'));
let hub;
let hubUrl;

before(async () => {
  const made = spawnSync('python3', [join(root, 'tests/fixtures/model_files.py'), work], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  hub = spawn(process.execPath, [join(root, 'tests/hub/hub_server.mjs'), join(work, 'hub')], { stdio: ['ignore', 'pipe', 'inherit'] });
  hubUrl = await new Promise((done) => hub.stdout.on('data', (chunk) => {
    const m = /^hub: (http:\/\/127\.0\.0\.1:\d+)\//m.exec(String(chunk));
    if (m) done(m[1]);
  }));
});
after(() => {
  hub?.kill();
  rmSync(work, { recursive: true, force: true });
});

const session = useBrowser();

// The CLI's answer for the same local files.
function local(args) {
  const out = spawnSync(cliBin, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout);
}

async function open(hash, viewport = { width: 1280, height: 800 }, figures = true) {
  const page = await session.browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript((url) => { globalThis.LLMSIZER_HUB_URL = url; }, hubUrl);
  await page.goto(session.server.url + hash);
  await waitForApp(page, figures);
  return { page, errors };
}

const field = (page, name) => page.$eval(`[data-field="${name}"]`, (n) => Number(n.dataset.value));
const sized = (page, label) => page.waitForFunction((l) => document.querySelector('#hub-status').textContent.startsWith(`Sizing ${l} from the Hub`), label, { timeout: 20000 });

test('a GGUF repo:QUANT from the link: the figures of the same file sized locally', async () => {
  const { page, errors } = await open('#hf=local/llama-gguf:Q8_0&gpu=rtx-4090&ctx=8192');
  await sized(page, 'local/llama-gguf:Q8_0');
  await page.waitForFunction(() => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === '8532934656');
  const want = local(['estimate', '--gguf', join(work, 'llama.gguf'), '--gpu', 'rtx-4090', '--ctx', '8192']);
  assert.equal(await field(page, 'memory.weights_bytes'), want.memory.weights_bytes);
  assert.equal(await field(page, 'memory.required_bytes'), want.memory.required_bytes);
  assert.match(await page.$eval('#hub-status', (n) => n.textContent), /request/);
  assert.match(page.url(), /hf=local%2Fllama-gguf%3AQ8_0/);
  // The launch commands name the repo and the file read.
  await page.waitForFunction(() => document.querySelector('#commands').textContent.includes('llama-server -hf local/llama-gguf:Q8_0'));
  await page.screenshot({ path: join(artifacts, 'hub-gguf-1280.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a name typed in the model search: offered, read when asked; several quantizations to choose from', async () => {
  const { page, errors } = await open('#gpu=rtx-4090&ctx=8192', { width: 360, height: 740 });
  assert.equal(await page.$eval('#hub-load', (n) => n.hidden), true);
  await page.fill('#model-search', 'local/two-quants');
  await page.waitForSelector('#hub-load:not([hidden])');
  await page.click('#hub-load');
  await page.waitForSelector('#hub-status .hub-quant');
  const quants = await page.$$eval('#hub-status .hub-quant', (l) => l.map((b) => b.textContent));
  assert.deepEqual(quants, ['Q4_K_M', 'Q8_0']);
  await page.screenshot({ path: join(artifacts, 'hub-choose-360.png') });
  await page.click('#hub-status .hub-quant:nth-of-type(2)');
  await sized(page, 'local/two-quants:Q8_0');
  await page.waitForFunction(() => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === '8532934656');
  assert.deepEqual(errors, []);
  await page.close();
});

test('sharded safetensors and a split GGUF: every header read, the local figures', async () => {
  const { page } = await open('#hf=local/llama-st&engine=vllm&quant=native&gpu=h100-sxm&ctx=8192');
  await sized(page, 'local/llama-st');
  await page.waitForFunction(() => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === '16060522496');
  await page.waitForFunction(() => document.querySelector('#commands').textContent.includes('vllm serve local/llama-st'));
  await page.close();
  const split = await open('#hf=local/llama-split:Q8_0&gpu=rtx-4090&ctx=8192');
  await sized(split.page, 'local/llama-split:Q8_0');
  await split.page.waitForFunction(() => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === '8532934656');
  await split.page.close();
  // A config alone: the model as the engine sizes a config.json, at the chosen quantization.
  const want = local(['estimate', '--config', join(work, 'st/config.json'), '--quant', 'Q4_K_M', '--gpu', 'rtx-4090', '--ctx', '8192']);
  const config = await open('#hf=local/llama-config&quant=Q4_K_M&gpu=rtx-4090&ctx=8192');
  await sized(config.page, 'local/llama-config');
  await config.page.waitForFunction((w) => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === String(w), want.memory.weights_bytes);
  await config.page.close();
});

test('failures: one message each, and the figures stay the catalog model\'s', async () => {
  for (const [name, expected] of [['gated/llama-config', /gated or private/], ['local/nothing', /HTTP 404/], ['busy/x', /HTTP 429/],
    ['local/readme-only', /nothing here to size/], ['local/not-gguf:Q4_K_M', /GGUF/], ['local/huge-header:Q4_K_M', /Cannot read/]]) {
    const { page, errors } = await open('#model=llama-3.1-8b&gpu=rtx-4090&ctx=8192');
    const before = await field(page, 'memory.weights_bytes');
    await page.fill('#model-search', name);
    await page.click('#hub-load');
    await page.waitForFunction(() => document.querySelector('#hub-status').textContent.startsWith('Cannot read'));
    assert.match(await page.$eval('#hub-status', (n) => n.textContent), expected, name);
    assert.equal(await field(page, 'memory.weights_bytes'), before, `${name}: figures unchanged`);
    assert.doesNotMatch(page.url(), /hf=/);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a config the engine cannot size: the verdict says which field, no figures', async () => {
  const { page } = await open('#hf=local/unknown-arch&gpu=rtx-4090', undefined, false);
  assert.match(await page.$eval('#verdict', (n) => n.textContent), /num_hidden_layers/);
  await page.close();
});

test('an MLX repo, and the Hub out of reach', async () => {
  const { page } = await open('#hf=mlx-community/tiny-llama-4bit&engine=mlx&quant=MLX-4bit&gpu=mac-m4-max-128gb&ctx=8192');
  await sized(page, 'mlx-community/tiny-llama-4bit');
  // 2 layers x 1,697,792 + the packed embedding 294,912 + the final norm 1,024 (model_files.py).
  await page.waitForFunction(() => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === String(2 * 1697792 + 294912 + 1024));
  await page.close();
  const down = await session.browser.newPage();
  await down.addInitScript(() => { globalThis.LLMSIZER_HUB_URL = 'http://127.0.0.1:9'; });
  await down.goto(`${session.server.url}#gpu=rtx-4090`);
  await waitForApp(down);
  await down.fill('#model-search', 'local/llama-config');
  await down.click('#hub-load');
  await down.waitForFunction(() => document.querySelector('#hub-status').textContent.startsWith('Cannot read'));
  assert.match(await down.$eval('#hub-status', (n) => n.textContent), /cannot reach 127\.0\.0\.1:9/);
  await down.close();
});

test('a hostile hf= in the link is refused and named, nothing requested', async () => {
  const { page } = await open('#hf=../../x%3Cscript%3E&gpu=rtx-4090');
  assert.match(await page.$eval('#summary', (n) => n.textContent), /Hub repo/);
  assert.equal(await page.$eval('#hub-status', (n) => n.textContent), '');
  await page.close();
});
