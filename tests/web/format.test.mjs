// The page's number formatting: Intl.NumberFormat in the reader's locale,
// units labelled (GiB and GB apart), en-US and de-DE.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fixed, gib, gb, gibAndGb, rate, seconds, tokens, usd, params, percent, contextLabel, setLocale }
  from '../../web/js/format.js';

test('en-US: grouping with commas, a decimal point, the asked decimals', () => {
  setLocale('en-US');
  assert.equal(fixed(1234567.891, 1), '1,234,567.9');
  assert.equal(fixed(1234567.891, 0), '1,234,568');
  assert.equal(fixed(999.95, 1), '1,000.0');
  assert.equal(fixed(12, 2), '12.00');
  assert.equal(fixed(-1234.5, 0), '-1,235');
  assert.equal(fixed(1.005, 2), '1.01');  // the decimal people read, not its binary expansion
  assert.equal(gib(2 ** 30 * 1.5), '1.5 GiB');
  assert.equal(gb(1.5e9), '1.5 GB');
  assert.equal(gibAndGb(2 ** 30 * 1234), '1,234.0 GiB (1,325.0 GB)');
  assert.equal(tokens(131072), '131,072');
  assert.equal(rate(7.456), '7.46 tok/s');
  assert.equal(rate(42.25), '42.3 tok/s');
  assert.equal(rate(1234.4), '1,234 tok/s');
  assert.equal(seconds(0.25), '250 ms');
  assert.equal(seconds(12.345), '12.35 s');
  assert.equal(usd(3.456), '$3.46');
  assert.equal(usd(12345.6), '$12,346');
  assert.equal(params(355e9), '355.0B');
  assert.equal(params(1.6e12), '1.60T');
  assert.equal(percent(0.734), '73%');
  assert.equal(contextLabel(131072), '128K');
  assert.equal(contextLabel(100000), '100,000');
});

test('de-DE: grouping with points, a decimal comma; units unchanged', () => {
  setLocale('de-DE');
  assert.equal(fixed(1234567.891, 1), '1.234.567,9');
  assert.equal(gib(2 ** 30 * 1.5), '1,5 GiB');
  assert.equal(gb(1.5e9), '1,5 GB');
  assert.equal(gibAndGb(2 ** 30 * 1234), '1.234,0 GiB (1.325,0 GB)');
  assert.equal(tokens(131072), '131.072');
  assert.equal(rate(7.456), '7,46 tok/s');
  assert.equal(seconds(12.345), '12,35 s');
  assert.equal(usd(3.456), '3,46\u00a0$');
  assert.equal(params(355e9), '355,0B');
  assert.equal(percent(0.734), '73\u00a0%');
  assert.equal(contextLabel(100000), '100.000');
});

test('absent figures and values that are not finite', () => {
  setLocale('en-US');
  for (const f of [rate, seconds, usd, params]) assert.equal(f(null), '—');
  assert.equal(fixed(Infinity, 1), '∞');
  assert.equal(fixed(NaN, 1), 'NaN');
});

test('formatters are made once per locale and style, not per call', () => {
  const made = [];
  const Original = Intl.NumberFormat;
  Intl.NumberFormat = function counted(...args) { made.push(args); return new Original(...args); };
  try {
    setLocale('en-US');
    for (let i = 0; i < 1000; i += 1) { gib(i * 2 ** 30); rate(i); usd(i); percent(i / 1000); }
    assert.ok(made.length <= 6, `${made.length} formatters for 4000 calls`);
    setLocale('de-DE');
    gib(2 ** 30);
    assert.equal(made.at(-1)[0], 'de-DE');
  } finally {
    Intl.NumberFormat = Original;
    setLocale(undefined);
  }
});
