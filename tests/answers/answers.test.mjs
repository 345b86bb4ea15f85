// The answers suite: questions people come with, each answer worked out by
// hand from sourced facts (scenarios.json, 'working'), checked against the
// native engine and then against what the page shows for the same hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { cliBin, nativeResponses } from '../wasm/load.mjs';
import { openPage, useBrowser } from '../browser/harness.mjs';

const { scenarios } = JSON.parse(readFileSync(new URL('./scenarios.json', import.meta.url), 'utf8'));
// An estimate scenario carries the engine's JSON request; a planner one
// ("what should I buy", "what can I run") the CLI's arguments, run with --json.
const estimates = scenarios.filter((s) => s.request);
const estimated = nativeResponses(estimates.map((s) => s.request)).map((line) => JSON.parse(line));
function cliAnswer(args) {
  const out = spawnSync(cliBin, [...args, '--json'], { maxBuffer: 1 << 28, encoding: 'utf8' });
  return out.status === 0 ? { ok: true, ...JSON.parse(out.stdout) } : { ok: false, error: out.stderr };
}
const answers = scenarios.map((s) => (s.request ? estimated[estimates.indexOf(s)] : cliAnswer(s.cli)));

// "suggestions.0.commands.llama.cpp.steps.0": keys may hold dots (llama.cpp),
// so the longest key present is taken at each step.
function at(value, path) {
  const parts = path.split('.');
  let node = value;
  for (let i = 0; i < parts.length;) {
    if (node == null) return undefined;
    let j = parts.length;
    while (j > i && !(parts.slice(i, j).join('.') in Object(node))) j -= 1;
    if (j === i) return undefined;
    node = node[parts.slice(i, j).join('.')];
    i = j;
  }
  return node;
}

function check(answer, e) {
  const value = at(answer, e.path);
  const what = `${e.path} = ${JSON.stringify(value)?.slice(0, 200)}`;
  if ('equals' in e) assert.deepEqual(value, e.equals, what);
  if ('equals_path' in e) assert.deepEqual(value, at(answer, e.equals_path), what);
  if ('between' in e) assert.ok(value >= e.between[0] && value <= e.between[1], `${what}, expected ${e.between}`);
  if ('matches' in e) assert.match(String(value), new RegExp(e.matches), what);
  if ('sum_of' in e) assert.equal(value, e.sum_of.reduce((sum, p) => sum + at(answer, p), 0), what);
  if ('sum_between' in e) {
    // The paths' values added (path, then the others named): within bounds.
    const total = [e.path, ...e.sum_between.paths].reduce((sum, p) => sum + at(answer, p), 0);
    assert.ok(total >= e.sum_between.range[0] && total <= e.sum_between.range[1], `${what} and ${e.sum_between.paths}: ${total}, expected ${e.sum_between.range}`);
  }
  if (e.absent) assert.equal(value, undefined, what);
  if ('none_with' in e) assert.ok(value.every((x) => at(x, e.none_with) === undefined), `${e.path}: none with ${e.none_with}`);
  if ('some_equal' in e) {
    const [key, want] = e.some_equal;
    assert.ok(value.some((x) => at(x, key) === want), `${e.path}: one with ${key} = ${want}`);
  }
  if ('some_with' in e) assert.ok(value.some((x) => at(x, e.some_with) !== undefined), `${e.path}: one with ${e.some_with}`);
}

for (const [i, s] of scenarios.entries()) {
  test(`answer (native): ${s.name}`, () => {
    // A question whose honest answer is "this does not run": one message, no figures.
    if (s.refused) {
      assert.equal(answers[i].ok, false, 'refused');
      assert.match(String(answers[i].error?.message ?? answers[i].error), new RegExp(s.refused));
      return;
    }
    assert.equal(answers[i].ok, true, JSON.stringify(answers[i].error));
    for (const e of s.expect) check(answers[i], e);
  });
}

const session = useBrowser();

for (const [i, s] of scenarios.entries()) {
  if (!s.hash) continue;
  test(`answer (page): ${s.name}`, async () => {
    const { page, log } = await openPage(session.browser, session.server.url + s.hash, undefined, { figures: !s.refused });
    try {
      const expected = answers[i];
      if (s.refused) {
        const verdict = await page.$eval('#verdict', (n) => n.textContent);
        assert.match(verdict, new RegExp(`^Cannot size this: .*${s.refused}`));
      }
      if (s.request && !s.refused) assert.equal(await page.$eval('#verdict', (n) => n.dataset.value), String(expected.memory.fits));
      if (s.request && !s.refused && expected.memory.fits === false && expected.suggestions.length) {
        await page.waitForSelector('#suggestions li button');
        const shown = await page.$$eval('#suggestions li button', (l) => l.map((b) => JSON.parse(b.dataset.value)));
        assert.deepEqual(shown, expected.suggestions.map((x) => x.change), 'the suggestions, in order');
      }
      for (const p of s.page ?? []) {
        // Answers drawn after the first estimate (the planner's) arrive later.
        if (p.wait) await page.waitForFunction(([sel, re]) => [...document.querySelectorAll(sel)].some((n) => new RegExp(re).test(n.textContent)),
          [p.selector, p.matches], { timeout: 20000 }).catch(() => {});
        if ('disabled' in p) assert.equal(await page.$eval(p.selector, (n) => n.disabled), p.disabled, p.selector);
        if ('value' in p) assert.equal(await page.$eval(p.selector, (n) => n.value), p.value, p.selector);
        if ('matches' in p) {
          const texts = await page.$$eval(p.selector, (l) => l.map((n) => n.textContent));
          assert.ok(texts.some((t) => new RegExp(p.matches).test(t)), `${p.selector} ~ ${p.matches}: ${texts.join(' | ').slice(0, 400)}`);
        }
      }
      assert.deepEqual(log.errors, []);
    } finally {
      await page.close();
    }
  });
}
