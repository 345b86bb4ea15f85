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

// Each body cell of a table carries its column's heading (data-label), so a
// phone can show a row as a card of "heading: value" lines (styles.css)
// instead of a table scrolled out of sight. Kept up as the rows are redrawn.
export function labelColumns(table) {
  const headings = [...(table.tHead?.rows[0]?.cells ?? [])].map((th) => th.textContent.trim());
  const label = () => {
    for (const row of table.tBodies[0]?.rows ?? []) {
      let column = 0;
      for (const cell of row.cells) {
        const heading = headings[column] ?? '';
        if (cell.dataset.label !== heading) cell.dataset.label = heading;
        column += cell.colSpan || 1;
      }
    }
  };
  label();
  if (table.tBodies[0]) new MutationObserver(label).observe(table.tBodies[0], { childList: true, subtree: true });
}
