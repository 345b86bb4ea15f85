// Contract, errors and native parity of the WebAssembly engine, in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { spawnSync } from 'node:child_process';

import { cliBin, loadModule, nativeResponses } from './load.mjs';

const module = await loadModule();
const sizer = new module.Sizer();
const ask = (request) => JSON.parse(sizer.estimate(typeof request === 'string' ? request : JSON.stringify(request)));

test('the embedded catalog loads and lists models, devices, quants and engines', () => {
  assert.equal(sizer.loadError(), '');
  const catalog = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));
  assert.ok(catalog.models.length >= 90, `${catalog.models.length} models`);
  assert.ok(catalog.devices.length >= 60, `${catalog.devices.length} devices`);
  assert.ok(catalog.quants.some((q) => q.name === 'Q4_K_M'));
  assert.deepEqual(catalog.engines, ['llama.cpp', 'ollama', 'vllm', 'sglang', 'mlx', 'tensorrt-llm']);
  const glm = catalog.models.find((m) => m.id === 'glm-4.5');
  assert.equal(glm.moe, true);
  // Llama-3.1-8B: 8,030,261,248 parameters by hand (tests/test_params.cpp).
  assert.equal(catalog.models.find((m) => m.id === 'llama-3.1-8b').params_total, 8030261248);
});

test('an estimate has the CLI contract fields', () => {
  const r = ask({ model: 'llama-3.1-8b', ctx: 131072, kv: 'f16', gpu: 'rtx-4090' });
  assert.equal(r.ok, true);
  // Issue 2: Llama-3.1-8B at 131072 tokens in f16 is 16384 MiB of KV, exactly.
  assert.equal(r.memory.kv_cache_bytes, 16384 * 2 ** 20);
  for (const key of ['weights_bytes', 'kv_cache_bytes', 'runtime_bytes', 'offload_bytes', 'required_bytes', 'usable_bytes', 'utilization', 'fits', 'per_gpu']) {
    assert.ok(key in r.memory, key);
  }
  assert.ok(Array.isArray(r.warnings));
  // Speed, cost and commands where it fits (8K tokens on the same card).
  const fits = ask({ model: 'llama-3.1-8b', ctx: 8192, kv: 'f16', gpu: 'rtx-4090' });
  assert.equal(fits.memory.fits, true);
  for (const key of ['decode_tokens_per_s', 'decode_tokens_per_s_total', 'prefill_tokens_per_s', 'ttft_s']) assert.ok(key in fits.speed, key);
  assert.ok('usd_per_million_tokens' in fits.cost);
  assert.ok(fits.commands['llama.cpp'].steps[0].startsWith('llama-server -hf '));
  assert.equal(fits.suggestions, undefined);
});

