// The page's and the widget's only door to the sizing engine: loads the
// WebAssembly module once (the widget the core one, and the full one, with the
// planner's searches and the file readers, when first needed; the page the
// full one from the start) and turns its JSON answers into objects. Nothing here computes
// a figure. The engine's glue is imported with the engine, not with this
// module: a prerendered page loads it only when the reader reaches for it.
import { compiledWasm } from './wasm-module.js';

export class SizerError extends Error {
  constructor(id, message) {
    super(message);
    this.name = 'SizerError';
    this.id = id;
  }
}

let loading = null;
let fullLoading = null;

// JSON has no NaN or Infinity (they would arrive as null, i.e. "absent"): refuse
// them here with the field's name.
function checkNumbers(request) {
  for (const [key, value] of Object.entries(request)) {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new SizerError('request.bad_value', `request field '${key}' must be a finite number`);
    }
  }
}

// The request as the engine's RequestFields (strings, numbers; '' and NaN
// stand for absent keys), or null when it has other keys or types:
// those go as JSON text, whose reader names what is wrong with them.
const STRING_FIELDS = ['model', 'config', 'quant', 'kv', 'engine', 'gpu'];
const NUMBER_FIELDS = ['ctx', 'batch', 'gpus', 'offload', 'prompt', 'ram_gib'];
function requestFields(request) {
  const fields = {};
  for (const key of STRING_FIELDS) {
    const value = request[key];
    if (value === undefined) fields[key] = '';
    else if (typeof value === 'string' && value !== '') fields[key] = value;
    else return null;
  }
  for (const key of NUMBER_FIELDS) {
    const value = request[key];
    if (value === undefined) fields[key] = NaN;
    else if (typeof value === 'number') fields[key] = value;
    else return null;
  }
  for (const key in request) if (!(key in fields)) return null;
  return fields;
}

const n = (v) => (Number.isNaN(v) ? null : v);

function call(sizer, request) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new SizerError('request.not_object', 'the request must be an object');
  }
  checkNumbers(request);
  return JSON.parse(sizer.estimate(JSON.stringify(request)));
}

// A planner question: request object in, answer object out, or a SizerError.
function ask(sizer, method, request) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new SizerError('request.not_object', 'the request must be an object');
  }
  checkNumbers(request);
  const answer = JSON.parse(sizer[method](JSON.stringify(request)));
  if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
  return answer;
}

// Reads only the headers of local model files: slices from the start of each
// file, growing until the engine says every header is complete. `call` is
// engine.estimateGguf or engine.estimateSafetensors; `whole` files (an index
// json) are read entirely. Returns {parts, bytes, answer}. Nothing leaves the machine.
async function readHeaders(call, files, request, kindOf = () => undefined) {
  // A remote file (web/js/hub.js) starts smaller: each round is a range request.
  const sizes = files.map((f) => (kindOf(f) === 'index' ? f.size : f.firstRead ?? 1 << 20));
  for (let round = 0; round < 12; round += 1) {
    const buffers = await Promise.all(files.map((f, i) => f.slice(0, Math.min(f.size, sizes[i])).arrayBuffer()));
    const parts = files.map((f, i) => ({ name: f.name, file_bytes: f.size, length: buffers[i].byteLength, kind: kindOf(f) }));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const b of buffers) {
      bytes.set(new Uint8Array(b), offset);
      offset += b.byteLength;
    }
    const answer = call(request, parts, bytes);
    if (answer.complete) return { parts, bytes, answer, readBytes: bytes.length };
    answer.bytes_needed.forEach((need, i) => {
      if (need > 0) sizes[i] = Math.max(need, sizes[i] * 2);
    });
  }
  throw new SizerError('request.too_large', 'the header is larger than this page reads (64 MiB)');
}

export async function readGgufHeaders(engine, files, request) {
  await engine.loadFull();
  return readHeaders((r, p, b) => engine.estimateGguf(r, p, b), files, request);
}

