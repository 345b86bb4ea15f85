// The prerendered pages over plain HTTP, no browser: every page the sitemap
// lists exists, names its scenario, and carries in its HTML the figures the
// native engine gives for that scenario; titles, descriptions, canonical links
// and Open Graph tags are there; robots.txt names the sitemap.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { startServer, siteDir } from '../browser/harness.mjs';
import { loadModule, nativeResponses } from '../wasm/load.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const chosen = JSON.parse(readFileSync(resolve(root, 'data/pages.json'), 'utf8'));
const module = await loadModule();
const catalog = (() => {
  const sizer = new module.Sizer();
  const parsed = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));
  sizer.delete();
  return parsed;
})();
const nameOf = new Map(catalog.models.map((m) => [m.id, m.name]));
let server;
before(async () => { server = await startServer(); });
after(() => server.stop());

const decode = (text) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

// field -> data-value of the first element carrying it (attributes in the order
// the page writes them: data-field in the markup, data-value after).
function fieldsOf(html) {
  const fields = new Map();
  for (const m of html.matchAll(/data-field="([^"]+)"[^>]*?data-value="([^"]*)"/g)) {
    if (!fields.has(m[1])) fields.set(m[1], decode(m[2]));
  }
  return fields;
}

const attr = (html, pattern) => {
  const m = pattern.exec(html);
  return m ? decode(m[1]) : null;
};

// The request the page makes for its scenario (web/app.js request()).
function requestOf(scenario) {
  const s = Object.fromEntries(new URLSearchParams(scenario));
  const request = {
    model: s.model, quant: s.quant, ctx: Number(s.ctx), batch: Number(s.batch), kv: s.kv, engine: s.engine, gpu: s.gpu,
    gpus: Number(s.gpus), offload: Number(s.offload), prompt: Number(s.prompt), ram_gib: Number(s.ram),
  };
  if (s.offload_mode !== 'auto' && request.offload > 0) request.offload_mode = s.offload_mode;
  return request;
}

const sitemap = () => readFileSync(resolve(siteDir, 'sitemap.xml'), 'utf8');

test('sitemap.xml lists the home page, every model page and every chosen pair; robots.txt names it', async () => {
  const locs = [...sitemap().matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  const paths = locs.map((u) => new URL(u).pathname);
  assert.equal(new Set(paths).size, paths.length, 'no page twice');
  assert.ok(paths.includes('/'));
  const models = paths.filter((p) => /^\/models\/[^/]+\/$/.test(p));
  const pairs = paths.filter((p) => /^\/models\/[^/]+\/[^/]+\/$/.test(p));
  assert.equal(pairs.length, chosen.models.length * chosen.devices.length);
  // Every sizable catalog model has a page.
  const sizable = catalog.models.filter((m) => m.sizable).map((m) => `/models/${m.id}/`).sort();
  assert.deepEqual([...models].sort(), sizable);
  const robots = await (await fetch(`${server.url}robots.txt`)).text();
  assert.match(robots, /^Sitemap: \S+sitemap\.xml$/m);
});

test('every page carries the engine\'s figures for its scenario in its HTML, with its own title and tags', async () => {
  const paths = [...sitemap().matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  const pages = [];
  for (const path of paths) {
    const response = await fetch(`${server.url}${path.slice(1)}`);
    assert.equal(response.status, 200, path);
    pages.push({ path, html: await response.text() });
  }
  const titles = new Map();  // title -> scenario
  const requests = pages.map(({ path, html }) => {
    const scenario = attr(html, /<html[^>]*\sdata-scenario="([^"]+)"/);
    assert.ok(scenario, `${path}: names its scenario`);
    return requestOf(scenario);
  });
  const answers = nativeResponses(requests).map((line) => JSON.parse(line));
  pages.forEach(({ path, html }, i) => {
    const expected = answers[i];
    assert.equal(expected.ok, true, `${path}: ${JSON.stringify(expected.error)}`);
    const fields = fieldsOf(html);
    const m = expected.memory;
    for (const key of ['weights_bytes', 'kv_cache_bytes', 'runtime_bytes', 'required_bytes', 'usable_bytes']) {
      assert.equal(fields.get(`memory.${key}`), m[key] == null ? '' : String(m[key]), `${path}: memory.${key}`);
    }
    assert.equal(fields.get('memory.fits'), String(m.fits), `${path}: the verdict`);
    const decodeRate = fields.get('speed.decode_tokens_per_s');
    if (expected.speed == null) assert.equal(decodeRate, '', `${path}: no speed where it does not fit`);
    else assert.ok(Math.abs(Number(decodeRate) / expected.speed.decode_tokens_per_s - 1) < 1e-9, `${path}: decode ${decodeRate} vs ${expected.speed.decode_tokens_per_s}`);
    // The matrix, the context table and the questions are there too.
    assert.ok([...fields.keys()].some((f) => f.startsWith('recommend.')), `${path}: recommendations`);
    assert.match(html, /<tr data-ctx="4096"/, `${path}: memory by context from 4K`);
    assert.ok(fields.has('questions.memory.required_bytes'), `${path}: the questions`);
    assert.equal(fields.get('questions.memory.required_bytes'), String(m.required_bytes), `${path}: the questions' figure`);
    const name = nameOf.get(requests[i].model);
    const title = attr(html, /<title>([^<]+)<\/title>/);
    assert.ok(title && title.includes(name), `${path}: title ${title}`);
    // A model's page may show the same scenario as one of its pairs; else
    // each page has its own title.
    const scenario = JSON.stringify(requests[i]);
    assert.equal(titles.get(title) ?? scenario, scenario, `${path}: title ${title} names another scenario`);
    titles.set(title, scenario);
    assert.ok(attr(html, /<meta name="description" content="([^"]+)"/)?.includes(name), `${path}: description`);
    const canonical = attr(html, /<link rel="canonical" href="([^"]+)"/);
    assert.equal(new URL(canonical).pathname, path, `${path}: canonical`);
    assert.equal(attr(html, /<meta property="og:url" content="([^"]+)"/), canonical);
    assert.ok(attr(html, /<meta property="og:title" content="([^"]+)"/));
    // No inline script or style: the strict CSP (script-src 'self') holds.
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, `${path}: inline script`);
    assert.doesNotMatch(html, /\sstyle="/, `${path}: inline style`);
  });
});