test('a scenario that does not fit answers suggestions instead of a speed, each fitting by its own estimate', () => {
  const r = ask({ model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x' });
  assert.equal(r.memory.fits, false);
  assert.equal(r.speed, null);
  assert.equal(r.cost, null);
  assert.equal(r.commands, undefined);
  assert.ok(r.suggestions.length >= 1);
  for (const s of r.suggestions) {
    const again = ask({ model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x', ...s.change });
    assert.equal(again.memory.fits, true, JSON.stringify(s.change));
    assert.equal(again.memory.required_bytes, s.required_bytes);
    assert.equal(again.speed.decode_tokens_per_s, s.decode_tokens_per_s);
  }
  const offload = r.suggestions.find((s) => 'offload' in s.change);
  assert.equal(offload.change.offload_mode, 'experts');
  assert.match(offload.commands['llama.cpp'].steps[0], new RegExp(`--n-cpu-moe ${offload.offloaded_layers}\\b`));
});

test('bad requests get an error value, never an exception', () => {
  const cases = [
    ['{not json', 'request.not_json'],
    ['[1,2]', 'request.not_object'],
    [{ model: 'no-such-model' }, 'request.unknown_model'],
    [{ model: 'llama-3.1-8b', gpu: 'no-such-gpu' }, 'request.unknown_gpu'],
    [{ model: 'llama-3.1-8b', quant: 'Q9_Z' }, 'quant.unknown'],
    [{ model: 'llama-3.1-8b', ctx: 'abc' }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', ctx: -1 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', ctx: 1e300 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', ctx: 8192.5 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', batch: 1e9 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', offload: 2 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', copies: 0 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', copies: 65 }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', engine: '<script>' }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', custom_gpu: { memory_gib: -5 } }, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', custom_gpu: 'big' }, 'request.bad_value'],
    [{ config: '{"hidden_size": 1e300}' }, 'config.bad_field'],
    [{ config: '{"model_type": "llama", "hidden_size": 4096}' }, 'config.missing_field'],
    [{ config: 'not json' }, 'config.not_json'],
    [{}, 'request.bad_value'],
    [{ model: 'llama-3.1-8b', config: '{}' }, 'request.bad_value'],
  ];
  for (const [request, id] of cases) {
    const r = ask(request);
    assert.equal(r.ok, false, JSON.stringify(request));
    assert.equal(r.error.id, id, `${JSON.stringify(request)}: ${r.error.message}`);
    assert.ok(r.error.message.length > 10);
  }
  // The module still works after all of that.
  assert.equal(ask({ model: 'llama-3.1-8b' }).ok, true);
});

test('markup in inputs comes back as plain text in messages', () => {
  const r = ask({ model: '<img src=x onerror=alert(1)>' });
  assert.equal(r.ok, false);
  assert.ok(r.error.message.includes('<img src=x onerror=alert(1)>'), 'echoed verbatim as text, not sanitised into something else');
});

test('an unknown model or device id gets the ids the engine refuses it with, as the CLI names them', () => {
  // The page's link notice takes these; the CLI's refusal carries the same words.
  for (const [kind, call, id, flag] of [['model', 'didYouMeanModel', 'Llama-3.1-8B', '--model'], ['GPU', 'didYouMeanDevice', 'h100', '--gpu']]) {
    const suggestion = sizer[call](id);
    assert.match(suggestion, /^ \(did you mean .+\?\)$/, `${kind} ${id}: ${suggestion}`);
    const args = flag === '--model' ? ['estimate', flag, id] : ['estimate', '--model', 'llama-3.1-8b', flag, id];
    const cli = spawnSync(cliBin, args, { encoding: 'utf8' });
    assert.notEqual(cli.status, 0);
    assert.ok(cli.stderr.includes(`unknown ${kind} '${id}'${suggestion}`), cli.stderr);
  }
  // Nothing close, and hostile or huge text: no suggestion, no exception.
  assert.equal(sizer.didYouMeanModel('zzzzzzzzqqqq'), '');
  assert.equal(sizer.didYouMeanDevice('<img src=x onerror=alert(1)>'), '');
  assert.equal(sizer.didYouMeanModel('x'.repeat(100000)), '');
});

// A seeded grid of scenarios: wasm and native must agree (bytes equal, rates
// within 1e-12 relative). Floating-point contraction is off in both builds.
function grid(count) {
  const models = ['llama-3.1-8b', 'llama-3.1-70b', 'qwen3-30b-a3b', 'deepseek-v3', 'gpt-oss-120b', 'gemma-3-27b-it',
    'qwen3-next-80b-a3b-instruct', 'nemotron-h-56b', 'glm-4.5', 'mixtral-8x7b', 'llama-4-scout-17b-16e', 'phi-4'];
  const quants = ['Q4_K_M', 'Q8_0', 'IQ2_XXS', 'UD-Q4_K_XL', 'F16', 'native', 'FP8', 'MLX-4bit', 'AWQ'];
  const engines = ['llama.cpp', 'ollama', 'vllm', 'sglang', 'mlx'];
  const gpus = ['rtx-4090', 'h100-sxm', 'mi300x', 'mac-m2-ultra-128gb', 'rtx-3060-12gb', ''];
  const kvs = ['f16', 'q8_0', 'q4_0', 'fp8', 'bf16'];
  let seed = 20261130;
  const pick = (list) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return list[seed % list.length];
  };
  const out = [];
  for (let i = 0; i < count; i += 1) {
    const r = { model: pick(models), quant: pick(quants), engine: pick(engines), kv: pick(kvs),
      ctx: pick([512, 4096, 8192, 32768, 131072, 100000]), batch: pick([1, 1, 2, 8, 32]),
      gpus: pick([1, 1, 2, 4, 8]), offload: pick([0, 0, 0.25, 0.5]), prompt: pick([512, 4096]) };
    const gpu = pick(gpus);
    if (gpu) r.gpu = gpu;
    out.push(r);
  }
  return out;
}

function compare(path, a, b, problems) {
  if (typeof a === 'number' && typeof b === 'number') {
    const same = Number.isInteger(a) && Number.isInteger(b) ? a === b : Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
    if (!same) problems.push(`${path}: wasm ${a} native ${b}`);
  } else if (a && b && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) compare(`${path}.${k}`, a[k], b[k], problems);
  } else if (a !== b) {
    problems.push(`${path}: wasm ${JSON.stringify(a)} native ${JSON.stringify(b)}`);
  }
}

