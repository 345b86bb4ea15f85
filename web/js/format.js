// Formatting for people: units always labelled, GiB (2^30) and GB (10^9) never mixed.
const GIB = 2 ** 30;
const GB = 1e9;

// Fixed decimals with en-US thousands separators. Not Intl.NumberFormat: the
// first Intl formatter a page makes loads ICU's data, ~50 ms of the page's
// start on a small machine. Rounded half away from zero on the decimal people
// read, as Intl does (1.005 shows 1.01, though its binary value is a hair
// below). Where the scaled value is near a half, the digits of the shortest
// decimal that reads back as the value decide; elsewhere a multiplication
// rounds the same and costs far less (the slider
// formats some hundred numbers per move). No regex: the page's start calls
// this some 600 times, before V8 has compiled anything.
const SCALES = [1, 10, 100, 1000];
export function fixed(value, digits) {
  if (!Number.isFinite(value)) return value > 0 ? '∞' : value < 0 ? '-∞' : 'NaN';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const abs = Math.abs(value);
  if (abs >= 1e21) return sign + String(abs);  // toFixed's own limit
  const scale = SCALES[digits] ?? 10 ** digits;
  const scaled = abs * scale;
  let rounded;
  if (abs >= 1e15) {
    rounded = abs;
  } else if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-6) {
    rounded = Math.round(scaled) / scale;
  } else {
    // Rounded on the digits of the shortest decimal: the first dropped digit
    // decides (5 or more: up).
    const shortest = String(abs);
    const point = shortest.indexOf('.');
    if (shortest.includes('e') || point < 0 || shortest.length - point - 1 <= digits) {
      rounded = abs;
    } else {
      const kept = Number(shortest.slice(0, point) + shortest.slice(point + 1, point + 1 + digits));
      rounded = (shortest[point + 1 + digits] >= '5' ? kept + 1 : kept) / scale;
    }
  }
  const text = rounded.toFixed(digits);
  const point = digits > 0 ? text.length - digits - 1 : text.length;
  let integer = text.slice(0, point);
  for (let i = integer.length - 3; i > 0; i -= 3) integer = `${integer.slice(0, i)},${integer.slice(i)}`;
  return sign + integer + text.slice(point);
}

const oneDecimal = { format: (v) => fixed(v, 1) };
const twoDecimals = { format: (v) => fixed(v, 2) };
const whole = { format: (v) => fixed(v, 0) };

export const gib = (bytes) => `${oneDecimal.format(bytes / GIB)} GiB`;
export const gb = (bytes) => `${oneDecimal.format(bytes / GB)} GB`;
export const gibAndGb = (bytes) => `${gib(bytes)} (${gb(bytes)})`;
export const tokens = (n) => whole.format(n);
export const percent = (ratio) => `${whole.format(ratio * 100)}%`;

export function rate(tokensPerSecond) {
  if (tokensPerSecond == null) return '—';
  const digits = tokensPerSecond < 10 ? twoDecimals : tokensPerSecond < 100 ? oneDecimal : whole;
  return `${digits.format(tokensPerSecond)} tok/s`;
}

export function seconds(s) {
  if (s == null) return '—';
  return s < 1 ? `${whole.format(s * 1000)} ms` : `${twoDecimals.format(s)} s`;
}

export function usd(value) {
  if (value == null) return '—';
  return `$${value < 10 ? twoDecimals.format(value) : whole.format(value)}`;
}

export function params(count) {
  if (count == null) return '—';
  if (count >= 1e12) return `${twoDecimals.format(count / 1e12)}T`;
  if (count >= 1e9) return `${oneDecimal.format(count / 1e9)}B`;
  return `${whole.format(count / 1e6)}M`;
}

export function contextLabel(n) {
  if (n >= 1048576 && n % 1048576 === 0) return `${n / 1048576}M`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}K`;
  return tokens(n);
}
