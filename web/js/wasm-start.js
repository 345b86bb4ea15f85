// Starts fetching and compiling the engine's WebAssembly while the page is
// still being parsed. A classic script at the end of index.html's body runs as
// soon as the parser reaches it; module scripts (wasm-module.js, the page)
// wait for the first layout, which on a small machine is ~100 ms later (first
// figures ~40 ms sooner in an alternating A/B of 25 loads each).
// wasm-module.js takes the promise from here; pages without this script (the
// widget's hosts) compile from there instead.
self.llmSizerWasm = typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function'
  ? WebAssembly.compileStreaming(fetch(new URL('../llmsizer.wasm', document.currentScript.src))).catch(function () { return null; })
  : null;
