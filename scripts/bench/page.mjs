// The page in headless Chromium: navigation to the engine's first figures,
// the prerendered figures painted against the static floor, what the page
// fetches before and after the reader first reaches for it, and one `input`
// event on the context slider to updated figures (p50/p95 over three drags of
// 100 moves, measured inside the page).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { figure, percentile } from './report.mjs';
import { openPage, siteDir, startBrowser, startServer } from '../../tests/browser/harness.mjs';

const server = await startServer();
const browser = await startBrowser();
try {
  // Where the first figures' time goes (the page's own marks, ms from navigation).
  const phases = ['first-paint', 'llm-sizer:app-start', 'llm-sizer:module-ready', 'llm-sizer:catalog-ready', 'llm-sizer:first-figures'];
  const runs = [];
  for (let i = 0; i < 5; i += 1) {
    const { page } = await openPage(browser, `${server.url}#model=glm-4.5&quant=Q4_K_M&ctx=8192&gpu=mi300x`);
    const marks = await page.evaluate((names) => Object.fromEntries(names.map((n) => [n, performance.getEntriesByName(n)[0]?.startTime ?? NaN])), phases);
    runs.push(marks);
    await page.close();
  }
  for (const phase of phases.slice(0, -1)) {
    figure(`page.startup.${phase.replace('llm-sizer:', '')}`, percentile(runs.map((r) => r[phase]), 50), 'ms');
  }
  // The engine is ready when the script has written its own first figures: a
  // slider move from then on is answered.
  figure('page.engine_ready', percentile(runs.map((r) => r['llm-sizer:first-figures']), 50), 'ms');

  // The static floor: the same HTML and CSS with no script (scripts and
  // module preloads cut from the document as it arrives), first contentful
  // paint; and,
  // in the same run, alternating with it, when the prerendered figures are
  // painted on the page itself (element timing on the verdict).
  const floor = [];
  const painted = [];
  for (let i = 0; i < 7; i += 1) {
    const bare = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const bareLog = { errors: [] };
    bare.on('pageerror', (e) => bareLog.errors.push(String(e)));
    await bare.route(`${server.url}`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
        .replace(/<link rel="(?:modulepreload|preload)"[^>]*>/g, '');
      await route.fulfill({ response, body: html });
    });
    await bare.goto(server.url);
    floor.push(await bare.evaluate(() => new Promise((done) => {
      new PerformanceObserver((list) => {
        const entry = list.getEntries().find((e) => e.name === 'first-contentful-paint');
        if (entry) done(entry.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => done(NaN), 5000);
    })));
    if (bareLog.errors.length) throw new Error(`static floor: ${bareLog.errors.join('; ')}`);
    await bare.close();
    // The page itself through the same interception (the document unchanged),
    // so both pay the same for it.
    const full = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await full.route(`${server.url}`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: await response.text() });
    });
    await full.goto(server.url);
    painted.push(await full.evaluate(() => new Promise((done) => {
      new PerformanceObserver((list) => {
        const entry = list.getEntries().find((e) => e.identifier === 'llm-sizer:verdict');
        if (entry) done(entry.renderTime);
      }).observe({ type: 'element', buffered: true });
      setTimeout(() => done(NaN), 5000);
    })));
    await full.close();
  }
  const floorMs = percentile(floor, 50);
  const paintedMs = percentile(painted, 50);
  figure('page.static_floor', floorMs, 'ms');
  figure('page.first_figures_painted', paintedMs, 'ms', floorMs * 1.15);
  figure('page.first_figures_painted_over_floor', paintedMs / floorMs, 'x', 1.15);

  // What the prerendered home page fetches while the reader only reads (3 s
  // after its load event, nothing touched), then once the pointer moves: the
  // engine, and the full module the recommendations ask for. Gzipped sizes
  // of the files as served (the static server does not compress).
  const fetchedKiB = (paths) => paths.reduce((sum, p) => sum + gzipSync(readFileSync(join(siteDir, p === '/' ? 'index.html' : p))).length, 0) / 1024;
  const reader = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const fetched = [];
  reader.on('requestfinished', (r) => { if (r.url().startsWith(server.url)) fetched.push(new URL(r.url()).pathname); });
  await reader.goto(server.url, { waitUntil: 'load' });
  await reader.waitForTimeout(3000);
  const atStart = [...fetched];
  figure('bytes.fetched_at_start.gzip', fetchedKiB(atStart), 'KiB', 128 * 1000 / 1024);
  if (atStart.some((p) => /llmsizer/.test(p))) throw new Error(`the engine was fetched before the reader reached for the page: ${atStart.join(' ')}`);
  await reader.mouse.move(10, 10);
  await reader.waitForFunction(() => performance.getEntriesByName('llm-sizer:answered').length > 0, null, { timeout: 30000 });
  const live = await reader.evaluate(() => ({
    engaged: performance.getEntriesByName('llm-sizer:engaged')[0].startTime,
    figures: performance.getEntriesByName('llm-sizer:first-figures')[0].startTime,
    answered: performance.getEntriesByName('llm-sizer:answered')[0].startTime,
  }));
  figure('page.engaged_to_live', live.figures - live.engaged, 'ms');
  figure('page.engaged_to_recommendations', live.answered - live.engaged, 'ms');
  await reader.waitForTimeout(1000);
  figure('bytes.fetched_once_live.gzip', fetchedKiB([...new Set(fetched)]), 'KiB');
  await reader.close();

  const { page } = await openPage(browser, `${server.url}#model=glm-4.5&quant=Q4_K_M&ctx=8192&gpu=mi300x`);
  // A person starts dragging a moment after the figures appear: by then the
  // page's deferred panels (offers after 150 ms) have run.
  await page.waitForTimeout(1000);
  const times = { sync: [], frame: [], work: [] };
  for (let drag = 0; drag < 3; drag += 1) {
    const one = await page.evaluate(async () => {
      const slider = document.querySelector('input[name="ctx"]');
      const figure = document.querySelector('[data-field="memory.kv_cache_bytes"]');
      const sync = [];
      const frame = [];
      const work = [];
      for (let i = 0; i < 100; i += 1) {
        slider.value = String(12 + (i % 6));
        const before = figure.dataset.value;
        const t0 = performance.now();
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        const t1 = performance.now();
        if (figure.dataset.value === before && i % 6 !== 0) throw new Error('figures did not change');
        sync.push(t1 - t0);
        // The matrix and the chart follow on the next frame.
        await new Promise((done) => requestAnimationFrame(() => { frame.push(performance.now() - t0); done(); }));
        const panels = performance.getEntriesByName('llm-sizer:panels')[0];
        work.push(t1 - t0 + (panels ? panels.duration : NaN));
      }
      return { sync, frame, work };
    });
    times.sync.push(...one.sync);
    times.frame.push(...one.frame);
    times.work.push(...one.work);
  }
  figure('page.input_to_figures.p50', percentile(times.sync, 50), 'ms', 4);
  figure('page.input_to_figures.p95', percentile(times.sync, 95), 'ms', 4);
  // Every panel recomputed: the input task plus the next frame's panels,
  // without the wait for that frame.
  figure('page.recompute_all_panels.p50', percentile(times.work, 50), 'ms', 4);
  figure('page.recompute_all_panels.p95', percentile(times.work, 95), 'ms', 4);
  figure('page.input_to_all_panels_frame.p50', percentile(times.frame, 50), 'ms');
  figure('page.input_to_all_panels_frame.p95', percentile(times.frame, 95), 'ms');
  await page.close();
} finally {
  await browser.close();
  server.stop();
}
