// Issue 7 in the browser: a local multi-GB GGUF (sparse, made here) is sized
// from its header alone, read with Blob.slice; nothing else is read or sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, statSync, ftruncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fieldValue, openPage, useBrowser } from './harness.mjs';

// A GGUF v3 of Llama-3.1-8B at Q8_0 (norms F32): the header written, the tensor
// data left as a hole, so the file is 8.5 GB on paper and a few MB on disk.
function writeLlamaGguf(path) {
  const chunks = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  const str = (s) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  const kvU32 = (k, v) => Buffer.concat([str(k), u32(4), u32(v)]);
  const kvStr = (k, v) => Buffer.concat([str(k), u32(8), str(v)]);
  const h = 4096; const ff = 14336; const vocab = 128256;
  const tokens = [];
  for (let i = 0; i < vocab; i += 1) tokens.push(str(`t${i}`));
  const kvs = [kvStr('general.architecture', 'llama'), kvStr('general.name', '<b>Sparse Llama</b>'), kvU32('general.file_type', 7),
    kvU32('llama.block_count', 32), kvU32('llama.embedding_length', h), kvU32('llama.attention.head_count', 32),
    kvU32('llama.attention.head_count_kv', 8), kvU32('llama.context_length', 131072),
    Buffer.concat([str('tokenizer.ggml.tokens'), u32(9), u32(8), u64(vocab), ...tokens])];
  const tensors = [['token_embd.weight', 8, [h, vocab]]];
  for (let i = 0; i < 32; i += 1) {
    const p = `blk.${i}.`;
    tensors.push([`${p}attn_norm.weight`, 0, [h]], [`${p}attn_q.weight`, 8, [h, h]], [`${p}attn_k.weight`, 8, [h, 1024]],
      [`${p}attn_v.weight`, 8, [h, 1024]], [`${p}attn_output.weight`, 8, [h, h]], [`${p}ffn_norm.weight`, 0, [h]],
      [`${p}ffn_gate.weight`, 8, [h, ff]], [`${p}ffn_up.weight`, 8, [h, ff]], [`${p}ffn_down.weight`, 8, [ff, h]]);
  }
  tensors.push(['output_norm.weight', 0, [h]], ['output.weight', 8, [h, vocab]]);
  const bytesOf = (type, dims) => dims.slice(1).reduce((n, d) => n * d, type === 0 ? dims[0] * 4 : (dims[0] / 32) * 34);
  chunks.push(Buffer.from('GGUF'), u32(3), u64(tensors.length), u64(kvs.length), ...kvs);
  let offset = 0;
  for (const [name, type, dims] of tensors) {
    chunks.push(str(name), u32(dims.length), ...dims.map(u64), u32(type), u64(offset));
    offset += Math.ceil(bytesOf(type, dims) / 32) * 32;
  }
  let header = Buffer.concat(chunks);
  header = Buffer.concat([header, Buffer.alloc((32 - (header.length % 32)) % 32)]);
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  ftruncateSync(fd, header.length + offset);
  closeSync(fd);
  return { headerBytes: header.length, fileBytes: header.length + offset };
}

const session = useBrowser();

