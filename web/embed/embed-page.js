// The embed page: a live preview of the widget and the two snippets that put
// it on another site, written from the preview's current attributes (the
// reader's choices in its controls included) and this site's own address.
import '../llm-sizer-widget.js';
import { loadEngine } from '../js/engine.js';

const preview = document.getElementById('preview');
// The attributes a snippet carries, in the order people read them; a value
// equal to the widget's default is left out.
const SNIPPET_ATTRIBUTES = ['model', 'gpu', 'gpus', 'quant', 'ctx', 'engine', 'kv', 'batch', 'prompt', 'offload', 'variant', 'theme'];
const DEFAULTS = { gpus: '1', engine: 'llama.cpp', batch: '1', prompt: '4096', offload: '0' };
const siteRoot = new URL('../', location.href);

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function chosenAttributes() {
  const out = [];
  for (const name of SNIPPET_ATTRIBUTES) {
    const value = preview.getAttribute(name);
    if (value != null && value !== '' && DEFAULTS[name] !== value) out.push([name, value]);
  }
  return out;
}

function writeSnippets() {
  const attributes = chosenAttributes();
  const element = attributes.map(([k, v]) => ` ${k}="${escapeHtml(v)}"`).join('');
  document.getElementById('snippet-element').textContent =
    `<script type="module" src="${new URL('llm-sizer-widget.js', siteRoot).href}"></script>\n<llm-sizer${element}></llm-sizer>`;
  const hash = new URLSearchParams(attributes).toString();
  document.getElementById('snippet-iframe').textContent =
    `<iframe src="${escapeHtml(new URL(`embed.html#${hash}`, siteRoot).href)}" title="LLM memory and speed (llm-sizer)" ` +
    'width="100%" height="520" loading="lazy"></iframe>';
}

// The options above the preview set its attributes; the widget's own
// controls set them too, and each recomputation sends llm-sizer-change.
const form = document.getElementById('embed-options');
form.addEventListener('change', (event) => {
  const { name, value } = event.target;
  if (value) preview.setAttribute(name, value);
  else preview.removeAttribute(name);
  writeSnippets();
});
preview.addEventListener('llm-sizer-change', writeSnippets);

for (const button of document.querySelectorAll('button.copy')) {
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    const status = document.getElementById('copy-status');
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = 'Copied.';
    } catch {
      // No clipboard permission (an http page, an old browser): select it for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(button.dataset.copy));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
    }
  });
}

writeSnippets();
// The model list, from the catalog the widget's engine carries.
loadEngine().then((engine) => {
  const select = document.getElementById('opt-model');
  const current = preview.getAttribute('model');
  for (const m of engine.catalog.models.filter((x) => x.sizable)) {
    const option = new Option(m.name, m.id, false, m.id === current);
    select.append(option);
  }
});
