// The backend is an input where the engine has several for the device (issue 32):
// llama.cpp on an AMD card runs ROCm or Vulkan, each with its own fitted speed
// row; the speed note names the engine and backend the speeds assume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { nativeResponses } from '../wasm/load.mjs';
import { artifacts, fieldValue, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();
const native = (request) => JSON.parse(nativeResponses([{ quant: 'Q4_K_M', ctx: 8192, batch: 1, kv: 'f16', engine: 'llama.cpp', offload: 0, prompt: 4096, ...request }])[0]);

test('an AMD card offers ROCm and Vulkan; choosing Vulkan gives its speeds, in the link and the note', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=rx-7900-xtx`);
  await page.waitForSelector('#backend-box:not([hidden])');
  assert.deepEqual(await page.$$eval('#backend option', (l) => l.map((o) => o.value)), ['rocm', 'vulkan']);
  assert.equal(await page.$eval('#backend', (s) => s.value), 'rocm');
  assert.match(await page.textContent('#speed-note'), /^llama\.cpp on ROCm: /);
  const rocm = native({ model: 'llama-3.1-8b', gpu: 'rx-7900-xtx' });
  const vulkan = native({ model: 'llama-3.1-8b', gpu: 'rx-7900-xtx', backend: 'vulkan' });
  assert.notEqual(rocm.speed.decode_tokens_per_s, vulkan.speed.decode_tokens_per_s);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / rocm.speed.decode_tokens_per_s - 1) < 1e-9);
  await page.selectOption('#backend', 'vulkan');
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on Vulkan'));
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / vulkan.speed.decode_tokens_per_s - 1) < 1e-9);
  await page.waitForFunction(() => location.hash.includes('backend=vulkan'));
  // The choice stays offered with Vulkan chosen (judged from the card's own ROCm), so ROCm is one click back.
  assert.equal(await page.$eval('#backend-box', (b) => b.hidden), false);
  assert.deepEqual(await page.$$eval('#backend option', (l) => l.map((o) => o.value)), ['rocm', 'vulkan']);
  assert.equal(await page.$eval('#backend', (s) => s.value), 'vulkan');
  await page.screenshot({ path: join(artifacts, 'backend-1280.png') });
  await page.selectOption('#backend', 'rocm');
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on ROCm'));
  await page.selectOption('#backend', 'vulkan');
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on Vulkan'));
  // Another device: its own backend again, and a Mac has one: no choice shown.
  await page.selectOption('#gpu', 'mac-m4-max-128gb');
  await page.waitForFunction(() => document.querySelector('#backend-box').hidden && document.querySelector('#speed-note').textContent.startsWith('llama.cpp on Metal'));
  assert.doesNotMatch(page.url(), /backend=/);
  // The engines without a Metal build are labelled in the list (the catalog's device.engines).
  const engines = await page.$$eval('#engine option', (l) => Object.fromEntries(l.map((o) => [o.value, o.textContent])));
  assert.equal(engines.vllm, 'vllm (not on this device)');
  assert.equal(engines.mlx, 'mlx');
  assert.equal(engines['llama.cpp'], 'llama.cpp');
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('an Intel Arc Pro B70 offers SYCL and Vulkan: SYCL decodes faster, Vulkan reads prompts faster, as measured', async () => {
  // Llama 3.1 8B Q4_K_M on one B70 (build 9739, scripts/speed/sourced_intel_sycl.json): SYCL 88.49 tok/s
  // decode and 1068.94 prompt, Vulkan 42.00 and 1980.11. The page shows the engine's figures for the
  // backend chosen, and its note names it.
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=arc-pro-b70`);
  await page.waitForSelector('#backend-box:not([hidden])');
  assert.equal(await page.$eval('#backend', (s) => s.value), 'sycl');
  assert.match(await page.textContent('#speed-note'), /^llama\.cpp on SYCL: /);
  const sycl = native({ model: 'llama-3.1-8b', gpu: 'arc-pro-b70' });
  const vulkan = native({ model: 'llama-3.1-8b', gpu: 'arc-pro-b70', backend: 'vulkan' });
  assert.equal(sycl.speed.basis.runtime, 'llama.cpp/sycl');
  assert.ok(sycl.speed.decode_tokens_per_s > 1.5 * vulkan.speed.decode_tokens_per_s);
  assert.ok(vulkan.speed.prefill_tokens_per_s > 1.4 * sycl.speed.prefill_tokens_per_s);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / sycl.speed.decode_tokens_per_s - 1) < 1e-9);
  await page.selectOption('#backend', 'vulkan');
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on Vulkan'));
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / vulkan.speed.decode_tokens_per_s - 1) < 1e-9);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.prefill_tokens_per_s')) / vulkan.speed.prefill_tokens_per_s - 1) < 1e-9);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('switching engine keeps the quantization it loads, else takes its usual format', async () => {
  const { page } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q5_K_M&gpu=rtx-4090`);
  await page.selectOption('#engine', 'ollama');
  assert.equal(await page.$eval('#quant', (s) => s.value), 'Q5_K_M');  // a GGUF: Ollama loads it
  await page.selectOption('#engine', 'vllm');
  await page.waitForFunction(() => document.querySelector('#quant').value === 'native');  // the checkpoint as published
  await page.selectOption('#quant', 'FP8');
  await page.selectOption('#engine', 'sglang');
  assert.equal(await page.$eval('#quant', (s) => s.value), 'FP8');
  await page.selectOption('#engine', 'llama.cpp');
  await page.waitForFunction(() => document.querySelector('#quant').value === 'Q4_K_M');
  await page.waitForFunction(() => location.hash.includes('quant=Q4_K_M'));
  await page.close();
});

test('MXFP4 becomes MXFP4_MOE under llama.cpp for gpt-oss only; a dense model MXFP4 is every layer at 4.25 bits', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=gpt-oss-20b&engine=vllm&quant=MXFP4&gpu=rtx-4090`);
  await page.selectOption('#engine', 'llama.cpp');
  await page.waitForFunction(() => document.querySelector('#quant').value === 'MXFP4_MOE');  // its experts' GGUF type
  await page.close();
  // Llama 3.1 8B in MXFP4 (AMD Quark's layout): (8030261248 - 1050673152) x 4.25 / 8
  // + 1050673152 x 2 bytes = 5.81 GB (5.41 GiB), not the 16 GB of nothing quantized.
  const dense = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&engine=vllm&quant=MXFP4&gpu=mi300x`);
  await dense.page.waitForFunction(() => /5\.4 GiB \(5\.8 GB\)/.test(document.querySelector('[data-field="memory.weights_bytes"]')?.textContent || ''));
  await dense.page.selectOption('#engine', 'llama.cpp');
  await dense.page.waitForFunction(() => document.querySelector('#quant').value === 'Q4_K_M');
  assert.deepEqual([...log.errors, ...dense.log.errors], []);
  await dense.page.close();
});

test('a link naming a serving engine but no quantization sizes the checkpoint as published, as the CLI does', async () => {
  // Kimi K2 Thinking as published: INT4 routed experts, the rest bf16, 594.5 GB
  // (553.7 GiB) of weights (test_weights.cpp works the bytes out), not the page's
  // GGUF default Q4_K_M, which vLLM does not serve.
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=kimi-k2-thinking&engine=vllm&gpu=h200-sxm&gpus=8`);
  assert.equal(await page.$eval('#quant', (q) => q.value), 'native');
  await page.waitForFunction(() => /553\.7 GiB \(594\.5 GB\)/.test(document.querySelector('[data-field="memory.weights_bytes"]')?.textContent || ''));
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('Qwen3 past its config\'s 40,960 tokens: the facts name the YaRN window and the commands set it', async () => {
  // "Context Length: 32,768 natively and 131,072 tokens with YaRN" (Qwen3-32B's card);
  // 65,536 tokens need factor 2 (65,536 / 32,768).
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen3-32b&engine=vllm&quant=native&gpu=h100-sxm&gpus=2&ctx=65536`);
  assert.match(await page.textContent('#model-facts'), /up to 40,960 tokens \(131,072 with YaRN\)/);
  // The context slider reaches the YaRN window: 2^17 = 131,072.
  assert.equal(await page.$eval('#ctx', (c) => c.max), '17');
  await page.waitForFunction(() => document.querySelector('#commands').textContent.includes('"factor": 2.0'));
  assert.match(await page.textContent('#commands'), /--hf-overrides '\{"rope_parameters": \{"rope_type": "yarn"/);
  assert.match(await page.textContent('#commands'), /SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang\.launch_server/);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a backend from the link that the device lacks is refused and named', async () => {
  const { page } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&gpu=rtx-4090&backend=opencl`);
  assert.match(await page.textContent('#summary'), /unknown backend/);
  await page.close();
});

