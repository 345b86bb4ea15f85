// The page's number formatting: en-US grouping, fixed decimals, rounded as
// people read the number (half away from zero on its shortest decimal), the
// same strings Intl.NumberFormat('en-US') gives, without loading ICU at start.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fixed, gib, gb, rate, tokens, usd, params, percent } from '../../web/js/format.js';

test('fixed groups thousands and keeps the asked decimals', () => {
  assert.equal(fixed(1234567.891, 1), '1,234,567.9');
  assert.equal(fixed(1234567.891, 0), '1,234,568');
  assert.equal(fixed(999.95, 1), '1,000.0');
  assert.equal(fixed(12, 2), '12.00');
  assert.equal(fixed(-1234.5, 0), '-1,235');
  assert.equal(fixed(0, 1), '0.0');
});

test('fixed rounds the decimal people see, not the binary expansion', () => {
  // 1.005 is stored as 1.00499999999999989...: toFixed(2) gives 1.00, a reader expects 1.01.
  assert.equal(fixed(1.005, 2), '1.01');
  assert.equal(fixed(0.15, 1), '0.2');
  assert.equal(fixed(2.5, 0), '3');
  assert.equal(fixed(-2.5, 0), '-3');
});

test('fixed matches Intl.NumberFormat en-US over many magnitudes', () => {
  const intl = [0, 1, 2].map((d) => new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
  let seed = 12345;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 20000; i += 1) {
    const value = (random() - 0.3) * 10 ** (random() * 14 - 4);
    for (const digits of [0, 1, 2]) assert.equal(fixed(value, digits), intl[digits].format(value), `${value} to ${digits}`);
  }
});

test('fixed matches Intl on values at or a hair from a half', () => {
  // 58805.35 + 0.005 is stored as 58805.354999999996: Intl shows 58,805.35.
  assert.equal(fixed(58805.35 + 0.005, 2), '58,805.35');
  assert.equal(fixed(0.125, 2), '0.13');
  const intl = [0, 1, 2].map((d) => new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
  for (let cents = 0; cents < 2000000; cents += 997) {
    for (const value of [cents / 100 + 0.005, cents / 1000 + 0.0005, -(cents / 10 + 0.05)]) {
      for (const digits of [0, 1, 2]) assert.equal(fixed(value, digits), intl[digits].format(value), `${value} to ${digits}`);
    }
  }
});

test('fixed names values that are not finite', () => {
  assert.equal(fixed(Infinity, 1), '∞');
  assert.equal(fixed(NaN, 1), 'NaN');
});

test('the labelled formats keep GiB and GB apart', () => {
  assert.equal(gib(2 ** 30 * 1.5), '1.5 GiB');
  assert.equal(gb(1.5e9), '1.5 GB');
  assert.equal(tokens(131072), '131,072');
  assert.equal(rate(7.456), '7.46 tok/s');
  assert.equal(rate(123.4), '123 tok/s');
  assert.equal(usd(3.456), '$3.46');
  assert.equal(params(355e9), '355.0B');
  assert.equal(percent(0.734), '73%');
});
