// The planner's bindings (fit, finetune, target, offers, recommend) in Node:
// the same answers as the native CLI, and errors as values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

import { loadModule } from './load.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const cli = process.env.LLMSIZER_CLI ?? resolve(root, 'build/native-release/llm-sizer');
const module = await loadModule();
const sizer = new module.Sizer();
const ask = (method, request) => JSON.parse(sizer[method](typeof request === 'string' ? request : JSON.stringify(request)));

function native(args) {
  const out = spawnSync(cli, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout);
}

test('what can I run: the wasm sweep is the CLI sweep, figure for figure', () => {
  const started = performance.now();
  const answer = ask('fit', { gpu: 'rtx-4090', ram_gib: 64, ctx: 8192 });
  const ms = performance.now() - started;
  assert.equal(answer.ok, true);
  console.log(`# wasm fit sweep on rtx-4090 + 64 GiB: ${ms.toFixed(1)} ms, ${answer.estimates} estimates`);
  const cliAnswer = native(['fit', '--gpu', 'rtx-4090', '--ram-gib', '64', '--ctx', '8192']);
  assert.deepEqual(answer.results, cliAnswer.results);
  assert.equal(answer.estimates, cliAnswer.estimates);
  // llama.cpp keeps its KV cache in f16 unless -ctk/-ctv say otherwise.
  assert.equal(answer.kv, 'f16');
  assert.equal(ask('fit', { gpu: 'h100-sxm', engine: 'vllm' }).kv, 'bf16');
  // Llama-3.1-8B at Q8_0 (~8.5 GB) fits a 24 GB card with room for a long context.
  const llama = answer.results.find((r) => r.model === 'llama-3.1-8b' && r.quant === 'Q8_0');
  assert.ok(llama, 'llama-3.1-8b Q8_0 fits a 4090');
  assert.ok(llama.max_ctx >= 8192);
  for (const r of answer.results) assert.ok(r.max_ctx >= 8192, `${r.model} ${r.quant} holds the context asked for`);
  // A MoE too large for 24 GB runs with its experts in the 64 GiB of RAM.
  assert.ok(answer.results.some((r) => r.offload_bytes > 0 && r.offload_bytes <= 64 * 2 ** 30));
});

test('fine-tuning memory: the wasm answer is the CLI answer', () => {
  const answer = ask('finetune', { model: 'llama-3.1-8b', method: 'qlora', seq: 2048, micro_batch: 1, lora_targets: 'attention' });
  assert.equal(answer.ok, true);
  const cliAnswer = native(['finetune', '--model', 'llama-3.1-8b', '--method', 'qlora', '--seq', '2048', '--targets', 'attention']);
  for (const key of ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes', 'total_bytes', 'trainable_params', 'device']) {
    assert.deepEqual(answer[key], cliAnswer[key], key);
  }
  assert.equal(answer.total_bytes, answer.weights_bytes + answer.gradients_bytes + answer.optimizer_bytes + answer.activations_bytes);
  // LoRA r=16 on q,k,v,o of Llama-3.1-8B: 32 layers x 16 x ((4096+4096) + (4096+1024) x 2 + (4096+4096)) = 6,815,744.
  assert.equal(answer.trainable_params, 32 * 16 * (8192 + 5120 * 2 + 8192));
});

test('recommend with a serving target and the rent-vs-buy rows: the CLI answer', () => {
  const request = { model: 'llama-3.1-8b', quant: 'FP8', engine: 'vllm', ctx: 8192, users: 16, tokens_per_s_per_user: 20, hours_per_day: 8 };
  const answer = ask('recommend', request);
  assert.equal(answer.ok, true);
  const cliAnswer = native(['recommend', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--ctx', '8192',
    '--users', '16', '--tokens-per-s', '20', '--hours-per-day', '8']);
  delete answer.ok;
  assert.deepEqual(answer, cliAnswer);
  assert.ok(answer.target.buy.tokens_per_s_per_user >= 20);
  assert.ok(answer.target.rent.tokens_per_s_per_user >= 20);
  // Each row's month is its hourly price x 8 h x 365.25/12 days.
  for (const row of answer.offers) assert.ok(Math.abs(row.usd_per_month - row.usd_per_hour * 8 * 365.25 / 12) < 1e-9);
  const target = ask('target', request);
  assert.deepEqual(target.buy, answer.target.buy);
  const offers = ask('offers', request);
  assert.deepEqual(offers.offers, answer.offers);
  assert.equal(offers.hours_per_day, 8);
});