test('an RX 580 runs llama.cpp on Vulkan only; a link without ctx sizes Llama 2 7B at its 4,096-token window', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-2-7b&gpu=rx-580`);
  // Polaris has no current ROCm build: Vulkan is the card's own backend, no choice shown, no Ollama.
  assert.equal(await page.$eval('#backend-box', (b) => b.hidden), true);
  assert.match(await page.textContent('#speed-note'), /^llama\.cpp on Vulkan: Decode with the full window of 4,096 tokens/);
  const engines = await page.$$eval('#engine option', (l) => Object.fromEntries(l.map((o) => [o.value, o.textContent])));
  assert.equal(engines.ollama, 'ollama (not on this device)');
  // The default 8,192 tokens is beyond Llama 2's max_position_embeddings (4096).
  await page.waitForFunction(() => location.hash.includes('ctx=4096'));
  const expected = native({ model: 'llama-2-7b', gpu: 'rx-580', ctx: 4096 });
  assert.equal(expected.memory.fits, true);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / expected.speed.decode_tokens_per_s - 1) < 1e-9);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a refused pair shows no stale backend or RAM kind: the controls say nothing the engine did not answer', async () => {
  // TensorRT-LLM loads no GGUF: no estimate, so no backend list and no RAM
  // bandwidth read (before, a previous device's ROCm/Vulkan list and the RAM
  // list's first kind, DDR4-2133, stayed on show beside 89.6 GB/s).
  const { page, log } = await openPage(session.browser,
    `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&engine=tensorrt-llm&gpu=h100-sxm`, undefined, { figures: false });
  await page.waitForFunction(() => document.querySelector('#verdict').textContent.startsWith('Cannot size this: TensorRT-LLM'));
  assert.equal(await page.$eval('#backend-box', (b) => b.hidden), true);
  assert.equal(await page.$eval('#rambw', (s) => s.selectedIndex), -1);
  assert.equal(await page.$eval('#rambw-gbs', (n) => n.value), '');
  // A backend the link chose stays offered beside the device's own, the way back.
  await page.goto(`${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&engine=tensorrt-llm&gpu=h100-sxm&backend=vulkan`);
  await page.reload();
  // The prerendered page shows its own scenario's backends (the MI300X's ROCm
  // and Vulkan) until the app has read the link: wait for the link's answer.
  await page.waitForFunction(() => !document.querySelector('#backend-box').hidden &&
    [...document.querySelectorAll('#backend option')].map((o) => o.value).join(',') === 'vulkan,', null, { timeout: 10000 })
    .catch(() => {});
  assert.deepEqual(await page.$$eval('#backend option', (l) => l.map((o) => o.value)), ['vulkan', '']);
  // A pair that runs: the RAM kind and figure are the estimate's again.
  await page.selectOption('#engine', 'llama.cpp');
  await page.waitForFunction(() => document.querySelector('#rambw').selectedIndex >= 0 && document.querySelector('#rambw-gbs').value !== '');
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('layer split over GeForce cards says their prompts gain little from pipelining; one card has nothing to pipeline', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&gpu=rtx-4090&gpus=2&engine=llama.cpp&prompt=4096`);
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on CUDA'));
  const answer = native({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-4090', gpus: 2, prompt: 4096 });
  assert.equal(answer.speed.basis.peer_access, false);
  assert.equal(answer.speed.breakdown.prefill.work.pipeline_stages, 2);
  assert.match(await page.textContent('#speed-note'), /GeForce cards have no peer access to each other/);
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.prefill_tokens_per_s')) / answer.speed.prefill_tokens_per_s - 1) < 1e-9);
  // One card: nothing to pipeline, no such sentence.
  await page.$eval('#gpus', (e) => {
    e.value = '1';
    e.dispatchEvent(new Event('input', { bubbles: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForFunction(() => !document.querySelector('#speed-note').textContent.includes('GeForce'));
  assert.deepEqual(log.errors, []);
  await page.close();
});

test("a serving engine's speeds are its serving row at one request in flight; the note names the row and why it is rough", async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=qwen3-8b&quant=native&ctx=8192&gpu=rtx-4090&engine=sglang`);
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('SGLang on CUDA'));
  const note = await page.textContent('#speed-note');
  assert.match(note, /As the serving engine runs one request at a time \(the Serving panel's first point, its sglang\/cuda row fitted on measured serving runs\); the first token includes its \d+ ms per request/);
  assert.match(note, /Rough estimate: serving runs were measured on HBM datacenter GPUs only, none with GDDR memory like this device's\./);
  const answer = native({ model: 'qwen3-8b', quant: 'native', gpu: 'rtx-4090', engine: 'sglang' });
  // Its prompt passes' fixed cost for this model, as the engine gives it.
  const passMs = Math.round(answer.speed.basis.serving_prompt_pass_overhead_s * 1000);
  assert.ok(passMs > 0);
  assert.ok(note.includes(`each prompt pass costs ${passMs} ms beside its compute`));
  assert.equal(answer.speed.basis.runtime, 'sglang/cuda');
  assert.ok(Math.abs(Number(await fieldValue(page, 'speed.decode_tokens_per_s')) / answer.speed.decode_tokens_per_s - 1) < 1e-9);
  // llama.cpp on the same card: its own single-stream row, no serving note.
  await page.selectOption('#engine', 'llama.cpp');
  await page.waitForFunction(() => document.querySelector('#speed-note').textContent.startsWith('llama.cpp on CUDA'));
  assert.doesNotMatch(await page.textContent('#speed-note'), /serving engine|Rough estimate/);
  assert.deepEqual(log.errors, []);
  await page.close();
});
