// The planner panels in Chromium: what can I run, buy or rent for many users,
// the rent-vs-buy table and fine-tuning memory show the engine's answers (the
// same the CLI prints) and follow the scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

import { artifacts, openPage, useBrowser, waitForApp } from './harness.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const cli = process.env.LLMSIZER_CLI ?? resolve(root, 'build/native-release/llm-sizer');
function native(args) {
  const out = spawnSync(cli, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout);
}

const session = useBrowser();

const LLAMA = '#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&batch=1&kv=f16&engine=llama.cpp&gpu=rtx-4090&gpus=1&offload=0&prompt=4096';

test("what can I run on a 16 GB Mac: its one memory named, gpt-oss-20b listed with experts in the CPU's share", async () => {
  // The CLI's answer (tests/test_planner.cpp works the five layers' experts out by hand): no RAM
  // beside the Mac's 16 GiB, whatever the RAM field holds.
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  await page.selectOption('#fit-gpu', 'mac-m4-16gb');
  await page.fill('#fit-gpus', '1');
  await page.selectOption('#fit-ctx', '8192');
  await page.click('#fit');
  await page.waitForSelector('#fit-table tbody tr[data-model="gpt-oss-20b"]', { timeout: 20000 });
  const expected = native(['fit', '--gpu', 'mac-m4-16gb', '--ctx', '8192']);
  assert.equal(expected.unified_memory_bytes, 16 * 2 ** 30);
  const note = await page.textContent('#fit-note');
  assert.match(note, /Apple M4, 16 GB \(16\.0 GiB shared by GPU and CPU/);
  assert.doesNotMatch(note, /GiB of RAM/);
  const row = expected.results.find((r) => r.model === 'gpt-oss-20b');
  assert.ok(row.offload_bytes > 0);
  assert.equal(Number(await page.$eval('#fit-table tbody tr[data-model="gpt-oss-20b"] [data-field="fit.offload_bytes"]', (e) => e.dataset.value)), row.offload_bytes);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('what can I run: the CLI sweep on the page, each row opening its scenario', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  await page.selectOption('#fit-gpu', 'rtx-4090');
  await page.fill('#fit-gpus', '1');
  await page.fill('#fit-ram', '64');
  await page.selectOption('#fit-ctx', '8192');
  await page.click('#fit');
  await page.waitForSelector('#fit-table tbody tr', { timeout: 20000 });
  const expected = native(['fit', '--gpu', 'rtx-4090', '--ram-gib', '64', '--ctx', '8192']);
  assert.equal(Number(await page.$eval('#fit-note', (e) => e.dataset.value)), expected.results.length);
  // One row per model by default: its best quantization, as the CLI ranks it.
  const firstOf = new Map();
  for (const r of expected.results) if (!firstOf.has(r.model)) firstOf.set(r.model, r);
  const rows = await page.$$eval('#fit-table tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model, quant: tr.dataset.quant,
    max_ctx: Number(tr.querySelector('[data-field="fit.max_ctx"]').dataset.value),
    speed: Number(tr.querySelector('[data-field="fit.decode_tokens_per_s"]').dataset.value),
  })));
  assert.equal(rows.length, firstOf.size);
  for (const row of rows) {
    const want = firstOf.get(row.model);
    assert.equal(row.quant, want.quant, row.model);
    assert.equal(row.max_ctx, want.max_ctx, row.model);
    assert.equal(row.speed, want.decode_tokens_per_s, row.model);
  }
  await page.check('#fit-all');
  assert.equal((await page.$$('#fit-table tbody tr')).length, Math.min(300, expected.results.length));
  // A row whose largest context needs more experts in RAM than the asked context says how many GiB.
  const moved = expected.results.find((r) => r.max_ctx_offload_bytes > r.offload_bytes);
  assert.ok(moved, 'an MoE reaches a longer context with more experts in RAM');
  const movedText = await page.$eval(`#fit-table tbody tr[data-model="${moved.model}"][data-quant="${moved.quant}"] [data-field="fit.max_ctx"]`,
    (e) => e.textContent);
  assert.match(movedText, new RegExp(`with ${(moved.max_ctx_offload_bytes / 2 ** 30).toFixed(1)} GiB of experts in RAM$`), movedText);
  // A MoE run with experts in RAM opens as a scenario that fits, with that offload.
  const moe = expected.results.find((r) => r.offload_bytes > 0);
  assert.ok(moe, 'a MoE needs RAM on a 24 GB card');
  await page.uncheck('#fit-all');
  await page.check('#fit-all');
  const link = await page.$(`#fit-table tbody tr[data-model="${moe.model}"][data-quant="${moe.quant}"] a`);
  assert.ok(link, `${moe.model} ${moe.quant} row`);
  await link.click();
  await page.waitForFunction((m) => location.hash.includes(`model=${m}`), moe.model);
  await page.waitForFunction(() => document.querySelector('#verdict').dataset.value !== '');
  assert.equal(await page.$eval('#verdict', (e) => e.dataset.value), 'true');
  await page.screenshot({ path: join(artifacts, 'planner-what-fits.png'), fullPage: true });
  assert.deepEqual(log.errors, []);
  await page.close();
});

