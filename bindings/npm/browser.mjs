// Browsers and bundlers: the engine's ES module (llmsizer-full.mjs), which
// fetches its .wasm from beside itself (new URL(..., import.meta.url)).
import { makeApi } from './api.mjs';

export { LlmSizerError } from './api.mjs';

const api = makeApi(async () => {
  const { default: createLlmSizer } = await import('./llmsizer-full.mjs');
  return new (await createLlmSizer()).Sizer();
});

export const { estimate, command, recommend, target, offers, fit, serve, finetune, catalog } = api;
