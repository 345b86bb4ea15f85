// Starts the static server on a free port and a headless Debian Chromium, and
// keeps screenshots under build/test-artifacts/.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const root = resolve(new URL('../..', import.meta.url).pathname);
export const siteDir = process.env.LLMSIZER_SITE_DIR ?? join(root, 'build/site');
export const artifacts = join(root, 'build/test-artifacts');
mkdirSync(artifacts, { recursive: true });

// `dir`: another folder, served from its own origin (a site owner's page).
export async function startServer({ csp = false, dir = siteDir } = {}) {
  const args = [join(root, 'scripts/static-server.mjs'), dir, '--port', '0'];
  if (csp) args.push('--csp');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((done, fail) => {
    child.stdout.on('data', (chunk) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(String(chunk));
      if (match) done(match[1]);
    });
    child.on('exit', (code) => fail(new Error(`server exited ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

export async function startBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // launch() gives every run a fresh, empty profile of its own.
  });
}

// A test file's server and browser: started before its first test, stopped
// after its last. session.server and session.browser are set from then on.
export function useBrowser(serverOptions = {}) {
  const session = { server: null, browser: null };
  before(async () => {
    session.server = await startServer(serverOptions);
    session.browser = await startBrowser();
  });
  after(async () => {
    await session.browser?.close();
    session.server?.stop();
  });
  return session;
}

// One browser context per browser and context options (locale), its pages
// opened one after another: a context of its own for every page cost ~0.4 s
// of each test's start on 2 cores. The page keeps nothing a later page could
// read (no storage, no cookies), and the test server sends no cache
// validators, so every page still fetches everything afresh.
const contexts = new WeakMap();
function sharedContext(browser, contextOptions) {
  if (!contexts.has(browser)) contexts.set(browser, new Map());
  const byOptions = contexts.get(browser);
  const key = JSON.stringify(contextOptions);
  if (!byOptions.has(key)) byOptions.set(key, browser.newContext(contextOptions));
  return byOptions.get(key);
}

// A page that records console errors, failed requests and requests to other origins.
// options: the context's (locale: the reader's language, 'de-DE'), and
// figures: false for a scenario the engine refuses (the verdict says why).
export async function openPage(browser, url, viewport = { width: 1280, height: 900 }, options = {}) {
  const { figures = true, ...contextOptions } = options;
  const page = await (await sharedContext(browser, contextOptions)).newPage();
  await page.setViewportSize(viewport);
  const log = { errors: [], foreign: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith(new URL(url).origin) && !r.url().startsWith('data:')) log.foreign.push(r.url()); });
  page.on('dialog', (d) => { log.errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(url);
  await waitForApp(page, figures);
  return { page, log };
}

// The prerendered HTML has figures before the script runs: wait for the
// script's own (its first figures, for the hash's scenario). A prerendered
// page without a hash fetches its engine when the reader first reaches for
// it: the pointer moves, as a reader's would.
export async function waitForApp(page, figures = true) {
  await page.mouse.move(2, 2);
  if (!figures) {
    await page.waitForFunction(() => document.querySelector('#verdict')?.textContent.startsWith('Cannot size this'), null, { timeout: 20000 });
    return;
  }
  await page.waitForFunction(() => performance.getEntriesByName('llm-sizer:first-figures').length > 0, null, { timeout: 20000 });
  await page.waitForSelector('[data-field="memory.required_bytes"]:not([data-value=""])[data-value]', { timeout: 20000 });
}

export const fieldValue = (page, field) => page.$eval(`[data-field="${field}"]`, (e) => e.dataset.value);
