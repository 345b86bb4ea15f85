// Formatting for people: units always labelled, GiB (2^30) and GB (10^9) never mixed.
const GIB = 2 ** 30;
const GB = 1e9;

const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

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
