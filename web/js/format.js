// Formatting for people: units always labelled, GiB (2^30) and GB (10^9) never
// mixed, numbers in the reader's locale (Intl.NumberFormat: grouping, decimal
// mark, rounding half away from zero on the decimal people read).
export const GIB = 2 ** 30;
const GB = 1e9;

// undefined: the reader's locale (the browser's language). setLocale() picks
// another (the tests); the formatters are made once per locale and style, not
// per call: the slider formats some hundred numbers per move.
let locale;
let formatters = new Map();

export function setLocale(next) {
  locale = next;
  formatters = new Map();
}

function formatter(key, options) {
  let f = formatters.get(key);
  if (f === undefined) {
    f = new Intl.NumberFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

const decimals = (digits) => formatter(digits, { minimumFractionDigits: digits, maximumFractionDigits: digits });

// `value` with exactly `digits` decimals, grouped ("1,234.5" in en-US, "1.234,5" in de-DE).
export function fixed(value, digits) {
  return decimals(digits).format(value);
}

export const gib = (bytes) => `${fixed(bytes / GIB, 1)} GiB`;
export const gb = (bytes) => `${fixed(bytes / GB, 1)} GB`;
export const gibAndGb = (bytes) => `${gib(bytes)} (${gb(bytes)})`;
// A small buffer in MiB, where one decimal of GiB would say 0.0.
export const gibOrMib = (bytes) => (bytes < 0.1 * GIB ? `${fixed(bytes / 1048576, 0)} MiB` : gib(bytes));
export const tokens = (n) => fixed(n, 0);
export const percent = (ratio) => formatter('percent', { style: 'percent', maximumFractionDigits: 0 }).format(ratio);

export function rate(tokensPerSecond) {
  if (tokensPerSecond == null) return '—';
  const digits = tokensPerSecond < 10 ? 2 : tokensPerSecond < 100 ? 1 : 0;
  return `${fixed(tokensPerSecond, digits)} tok/s`;
}

export function seconds(s) {
  if (s == null) return '—';
  return s < 1 ? `${fixed(s * 1000, 0)} ms` : `${fixed(s, 2)} s`;
}

export function usd(value) {
  if (value == null) return '—';
  const digits = value < 10 ? 2 : 0;
  return formatter(`usd${digits}`, {
    style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(value);
}

export function params(count) {
  if (count == null) return '—';
  if (count >= 1e12) return `${fixed(count / 1e12, 2)}T`;
  if (count >= 1e9) return `${fixed(count / 1e9, 1)}B`;
  return `${fixed(count / 1e6, 0)}M`;
}

export function contextLabel(n) {
  if (n >= 1048576 && n % 1048576 === 0) return `${n / 1048576}M`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}K`;
  return tokens(n);
}
