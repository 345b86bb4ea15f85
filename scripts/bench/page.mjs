// The page in headless Chromium: navigation to first figures (written, and
// painted: element timing on the verdict), and one `input`
// event on the context slider to updated figures (p50/p95 over three drags of
// 100 moves, measured inside the page).
import { figure, percentile } from './report.mjs';
import { openPage, startBrowser, startServer } from '../../tests/browser/harness.mjs';

const server = await startServer();
const browser = await startBrowser();
try {
  // Where the first figures' time goes (the page's own marks, ms from navigation).
  const phases = ['first-paint', 'llm-sizer:app-start', 'llm-sizer:module-ready', 'llm-sizer:catalog-ready', 'llm-sizer:first-figures'];
  const runs = [];
  for (let i = 0; i < 5; i += 1) {
    const { page } = await openPage(browser, `${server.url}#model=glm-4.5&quant=Q4_K_M&ctx=8192&gpu=mi300x`);
    const marks = await page.evaluate((names) => Object.fromEntries(names.map((n) => [n, performance.getEntriesByName(n)[0]?.startTime ?? NaN])), phases);
    // When the verdict was painted (element timing), beside when the page wrote it.
    marks.painted = await page.evaluate(() => new Promise((done) => {
      new PerformanceObserver((list) => {
        const entry = list.getEntries().find((e) => e.identifier === 'llm-sizer:verdict');
        if (entry) done(entry.renderTime);
      }).observe({ type: 'element', buffered: true });
      setTimeout(() => done(NaN), 5000);
    }));
    runs.push(marks);
    await page.close();
  }
  for (const phase of phases.slice(0, -1)) {
    figure(`page.startup.${phase.replace('llm-sizer:', '')}`, percentile(runs.map((r) => r[phase]), 50), 'ms');
  }
  figure('page.first_figures', percentile(runs.map((r) => r['llm-sizer:first-figures']), 50), 'ms', 250);
  figure('page.first_figures_painted', percentile(runs.map((r) => r.painted), 50), 'ms');

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
