// Charts and tables at the widths people read them (issue 33): at 360, 768,
// 1280 and 1920 px no chart label runs out of its drawing, chart text is drawn
// at a readable size, no table needs a sideways scroll, and on a phone or a
// narrow tablet each table row reads as a card whose values name their column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { artifacts, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();

// GLM-4.5 on one MI300X (its context chart runs to 266 GiB, its tables are the
// widest: every quantization's cheapest hardware, the cloud offers) and
// Llama 3.1 70B FP8 under vLLM on two H100s (the serving curve).
const SCENARIOS = {
  'glm-4.5 on MI300X': '#model=glm-4.5&quant=Q4_K_M&ctx=8192&gpu=mi300x',
  'llama-3.1-70b under vLLM': '#model=llama-3.1-70b&quant=FP8&ctx=8192&gpu=h100-sxm&gpus=2&engine=vllm&batch=16',
};
const WIDTHS = [360, 768, 1280, 1920];

// Every chart text's extent in the drawing's own units, against the drawing's
// box, and its height on screen.
const chartTexts = (page) => page.$$eval('.chart-svg', (svgs) => svgs.filter((svg) => svg.getBoundingClientRect().width > 0)
  .flatMap((svg) => {
    const box = svg.viewBox.baseVal;
    const owner = svg.closest('[id]').id;
    return [...svg.querySelectorAll('text')].filter((t) => t.textContent !== '').map((t) => {
      const b = t.getBBox();
      return { owner, text: t.textContent, left: b.x, right: b.x + b.width, top: b.y, bottom: b.y + b.height,
        width: box.width, height: box.height, screenPx: t.getBoundingClientRect().height };
    });
  }));

for (const [name, hash] of Object.entries(SCENARIOS)) {
  for (const width of WIDTHS) {
    test(`${name} at ${width} px: chart labels inside their drawing and readable, tables within their box`, async () => {
      const { page, log } = await openPage(session.browser, session.server.url + hash, { width, height: 900 });
      await page.waitForSelector('#context-chart svg', { timeout: 20000 });
      if (hash.includes('engine=vllm')) await page.waitForSelector('#serving-chart svg', { timeout: 20000 });
      await page.waitForSelector('#matrix tbody tr [data-value]:not([data-value=""])', { timeout: 20000 });
      const texts = await chartTexts(page);
      assert.ok(texts.length > 8, `${texts.length} chart labels`);
      for (const t of texts) {
        const where = `${t.owner} "${t.text}"`;
        assert.ok(t.left >= -0.5 && t.right <= t.width + 0.5, `${where} runs from ${t.left.toFixed(1)} to ${t.right.toFixed(1)} of ${t.width}`);
        assert.ok(t.top >= -0.5 && t.bottom <= t.height + 0.5, `${where} runs from ${t.top.toFixed(1)} to ${t.bottom.toFixed(1)} of ${t.height}`);
        // A 13-14 px label drawn at scale 1 is some 15-17 px tall; shrunk charts were 6-7 px.
        assert.ok(t.screenPx >= 12, `${where} is ${t.screenPx.toFixed(1)} px tall on screen`);
      }
      // The context chart's y axis names its largest value in full: GLM-4.5 needs
      // about 247 GiB at 128K tokens, so the top tick is 300 GiB, not "66.1 GiB".
      if (hash.includes('glm-4.5')) {
        const ticks = texts.filter((t) => t.owner === 'context-chart' && / GiB$/.test(t.text) && !/usable/.test(t.text)).map((t) => t.text);
        assert.deepEqual(ticks, ['0 GiB', '100 GiB', '200 GiB', '300 GiB']);
      }
      // Tables fit their box: nothing scrolls sideways out of sight.
      const tables = await page.$$eval('table.matrix', (all) => all.filter((t) => t.getBoundingClientRect().width > 0 && t.tBodies[0]?.rows.length)
        .map((t) => ({ id: t.id, table: Math.round(t.getBoundingClientRect().width), box: Math.round(t.parentElement.clientWidth),
          cards: getComputedStyle(t.tBodies[0].rows[0]).display === 'grid',
          unlabelled: [...t.querySelectorAll('tbody td')].filter((td) => td.dataset.label == null).length })));
      assert.ok(tables.some((t) => t.id === 'matrix'));
      for (const t of tables) {
        assert.ok(t.table <= t.box + 1, `#${t.id} is ${t.table} px in a ${t.box} px box`);
        assert.equal(t.unlabelled, 0, `#${t.id} cells without their column's name`);
        assert.equal(t.cards, width <= 900, `#${t.id} rows as cards at ${width} px`);
      }
      if (width <= 900) {
        // A card's value says what it is: "Weights: 200.5 GiB".
        const cell = await page.$eval('#matrix tbody tr td', (td) => `${getComputedStyle(td, '::before').content}|${td.textContent}`);
        assert.match(cell, /^"Weights: "\|[\d.,]+ GiB$/);
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, 'no sideways scroll of the page');
      await page.screenshot({ path: join(artifacts, `layout-${name.replace(/[^a-z0-9]+/gi, '-')}-${width}.png`), fullPage: true });
      assert.deepEqual(log.errors, []);
      await page.close();
    });
  }
}

test('a chart drawn for one width is drawn again for another', async () => {
  const { page, log } = await openPage(session.browser, session.server.url + SCENARIOS['glm-4.5 on MI300X'], { width: 1280, height: 900 });
  await page.waitForSelector('#context-chart svg');
  const before = await page.$eval('#context-chart svg', (s) => s.viewBox.baseVal.width);
  await page.setViewportSize({ width: 360, height: 740 });
  // Off screen the panel's content is skipped (content-visibility: auto): it is
  // laid out, and redrawn, when the reader reaches it.
  await page.$eval('#context-chart', (c) => c.scrollIntoView());
  await page.waitForFunction((w) => document.querySelector('#context-chart svg').viewBox.baseVal.width !== w, before);
  const after = await page.$eval('#context-chart svg', (s) => [s.viewBox.baseVal.width, s.getBoundingClientRect().width]);
  // One drawing unit per CSS pixel: the labels keep their size.
  assert.ok(Math.abs(after[0] - after[1]) <= 1, `drawn ${after[0]} wide in a ${after[1]} px box`);
  // The marker of the current context survives the redraw.
  assert.equal(await page.$eval('#context-chart line.current', (l) => l.getAttribute('visibility')), 'visible');
  assert.deepEqual(log.errors, []);
  await page.close();
});
