// Starts fetching and compiling the engine's WebAssembly while the page is
// still being parsed, when the page needs its engine for its first figures: a
// link with a scenario in its hash, or a page without prerendered answers. A
// prerendered page (<html data-scenario>) opened without a hash already shows
// its figures; it fetches the engine when the reader first reaches for the
// page (app.js), so nothing is started here. A classic script at the end of
// index.html's body runs as soon as the parser reaches it; module scripts
// (wasm-module.js, the page) wait for the first layout, which on a small
// machine is ~100 ms later (first figures ~40 ms sooner in an alternating A/B
// of 25 loads each). wasm-module.js takes the promise from here; pages
// without this script (the widget's hosts) compile from there instead.
(function () {
  var answered = document.documentElement.hasAttribute('data-scenario') && !location.hash;
  if (answered) return;
  // The page's engine is the full module (app.js: loadEngine({full: true})).
  self.llmSizerWasm = {
    'llmsizer-full.wasm': typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function'
      ? WebAssembly.compileStreaming(fetch(new URL('../llmsizer-full.wasm', document.currentScript.src))).catch(function () { return null; })
      : null,
  };
})();