test('wasm and native agree over 2000 scenarios', () => {
  const requests = grid(2000);
  const native = nativeResponses(requests);
  assert.equal(native.length, requests.length);
  const problems = [];
  let estimated = 0;
  requests.forEach((request, i) => {
    const wasm = ask(request);
    const nat = JSON.parse(native[i]);
    if (wasm.ok) estimated += 1;
    compare(`#${i}`, wasm, nat, problems);
  });
  assert.deepEqual(problems.slice(0, 10), []);
  assert.ok(estimated > 1000, `${estimated} of 2000 scenarios estimated`);
});

test('the catalog sweep answers every model x device x quantization as the estimates do', () => {
  const sweep = JSON.parse(sizer.sweep(JSON.stringify({ ctx: 16384 })));
  assert.equal(sweep.ok, true);
  const catalog = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));
  assert.deepEqual(sweep.devices, catalog.devices.map((d) => d.id));
  assert.deepEqual(sweep.models, catalog.models.filter((m) => m.sizable).map((m) => m.id));
  assert.equal(sweep.scenarios, sweep.models.length * sweep.devices.length * sweep.quants.length);
  assert.equal(sweep.best_quant.length, sweep.models.length * sweep.devices.length);
  for (let cell = 0; cell < sweep.best_quant.length; cell += 37) {
    const model = sweep.models[Math.floor(cell / sweep.devices.length)];
    const gpu = sweep.devices[cell % sweep.devices.length];
    // A quantization the engine does not run on that device (refused) is not an answer there.
    const fits = sweep.quants.map((quant) => {
      const r = ask({ model, gpu, quant, ctx: 16384 });
      return r.ok ? r.memory.fits : false;
    });
    assert.equal(sweep.best_quant[cell], fits.indexOf(true), `${model} on ${gpu}`);
  }
  const bad = JSON.parse(sizer.sweep('{"engine": "<b>x</b>"}'));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.id, 'request.bad_value');
  assert.equal(JSON.parse(sizer.sweep('not json')).error.id, 'request.not_json');
});

