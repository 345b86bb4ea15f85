// The engine's compiled WebAssembly, as early as this page can have it: from
// wasm-start.js when index.html ran it during parsing, else compiled from
// here, as soon as the page names this module. Resolves to the compiled
// module, or null (no streaming compile, a server without application/wasm):
// the loader then fetches the file itself.
export const compiledWasm = self.llmSizerWasm ?? (typeof WebAssembly?.compileStreaming === 'function'
  ? WebAssembly.compileStreaming(fetch(new URL('../llmsizer.wasm', import.meta.url))).catch(() => null)
  : Promise.resolve(null));