test('a local multi-GB GGUF is sized from its header; only the header is read', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'llmsizer-gguf-')), 'Sparse-Llama-Q8_0.gguf');
  const { headerBytes, fileBytes } = writeLlamaGguf(path);
  assert.equal(statSync(path).size, fileBytes);
  assert.ok(fileBytes > 8e9, `${fileBytes} bytes`);

  const { page, log } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&gpu=rtx-4090&ctx=8192`);
  // The full module (the GGUF reader is in it) comes after the first figures,
  // for the recommendations: once they are drawn it is here.
  await page.waitForSelector('[data-field="recommend.single.gpu"]:not([data-value=""])', { timeout: 30000 });
  await page.evaluate(() => {
    window.sliceEnds = [];
    const slice = Blob.prototype.slice;
    Blob.prototype.slice = function patched(start, end, type) {
      window.sliceEnds.push(end ?? this.size);
      return slice.call(this, start, end, type);
    };
  });
  const requests = [];
  page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
  await page.setInputFiles('#gguf-file', path);
  await page.waitForFunction(() => /Sizing/.test(document.getElementById('custom-facts').textContent), null, { timeout: 20000 });
  // For a GGUF, memory.weights_bytes is the tensor data the device holds
  // (Q8_0 Llama-3.1-8B: 8,532,934,656 bytes), less than the file's size on
  // disk (memory.file_bytes: header and tokenizer included).
  assert.equal(Number(await fieldValue(page, 'memory.weights_bytes')), 8532934656);
  assert.ok(8532934656 < fileBytes);
  // 8192 tokens of Llama-3.1-8B in f16: 1 GiB of KV, as for the catalog model.
  assert.equal(Number(await fieldValue(page, 'memory.kv_cache_bytes')), 2 ** 30);
  const maxRead = Math.max(...await page.evaluate(() => window.sliceEnds));
  assert.ok(maxRead >= headerBytes && maxRead < 64 * 2 ** 20, `read ${maxRead} bytes of a ${fileBytes}-byte file`);
  // The file's name field holds markup: it is shown as text.
  assert.match(await page.textContent('#custom-facts'), /<b>Sparse Llama<\/b>/);
  assert.equal(await page.$('#custom-facts b'), null);
  // Nothing leaves the machine: reading the file makes no request at all.
  assert.deepEqual(requests, []);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('a pasted config.json is sized through the same engine path', async () => {
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=glm-4.5&gpu=rtx-4090&ctx=8192&quant=Q8_0`);
  const config = JSON.stringify({ model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32,
    num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: 128256 });
  await page.click('#own-model summary');  // behind a disclosure
  await page.fill('#config-text', config);
  await page.waitForFunction(() => /8,030,261,248 parameters/.test(document.getElementById('custom-facts').textContent));
  // Same architecture as the catalog's Llama-3.1-8B: the same weights at Q8_0.
  const pasted = await fieldValue(page, 'memory.weights_bytes');
  await page.click('#custom-clear');
  await page.selectOption('select[name="model"]', 'llama-3.1-8b');
  await page.waitForFunction((w) => document.querySelector('[data-field="memory.weights_bytes"]').dataset.value === w, pasted);
  await page.fill('#config-text', '{"model_type": "llama"');
  await page.waitForFunction(() => /not valid JSON/.test(document.getElementById('custom-facts').textContent));
  // Clearing the text (not the button) goes back to the catalog model, and the
  // pasted model's line goes with it.
  await page.fill('#config-text', config);
  await page.waitForFunction(() => /8,030,261,248 parameters/.test(document.getElementById('custom-facts').textContent));
  await page.fill('#config-text', '');
  await page.waitForFunction(() => document.getElementById('custom-facts').textContent === '');
  assert.equal(await fieldValue(page, 'memory.weights_bytes'), pasted);
  assert.equal(await page.$eval('#custom-clear', (b) => b.hidden), true);
  assert.deepEqual(log.errors, []);
  await page.close();
});

// A BF16 safetensors checkpoint of Llama-3.1-8B in two sparse shards plus its
// config.json: sized from the shard headers, 16,060,522,496 bytes of tensors
// (8,030,261,248 parameters x 2 bytes).
function writeLlamaSafetensors(dir) {
  const h = 4096; const ff = 14336; const vocab = 128256;
  const names = [['model.embed_tokens.weight', [vocab, h]]];
  for (let i = 0; i < 32; i += 1) {
    const p = `model.layers.${i}.`;
    names.push([`${p}input_layernorm.weight`, [h]], [`${p}self_attn.q_proj.weight`, [h, h]], [`${p}self_attn.k_proj.weight`, [1024, h]],
      [`${p}self_attn.v_proj.weight`, [1024, h]], [`${p}self_attn.o_proj.weight`, [h, h]], [`${p}post_attention_layernorm.weight`, [h]],
      [`${p}mlp.gate_proj.weight`, [ff, h]], [`${p}mlp.up_proj.weight`, [ff, h]], [`${p}mlp.down_proj.weight`, [h, ff]]);
  }
  names.push(['model.norm.weight', [h]], ['lm_head.weight', [vocab, h]]);
  const paths = [];
  [names.slice(0, 150), names.slice(150)].forEach((chunk, k) => {
    const header = {};
    let offset = 0;
    for (const [name, shape] of chunk) {
      const n = shape.reduce((a, d) => a * d, 2);
      header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + n] };
      offset += n;
    }
    const text = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(text.length));
    const path = join(dir, `model-0000${k + 1}-of-00002.safetensors`);
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.concat([length, text]));
    ftruncateSync(fd, 8 + text.length + offset);
    closeSync(fd);
    paths.push(path);
  });
  const config = join(dir, 'config.json');
  const fd = openSync(config, 'w');
  writeSync(fd, JSON.stringify({ model_type: 'llama', hidden_size: h, intermediate_size: ff, num_attention_heads: 32,
    num_hidden_layers: 32, num_key_value_heads: 8, vocab_size: vocab }));
  closeSync(fd);
  return [...paths, config];
}

test('a local safetensors checkpoint is sized from its shard headers and config.json', async () => {
  const files = writeLlamaSafetensors(mkdtempSync(join(tmpdir(), 'llmsizer-st-')));
  const { page, log } = await openPage(session.browser, `${session.server.url}#model=glm-4.5&gpu=h100-sxm&ctx=8192&engine=vllm&kv=bf16`);
  await page.setInputFiles('#safetensors-file', files);
  await page.waitForFunction(() => /2 shard header/.test(document.getElementById('custom-facts').textContent), null, { timeout: 20000 });
  assert.match(await page.textContent('#custom-facts'), /8,030,261,248 parameters/);
  const weights = Number(await fieldValue(page, 'memory.weights_bytes'));
  assert.ok(Math.abs(weights - 16060522496) / 16060522496 < 0.001, `weights ${weights}`);
  assert.deepEqual(log.errors, []);
  await page.close();
});
