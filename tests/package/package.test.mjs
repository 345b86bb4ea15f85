// The engine as an npm package (issue 33): the tarball `npm pack` made of it
// (scripts/build-package.sh) installs into a new project, answers in Node with
// the engine's own figures, type-checks a TypeScript caller (and rejects a
// wrong one), and runs in a page that imports it by name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { cliBin, nativeResponses } from '../wasm/load.mjs';
import { startBrowser, startServer } from '../browser/harness.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const LLAMA = { model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-4090' };
let project;

const run = (command, args, options = {}) => {
  const out = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
};
// The engine's own answer (native build) without the envelope's "ok".
const engineAnswer = (request) => {
  const { ok, ...answer } = JSON.parse(nativeResponses([request])[0]);
  assert.equal(ok, true);
  return answer;
};

before(() => {
  const built = run(join(root, 'scripts/build-package.sh'), [], { cwd: root });
  assert.equal(built.status, 0, built.stderr);
  const tarball = built.stdout.trim().split('\n').pop();
  assert.match(tarball, /llm-sizer-\d+\.\d+\.\d+\.tgz$/);
  project = mkdtempSync(join(tmpdir(), 'llm-sizer-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const installed = run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project });
  assert.equal(installed.status, 0, installed.stderr);
  // What the tarball holds: the entry points, the types and the two engines, nothing of the repository.
  assert.deepEqual(readdirSync(join(project, 'node_modules/llm-sizer')).sort(), ['README.md', 'api.mjs', 'browser.mjs', 'index.d.ts',
    'llmsizer-full.mjs', 'llmsizer-full.wasm', 'llmsizer-node.cjs', 'llmsizer-node.wasm', 'node.mjs', 'package.json']);
});

after(() => { if (project) rmSync(project, { recursive: true, force: true }); });

test('in Node, `import { estimate, command, serve, fit } from "llm-sizer"` answers as the engine does', () => {
  writeFileSync(join(project, 'consumer.mjs'), `
import { estimate, command, serve, fit, catalog, LlmSizerError } from 'llm-sizer';
const request = ${JSON.stringify(LLAMA)};
const out = { estimate: await estimate(request), command: await command(request) };
out.serve = await serve({ model: 'llama-3.1-8b', quant: 'FP8', gpu: 'h100-sxm', engine: 'vllm', concurrency: [1, 8, 64] });
out.fit = await fit({ gpu: 'rtx-4090', ctx: 8192 });
out.models = (await catalog()).models.length;
try { await estimate({ model: 'no-such-model', gpu: 'rtx-4090' }); } catch (e) { out.error = { isError: e instanceof LlmSizerError, id: e.id, message: e.message }; }
try { await estimate('llama'); } catch (e) { out.notObject = e.id; }
console.log(JSON.stringify(out));
`);
  const ran = run(process.execPath, ['consumer.mjs'], { cwd: project });
  assert.equal(ran.status, 0, ran.stderr);
  const out = JSON.parse(ran.stdout);
  // Figure for figure the native engine's answer to the same request.
  assert.deepEqual(out.estimate, engineAnswer(LLAMA));
  assert.equal(out.estimate.memory.fits, true);
  // command: what `llm-sizer command --json` prints.
  const cli = run(cliBin, ['command', '--model', 'llama-3.1-8b', '--quant', 'Q4_K_M', '--ctx', '8192', '--gpu', 'rtx-4090', '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.deepEqual(out.command, JSON.parse(cli.stdout));
  assert.match(out.command['llama.cpp'].steps[0], /^llama-server /);
  // serve: one point per concurrency asked, throughput growing with it.
  assert.deepEqual(out.serve.points.map((p) => p.concurrency), [1, 8, 64]);
  assert.ok(out.serve.points[2].output_tokens_per_s > out.serve.points[0].output_tokens_per_s);
  assert.ok(out.fit.results.length > 10, `${out.fit.results.length} models fit a 4090`);
  assert.ok(out.models > 100);
  // A wrong request: an LlmSizerError naming what is wrong.
  assert.equal(out.error.isError, true);
  assert.match(out.error.id, /^request\./);
  assert.match(out.error.message, /no-such-model/);
  assert.equal(out.notObject, 'request.not_object');
});

test('TypeScript: a caller type-checks against index.d.ts, and a wrong key type does not', () => {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  writeFileSync(join(project, 'good.mts'), `
import { estimate, command, LlmSizerError } from 'llm-sizer';
const answer = await estimate({ model: 'llama-3.1-8b', quant: 'Q4_K_M', ctx: 8192, gpu: 'rtx-4090' });
const fits: boolean | null = answer.memory.fits;
const bytes: number = answer.memory.required_bytes;
const steps: string[] = (await command({ model: 'llama-3.1-8b', gpu: 'rtx-4090' }))['llama.cpp'].steps;
const id: string = new LlmSizerError('request.bad_value', 'x').id;
console.log(fits, bytes, steps, id);
`);
  const good = run(process.execPath, [tsc, ...flags, 'good.mts'], { cwd: project });
  assert.equal(good.status, 0, good.stdout + good.stderr);
  writeFileSync(join(project, 'bad.mts'), `
import { estimate } from 'llm-sizer';
await estimate({ model: 'llama-3.1-8b', ctx: 'long' });
`);
  const bad = run(process.execPath, [tsc, ...flags, 'bad.mts'], { cwd: project });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stdout, /bad\.mts.*'string' is not assignable to type 'number'/s);
});

test('in a page, the package imported by name (an import map) answers as the engine does', async () => {
  writeFileSync(join(project, 'index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">{"imports": {"llm-sizer": "./node_modules/llm-sizer/browser.mjs"}}</script>
<script type="module">
import { estimate, command } from 'llm-sizer';
const answer = await estimate(${JSON.stringify(LLAMA)});
window.result = { answer, steps: (await command(${JSON.stringify(LLAMA)}))['llama.cpp'].steps };
</script>`);
  const server = await startServer({ dir: project });
  const browser = await startBrowser();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => window.result, null, { timeout: 30000 });
    const result = await page.evaluate(() => window.result);
    assert.deepEqual(result.answer, engineAnswer(LLAMA));
    assert.match(result.steps[0], /^llama-server /);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});
