// The engine's questions as JavaScript functions, shared by the Node and the
// browser entry points: each takes a request object (the keys of the JSON
// contract, index.d.ts) and resolves to the engine's answer, the JSON the CLI
// prints with --json, or rejects with an LlmSizerError naming what is wrong.
// No sizing here: requests go to the WebAssembly engine as JSON text and its
// answers come back parsed.

export class LlmSizerError extends Error {
  constructor(id, message) {
    super(message);
    this.name = 'LlmSizerError';
    this.id = id;  // e.g. "request.unknown_model", "request.bad_value"
  }
}

// loadSizer: resolves to a new Sizer of the loaded module. Loaded on the first
// question, once; a load that failed is tried again on the next one.
export function makeApi(loadSizer) {
  let loading = null;
  const ready = () => {
    loading ??= loadSizer().then((sizer) => {
      const error = sizer.loadError();
      if (error) throw new LlmSizerError('catalog.load', error);
      return sizer;
    }).catch((error) => {
      loading = null;
      throw error instanceof LlmSizerError ? error : new LlmSizerError('engine.load', `the llm-sizer engine did not load: ${error.message}`);
    });
    return loading;
  };
  const ask = (method, pick = (answer) => answer) => async (request = {}) => {
    if (request === null || typeof request !== 'object' || Array.isArray(request))
      throw new LlmSizerError('request.not_object', 'the request must be an object');
    const sizer = await ready();
    const { ok, error, ...answer } = JSON.parse(sizer[method](JSON.stringify(request)));
    if (!ok) throw new LlmSizerError(error.id, error.message);
    return pick(answer);
  };
  return {
    estimate: ask('estimate'),
    command: ask('command', (answer) => answer.commands),
    recommend: ask('recommend'),
    target: ask('target'),
    offers: ask('offers'),
    fit: ask('fit'),
    serve: ask('serve'),
    finetune: ask('finetune'),
    // The embedded catalog: models, devices, quantizations, engines.
    async catalog() {
      return JSON.parse(new TextDecoder().decode((await ready()).catalogBytes()));
    },
  };
}
