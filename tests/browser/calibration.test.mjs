// Your own measurements (issue 34): pasted llama-bench output calibrates the
// machine; every speed is then the engine's answer with those factors, the
// link carries them, and bad text replaces nothing with half a calibration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { nativeResponses } from '../wasm/load.mjs';
import { artifacts, fieldValue, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();
const fixtures = new URL('../fixtures/llama_bench/', import.meta.url).pathname;
// RTX 4080, Qwen2.5-7B Q4_K_M: pp512 7263.61 and tg128 119.84 tok/s measured (sources.json).
const jsonl = readFileSync(join(fixtures, '09-rtx4080-qwen25-7b-cuda.jsonl'), 'utf8');

const native = (request) => JSON.parse(nativeResponses([{ batch: 1, kv: 'f16', engine: 'llama.cpp', offload: 0, prompt: 4096, ram_gib: 64, ...request }])[0]);

async function paste(page, text) {
  await page.click('#calibrate-box summary');
  await page.fill('#bench-text', text);
  await page.click('#calibrate');
}

test('pasted llama-bench rows calibrate the machine the text names, and every speed follows', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen2.5-7b&quant=Q4_K_M&ctx=512&gpu=mi300x&prompt=512`);
  await paste(page, jsonl);
  await page.waitForFunction(() => /gpu=rtx-4080&.*cal=rtx-4080,/.test(location.hash));
  const rows = await page.$$eval('#calibrate-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(rows.length, 2);
  for (const row of rows) assert.match(row[6], /^[+-]0\.0%$/, 'two rows, two factors: both reproduced');
  const cal = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('cal'));
  const [device, bandwidth, compute, overhead, attention, kv, count, backend] = cal.split(',');
  assert.equal(device, 'rtx-4080');
  const expected = native({
    model: 'qwen2.5-7b', quant: 'Q4_K_M', ctx: 512, prompt: 512, gpu: 'rtx-4080',
    machine_calibration: {
      bandwidth_factor: Number(bandwidth), compute_factor: Number(compute), overhead_factor: Number(overhead),
      attention_factor: Number(attention), kv_factor: Number(kv), rows: Number(count), backend,
    },
  });
  assert.equal(expected.ok, true);
  assert.equal(Number(await fieldValue(page, 'speed.decode_tokens_per_s')), expected.speed.decode_tokens_per_s);
  // pp512 from an empty cache is the row measured at 7263.61 tok/s: back, to the factors' rounding in the link.
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.prefill_tokens_per_s')) / 7263.61 - 1) < 0.001);
  assert.match(await page.textContent('#speed-note'), /Calibrated on your 2 measurements/);
  assert.match(await page.textContent('#matrix-calibrated'), /^Decode speeds calibrated on your 2 measurements of NVIDIA GeForce RTX 4080/);
  await page.screenshot({ path: join(artifacts, 'calibration-1280.png'), fullPage: false });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.$eval('#calibrate-box', (e) => e.scrollIntoView());
  await page.screenshot({ path: join(artifacts, 'calibration-360.png') });
  await page.click('#calibrate-clear');
  await page.waitForFunction(() => !location.hash.includes('cal='));
  assert.doesNotMatch(await page.textContent('#speed-note'), /Calibrated/);
  assert.equal(await page.$eval('#matrix-calibrated', (e) => e.hidden), true);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('text that is not llama-bench output, or rows from two backends: one message, no calibration', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen2.5-7b&gpu=rtx-4080`);
  await paste(page, '<img src=x onerror=alert(1)> | not a table');
  await page.waitForFunction(() => document.getElementById('calibrate-note').textContent.startsWith('Not calibrated'));
  assert.equal(await page.$eval('#calibrate-table', (t) => t.hidden), true);
  assert.equal(await page.$$eval('#calibrate-box img', (imgs) => imgs.length), 0);
  const twoBackends = `${readFileSync(join(fixtures, '06-dgxspark-gptoss120b-cuda-depth.md'), 'utf8')}
| model | size | params | backend | ngl | test | t/s |
| --- | --: | --: | --- | --: | --: | --: |
| gpt-oss 120B MXFP4 MoE | 59.02 GiB | 116.83 B | Vulkan | 99 | tg32 | 50.00 ± 0.1 |
`;
  await page.fill('#bench-text', twoBackends);
  await page.click('#calibrate');
  await page.waitForFunction(() => /mix backends/.test(document.getElementById('calibrate-note').textContent));
  assert.equal(await page.evaluate(() => location.hash.includes('cal=')), false);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a calibration in the link applies to its device only; a tampered one is ignored and said', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen2.5-7b&gpu=rtx-4080&cal=rtx-4080,1.0872,1.5094,1,1,1,2,cuda`);
  assert.match(await page.textContent('#speed-note'), /Calibrated on your 2 measurements: bandwidth × 1\.09/);
  await page.selectOption('#gpu', 'rtx-4090');
  await page.waitForFunction(() => location.hash.includes('gpu=rtx-4090'));
  assert.doesNotMatch(await page.textContent('#speed-note'), /Calibrated/);
  assert.match(await page.textContent('#calibrate-note'), /The calibration is for NVIDIA GeForce RTX 4080/);
  await page.goto(`${session.server.url}#model=qwen2.5-7b&gpu=rtx-4080&cal=rtx-4080,1e9,1,1,1,1,2,cuda`);
  await page.waitForFunction(() => /Ignored from the link: calibration/.test(document.getElementById('summary').textContent));
  assert.doesNotMatch(await page.textContent('#speed-note'), /Calibrated/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a pasted load log: each buffer beside the estimate for the log\'s own settings', async () => {
  const logs = new URL('../fixtures/load_logs/', import.meta.url).pathname;
  const log = readFileSync(join(logs, '03-rtx3090ti-glm-z1-32b-iq4_xs-fa-32k.txt'), 'utf8');
  const { page, log: console } = await openPage(session.browser, `${session.server.url}#model=qwen2.5-7b&gpu=rtx-4080`);
  await page.click('#calibrate-box summary');
  await page.fill('#log-text', log);
  await page.click('#check-log');
  await page.waitForFunction(() => !document.getElementById('check-log-table').hidden);
  const rows = await page.$$eval('#check-log-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  // 61 layers x (K + V) x 2 KV heads x 128 x 2 bytes x 32768 cells = 1952.00 MiB, as the log says.
  const kv = rows.find((r) => r[0] === 'CUDA0 KV buffer');
  assert.deepEqual(kv.slice(2, 5), ['1,952.00 MiB', '1,952.00 MiB', '+0.0%']);
  assert.match(await page.textContent('#check-log-note'), /^glm-4-32b-0414 IQ4_XS on NVIDIA GeForce RTX 3090 Ti, 32,768 tokens/);
  await page.$eval('#check-log-table', (e) => e.scrollIntoView());
  await page.screenshot({ path: join(artifacts, 'check-log-1280.png') });
  await page.fill('#log-text', 'load_tensors: nothing <b>here</b>');
  await page.click('#check-log');
  await page.waitForFunction(() => document.getElementById('check-log-note').textContent.startsWith('Not checked'));
  assert.equal(await page.$eval('#check-log-table', (t) => t.hidden), true);
  assert.deepEqual(console.errors, []);
  await page.close();
});

test('a llama-bench file dropped on its text area calibrates as if pasted', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen2.5-7b&gpu=mi300x`);
  await page.click('#calibrate-box summary');
  const dataTransfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'bench.jsonl', { type: 'text/plain' }));
    return dt;
  }, jsonl);
  await page.dispatchEvent('#bench-text', 'drop', { dataTransfer });
  await page.waitForFunction(() => /cal=rtx-4080,/.test(location.hash));
  assert.equal(await page.$eval('#bench-text', (t) => t.value.startsWith('{')), true);
  assert.equal((await page.$$('#calibrate-table tbody tr')).length, 2);
  assert.deepEqual(log.errors, []);
  await page.close();
});
