// Node.js: the engine built for Node (llmsizer-node.cjs), its .wasm read from
// beside this file (Emscripten 3.1.6's Node glue would fetch() a file path).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { makeApi } from './api.mjs';

export { LlmSizerError } from './api.mjs';

const require = createRequire(import.meta.url);
const api = makeApi(async () => {
  const createLlmSizer = require('./llmsizer-node.cjs');
  const module = await createLlmSizer({ wasmBinary: readFileSync(new URL('./llmsizer-node.wasm', import.meta.url)) });
  return new module.Sizer();
});

export const { estimate, command, recommend, target, offers, fit, serve, finetune, catalog } = api;