// Shards and/or an index; a config.json among the files becomes request.config.
export async function readSafetensorsHeaders(engine, files, request) {
  const config = files.find((f) => f.name === 'config.json');
  const rest = files.filter((f) => f !== config);
  const withConfig = config ? { ...request, config: await config.slice(0, 1 << 20).text() } : request;
  if (!withConfig.config) throw new SizerError('request.bad_value', 'add the checkpoint\'s config.json (pick it with the files, or paste it below)');
  await engine.loadFull();
  const kindOf = (f) => (f.name.endsWith('.json') ? 'index' : 'shard');
  const read = await readHeaders((r, p, b) => engine.estimateSafetensors(r, p, b), rest, withConfig, kindOf);
  return { ...read, config: withConfig.config };
}

// The Emscripten module, from the module wasm-module.js compiled early when
// there is one.
function instantiate([{ default: createLlmSizer }, compiled]) {
  if (!compiled) return createLlmSizer();
  return new Promise((resolve, reject) => {
    createLlmSizer({
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(compiled, imports).then((instance) => done(instance, compiled), reject);
        return {};
      },
    }).then(resolve, reject);
  });
}

// The full module (the planner: searches, cloud offers, fine-tuning; the GGUF
// and safetensors readers) and its Sizer, fetched on first use; a failed
// fetch may be tried again.
function loadFullSizer() {
  fullLoading ??= import('../llmsizer-full.mjs')
    .then((m) => m.default())
    .then((module) => {
      const sizer = new module.Sizer();
      const loadError = sizer.loadError();
      if (loadError) throw new SizerError('catalog.load', loadError);
      return sizer;
    })
    .catch((error) => {
      fullLoading = null;
      throw error instanceof SizerError ? error : new SizerError('engine.load', `the planner module did not load: ${error.message}`);
    });
  return fullLoading;
}

// The engine's glue module: the core one (estimates: the widget's), or the
// full one (the page's: it answers its recommendations right after its first
// figures, so one module is fetched and its catalog read once, not two).
const importGlue = (full) => (full ? import('../llmsizer-full.mjs') : import('../llmsizer.mjs'));