test('a serving curve: the wasm answer is llm-sizer serve\'s, point for point', () => {
  const request = { model: 'llama-3.1-8b', quant: 'FP8', engine: 'vllm', gpu: 'h100-sxm', prompt: 1024, output_tokens: 1024,
    concurrency: [1, 4, 16, 64], target_tokens_per_s_per_user: 40 };
  const answer = ask('serve', request);
  assert.equal(answer.ok, true, answer.error?.message);
  const cliAnswer = native(['serve', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--gpu', 'h100-sxm',
    '--prompt', '1024', '--output-tokens', '1024', '--concurrency', '1,4,16,64', '--target-tokens-per-s-per-user', '40']);
  assert.deepEqual(answer.points, cliAnswer.points);
  for (const key of ['max_concurrency', 'saturation', 'target', 'input_tokens', 'output_tokens']) {
    assert.deepEqual(answer[key], cliAnswer[key], key);
  }
  assert.equal(answer.gpus, 1);
  assert.equal(answer.engine, 'vllm');
  assert.deepEqual(answer.points.map((p) => p.concurrency), [1, 4, 16, 64]);
  // Every point's total is its decoding requests at their own rate, less the
  // steps that carry each one's own prompt (before its first token: in the
  // total's time, not in its time per token). Alone, 1024 tokens of prompt
  // take a step or two beside 1024 steps of answer.
  for (const p of answer.points) {
    assert.ok(p.output_tokens_per_s <= p.decoding_concurrency * p.tokens_per_s_per_user * (1 + 1e-9));
    assert.ok(p.output_tokens_per_s > 0.9 * p.decoding_concurrency * p.tokens_per_s_per_user);
  }
  // The target point decodes each user at least as fast as asked, and is the most output among those that do.
  const hit = answer.points.find((p) => p.concurrency === answer.target);
  assert.ok(hit.tokens_per_s_per_user >= 40);
  for (const p of answer.points) if (p.tokens_per_s_per_user >= 40) assert.ok(p.output_tokens_per_s <= hit.output_tokens_per_s);
  // Beside the first point, the single-stream model's decode of the same request after its prompt.
  const one = ask('estimate', { model: 'llama-3.1-8b', quant: 'FP8', engine: 'vllm', gpu: 'h100-sxm', prompt: 1024,
    output_tokens: 1024, ctx: 2048, batch: 1 });
  assert.equal(answer.single_stream_tokens_per_s, one.speed.decode_tokens_per_s_after_prompt);
  // Without a list, a sweep 1, 2, 4, ... to saturation, with the serving row it stands on.
  const sweep = ask('serve', { model: 'llama-3.1-8b', quant: 'FP8', engine: 'vllm', gpu: 'h100-sxm' });
  assert.deepEqual(sweep.points.slice(0, 3).map((p) => p.concurrency), [1, 2, 4]);
  assert.equal(sweep.points[0].basis.row, 'vllm/cuda');
  assert.ok(sweep.points[0].basis.fitted_records > 0);
});

test('planner requests that are wrong get an error value naming the field', () => {
  const cases = [
    ['fit', '{nope', 'request.not_json'],
    ['fit', '[]', 'request.not_object'],
    ['fit', {}, 'request.bad_value'],
    ['fit', { gpu: 'no-such-gpu' }, 'request.unknown_gpu'],
    ['fit', { gpu: 'rtx-4090', model: 'llama-3.1-8b' }, 'request.bad_value'],
    ['fit', { gpu: 'rtx-4090', ram_gib: -1 }, 'request.bad_value'],
    ['fit', { gpu: 'rtx-4090', gpus: 65 }, 'request.bad_value'],
    ['finetune', { model: 'llama-3.1-8b', method: '<img src=x>' }, 'request.bad_value'],
    ['finetune', { model: 'llama-3.1-8b', lora_targets: 'q,,v' }, 'request.bad_value'],
    ['finetune', { model: 'llama-3.1-8b', zero: 4 }, 'request.bad_value'],
    ['finetune', { model: 'nope' }, 'request.unknown_model'],
    ['target', { model: 'llama-3.1-8b' }, 'request.bad_value'],
    ['target', { model: 'llama-3.1-8b', tokens_per_s_per_user: 10, users: 0 }, 'request.bad_value'],
    ['offers', { model: 'llama-3.1-8b', hours_per_day: 25 }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm', concurrency: [0] }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm', concurrency: '1,2' }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm', target_tokens_per_s_per_user: -1 }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-8b', gpu: 'h100-sxm', output_tokens: '<b>' }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-8b' }, 'request.bad_value'],
    ['serve', { model: 'llama-3.1-405b', gpu: 'rtx-4090' }, 'serve.does_not_fit'],  // ~228 GiB of Q4_K_M weights on a 24 GiB card
  ];
  for (const [method, request, id] of cases) {
    const answer = ask(method, request);
    assert.equal(answer.ok, false, `${method} ${JSON.stringify(request)}`);
    assert.equal(answer.error.id, id, `${method} ${JSON.stringify(request)}: ${answer.error.message}`);
  }
  const named = ask('fit', { gpu: 'rtx-4090', ram_gib: 'lots' });
  assert.match(named.error.message, /ram_gib/);
});