test('figures written through figuresInto and figuresFromJson are the estimate\'s, errors included', () => {
  const none = { model: '', config: '', quant: '', kv: '', engine: '', gpu: '', ctx: NaN, batch: NaN, gpus: NaN, offload: NaN, prompt: NaN, ram_gib: NaN };
  const requests = [
    { model: 'glm-4.5', quant: 'Q4_K_M', ctx: 8192, gpu: 'mi300x' },
    { model: 'llama-3.1-8b', quant: 'Q8_0', ctx: 131072, batch: 4, kv: 'q8_0', engine: 'vllm', gpu: 'rtx-4090', gpus: 2, offload: 0.25, prompt: 2048 },
    { model: 'qwen3-30b-a3b', ctx: 32768, offload: 0.5, gpu: 'rtx-4060-ti-16gb' },
    { model: 'qwen3-30b-a3b', ctx: 32768, offload: 0.5, gpu: 'rtx-4060-ti-16gb', ram_gib: 4 },  // RAM too small: does not fit
    { model: 'llama-3.1-8b' },
    { model: 'llama-3.1-8b', ctx: 0 },
    { model: 'llama-3.1-8b', ctx: 1.5 },
    { model: 'llama-3.1-8b', gpus: 2000 },
    { model: 'llama-3.1-8b', offload: 2 },
    { model: 'nope', gpu: 'rtx-4090' },
    { model: 'llama-3.1-8b', gpu: 'nope' },
    { model: 'llama-3.1-8b', quant: 'Q9_K' },
    { model: 'llama-3.1-8b', config: '{}' },
    { config: JSON.stringify({ model_type: 'llama', hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, vocab_size: 128256, intermediate_size: 14336 }), gpu: 'rtx-4090' },
  ];
  // The buffer's order: weights, KV cache, runtime, required, usable,
  // utilization, fits (-1 no device, 0, 1), decode tokens/s; NaN is absent
  // (decode too where it does not fit: the estimate's speed is null there).
  const expectedOf = (r) => [r.memory.weights_bytes, r.memory.kv_cache_bytes, r.memory.runtime_bytes, r.memory.required_bytes,
    r.memory.usable_bytes ?? NaN, r.memory.utilization ?? NaN, r.memory.fits == null ? -1 : Number(r.memory.fits), r.speed?.decode_tokens_per_s ?? NaN];
  const read = () => {
    const view = sizer.figuresView();
    return [...view];
  };
  const native = nativeResponses(requests).map((line) => JSON.parse(line));
  requests.forEach((request, i) => {
    const label = JSON.stringify(request);
    const f = { ...none, ...request };
    const fromFields = sizer.figuresInto(f.model, f.config, f.quant, f.kv, f.engine, f.gpu, f.ctx, f.batch, f.gpus, f.offload, f.prompt, f.ram_gib);
    const fieldsResult = fromFields ? read() : [sizer.figuresErrorId(), sizer.figuresErrorMessage()];
    const fromText = sizer.figuresFromJson(label);
    const textResult = fromText ? read() : [sizer.figuresErrorId(), sizer.figuresErrorMessage()];
    assert.equal(fromFields, native[i].ok, label);
    assert.equal(fromText, native[i].ok, label);
    const expected = native[i].ok ? expectedOf(native[i]) : [native[i].error.id, native[i].error.message];
    assert.deepEqual(fieldsResult, expected, label);
    assert.deepEqual(textResult, expected, label);
  });
});

test('a figures view detached by memory growth is replaced by a fresh one', () => {
  const request = { model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-4090' };
  const args = (r) => [r.model, '', r.quant, '', '', r.gpu, r.ctx, NaN, NaN, NaN, NaN, NaN];
  let view = sizer.figuresView();
  assert.equal(sizer.figuresInto(...args(request)), true);
  const before = view[3];
  // 48 MiB of file bytes copied into the module's memory makes it grow (16 MiB at start).
  sizer.estimateGguf(JSON.stringify({ parts: [{ name: 'x.gguf', file_bytes: 48 << 20, length: 48 << 20 }] }), new Uint8Array(48 << 20));
  assert.equal(view.byteLength, 0, 'the old view is detached');
  view = sizer.figuresView();
  assert.equal(sizer.figuresInto(...args({ ...request, ctx: 16384 })), true);
  const [expected] = nativeResponses([{ ...request, ctx: 16384 }]).map((line) => JSON.parse(line));
  assert.equal(view[3], expected.memory.required_bytes);
  assert.ok(view[3] > before);
});
