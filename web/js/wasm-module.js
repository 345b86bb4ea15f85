// The engine's compiled WebAssembly (llmsizer.wasm or llmsizer-full.wasm), as
// early as this page can have it: from wasm-start.js when index.html started
// it during parsing, else compiled from here when the engine is first asked
// for (not when this module is imported: a prerendered page may never need
// it). Resolves to the compiled module, or null (no streaming compile, a
// server without application/wasm): the loader then fetches the file itself.
const compiled = new Map();
export function compiledWasm(file) {
  if (!compiled.has(file)) {
    compiled.set(file, self.llmSizerWasm?.[file] ?? (typeof WebAssembly?.compileStreaming === 'function'
      ? WebAssembly.compileStreaming(fetch(new URL(`../${file}`, import.meta.url))).catch(() => null)
      : Promise.resolve(null)));
  }
  return compiled.get(file);
}
