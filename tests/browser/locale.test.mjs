// The page writes numbers in the reader's locale (Intl.NumberFormat), units
// unchanged: en-US "1,234.5 GiB", de-DE "1.234,5 GiB".
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { gibAndGb, setLocale } from '../../web/js/format.js';
import { fieldValue, openPage, useBrowser } from './harness.mjs';

const session = useBrowser();

// Llama 3.1 8B on eight MI300X: over a thousand GiB usable, grouped.
const LINK = '#model=llama-3.1-8b&quant=Q4_K_M&ctx=8192&batch=1&kv=f16&engine=llama.cpp&gpu=mi300x&gpus=8&offload=0&prompt=4096';

for (const [locale, group, point] of [['en-US', ',', '.'], ['de-DE', '.', ',']]) {
  test(`${locale}: figures in the reader's locale, GiB and GB labelled`, async () => {
    const { page, log } = await openPage(session.browser, session.server.url + LINK, undefined, { locale });
    const bytes = Number(await fieldValue(page, 'memory.usable_bytes'));
    const shown = (await page.textContent('[data-field="memory.usable_bytes"]')).trim();
    setLocale(locale);
    assert.equal(shown, gibAndGb(bytes));
    setLocale(undefined);
    assert.match(shown, new RegExp(`^\\d{1,3}(\\${group}\\d{3})+\\${point}\\d GiB \\(\\d{1,3}(\\${group}\\d{3})+\\${point}\\d GB\\)$`));
    assert.deepEqual(log.errors, []);
    await page.close();
  });
}