// The rows the page shows by default: each model's first row in the engine's order.
function firstRows(results) {
  const seen = new Set();
  return results.filter((r) => !seen.has(r.model) && seen.add(r.model));
}
const fitRows = (page) => page.$$eval('#fit-table tbody tr', (trs) => trs.map((tr) => ({
  model: tr.dataset.model, quant: tr.dataset.quant,
  format: tr.querySelector('[data-field="fit.format"]').textContent,
  uses: tr.querySelector('[data-field="fit.uses"]').dataset.value,
  ctx: tr.querySelector('[data-field="fit.max_ctx"]').textContent,
})));
async function listed(page, phrase) {
  await page.waitForFunction((p) => document.querySelector('#fit-note').textContent.includes(p), phrase, { timeout: 30000 });
  return fitRows(page);
}

test('what can I run: ranked as asked, filtered by use, formats and limits labelled, Open shows the verdict', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  await page.selectOption('#fit-gpu', 'rtx-4090');
  await page.fill('#fit-ram', '64');
  await page.selectOption('#fit-ctx', '8192');
  const base = ['fit', '--gpu', 'rtx-4090', '--ram-gib', '64', '--ctx', '8192'];

  // A coding question: coder models only, the largest that fits first.
  await page.selectOption('#fit-use', 'coding');
  await page.click('#fit');
  const coding = await listed(page, 'coding models');
  const codingWant = firstRows(native([...base, '--use', 'coding']).results);
  assert.ok(codingWant.length >= 2, 'several coder models fit a 24 GB card with 64 GiB of RAM');
  assert.deepEqual(coding.map((r) => [r.model, r.quant]), codingWant.map((r) => [r.model, r.quant]));
  for (const r of coding) assert.ok(r.uses.split(',').includes('coding'), r.model);
  // Not only models named for code: those whose cards present them for it.
  for (const id of ['gpt-oss-120b', 'qwen3.6-35b-a3b', 'glm-4.5-air']) {
    assert.ok(coding.some((r) => r.model === id), `${id} is listed for coding`);
  }

  // Fastest first: the same models in another order, as the engine ranks them.
  await page.selectOption('#fit-rank', 'speed');
  const fastest = await listed(page, 'fastest first');
  const fastestWant = firstRows(native([...base, '--use', 'coding', '--rank', 'speed']).results);
  assert.deepEqual(fastest.map((r) => [r.model, r.quant]), fastestWant.map((r) => [r.model, r.quant]));
  assert.notDeepEqual(fastest.map((r) => r.model), coding.map((r) => r.model), 'rank changes the rows');

  // Largest context, any use: limits the config does not state are labelled, not invented.
  await page.selectOption('#fit-use', '');
  await page.selectOption('#fit-rank', 'context');
  const longest = await listed(page, 'longest context first');
  const longestWant = firstRows(native([...base, '--rank', 'context']).results);
  assert.deepEqual(longest.map((r) => r.model), longestWant.map((r) => r.model));
  assert.ok(longest.length > coding.length, 'any use lists more models than coding');
  for (const [i, r] of longest.entries()) {
    const want = longestWant[i];
    if (want.max_ctx_known) assert.doesNotMatch(r.ctx, /unknown/, r.model);
    else assert.match(r.ctx, /the model's own limit is not known/, r.model);
  }
  const falcon = longest.find((r) => r.model === 'falcon-7b');
  assert.ok(falcon, 'Falcon 7B fits a 24 GB card');
  assert.match(falcon.ctx, /^8,192 tokens fit \(the model's own limit is not known\)$/);

  // Best quality, any use: a 32B model above Llama 3.2 1B; checkpoint-only
  // entries say what they were sized from.
  await page.selectOption('#fit-rank', 'quality');
  const quality = await listed(page, 'or faster first');
  const order = quality.map((r) => r.model);
  assert.ok(order.indexOf('qwen2.5-coder-32b-instruct') < order.indexOf('llama-3.2-1b'));
  const nvfp4 = quality.find((r) => r.model === 'qwen3.6-27b-nvfp4');
  assert.ok(nvfp4, 'Qwen3.6 27B NVFP4 is listed');
  assert.match(nvfp4.format, new RegExp(`^GGUF ${nvfp4.quant} · sized from the architecture; this entry's own checkpoint is NVFP4$`));
  const llama = quality.find((r) => r.model === 'llama-3.1-8b');
  assert.equal(llama.format, `GGUF ${llama.quant}`);

  // Open: the row's scenario, and the reader brought to its verdict.
  await page.evaluate(() => window.scrollTo(0, 0));
  const row = quality[quality.length - 1];
  await page.click(`#fit-table tbody tr[data-model="${row.model}"][data-quant="${row.quant}"] a`);
  await page.waitForFunction((m) => location.hash.includes(`model=${m}`), row.model);
  await page.waitForFunction(() => document.activeElement?.id === 'verdict', null, { timeout: 10000 });
  const box = await page.evaluate(() => {
    const r = document.querySelector('#verdict').getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: window.innerHeight };
  });
  assert.ok(box.top >= 0 && box.top < box.height, `verdict top ${box.top} within the ${box.height}px viewport`);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('buy or rent for many users, and the rent-vs-buy table, as the CLI answers', async () => {
  const hash = '#model=llama-3.1-8b&quant=FP8&ctx=8192&batch=1&kv=bf16&engine=vllm&gpu=h100-sxm&gpus=1&offload=0&prompt=4096';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await page.fill('#serve-users', '16');
  await page.fill('#serve-speed', '20');
  await page.click('#serve');
  await page.waitForSelector('[data-field="target.buy.gpu"]');
  const expected = native(['recommend', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--ctx', '8192', '--kv-type', 'bf16',
    '--users', '16', '--tokens-per-s', '20', '--hours-per-day', '8']);
  assert.equal(await page.$eval('[data-field="target.buy.gpu"]', (e) => e.dataset.value), expected.target.buy.gpu);
  assert.equal(Number(await page.$eval('[data-field="target.rent.usd_per_hour"]', (e) => e.dataset.value)), expected.target.rent.usd_per_hour);
  // With longer answers (the Serving panel's tokens out) each user needs more: the CLI's --output-tokens.
  await page.fill('#serving-out', '8192');
  await page.click('#serve');
  const longer = native(['recommend', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--ctx', '8192', '--kv-type', 'bf16',
    '--users', '16', '--tokens-per-s', '20', '--hours-per-day', '8', '--output-tokens', '8192']);
  await page.waitForFunction((v) => document.querySelector('[data-field="target.rent.usd_per_hour"]').dataset.value === String(v),
    longer.target.rent?.usd_per_hour ?? '');
  assert.equal(await page.$eval('[data-field="target.buy.gpu"]', (e) => e.dataset.value), longer.target.buy?.gpu ?? '');
  await page.fill('#serving-out', '1024');

  // Many users of a 70B under llama.cpp: copies of the model side by side, said with the figure.
  const many = native(['recommend', '--model', 'llama-3.3-70b', '--ctx', '8192', '--users', '50', '--tokens-per-s', '20', '--hours-per-day', '8']);
  assert.ok(many.target.buy.copies > 1);
  await page.evaluate(() => { location.hash = '#model=llama-3.3-70b&quant=Q4_K_M&ctx=8192&batch=1&kv=f16&engine=llama.cpp&gpu=h100-sxm&gpus=1&offload=0&prompt=4096'; });
  await page.waitForFunction(() => location.hash.includes('llama-3.3-70b'));
  await page.fill('#serve-users', '50');
  await page.click('#serve');
  await page.waitForFunction((g) => document.querySelector('[data-field="target.buy.gpu"]')?.dataset.value === g, many.target.buy.gpu);
  assert.ok((await page.$eval('[data-field="target.buy.gpu"]', (e) => e.textContent))
    .includes(`as ${many.target.buy.copies} copies of the model, ${many.target.buy.gpus_per_copy} GPU${many.target.buy.gpus_per_copy > 1 ? 's' : ''} and up to ${many.target.buy.users_per_copy} users each` +
      (many.target.buy.servers > 1 ? ` on ${many.target.buy.servers} machines of ${many.target.buy.count / many.target.buy.servers} GPUs` : '')));
  // "open one copy": the workbench on one copy's GPUs with its users, which fits there.
  await page.click('[data-field="target.buy.gpu"] a.open-copy');
  await page.waitForFunction((b) => location.hash.includes(`gpu=${b.gpu}&gpus=${b.gpus_per_copy}`) && location.hash.includes(`batch=${b.users_per_copy}`), many.target.buy);
  await page.waitForFunction(() => document.querySelector('#verdict')?.textContent.startsWith('Fits'), null, { timeout: 20000 });
  // Its launch commands start one machine's copies (every machine of the plan runs the same), as
  // llm-sizer command --copies prints them: a llama-server per GPU and port. Back to one copy, one command.
  const b = many.target.buy;
  const here = b.copies / b.servers;
  assert.ok(here > 1);
  assert.ok((await page.evaluate(() => location.hash)).includes(`copies=${here}`));
  assert.equal(await page.$eval('#copies', (e) => e.value), String(here));
  const layout = native(['command', '--model', 'llama-3.3-70b', '--ctx', '8192', '--gpu', b.gpu, '--gpus', String(b.gpus_per_copy),
    '--batch', String(b.users_per_copy), '--copies', String(here)]);
  assert.equal(layout['llama.cpp'].steps.length, here);
  assert.deepEqual(await page.$$eval('#commands [data-engine="llama.cpp"] pre', (ps) => ps.map((x) => x.textContent)), layout['llama.cpp'].steps);
  assert.ok((await page.textContent('#commands-note')).startsWith(`These start ${here} copies of this setup side by side`));
  await page.fill('#copies', '1');
  await page.dispatchEvent('#copies', 'change');
  await page.waitForFunction(() => document.querySelectorAll('#commands [data-engine="llama.cpp"] pre').length === 1);
  assert.ok(!(await page.evaluate(() => location.hash)).includes('copies='));
  assert.equal(await page.textContent('#commands-note'), '');
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.fill('#serve-users', '16');

  await page.fill('#offers-hours', '8');
  await page.waitForFunction(() => document.querySelector('#offers-note').textContent.includes('8 h a day'));
  const rows = await page.$$eval('#offers tbody tr', (trs) => trs.map((tr) => ({
    month: Number(tr.querySelector('[data-field="offer.usd_per_month"]').dataset.value),
    breakEven: tr.querySelector('[data-field="offer.break_even_months"]').dataset.value,
  })));
  const fitting = expected.offers.filter((o) => o.fits);
  assert.equal(rows.length, Math.min(12, fitting.length));
  if (fitting.length > 12) {
    await page.click('#offers-more');
    await page.waitForFunction((n) => document.querySelectorAll('#offers tbody tr').length === n, fitting.length);
    rows.push(...(await page.$$eval('#offers tbody tr', (trs) => trs.slice(12).map((tr) => ({
      month: Number(tr.querySelector('[data-field="offer.usd_per_month"]').dataset.value),
      breakEven: tr.querySelector('[data-field="offer.break_even_months"]').dataset.value,
    })))));
  }
  assert.equal(rows.length, fitting.length);
  rows.forEach((row, i) => {
    assert.equal(row.month, fitting[i].usd_per_month);
    assert.equal(row.breakEven, fitting[i].break_even_months == null ? '' : String(fitting[i].break_even_months));
  });
  // The table follows the scenario: a model too large for one 24 GB card drops those offers.
  const before = rows.length;
  await page.evaluate(() => { location.hash = '#model=llama-3.1-70b&quant=FP8&ctx=8192&batch=1&kv=bf16&engine=vllm&gpu=h100-sxm&gpus=1&offload=0&prompt=4096'; });
  await page.waitForFunction((n) => document.querySelectorAll('#offers tbody tr').length !== n, before);
  assert.ok((await page.$$('#offers tbody tr')).length < before);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('fine-tuning: QLoRA, LoRA and full side by side, each with the device that holds it, as the CLI gives them', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + LLAMA);
  const value = (method, key) => page.$eval(`[data-field="finetune.${method}.${key}"]`, (e) => e.dataset.value);
  await page.locator('#ft-table').scrollIntoViewIfNeeded();
  await page.selectOption('#ft-targets', 'attention');
  await page.waitForFunction(() => document.querySelector('[data-field="finetune.qlora.trainable_params"]')?.dataset.value === '13631488');
  for (const method of ['qlora', 'lora', 'full']) {
    const expected = native(['finetune', '--model', 'llama-3.1-8b', '--method', method, '--seq', '2048', '--targets', 'attention']);
    for (const key of ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes', 'total_bytes']) {
      assert.equal(Number(await value(method, key)), expected[key], `${method} ${key}`);
    }
    assert.equal(await value(method, 'device'), expected.device ?? '', method);
  }
  // The chosen RTX 4090 holds QLoRA of an 8B model, not its full fine-tuning.
  assert.equal(await value('qlora', 'gpu_holds'), 'true');
  assert.equal(await value('full', 'gpu_holds'), 'false');
  await page.fill('#ft-gpus', '8');
  await page.selectOption('#ft-zero', '3');
  await page.check('#ft-checkpointing');
  const full = native(['finetune', '--model', 'llama-3.1-8b', '--method', 'full', '--gpus', '8', '--zero', '3', '--checkpointing', '--targets', 'attention']);
  await page.waitForFunction((t) => document.querySelector('[data-field="finetune.full.total_bytes"]')?.dataset.value === String(t), full.total_bytes);
  // A bad input is named, not drawn.
  await page.fill('#ft-gpus', '0');
  await page.waitForFunction(() => /gpus/.test(document.querySelector('#ft-note').textContent));
  assert.equal(await page.$$eval('#ft-table tbody tr', (r) => r.length), 0);
  await page.screenshot({ path: join(artifacts, 'finetune-1280.png') });
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('the page fetches one engine module, once, and it answers recommendations, offers and fine-tuning', async () => {
  const page = await session.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const fetched = [];
  page.on('request', (r) => { if (/\/llmsizer/.test(new URL(r.url()).pathname)) fetched.push(new URL(r.url()).pathname); });
  await page.goto(session.server.url + LLAMA);
  await waitForApp(page);
  await page.waitForSelector('[data-field="recommend.single.gpu"]:not([data-value=""])', { timeout: 30000 });
  await page.locator('#offers').scrollIntoViewIfNeeded();
  await page.waitForSelector('#offers tbody tr', { timeout: 20000 });
  await page.waitForFunction(() => Number(document.querySelector('[data-field="finetune.lora.total_bytes"]')?.dataset.value) > 0);
  // The CLI's default fine-tuning (LoRA, 2048 tokens, micro-batch 1) for this model.
  const expected = native(['finetune', '--model', 'llama-3.1-8b', '--gpu', 'rtx-4090']);
  assert.equal(Number(await page.$eval('[data-field="finetune.lora.total_bytes"]', (e) => e.dataset.value)), expected.total_bytes);
  // The full module alone: the recommendations follow the first figures, so a
  // second (core) module would be fetched and its catalog read for nothing.
  assert.deepEqual(fetched.sort(), ['/llmsizer-full.mjs', '/llmsizer-full.wasm']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an engine that fails to load is named, and a prerendered page keeps its figures', async () => {
  const page = await session.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/llmsizer-full.wasm', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await page.goto(`${session.server.url}models/llama-3.1-8b/`, { waitUntil: 'load' });
  const prerendered = await page.$eval('[data-field="memory.required_bytes"]', (e) => e.dataset.value);
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => /could not start/.test(document.getElementById('status').textContent));
  assert.equal(await page.$eval('#status', (e) => e.hidden), false);
  assert.equal(await page.$eval('[data-field="memory.required_bytes"]', (e) => e.dataset.value), prerendered);
  assert.deepEqual(errors, []);
  await page.close();
});

test('what can I run follows the workbench until set in the panel, and states its usable speed', async () => {
  const hash = '#model=llama-3.3-70b-instruct&quant=Q4_K_M&ctx=16384&gpu=rtx-3090&gpus=2&ram=128';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await waitForApp(page);
  await page.waitForFunction(() => document.querySelector('#fit-gpu').value === 'rtx-3090');
  assert.equal(await page.$eval('#fit-gpus', (e) => e.value), '2');
  assert.equal(await page.$eval('#fit-ram', (e) => e.value), '128');
  assert.equal(await page.$eval('#fit-ctx', (e) => e.value), '16384');
  // The reader's own RAM in the panel stays when the workbench moves.
  await page.fill('#fit-ram', '32');
  await page.evaluate(() => { location.hash = location.hash.replace('ram=128', 'ram=96').replace('gpus=2', 'gpus=3'); });
  await page.waitForFunction(() => document.querySelector('#fit-gpus').value === '3');
  assert.equal(await page.$eval('#fit-ram', (e) => e.value), '32');
  // Best quality names the speed it counts as usable, as the engine answered it.
  await page.fill('#fit-speed', '15');
  await page.click('#fit');
  await page.waitForFunction(() => /15(\.0)? tok\/s or faster first/.test(document.querySelector('#fit-note').textContent), null, { timeout: 30000 });
  const want = native(['fit', '--gpu', 'rtx-3090', '--gpus', '3', '--ram-gib', '32', '--ctx', '16384', '--tokens-per-s', '15']);
  const rows = await fitRows(page);
  assert.deepEqual(rows.map((r) => [r.model, r.quant]), firstRows(want.results).slice(0, 300).map((r) => [r.model, r.quant]));
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('serving under load: the curve llm-sizer serve gives, its mix presets in the link, hidden for one local stream', async () => {
  const hash = '#model=llama-3.1-8b&quant=FP8&ctx=8192&batch=1&kv=bf16&engine=vllm&gpu=h100-sxm&gpus=1&offload=0&prompt=4096';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await page.locator('#serving-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#serving-table tbody tr', { timeout: 30000 });
  const rowsOf = () => page.$$eval('#serving-table tbody tr', (trs) => trs.map((tr) => ({
    concurrency: Number(tr.dataset.concurrency),
    perUser: Number(tr.querySelector('[data-field="serving.tokens_per_s_per_user"]').dataset.value),
    perGpu: Number(tr.querySelector('[data-field="serving.output_tokens_per_s_per_gpu"]').dataset.value),
    ttft: Number(tr.querySelector('[data-field="serving.ttft_s"]').dataset.value),
  })));
  const serve = (args) => native(['serve', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--kv-type', 'bf16',
    '--gpu', 'h100-sxm', ...args]);
  const same = (rows, expected) => {
    assert.deepEqual(rows.map((r) => r.concurrency), expected.points.map((p) => p.concurrency));
    rows.forEach((r, i) => {
      assert.equal(r.perUser, expected.points[i].tokens_per_s_per_user);
      assert.equal(r.perGpu, expected.points[i].output_tokens_per_s_per_gpu);
      assert.equal(r.ttft, expected.points[i].ttft_s);
    });
  };
  // The chat mix and 20 tok/s per user by default.
  let expected = serve(['--target-tokens-per-s-per-user', '20']);
  same(await rowsOf(), expected);
  assert.equal(Number(await page.$eval('[data-field="serving.target"]', (e) => e.dataset.value)), expected.target);
  assert.equal(Number(await page.$eval('[data-field="serving.peak_output_tokens_per_s"]', (e) => e.dataset.value)),
    expected.points.find((p) => p.concurrency === expected.saturation).output_tokens_per_s);
  // Every distinct point is a focusable dot labelled with its figures.
  const dots = await page.$$eval('#serving-chart circle[tabindex="0"]', (cs) => cs.map((c) => c.getAttribute('aria-label')));
  assert.ok(dots.length >= expected.points.length - 1 && dots.length <= expected.points.length);
  assert.match(dots[0], /^1 in flight: .* per user, .* per GPU, first token /);
  // The cost panel prices a million output tokens for the scenario's sequences
  // as served requests of its prompt and the panel's tokens out.
  const estimate = native(['estimate', '--model', 'llama-3.1-8b', '--quant', 'FP8', '--engine', 'vllm', '--kv-type', 'bf16',
    '--gpu', 'h100-sxm', '--ctx', '8192', '--prompt', '4096', '--output-tokens', '1024']);
  assert.ok(estimate.cost.usd_per_million_output_tokens > 0);
  assert.equal(await page.$eval('#served-cost-row', (e) => e.hidden), false);
  assert.equal(Number(await page.$eval('[data-field="cost.usd_per_million_output_tokens"]', (e) => e.dataset.value)),
    estimate.cost.usd_per_million_output_tokens);
  assert.match(await page.$eval('#served-cost-label', (e) => e.textContent), /1 in flight \(4,096 in, 1,024 out\)/);
  // The note names the serving row and the runs behind it.
  assert.match(await page.$eval('#serving-note', (e) => e.textContent), /Serving constants of vLLM on CUDA, fitted on \d+ measured serving run/);
  // How closely the row reproduces its runs, and whether to read the figures
  // as a rough estimate: the engine's basis, shown as it says.
  const basis = expected.points[0].basis;
  assert.ok(basis.typical_error_pct >= 0);
  assert.ok(((await page.$eval('#serving-note', (e) => e.textContent))).includes(`reproduces within ${basis.typical_error_pct}% on median`));
  assert.equal(await page.$('[data-field="serving.rough"]') !== null, basis.rough);
  if (basis.rough) {
    assert.ok((await page.$eval('#serving-note', (e) => e.textContent)).includes(`Rough estimate: ${basis.rough_because}.`));
    assert.equal(await page.$eval('[data-field="serving.rough"]', (e) => e.textContent), `a rough estimate: ${basis.rough_because}`);
  }
  assert.equal(await page.$('[data-field="serving.ttft_rough"]') !== null, !basis.rough && basis.ttft_rough_because != null);

  // A preset: 8K in, 1K out, kept in the link.
  await page.click('#serving-panel .preset[data-in="8192"][data-out="1024"]');
  await page.waitForFunction(() => location.hash.includes('sin=8192'));
  expected = serve(['--prompt', '8192', '--output-tokens', '1024', '--target-tokens-per-s-per-user', '20']);
  await page.waitForFunction((n) => Number(document.querySelector('#serving-table tbody tr')?.dataset.concurrency) === 1 &&
    document.querySelectorAll('#serving-table tbody tr').length === n, expected.points.length);
  await page.waitForFunction((t) => Number(document.querySelector('[data-field="serving.ttft_s"]').dataset.value) === t, expected.points[0].ttft_s);
  same(await rowsOf(), expected);
  // A speed no load reaches: said so, no point chosen.
  await page.fill('#serving-target', '9000');
  await page.waitForFunction(() => document.querySelector('[data-field="serving.target"]').textContent.includes('no load'));
  assert.equal(await page.$eval('[data-field="serving.target"]', (e) => e.dataset.value), '');
  await page.waitForFunction(() => location.hash.includes('stps=9000'));

  // A shared link brings the mix and the target back.
  const shared = await page.evaluate(() => location.href);
  const second = await openPage(session.browser, shared);
  await second.page.locator('#serving-panel').scrollIntoViewIfNeeded();
  await second.page.waitForSelector('#serving-table tbody tr', { timeout: 30000 });
  assert.equal(await second.page.inputValue('#serving-in'), '8192');
  assert.equal(await second.page.inputValue('#serving-target'), '9000');
  assert.deepEqual(second.log.errors, []);
  await second.page.close();

  // 200,000 tokens in and 1,024 out: a window past Llama 3.1 8B's 131,072, warned of in the panel.
  await page.fill('#serving-in', '200000');
  await page.waitForFunction(() => document.querySelector('[data-field="serving.warnings"]')?.textContent
    .includes("context 201024 exceeds the model's maximum of 131072 tokens"), null, { timeout: 30000 });
  await page.fill('#serving-in', '8192');
  await page.waitForFunction(() => !document.querySelector('[data-field="serving.warnings"]'));

  // DeepSeek-V3's FP8 checkpoint (~673 GB) on eight 80 GB H100s: no curve, the reason
  // where it overflows, and no empty table under it.
  await page.evaluate(() => { location.hash = '#model=deepseek-v3&ctx=8192&batch=1&engine=vllm&gpu=h100-sxm&gpus=8&offload=0'; });
  await page.waitForFunction(() => document.querySelector('[data-field="serving.error"]')?.textContent.includes('does not fit'), null, { timeout: 30000 });
  assert.match(await page.$eval('[data-field="serving.error"]', (e) => e.textContent),
    /^one request of 1024 tokens in and 1024 out does not fit \(GPU 1 of 8 needs 1\d\d\.\d% of what it holds\): nothing to serve$/);
  assert.equal(await page.$eval('#serving-table', (e) => e.hidden), true);
  await page.evaluate(() => { location.hash = '#model=llama-3.1-8b&quant=FP8&ctx=8192&batch=1&kv=bf16&engine=vllm&gpu=h100-sxm&gpus=1&offload=0&prompt=4096'; });
  await page.waitForFunction(() => !document.querySelector('#serving-table').hidden &&
    document.querySelectorAll('#serving-table tbody tr').length > 0, null, { timeout: 30000 });

  // One stream under llama.cpp: no serving panel.
  await page.evaluate(() => { location.hash = '#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&batch=1&kv=f16&engine=llama.cpp&gpu=rtx-4090&gpus=1&offload=0&prompt=4096'; });
  await page.waitForFunction(() => document.querySelector('#serving-panel').hidden);
  assert.equal(await page.$eval('#served-cost-row', (e) => e.hidden), true);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('serving under load reads on a phone: the chart at its own width, every row a card', async () => {
  const hash = '#model=llama-3.1-70b&quant=FP8&ctx=8192&batch=1&kv=bf16&engine=sglang&gpu=h100-sxm&gpus=4&offload=0&prompt=4096';
  const page = await session.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(session.server.url + hash);
  await waitForApp(page);
  await page.locator('#serving-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#serving-table tbody tr', { timeout: 30000 });
  const box = await page.$eval('#serving-panel', (e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
  assert.ok(box.scroll <= box.client + 1, `the panel scrolls sideways: ${box.scroll} > ${box.client}`);
  // Drawn at the box's width: a tick label is at least 12 px tall on screen.
  const tick = await page.$eval('#serving-chart text.tick', (t) => t.getBoundingClientRect().height);
  assert.ok(tick >= 12, `chart labels ${tick} px tall`);
  // Every value in a row is on screen with its label.
  const clipped = await page.$$eval('#serving-table td', (tds) => tds.filter((td) => td.getBoundingClientRect().right > window.innerWidth).length);
  assert.equal(clipped, 0);
  await page.screenshot({ path: join(artifacts, 'serving-360.png'), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test('what can I run: hardware the engine does not run on says so, instead of an empty table', async () => {
  // The page's engine (vLLM) has no Metal build: the sweep has nothing to list, and names why.
  const { page } = await openPage(session.browser, `${session.server.url}#model=llama-3.1-8b&engine=vllm&quant=native&gpu=rtx-4090`);
  await page.selectOption('#fit-gpu', 'mac-m4-max-128gb');
  await page.click('#fit');
  await page.waitForFunction(() => document.querySelector('#fit-note').textContent.startsWith('Nothing runs here'), null, { timeout: 30000 });
  assert.match(await page.textContent('#fit-note'), /vLLM has no build for Metal/);
  await page.close();
});

test('serving: a row that reproduces throughput but not first-token times says so beside the TTFT', async () => {
  // SGLang on CUDA: its runs' throughput within about 10% on median, their
  // TTFTs scattered more than 25% (a per-request cost fitted on 8-GPU runs'
  // 100-190 ms against one H100's 28 ms for an 8B): the TTFT is labelled.
  const hash = '#model=qwen3-8b&quant=BF16-native&ctx=8192&batch=4&kv=bf16&engine=sglang&gpu=h100-sxm&gpus=1&offload=0&prompt=4096';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await page.locator('#serving-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#serving-table tbody tr', { timeout: 30000 });
  const serve = native(['serve', '--model', 'qwen3-8b', '--quant', 'BF16-native', '--engine', 'sglang', '--kv-type', 'bf16',
    '--gpu', 'h100-sxm', '--target-tokens-per-s-per-user', '20']);
  const basis = serve.points[0].basis;
  assert.equal(basis.rough, false);
  assert.ok(basis.ttft_typical_error_pct > 25);
  assert.equal(await page.$eval('[data-field="serving.ttft_rough"]', (e) => e.textContent), `rough: ${basis.ttft_rough_because}`);
  assert.ok((await page.$eval('#serving-note', (e) => e.textContent)).includes('The first-token times are rougher than the rest'));
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('serving: a row whose runs measured no first-token time names where its per-request cost comes from', async () => {
  // vLLM on ROCm: its runs report throughput only, so its 40 ms per request is
  // the one vLLM's CUDA runs measured; the panel and the speed text say so.
  const hash = '#model=glm-4.5&quant=FP8&ctx=8192&batch=4&engine=vllm&gpu=mi300x&gpus=8&offload=0&prompt=1024';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await page.locator('#serving-panel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#serving-table tbody tr', { timeout: 30000 });
  const serve = native(['serve', '--model', 'glm-4.5', '--quant', 'FP8', '--engine', 'vllm', '--gpu', 'mi300x', '--gpus', '8',
    '--concurrency', '1']);
  const basis = serve.points[0].basis;
  assert.equal(basis.row, 'vllm/rocm');
  assert.equal(basis.rough, false);
  assert.equal(basis.ttft_typical_error_pct, null);
  assert.ok(basis.ttft_rough_because.endsWith("its 40 ms per request is vLLM's on CUDA"));
  assert.equal(await page.$eval('[data-field="serving.ttft_rough"]', (e) => e.textContent), `rough: ${basis.ttft_rough_because}`);
  assert.deepEqual(log.errors, []);
  await page.close();
});

test('what can I run on two equal cards: a row that needs its layers balanced opens with that split', async () => {
  // GLM-4.5-Air on 2 x RTX 3090 with 64 GiB of RAM at 32K: at Q4_K_M, 23
  // layers' experts in RAM with the layers split 34/12 (llama.cpp's own split
  // would need 35 layers' experts); its Open link carries both.
  const hash = '#model=glm-4.5-air&quant=Q4_K_M&ctx=32768&gpu=rtx-3090&gpus=2&ram=64';
  const { page, log } = await openPage(session.browser, session.server.url + hash);
  await page.waitForFunction(() => document.querySelector('#fit-gpus').value === '2');
  await page.click('#fit');
  // The table shows each model once, at its best quantization that fits.
  const selector = '#fit-table tbody tr[data-model="glm-4.5-air"]';
  await page.waitForSelector(selector, { timeout: 60000 });
  const quant = await page.$eval(selector, (tr) => tr.dataset.quant);
  const want = native(['fit', '--gpu', 'rtx-3090', '--gpus', '2', '--ram-gib', '64', '--ctx', '32768']);
  const row = want.results.find((r) => r.model === 'glm-4.5-air' && r.quant === quant);
  assert.ok(row.layer_split, `${quant} needs a split`);
  const href = await page.$eval(`${selector} a`, (a) => a.getAttribute('href'));
  assert.match(href, new RegExp(`split=${row.layer_split}`));
  await page.click(`${selector} a`);
  await page.waitForFunction(() => document.querySelector('#verdict').textContent.startsWith('Fits'), null, { timeout: 30000 });
  assert.deepEqual(log.errors, []);
  await page.close();
});