// One module and one Sizer per page, however many callers ask. full: load the
// full module from the start (loadFull() then has nothing to fetch).
export function loadEngine({ full: startFull = false } = {}) {
  if (!loading) {
    performance.mark('llm-sizer:module-create');
    const wasm = startFull ? 'llmsizer-full.wasm' : 'llmsizer.wasm';
    loading = Promise.all([importGlue(startFull), compiledWasm(wasm)]).then(instantiate).then((module) => {
      performance.mark('llm-sizer:module-ready');
      const sizer = new module.Sizer();
      const loadError = sizer.loadError();
      if (loadError) throw new SizerError('catalog.load', loadError);
      const catalog = JSON.parse(new TextDecoder().decode(sizer.catalogBytes()));
      performance.mark('llm-sizer:catalog-ready');
      let view = sizer.figuresView();
      let full = startFull ? sizer : null;
      const needFull = () => {
        if (!full) throw new SizerError('engine.loading', 'the planner module is not loaded yet (await loadFull())');
        return full;
      };
      return {
        catalog,
        // Resolves when the full module is ready; estimateGguf,
        // estimateSafetensors, recommend, target, fit, offers and finetune
        // throw until then.
        async loadFull() {
          full ??= await loadFullSizer();
        },
        // " (did you mean a, b or c?)" for an unknown model (kind 'model')
        // or device id, as the engine's refusals name the ids it was likely
        // meant for; '' when none is close.
        didYouMean(kind, unknown) {
          return kind === 'gpu' ? sizer.didYouMeanDevice(unknown) : sizer.didYouMeanModel(unknown);
        },
        // Returns the estimate (the CLI's JSON) or throws a SizerError.
        estimate(request) {
          const answer = call(sizer, request);
          if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
          return answer;
        },
        // The few figures tables and charts draw, without the full JSON answer:
        // {memory: {weights_bytes, kv_cache_bytes, runtime_bytes, required_bytes,
        // usable_bytes, utilization, fits}, speed: {decode_tokens_per_s}} or {error}.
        figures(request) {
          let ok;
          try {
            checkNumbers(request);
            const f = requestFields(request);
            ok = f ? sizer.figuresInto(f.model, f.config, f.quant, f.kv, f.engine, f.gpu, f.ctx, f.batch, f.gpus, f.offload, f.prompt, f.ram_gib)
              : sizer.figuresFromJson(JSON.stringify(request));
          } catch (error) {
            return { error: { id: error.id ?? 'request.bad_value', message: error.message } };
          }
          if (!ok) return { error: { id: sizer.figuresErrorId(), message: sizer.figuresErrorMessage() } };
          // The view is made again when a growing wasm memory detached it.
          if (view.byteLength === 0) view = sizer.figuresView();
          return {
            memory: {
              weights_bytes: view[0], kv_cache_bytes: view[1], runtime_bytes: view[2], required_bytes: view[3],
              usable_bytes: n(view[4]), utilization: n(view[5]), fits: view[6] < 0 ? null : view[6] === 1,
            },
            speed: { decode_tokens_per_s: n(view[7]) },
          };
        },
        // A local GGUF (one file or a split set) from its headers alone: parts
        // [{name, file_bytes, length}] and their leading bytes one after another.
        estimateGguf(request, parts, bytes) {
          checkNumbers(request);
          const answer = JSON.parse(needFull().estimateGguf(JSON.stringify({ ...request, parts }), bytes));
          if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
          return answer;
        },
        // A native checkpoint: request.config is its config.json; parts are
        // .safetensors shards (leading bytes) or model.safetensors.index.json.
        estimateSafetensors(request, parts, bytes) {
          checkNumbers(request);
          const answer = JSON.parse(needFull().estimateSafetensors(JSON.stringify({ ...request, parts }), bytes));
          if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
          return answer;
        },
        // Hardware that fits this scenario: cheapest single device, best value,
        // unified memory, cheapest cloud offer, per quantization, largest context,
        // the rent-vs-buy rows ("offers") and, with tokens_per_s_per_user, "target".
        recommend(request) {
          return ask(needFull(), 'recommend', request);
        },
        // The cheapest hardware to buy and to rent for request.users streams at
        // request.tokens_per_s_per_user each: {buy, rent, rent_any}.
        target(request) {
          return ask(needFull(), 'target', request);
        },
        // A serving engine's curve: {points: [speed.served + cost], saturation, target, ...}.
        serve(request) {
          return ask(needFull(), 'serve', request);
        },
        // Every cloud offer priced for this scenario: {hours_per_day, offers: [...]}.
        offers(request) {
          return ask(needFull(), 'offers', request);
        },
        // What can I run on {gpu | custom_gpu, gpus, ram_gib, ctx, engine}: {results}.
        fit(request) {
          return ask(needFull(), 'fit', request);
        },
        // Fine-tuning memory per GPU: {weights_bytes, gradients_bytes, optimizer_bytes,
        // activations_bytes, total_bytes, trainable_params, device}.
        finetune(request) {
          return ask(needFull(), 'finetune', request);
        },
        // This machine's speed factors from llama-bench output (text): request
        // {gpu | custom_gpu, gpus} or {} for the GPU the text names.
        // {factors, device, gpus, fitted, rows, warnings}.
        calibrate(request, text) {
          checkNumbers(request);
          const answer = JSON.parse(needFull().calibrate(JSON.stringify(request), String(text)));
          if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
          return answer;
        },
        // A llama.cpp load log (text) beside the estimate for its settings:
        // request {model, quant, gpu, gpus} or {} for what the log says.
        // {model, quant, device, gpus, context_tokens, ..., lines, warnings}.
        checkLog(request, text) {
          checkNumbers(request);
          const answer = JSON.parse(needFull().checkLog(JSON.stringify(request), String(text)));
          if (!answer.ok) throw new SizerError(answer.error.id, answer.error.message);
          return answer;
        },
        // Which files of a Hub repo to read: {name} gives {repo, tree_path};
        // {name, tree} (the file list's text) the plan (hub_files.hpp).
        hubPlan(request) {
          return ask(needFull(), 'hubPlan', request);
        },
        // Same as estimate, but returns {error} instead of throwing.
        tryEstimate(request) {
          try {
            const answer = call(sizer, request);
            return answer.ok ? answer : { error: answer.error };
          } catch (error) {
            return { error: { id: error.id ?? 'request.bad_value', message: error.message } };
          }
        },
      };
    });
  }
  return loading;
}
