// Writes the site's pages with their answers in the HTML: the home page, a
// page per catalog model and one per chosen model x device pair
// (data/pages.json). Each is the live page itself, run in headless Chromium
// on its scenario until every answer is drawn (the mark llm-sizer:answered),
// then saved: the same engine and the same render code, no second renderer.
// The saved page names its scenario (<html data-scenario>); its script takes
// over in place and recomputes the same figures, or the hash's.
// Usage: SITE_URL=https://example.org/ node scripts/prerender.mjs build/site
// SITE_URL is the address the site will be served at (canonical links, Open
// Graph, sitemap.xml, robots.txt). LLMSIZER_LOCAL_BUILD=1 marks a build served
// from this machine: http://127.0.0.1:8080/ unless SITE_URL says otherwise.
// `--check-site-url` checks SITE_URL and exits (build-web.sh, before building).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { questionText } from '../web/js/render.js';
import { DEFAULTS, ownGguf, toHash } from '../web/js/state.js';

// The address the pages name: required, absolute http(s), and not a loopback
// one unless the build says it is local (its links would lead nowhere online).
function siteUrlOrExit() {
  const local = process.env.LLMSIZER_LOCAL_BUILD === '1';
  const raw = process.env.SITE_URL || (local ? 'http://127.0.0.1:8080/' : '');
  const fail = (why) => {
    console.error(`prerender: ${why}. Set SITE_URL to the address the site will be served at ` +
      '(SITE_URL=https://example.org/ ./scripts/build-web.sh), or LLMSIZER_LOCAL_BUILD=1 for a build served from this machine.');
    process.exit(2);
  };
  if (!raw) fail('SITE_URL is not set');
  let url;
  try {
    url = new URL(raw);
  } catch {
    fail(`SITE_URL ${JSON.stringify(raw.slice(0, 80))} is not an absolute address`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`SITE_URL ${url.href} is not http or https`);
  if (url.search || url.hash) fail(`SITE_URL ${url.href} has a query or fragment`);
  const loopback = /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0)$/i.test(url.hostname);
  if (loopback && !local) fail(`SITE_URL ${url.href} is a loopback address`);
  return url.href.replace(/\/*$/, '/');
}
const siteUrl = siteUrlOrExit();
if (process.argv.includes('--check-site-url')) process.exit(0);

const root = resolve(new URL('..', import.meta.url).pathname);
const site = resolve(process.argv[2] ?? join(root, 'build/site'));
const wasmDir = resolve(process.env.LLMSIZER_WASM_DIR ?? join(root, 'build/wasm'));
const started = performance.now();

// The engine in Node, for the build's choices: which device a model page shows.
const require = createRequire(import.meta.url);
const module = await require(join(wasmDir, 'llmsizer-node.cjs'))({ wasmBinary: readFileSync(join(wasmDir, 'llmsizer-node.wasm')) });
const sizer = new module.Sizer();
const catalog = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));
const models = catalog.models.filter((m) => m.sizable);
const devices = new Map(catalog.devices.map((d) => [d.id, d]));
const chosen = JSON.parse(readFileSync(join(root, 'data/pages.json'), 'utf8'));

// A model is shown at its own GGUF type (Q4_K_M, gpt-oss's MXFP4_MOE) under llama.cpp when a GGUF of it at that type is
// known (its launch command has -hf, data/distribution.json), else in its
// own format under vLLM. Context: 8K, or less where the model stops.
function hasGguf(m) {
  const probe = { model: m.id, quant: ownGguf(m), ctx: 4096, engine: 'llama.cpp', gpu: 'mi300x', gpus: 64 };
  const answer = JSON.parse(sizer.estimate(JSON.stringify(probe)));
  const steps = answer.ok ? answer.commands?.['llama.cpp']?.steps ?? null : null;
  return steps === null || steps.length > 0;  // unknown (too large even there): as GGUF
}

function modelScenario(m) {
  const gguf = hasGguf(m);
  return {
    ...DEFAULTS, model: m.id, quant: gguf ? ownGguf(m) : 'native', engine: gguf ? 'llama.cpp' : 'vllm',
    ctx: m.max_context_tokens ? Math.min(DEFAULTS.ctx, m.max_context_tokens) : DEFAULTS.ctx,
  };
}

// A model's page shows it on the cheapest hardware that holds it (the
// engine's recommendation: one device, else several, else a unified machine,
// else a cloud offer's), and on the default device when nothing does.
function onCheapest(state) {
  const r = JSON.parse(sizer.recommend(JSON.stringify({ model: state.model, quant: state.quant, ctx: state.ctx, engine: state.engine })));
  const pick = r.ok ? (r.single ?? r.value ?? r.unified ?? r.cloud) : null;
  return pick ? { ...state, gpu: pick.gpu, gpus: pick.count } : state;
}

const pages = [{ path: '', state: { ...DEFAULTS }, kind: 'home' }];
for (const m of models) pages.push({ path: `models/${m.id}/`, state: onCheapest(modelScenario(m)), kind: 'model', model: m });
const pairs = [];
for (const id of chosen.models) {
  const m = models.find((x) => x.id === id);
  if (!m) throw new Error(`data/pages.json: no sizable catalog model ${id}`);
  for (const gpu of chosen.devices) {
    if (!devices.has(gpu)) throw new Error(`data/pages.json: no catalog device ${gpu}`);
    const page = { path: `models/${id}/${gpu}/`, state: { ...modelScenario(m), gpu, gpus: 1 }, kind: 'pair', model: m, device: devices.get(gpu) };
    pairs.push(page);
    pages.push(page);
  }
}
sizer.delete();

// Links between the pages, written by the build (navigation, not figures).
const href = (from, to) => `${'../'.repeat(from.split('/').filter(Boolean).length)}${to}`;
function linksOf(page) {
  const groups = [];
  if (page.kind === 'home') {
    groups.push({ title: 'Every model\'s page', links: models.map((m) => ({ to: `models/${m.id}/`, text: m.name })) });
  }
  if (page.kind === 'model' || page.kind === 'pair') {
    const others = pairs.filter((p) => p.model === page.model && p !== page);
    if (others.length) {
      groups.push({ title: page.kind === 'pair' ? `${page.model.name} on other devices` : `${page.model.name} on common devices`,
        links: others.map((p) => ({ to: p.path, text: p.device.name })) });
    }
  }
  if (page.kind === 'pair') {
    groups.push({ title: `Other models on ${page.device.name}`,
      links: pairs.filter((p) => p.device === page.device && p !== page).map((p) => ({ to: p.path, text: p.model.name })) });
    groups.push({ title: page.model.name, links: [{ to: `models/${page.model.id}/`, text: `${page.model.name}: every quantization and context` }] });
  }
  groups.push({ title: 'llm-sizer', links: [{ to: '', text: 'The calculator' }] });
  return groups.map((g) => ({ ...g, links: g.links.map((l) => ({ href: href(page.path, l.to), text: l.text })) }));
}

// What a model's or a pair's page is about, in words (its figures are the
// workbench's, below it).
function ledeOf(page) {
  if (page.kind === 'model') {
    return `${page.model.name}: the memory it needs at every quantization and context, the cheapest hardware that holds it, ` +
      'how fast it runs and how to start it.';
  }
  if (page.kind === 'pair') return `${page.model.name} on one ${page.device.name}: does it fit, how fast, what would make it fit, and how to start it.`;
  return '';
}

// The page's h1: the question a model's or a pair's page answers (the live
// page keeps it following the reader's choices); the home page keeps its own.
function headingOf(page) {
  if (page.kind === 'home') return null;
  return { kind: page.kind, text: questionText(page.kind, page.state, page.model, page.device), home: href(page.path, '') };
}

// Asset paths of the shell are relative to the site's root: deeper pages
// reach them through ../ (links the page writes itself are hashes).
function rebase(html, path) {
  const up = '../'.repeat(path.split('/').filter(Boolean).length);
  if (!up) return html;
  return html.replace(/(<(?:link|script)\b[^>]*?\s(?:href|src)=")(?![a-z]+:|\/|#)/g, `$1${up}`);
}

// What the live page keeps in properties (selected options, input values) goes
// into attributes, so the saved HTML shows them without script; the caches that
// let the page skip redrawing a chart or the commands go, so that taking over
// it draws them again with their handlers.
function snapshot({ scenario, canonical, groups, lede, heading }) {
  // The workbench's lists keep all their options: the page fetches its engine
  // when the reader first reaches for it, and the model, quantization or
  // device list may be the first thing a reader opens, before the engine is
  // there. Other long lists (the planner's devices, further down: reaching
  // them by scroll, wheel or touch has fetched the engine) show their
  // choice; the script refills them (~4 KB gzipped a page otherwise).
  for (const select of document.querySelectorAll('select')) {
    const trim = select.options.length > 40 && !select.closest('#controls');
    for (const o of [...select.options]) {
      o.toggleAttribute('selected', o.selected);
      if (trim && !o.selected) o.remove();
    }
    if (trim) for (const group of [...select.querySelectorAll('optgroup')]) if (!group.children.length) group.remove();
  }
  for (const input of document.querySelectorAll('input')) {
    if (input.type === 'checkbox') input.toggleAttribute('checked', input.checked);
    else if (input.type !== 'file') input.setAttribute('value', input.value);
  }
  document.getElementById('context-chart').removeAttribute('data-key');
  document.getElementById('commands').removeAttribute('data-shape');
  document.documentElement.dataset.scenario = scenario;
  const head = document.head;
  const add = (tag, attrs) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    head.append(node);
  };
  add('link', { rel: 'canonical', href: canonical });
  add('meta', { property: 'og:url', content: canonical });
  const nav = document.createElement('nav');
  nav.className = 'page-links';
  nav.setAttribute('aria-label', 'More pages');
  for (const g of groups) {
    const section = document.createElement('section');
    const h = document.createElement('h2');
    h.textContent = g.title;
    const list = document.createElement('ul');
    for (const l of g.links) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = l.href;
      a.textContent = l.text;
      li.append(a);
      list.append(li);
    }
    section.append(h, list);
    nav.append(section);
  }
  document.querySelector('footer').before(nav);
  if (heading) {
    const h1 = document.querySelector('.masthead h1');
    h1.dataset.question = heading.kind;
    h1.textContent = heading.text;
    // The masthead's links are relative to the site's root.
    document.querySelector('.masthead .site-name').setAttribute('href', heading.home);
    document.querySelector('.masthead .embed-link').setAttribute('href', `${heading.home}embed/`);
  }
  if (lede) {
    // In place of the home page's tagline: one paragraph on what this page
    // answers and where it is computed, not the general one beside it.
    const p = document.createElement('p');
    p.className = 'tagline lede';
    p.textContent = `${lede} Computed in your browser by the engine of the llm-sizer CLI; nothing is uploaded.`;
    document.querySelector('.masthead .tagline').replaceWith(p);
  }
  return `<!doctype html>\n${document.documentElement.outerHTML}\n`;
}

// The shell (the built index.html) is served under another name while the
// pages are made from it, and removed after. A page made already is not a
// shell: its scenario and links would be saved into every page again.
if (/<html[^>]*\sdata-scenario=/.test(readFileSync(join(site, 'index.html'), 'utf8'))) {
  console.error(`prerender: ${site}/index.html is a prerendered page, not the built shell; run scripts/build-web.sh`);
  process.exit(1);
}

// The pages are rendered with a placeholder where SITE_URL goes (the canonical
// link and og:url) and written out with the address filled in. What they show
// depends only on the site's files, the pages chosen and this script, so the
// rendered pages are kept under build/ by a hash of those: a second build of
// the same site for another address (test.sh builds it for this machine, then
// as published) or a rebuild without changes writes them again instead of
// rendering 181 pages in Chromium for the same HTML (~70 s on 2 cores).
const SITE_URL_SLOT = 'https://site-url.invalid/';
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}
function contentKey() {
  const hash = createHash('sha256');
  const add = (name, bytes) => hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  for (const file of filesUnder(site).sort()) add(relative(site, file), readFileSync(file));
  add('data/pages.json', readFileSync(join(root, 'data/pages.json')));
  add('scripts/prerender.mjs', readFileSync(new URL(import.meta.url)));
  for (const name of ['llmsizer-node.cjs', 'llmsizer-node.wasm']) add(name, readFileSync(join(wasmDir, name)));
  return hash.digest('hex').slice(0, 32);
}
const cacheRoot = join(root, 'build/prerender-cache');
const renderedDir = join(cacheRoot, contentKey());
const timings = [];

// One tab per worker, loading page after page: a fresh document each time
// (the query differs, so it is a navigation, not a hash change), without a
// new renderer process each time.
async function render(tab, base, page, n) {
  const t0 = performance.now();
  const errors = [];
  const onError = (e) => errors.push(String(e));
  const onConsole = (m) => { if (m.type() === 'error') errors.push(m.text()); };
  tab.on('pageerror', onError);
  tab.on('console', onConsole);
  const hash = toHash(page.state);
  await tab.goto(`${base}_shell.html?page=${n}${hash}`);
  await tab.waitForFunction(() => performance.getEntriesByName('llm-sizer:answered').length > 0, null, { timeout: 60000 });
  if (errors.length) throw new Error(`${page.path || '/'}: ${errors.join('; ')}`);
  const html = await tab.evaluate(snapshot, { scenario: hash.slice(1), canonical: `${SITE_URL_SLOT}${page.path}`, groups: linksOf(page), lede: ledeOf(page), heading: headingOf(page) });
  tab.off('pageerror', onError);
  tab.off('console', onConsole);
  const dir = join(renderedDir, page.path);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), rebase(html, page.path));
  timings.push(performance.now() - t0);
}

async function renderAll() {
  renameSync(join(site, 'index.html'), join(site, '_shell.html'));
  const server = spawn(process.execPath, [join(root, 'scripts/static-server.mjs'), site, '--port', '0', '--cache'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    // Several tabs render at once: none may be throttled as a background tab.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'],
  });
  try {
    const base = await new Promise((done, fail) => {
      server.stdout.on('data', (chunk) => {
        const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(String(chunk));
        if (match) done(match[1]);
      });
      server.on('exit', (code) => fail(new Error(`static server exited ${code}`)));
    });
    // Several tabs at once: a page mostly waits (fetches, idle callbacks), so
    // four keep two cores busy (PRERENDER_TABS to change).
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const queue = [...pages];
    let n = 0;
    const worker = async () => {
      const tab = await context.newPage();
      for (let page = queue.shift(); page; page = queue.shift()) await render(tab, base, page, n++);
      await tab.close();
    };
    const tabs = Math.max(1, Number(process.env.PRERENDER_TABS) || 4);
    await Promise.all(Array.from({ length: tabs }, worker));
    await context.close();
  } finally {
    await browser.close();
    server.kill();
    renameSync(join(site, '_shell.html'), join(site, 'index.html'));
  }
}

const reused = existsSync(join(renderedDir, 'complete'));
if (!reused) {
  rmSync(cacheRoot, { recursive: true, force: true });  // the latest site's pages are kept, no others
  await renderAll();
  writeFileSync(join(renderedDir, 'complete'), `${pages.length} pages\n`);
}
// SITE_URL was checked as an absolute http(s) address without query or
// fragment; in an attribute only '&' needs escaping.
const siteUrlInHtml = siteUrl.replaceAll('&', '&amp;');
for (const page of pages) {
  const html = readFileSync(join(renderedDir, page.path, 'index.html'), 'utf8');
  const dir = join(site, page.path);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), html.replaceAll(SITE_URL_SLOT, siteUrlInHtml));
}

const urls = pages.map((p) => `  <url><loc>${siteUrl}${p.path}</loc></url>`).join('\n');
writeFileSync(join(site, 'sitemap.xml'), `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`);
writeFileSync(join(site, 'robots.txt'), `User-agent: *\nAllow: /\nSitemap: ${siteUrl}sitemap.xml\n`);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(reused
  ? `prerender: ${pages.length} pages (${models.length} models, ${pairs.length} model x device) in ${seconds} s, rendered by an earlier build of the same site (build/prerender-cache)`
  : `prerender: ${pages.length} pages (${models.length} models, ${pairs.length} model x device) in ${seconds} s` +
    ` (a page: median ${timings.sort((a, b) => a - b)[timings.length >> 1].toFixed(0)} ms, several tabs at once)`);
