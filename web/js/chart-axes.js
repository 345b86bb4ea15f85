// Geometry the page's charts share: round tick steps, room for the labels at
// the size they are drawn, and a drawing as wide as its box (one SVG unit per
// CSS pixel), so a phone shows 14 px labels rather than a desk chart shrunk.
const TICK_FONT_PX = 14;  // .chart-svg .tick in styles.css
let measurer = null;  // a 2D canvas context: the browser measures text in the page's own font
const drawnWidth = new WeakMap();
// Each chart's observer, held here: one nobody references may be collected.
const observers = new WeakMap();

// A round step (1, 2, 2.5 or 5 times a power of ten) that cuts 0..max into
// about four parts, and the ticks from 0 to the first one at or above max.
export function niceTicks(max) {
  if (!(max > 0)) return [0, 1];
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const out = [];
  for (let v = 0; v < max + step * 0.999; v += step) out.push(v);
  return out;
}

// Width in px a label takes at the ticks' size, in the font the charts inherit.
export function labelWidth(text, fontPx = TICK_FONT_PX) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = `${fontPx}px ${getComputedStyle(document.body).fontFamily}`;
  return measurer.measureText(String(text)).width;
}

// The width to draw at: the box's own, within [low, high]; `fallback` while
// the box is not laid out (hidden). Remembered, so a resize can tell a real change.
export function chartWidth(chart, fallback, low = 280, high = 760) {
  const width = chart.clientWidth > 0 ? Math.round(Math.min(high, Math.max(low, chart.clientWidth))) : fallback;
  drawnWidth.set(chart, { width, low, high });
  return width;
}

// Draws again when the box's width changes (a phone turned, a window resized).
export function redrawOnResize(chart, redraw) {
  if (observers.has(chart) || typeof ResizeObserver === 'undefined') return;
  const observer = new ResizeObserver(() => {
    const drawn = drawnWidth.get(chart);
    const now = Math.round(Math.min(drawn?.high ?? Infinity, Math.max(drawn?.low ?? 0, chart.clientWidth)));
    if (chart.clientWidth > 0 && Math.abs(now - (drawn?.width ?? 0)) > 8) redraw();
  });
  observers.set(chart, observer);
  observer.observe(chart);
}
