// The embed page a site owner uses (web/embed/): a live preview, the two
// snippets written from the preview's attributes, and the element snippet
// working as copied on a page of another origin; readable at phone and
// desktop widths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { artifacts, startServer, useBrowser } from './harness.mjs';

const session = useBrowser({ csp: true });

const previewReady = (page) => page.waitForFunction(() =>
  document.getElementById('preview')?.shadowRoot?.querySelector('[data-field="memory.required_bytes"]')?.dataset.value, null, { timeout: 20000 });
const snippet = (page, id) => page.textContent(`#${id}`);

for (const [width, height] of [[360, 740], [768, 1024], [1280, 800], [1920, 1080]]) {
  test(`the embed page at ${width} px: nothing wider than the screen, every snippet readable`, async () => {
    const page = await session.browser.newPage({ viewport: { width, height } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${session.server.url}embed/`);
    await previewReady(page);
    const overflow = await page.evaluate(() => {
      const wide = [];
      for (const el of document.querySelectorAll('body *')) {
        const box = el.getBoundingClientRect();
        if (box.width > 0 && (box.right > innerWidth + 0.5 || box.left < -0.5)) wide.push(`${el.tagName}.${el.className}`);
      }
      return { scroll: document.documentElement.scrollWidth, wide };
    });
    assert.ok(overflow.scroll <= width, `page ${overflow.scroll} px wide at ${width}`);
    assert.deepEqual(overflow.wide, []);
    // Snippets wrap inside their box rather than run off it.
    for (const id of ['snippet-element', 'snippet-iframe']) {
      const { scroll, client } = await page.$eval(`#${id}`, (el) => ({ scroll: el.parentElement.scrollWidth, client: el.parentElement.clientWidth }));
      assert.ok(scroll <= client, `${id}: ${scroll} > ${client}`);
    }
    await page.screenshot({ path: join(artifacts, `embed-page-${width}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('the snippets follow the preview: the options above it and the widget\'s own controls', async () => {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.server.url}embed/`);
  await previewReady(page);
  const root = new URL(session.server.url);
  // As opened: the preview's attributes, the widget's defaults left out, from this site's address.
  assert.equal(await snippet(page, 'snippet-element'),
    `<script type="module" src="${root.href}llm-sizer-widget.js"></script>\n` +
    '<llm-sizer model="llama-3.3-70b-instruct" gpu="rtx-4090" gpus="2" quant="Q4_K_M" ctx="8192" variant="full"></llm-sizer>');
  assert.match(await snippet(page, 'snippet-iframe'),
    new RegExp(`^<iframe src="${root.href.replace(/[.]/g, '\\.')}embed\\.html#model=llama-3\\.3-70b-instruct&amp;gpu=rtx-4090&amp;gpus=2&amp;quant=Q4_K_M&amp;ctx=8192&amp;variant=full"`));

  // The options: another model (from the catalog list), the compact look, the dark theme.
  await page.waitForFunction(() => document.querySelectorAll('#opt-model option').length > 50);
  await page.selectOption('#opt-model', 'qwen3-30b-a3b');
  await page.selectOption('#opt-variant', '');
  await page.selectOption('#opt-theme', 'dark');
  const element = await snippet(page, 'snippet-element');
  assert.match(element, /<llm-sizer model="qwen3-30b-a3b" [^>]*theme="dark"><\/llm-sizer>/);
  assert.doesNotMatch(element, /variant=/);
  await page.waitForFunction(() => document.getElementById('preview').shadowRoot.querySelector('.title')?.textContent.startsWith('Qwen3'));

  // The widget's own control (full look again, then its quantization select).
  await page.selectOption('#opt-variant', 'full');
  await page.waitForFunction(() => document.getElementById('preview').shadowRoot.querySelector('select[name="quant"], select'));
  await page.evaluate(() => {
    const select = [...document.getElementById('preview').shadowRoot.querySelectorAll('select')].find((s) => [...s.options].some((o) => o.value === 'Q8_0'));
    select.value = 'Q8_0';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForFunction(() => document.getElementById('snippet-element').textContent.includes('quant="Q8_0"'));
  assert.match(await snippet(page, 'snippet-iframe'), /quant=Q8_0/);
  await page.close();
});

test('the element snippet, as copied, runs on a page of another origin; the iframe snippet too', async () => {
  const page = await session.browser.newPage();
  await page.goto(`${session.server.url}embed/`);
  await previewReady(page);
  const element = await snippet(page, 'snippet-element');
  const iframe = await snippet(page, 'snippet-iframe');
  await page.close();
  const dir = mkdtempSync(join(tmpdir(), 'llmsizer-owner-'));
  writeFileSync(join(dir, 'index.html'), `<!doctype html>\n<title>A site owner's post</title>\n<p>Our GPU guide.</p>\n${element}\n${iframe}\n`);
  const other = await startServer({ dir });
  try {
    const { url } = other;
    assert.notEqual(new URL(url).port, new URL(session.server.url).port);
    const host = await session.browser.newPage();
    const errors = [];
    host.on('pageerror', (e) => errors.push(String(e)));
    await host.goto(url);
    await host.waitForFunction(() => document.querySelector('llm-sizer')?.shadowRoot?.querySelector('[data-field="memory.required_bytes"]')?.dataset.value, null, { timeout: 20000 });
    assert.equal(await host.evaluate(() => document.querySelector('llm-sizer').shadowRoot.querySelector('.title').textContent), 'Llama 3.3 70B Instruct');
    await host.waitForFunction(() => document.querySelector('iframe')?.contentWindow);
    const frame = host.frames().find((f) => f !== host.mainFrame());
    await frame.waitForFunction(() => document.querySelector('llm-sizer')?.shadowRoot?.querySelector('[data-field="memory.required_bytes"]')?.dataset.value, null, { timeout: 20000 });
    assert.equal(await frame.evaluate(() => document.querySelector('llm-sizer').getAttribute('model')), 'llama-3.3-70b-instruct');
    assert.deepEqual(errors, []);
    await host.close();
  } finally {
    other.stop();
  }
});

test('the home page and every model page link to the embed page', async () => {
  const page = await session.browser.newPage();
  for (const path of ['', 'models/llama-3.1-8b/', 'models/llama-3.1-8b/rtx-4090/']) {
    await page.goto(`${session.server.url}${path}`);
    const href = await page.$eval('.masthead .embed-link', (a) => a.href);
    assert.equal(href, `${session.server.url}embed/`, path);
    assert.equal(await page.$eval('.masthead .site-name', (a) => a.href), session.server.url, path);
  }
  await page.close();
});
