// Starts downloading and compiling the engine's WebAssembly as soon as the
// page names this module: index.html loads it async, ahead of the rest of the
// scripts, so the compile runs beside the first layout instead of after it.
// Resolves to the compiled module, or null (no streaming compile, a server
// without application/wasm): the loader then fetches the file itself.
export const compiledWasm = typeof WebAssembly?.compileStreaming === 'function'
  ? WebAssembly.compileStreaming(fetch(new URL('../llmsizer.wasm', import.meta.url))).catch(() => null)
  : Promise.resolve(null);
