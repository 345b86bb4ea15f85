// iframe embed: embed.html#model=…&gpu=…&quant=…&ctx=… for sites that cannot run
// scripts. The hash becomes the widget's attributes; the frame tells its parent
// its height (postMessage {type: "llm-sizer:resize", height}) so the host can
// size the iframe, and follows hash changes.
import './llm-sizer-widget.js';

const widget = document.getElementById('widget');
const ALLOWED = ['model', 'gpu', 'quant', 'ctx', 'gpus', 'engine', 'kv', 'batch', 'offload', 'prompt', 'variant', 'theme'];

function applyHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  for (const key of ALLOWED) {
    // Values reach the widget as attribute text only; the engine validates them.
    if (params.has(key)) widget.setAttribute(key, params.get(key).slice(0, 200));
  }
}

applyHash();
window.addEventListener('hashchange', applyHash);

let lastHeight = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height !== lastHeight && window.parent !== window) {
    lastHeight = height;
    window.parent.postMessage({ type: 'llm-sizer:resize', height }, '*');
  }
}).observe(document.body);
