// The widget's styles, adopted into its shadow root as a constructed stylesheet
// (no <style> element, so a strict CSP needs no 'unsafe-inline'). Hosts theme it
// through the custom properties below; nothing leaks in or out of the shadow.
export const WIDGET_CSS = `
:host {
  --llm-sizer-bg: #ffffff;
  --llm-sizer-fg: #1b1d21;
  --llm-sizer-muted: #555b66;
  --llm-sizer-line: #d9dce1;
  --llm-sizer-accent: #1f5fbf;
  --llm-sizer-weights: #3a6fd8;
  --llm-sizer-kv: #d9822b;
  --llm-sizer-runtime: #7a5cc9;
  --llm-sizer-offload: #8a9099;
  --llm-sizer-ok: #1d7a3a;
  --llm-sizer-bad: #b3261e;
  --llm-sizer-radius: 10px;
  --llm-sizer-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  all: initial;
  display: block;
  contain: content;
  max-width: 100%;
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) {
    --llm-sizer-bg: #1b1e23; --llm-sizer-fg: #e8eaed; --llm-sizer-muted: #a7adb7; --llm-sizer-line: #30353d;
    --llm-sizer-accent: #7fb0ff; --llm-sizer-weights: #5b8ef0; --llm-sizer-kv: #f0a24f; --llm-sizer-runtime: #a58cf0;
    --llm-sizer-ok: #5fd38a; --llm-sizer-bad: #ff8a80;
  }
}
:host([theme="dark"]) {
  --llm-sizer-bg: #1b1e23; --llm-sizer-fg: #e8eaed; --llm-sizer-muted: #a7adb7; --llm-sizer-line: #30353d;
  --llm-sizer-accent: #7fb0ff; --llm-sizer-weights: #5b8ef0; --llm-sizer-kv: #f0a24f; --llm-sizer-runtime: #a58cf0;
  --llm-sizer-ok: #5fd38a; --llm-sizer-bad: #ff8a80;
}
.card { box-sizing: border-box; font: 14px/1.45 var(--llm-sizer-font); color: var(--llm-sizer-fg); background: var(--llm-sizer-bg);
  border: 1px solid var(--llm-sizer-line); border-radius: var(--llm-sizer-radius); padding: 12px 14px; min-width: 0; }
.card * { box-sizing: border-box; }
.title { font-weight: 650; margin: 0 0 2px; overflow-wrap: anywhere; }
.sub { color: var(--llm-sizer-muted); font-size: 12px; margin: 0 0 8px; overflow-wrap: anywhere; }
.verdict { font-weight: 700; margin: 0 0 6px; }
.verdict.fits { color: var(--llm-sizer-ok); }
.verdict.nofit { color: var(--llm-sizer-bad); }
.bar { position: relative; display: flex; height: 14px; border-radius: 5px; background: var(--llm-sizer-line); overflow: hidden; margin: 4px 0 8px; }
.seg { height: 100%; }
.seg.weights { background: var(--llm-sizer-weights); }
.seg.kv { background: var(--llm-sizer-kv); }
.seg.runtime { background: var(--llm-sizer-runtime); }
.seg.offload { background: var(--llm-sizer-offload); }
.cap { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--llm-sizer-fg); }
.figs { display: grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap: 6px; margin: 0 0 8px; }
.fig { background: color-mix(in srgb, var(--llm-sizer-line) 35%, transparent); border-radius: 6px; padding: 4px 8px; min-width: 0; }
.fig span { display: block; font-size: 11px; color: var(--llm-sizer-muted); }
.fig b { font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.controls { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 6px 10px; }
label { display: block; font-size: 12px; color: var(--llm-sizer-muted); }
select, input { display: block; width: 100%; font: inherit; color: var(--llm-sizer-fg); background: var(--llm-sizer-bg);
  border: 1px solid var(--llm-sizer-line); border-radius: 6px; padding: 3px 6px; min-height: 30px; margin-top: 2px; }
input[type="range"] { accent-color: var(--llm-sizer-accent); padding: 0; border: 0; }
:focus-visible { outline: 2px solid var(--llm-sizer-accent); outline-offset: 1px; }
.error { color: var(--llm-sizer-bad); }
.note { margin: 0 0 8px; font-size: 11px; color: var(--llm-sizer-muted); overflow-wrap: anywhere; }
.note:empty { display: none; }
.foot { margin: 8px 0 0; font-size: 11px; color: var(--llm-sizer-muted); }
`;
