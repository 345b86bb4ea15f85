// An element with attributes and text (textContent only: nothing is parsed
// as HTML). Its own module, so that code fetched on demand (the planner's
// searches) needs no more than this of render.js.
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text != null) node.textContent = text;
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';

// An empty chart of width x height user units (class chart-svg) and `add`,
// which appends an SVG element with its attributes and text to it (or to
// `parent`) and returns the element.
export function chartSvg(width, height) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'chart-svg');
  const add = (tag, attrs, text, parent = svg) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text != null) node.textContent = text;
    parent.append(node);
    return node;
  };
  return { svg, add };
}
