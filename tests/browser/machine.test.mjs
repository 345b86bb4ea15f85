// Beyond the anchors on the page (issue 23): mixed cards in one machine, a
// vision encoder, a draft model and a CPU-only machine, each against what the
// native engine answers for the same request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { nativeResponses } from '../wasm/load.mjs';
import { artifacts, fieldValue, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();

const native = (request) => JSON.parse(nativeResponses([{ batch: 1, kv: 'f16', engine: 'llama.cpp', offload: 0, prompt: 4096, ram_gib: 64, ...request }])[0]);

test('mixed cards from the link: one row per card, its layers, and --tensor-split', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q8_0&ctx=8192&gpu=rtx-3090,rtx-3090,rtx-3060-12gb`);
  const expected = native({ model: 'llama-3.1-8b', quant: 'Q8_0', ctx: 8192, gpu: 'rtx-3090,rtx-3090,rtx-3060-12gb' });
  assert.equal(expected.ok, true);
  assert.equal(Number(await fieldValue(page, 'memory.required_bytes')), expected.memory.required_bytes);
  assert.equal(await fieldValue(page, 'memory.fits'), String(expected.memory.fits));
  const rows = await page.$$eval('#per-gpu .gpu-label', (ls) => ls.map((l) => l.textContent));
  assert.equal(rows.length, 3);
  // Layers 27-31 on the 3060 (tests/test_mixed_cards.cpp works the split out by hand).
  assert.match(rows[2], /^3\. NVIDIA GeForce RTX 3060 12GB: .*layers 27–31/);
  assert.equal(await page.$eval('#gpus', (e) => e.disabled), true, 'the list says how many');
  assert.equal((await page.$$('#cards .card-row')).length, 2);
  await page.waitForSelector('#commands pre');
  assert.match(await page.textContent('#commands [data-engine="llama.cpp"] pre'), /--tensor-split 23003,23003,10715/);
  await page.screenshot({ path: join(artifacts, 'mixed-cards-1280.png') });
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('adding and removing a card changes the machine and the link', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-70b&quant=Q4_K_M&ctx=8192&gpu=rtx-3090`);
  await page.click('#add-card');
  await page.selectOption('#card-1', 'rtx-3060-12gb');
  await page.waitForFunction(() => location.hash.includes('gpu=rtx-3090,rtx-3060-12gb'));
  const expected = native({ model: 'llama-3.1-70b', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-3090,rtx-3060-12gb' });
  assert.equal(Number(await fieldValue(page, 'memory.required_bytes')), expected.memory.required_bytes);
  assert.equal((await page.$$('#per-gpu .gpu-row')).length, 2);
  await page.click('#cards [data-remove="1"]');
  await page.waitForFunction(() => /gpu=rtx-3090&gpus=1&/.test(location.hash));
  assert.equal((await page.$$('#cards .card-row')).length, 0);
  assert.equal(await page.$eval('#gpus', (e) => e.disabled), false);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a vision encoder where the model has one: its bytes, in the link; none offered where it has none', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=gemma-3-27b-it&quant=Q4_K_M&ctx=8192&gpu=rtx-4090`);
  assert.equal(await page.isVisible('#vision'), true);
  await page.check('#vision');
  await page.waitForFunction(() => location.hash.includes('vision=1'));
  const expected = native({ model: 'gemma-3-27b-it', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-4090', vision: true });
  // 423,060,336 parameters at F16 (tests/test_vision.cpp, from the config's vision_config).
  assert.equal(expected.memory.projector_bytes, 846120672);
  assert.equal(Number(await fieldValue(page, 'memory.projector_bytes')), expected.memory.projector_bytes);
  assert.equal(Number(await fieldValue(page, 'memory.required_bytes')), expected.memory.required_bytes);
  assert.equal(await page.isVisible('#projector-item'), true);
  await page.selectOption('#model', 'llama-3.1-8b');
  await page.waitForFunction(() => location.hash.includes('model=llama-3.1-8b'));
  assert.equal(await page.isVisible('#vision'), false);
  assert.match(await page.evaluate(() => location.hash), /vision=0/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a draft model: its memory, and decode as a range with its assumption', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-70b&quant=Q4_K_M&ctx=8192&gpu=h100-sxm&draft=llama-3.2-1b`);
  const expected = native({ model: 'llama-3.1-70b', quant: 'Q4_K_M', ctx: 8192, gpu: 'h100-sxm', draft: 'llama-3.2-1b' });
  assert.equal(await page.$eval('#draft', (e) => e.value), 'llama-3.2-1b');
  assert.equal(Number(await fieldValue(page, 'memory.required_bytes')), expected.memory.required_bytes);
  const low = Number(await fieldValue(page, 'speed.speculative.decode_tokens_per_s_low'));
  assert.ok(Math.abs(low / expected.speed.speculative.decode_tokens_per_s_low - 1) < 1e-9);
  assert.equal(await page.isVisible('#speculative-row'), true);
  assert.match(await page.textContent('#speed-note'), /assumed 0\.6 to 0\.8/);
  assert.match(await page.evaluate(() => location.hash), /draft=llama-3\.2-1b/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a CPU-only machine: decode from RAM bandwidth, prefill from its sourced FP32 peak, -ngl 0', async () => {
  const gpu = 'epyc-9004-genoa-384gb-ddr5-4800';
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=${gpu}`);
  const expected = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu });
  assert.equal(await fieldValue(page, 'memory.fits'), 'true');
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / expected.speed.decode_tokens_per_s - 1) < 1e-9);
  // EPYC 9124 (the machine's priced CPU): 16 cores x 3.0 GHz base x 32 FP32 FLOPs per cycle = 1.536 TFLOPS.
  assert.equal(expected.speed.basis.vector_fp32_flops, 1.536e12);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.prefill_tokens_per_s')) / expected.speed.prefill_tokens_per_s - 1) < 1e-9);
  assert.match(await page.textContent('#speed-note'), /from the CPU's FP32 peak \(cores × base clock × FLOPs per cycle\)/);
  await page.waitForSelector('#commands pre');
  assert.match(await page.textContent('#commands [data-engine="llama.cpp"] pre'), /-ngl 0\b/);
  assert.deepEqual(log.errors, []);
  await page.close();
  // A CPU machine's RAM is its own memory: named so, not as a RAM kind of equal bandwidth
  // (the 7950X's two channels of DDR5-3600, 57.6 GB/s, are what DDR4-3600 gives too).
  const ryzen = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=ryzen-9-7950x-128gb-ddr5-3600`);
  await ryzen.page.waitForFunction(() => document.querySelector('#rambw-label')?.textContent.includes("device's own memory"));
  const chosen = await ryzen.page.evaluate(() => document.querySelector('#rambw').selectedOptions[0]?.textContent ?? '');
  assert.match(chosen, /^the device's memory · 57\.6 GB\/s$/);
  // Its 128 GB is the system RAM: shown as such, not as an editable 64 GiB beside it,
  // and there is nothing to offload to.
  assert.equal(await ryzen.page.$eval('#ram', (i) => [i.disabled, i.value].join()), 'true,128');
  assert.equal(await ryzen.page.textContent('#ram-label'), "System RAM: the machine's own (128.0 GiB), which holds the model");
  assert.equal(await ryzen.page.$eval('#offload', (i) => i.disabled), true);
  // Back to a discrete card: the link's 64 GiB of host RAM again, editable.
  await ryzen.page.selectOption('#gpu', 'rtx-4090');
  await ryzen.page.waitForFunction(() => !document.getElementById('ram').disabled);
  assert.equal(await ryzen.page.$eval('#ram', (i) => i.value), '64');
  assert.equal(await ryzen.page.$eval('#offload', (i) => i.disabled), false);
  assert.deepEqual(ryzen.log.errors, []);
  await ryzen.page.close();
  // The Threadripper PRO 7975WX: 32 cores x 4.0 GHz base x 32 FP32 FLOPs per cycle = 4.096 TFLOPS,
  // its prefill the CLI's from that peak.
  const other = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=threadripper-pro-7975wx-512gb-ddr5-4800`);
  const tr = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu: 'threadripper-pro-7975wx-512gb-ddr5-4800' });
  assert.equal(tr.speed.basis.vector_fp32_flops, 4.096e12);
  await other.page.waitForFunction(() => Number(document.querySelector('[data-field="speed.prefill_tokens_per_s"]')?.dataset.value) > 0);
  assert.ok(Math.abs(Number(await fieldValue(other.page, 'speed.prefill_tokens_per_s')) / tr.speed.prefill_tokens_per_s - 1) < 1e-9);
  assert.deepEqual(other.log.errors, []);
  await other.page.close();
});

test('a device without a sourced memory bandwidth (Alibaba PPU): speeds read unknown and the note says why', async () => {
  // The PPU runs vLLM (T-Head's build), not llama.cpp (runtime_support.hpp).
  const gpu = 'alibaba-ppu-zw810e';
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=native&engine=vllm&ctx=8192&gpu=${gpu}`);
  const expected = native({ model: 'llama-3.1-8b', quant: 'native', engine: 'vllm', ctx: 8192, gpu });
  assert.equal(expected.memory.fits, true);
  assert.equal(expected.speed.decode_tokens_per_s, null);
  await page.waitForFunction(() => document.querySelector('#speed-note')?.textContent.includes('memory bandwidth is not sourced'));
  for (const field of ['decode_tokens_per_s', 'prefill_tokens_per_s', 'ttft_s'])
    assert.equal(await page.textContent(`[data-field="speed.${field}"]`), 'unknown', field);
  assert.match(await page.textContent('#warnings'), /no sourced memory bandwidth/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a device whose maker states only FP32 (DGX Spark): prefill and TTFT from it, and the page says so', async () => {
  const gpu = 'dgx-spark-gb10';
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=${gpu}`);
  const expected = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu });
  // data/devices.json: 31 TFLOPS FP32, no FP16 figure.
  assert.equal(expected.speed.basis.flops_basis, 'fp32_vector');
  assert.equal(expected.speed.basis.vector_fp32_flops, 31e12);
  assert.ok(expected.speed.prefill_tokens_per_s > 0);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.prefill_tokens_per_s')) / expected.speed.prefill_tokens_per_s - 1) < 1e-9);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.ttft_s')) / expected.speed.ttft_s - 1) < 1e-9);
  assert.match(await page.textContent('#speed-note'), /from its FP32 rate, the only throughput its maker states/);
  assert.match(await page.textContent('#warnings'), /vector FP32 rate/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('decode at the full window and right after the prompt, each labelled', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=32768&prompt=4096&gpu=rtx-4090`);
  const expected = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 32768, prompt: 4096, gpu: 'rtx-4090' });
  // The prompt's cache is an eighth of the window's: a shorter read, a faster step.
  assert.equal(expected.speed.after_prompt_cached_tokens, 4096);
  assert.ok(expected.speed.decode_tokens_per_s_after_prompt > expected.speed.decode_tokens_per_s);
  for (const field of ['decode_tokens_per_s', 'decode_tokens_per_s_after_prompt', 'ttft_s']) {
    assert.ok(Math.abs(Number(await fieldValue(page, `speed.${field}`)) / expected.speed[field] - 1) < 1e-9, field);
  }
  assert.match(await page.textContent('#speed-note'), /full window of 32,768 tokens cached, and right after the prompt with 4,096/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('where it does not fit, the RAM kind and its GB/s still say what the estimate reads offloaded bytes at', async () => {
  // GLM-4.5 at Q4_K_M needs 203 GiB; one MI300X has 190.6 usable: no speed.
  // The engine's scenario still names the host RAM it takes for offload: the
  // default dual-channel DDR5-5600, 2 x 8 B x 5600 MT/s = 89.6 GB/s.
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=glm-4.5&quant=Q4_K_M&ctx=8192&gpu=mi300x`);
  const expected = native({ model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x' });
  assert.equal(expected.memory.fits, false);
  assert.equal(expected.speed, null);
  assert.equal(expected.scenario.ram_bandwidth_gbs, 89.6);
  assert.equal(expected.scenario.ram_is_host, true);
  await page.waitForFunction(() => document.getElementById('rambw-gbs').value !== '');
  assert.equal(await page.$eval('#rambw-gbs', (i) => i.value), '89.6');
  assert.match(await page.evaluate(() => document.querySelector('#rambw').selectedOptions[0].textContent), /^DDR5-5600, 2 channels · 89\.6 GB\/s/);
  // The chosen device's figures sit under its list, whose own text is the name and memory.
  assert.equal(await page.textContent('#device-facts'), '5,300 GB/s · 1,307 TFLOPS FP16');
  assert.equal(await page.evaluate(() => document.querySelector('#gpu').selectedOptions[0].textContent), 'Instinct MI300X · 192.0 GiB');
  assert.deepEqual(log.errors, []);
  await page.close();
});
