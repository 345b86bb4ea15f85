// Loads the Node build of the wasm module (non-ES6, wasmBinary read by hand:
// Emscripten 3.1.6 would try fetch() on a file path) and the native responder.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
export const wasmDir = process.env.LLMSIZER_WASM_DIR ?? resolve(root, 'build/wasm');
export const respondBin = process.env.LLMSIZER_RESPOND ?? resolve(root, 'build/native-release/tests/llmsizer_respond');

export async function loadModule() {
  const require = createRequire(import.meta.url);
  const factory = require(resolve(wasmDir, 'llmsizer-node.cjs'));
  return factory({ wasmBinary: readFileSync(resolve(wasmDir, 'llmsizer-node.wasm')) });
}

// Native responses for a list of requests (one JSON per line each way).
export function nativeResponses(requests) {
  const input = requests.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';
  const out = spawnSync(respondBin, { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`llmsizer_respond failed: ${out.stderr}`);
  return out.stdout.trimEnd().split('\n');
}

// The native CLI's recommendation for a request of model, quant and ctx.
export const cliBin = process.env.LLMSIZER_CLI ?? resolve(root, 'build/native-release/llm-sizer');
export function nativeRecommend({ model, quant, ctx }) {
  const out = spawnSync(cliBin, ['recommend', '--model', model, '--quant', quant, '--ctx', String(ctx), '--json'], { maxBuffer: 1 << 28, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`llm-sizer recommend failed: ${out.stderr}`);
  return out.stdout;
}
