// An element with attributes and text (textContent only: nothing is parsed
// as HTML). Its own module, so that code fetched on demand (the planner's
// searches) needs no more than this of render.js.
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text != null) node.textContent = text;
  return node;
}
