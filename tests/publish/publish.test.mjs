// The README's "Publish the site", followed: a build with
// SITE_URL=https://example.org/ (test.sh writes it to build/site-publish)
// names that address in every page, the sitemap and robots.txt, and nothing
// local; a build without SITE_URL, or with a loopback one, stops at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const site = resolve(process.env.LLMSIZER_PUBLISH_DIR ?? join(root, 'build/site-publish'));
const address = 'https://example.org/';

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

const checkAddress = (env) => spawnSync(process.execPath, [join(root, 'scripts/prerender.mjs'), '--check-site-url'],
  { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });

test('a build without SITE_URL, or with a loopback one, stops with one message', () => {
  for (const env of [{}, { SITE_URL: 'http://127.0.0.1:8080/' }, { SITE_URL: 'http://localhost/' }, { SITE_URL: 'not an address' },
    { SITE_URL: 'ftp://example.org/' }]) {
    const run = checkAddress(env);
    assert.equal(run.status, 2, JSON.stringify(env));
    assert.match(run.stderr, /^prerender: .*Set SITE_URL to the address the site will be served at/, JSON.stringify(env));
    assert.equal(run.stderr.trim().split('\n').length, 1);
  }
  assert.equal(checkAddress({ SITE_URL: address }).status, 0);
  assert.equal(checkAddress({ SITE_URL: 'https://example.org/tools/llm-sizer' }).status, 0);
  // A local build (serve.sh, test.sh) may name this machine.
  assert.equal(checkAddress({ LLMSIZER_LOCAL_BUILD: '1' }).status, 0);
});

test(`the published build names ${address} in every page, the sitemap and robots.txt, and nothing local`, () => {
  assert.ok(existsSync(join(site, 'index.html')), `${site}: run SITE_URL=${address} SITE_DIR=build/site-publish ./scripts/build-web.sh first`);
  let pages = 0;
  for (const file of files(site)) {
    if (!/\.(html|xml|txt)$/.test(file)) continue;
    const text = readFileSync(file, 'utf8');
    const path = relative(site, file);
    // Links and addresses only: launch commands on the pages rightly say `--host 127.0.0.1`.
    assert.doesNotMatch(text, /(?:href|src|content)="[^"]*(?:127\.0\.0\.1|localhost)|<loc>[^<]*(?:127\.0\.0\.1|localhost)|Sitemap: \S*(?:127\.0\.0\.1|localhost)/,
      `${path} links to a local address`);
    if (!file.endsWith('index.html') || path.startsWith('embed/')) continue;
    const page = path.replace(/index\.html$/, '');
    const canonical = /<link rel="canonical" href="([^"]+)"/.exec(text)?.[1];
    assert.equal(canonical, `${address}${page}`, `${path}: canonical`);
    assert.equal(/<meta property="og:url" content="([^"]+)"/.exec(text)?.[1], canonical, `${path}: og:url`);
    pages += 1;
  }
  const locs = [...readFileSync(join(site, 'sitemap.xml'), 'utf8').matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  assert.equal(locs.length, pages, 'one sitemap entry per prerendered page');
  assert.ok(locs.every((l) => l.startsWith(address)));
  assert.match(readFileSync(join(site, 'robots.txt'), 'utf8'), new RegExp(`^Sitemap: ${address.replace(/\./g, '\\.')}sitemap\\.xml$`, 'm'));
});

test('each page\'s h1 names the question it answers; the home page its own', () => {
  const h1 = (path) => /<h1[^>]*>([^<]+)<\/h1>/.exec(readFileSync(join(site, path, 'index.html'), 'utf8'))?.[1];
  assert.equal(h1(''), 'Will this LLM run on your hardware? Memory, speed and cost');
  assert.equal(h1('models/llama-3.1-8b'), 'Can you run Llama 3.1 8B? Memory, speed and hardware');
  assert.equal(h1('models/llama-3.1-8b/rtx-4090'), 'Can you run Llama 3.1 8B on NVIDIA GeForce RTX 4090? Fit, speed and fixes');
  assert.equal(h1('embed'), 'Put llm-sizer on your site');
  // Every model page has its own h1 (no two alike).
  const models = readdirSync(join(site, 'models'));
  const headings = new Set(models.map((m) => h1(`models/${m}`)));
  assert.equal(headings.size, models.length);
});
