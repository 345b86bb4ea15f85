// How the engine's speed figures read, shared by the page and the widget so
// both say the same thing: no speed where the scenario does not fit (the
// engine answers null), "unknown" where the device has no throughput figure
// for prefill and TTFT, and a note naming what each decode figure assumes.
import * as fmt from './format.js';

// { field: [value for data-value, text] } for every speed figure, and whether
// prefill is unknown. `speed` is the engine's speed object or null.
// With a device chosen and the model fitting, a null speed means the engine
// has no bandwidth for that device (its warning says so): "unknown", not "—".
export function speedTexts(speed, fits, deviceChosen = false) {
  const s = hasSpeed(speed) ? speed : null;
  // Where it does not fit, one sentence says so (noSpeedNote); the tiles keep
  // their labels, which say what they will show once it fits.
  const none = fits === false ? '—' : deviceChosen ? 'unknown' : '—';
  const prefillUnknown = Boolean(s) && !(s.prefill_tokens_per_s > 0);
  const afterPrompt = s?.decode_tokens_per_s_after_prompt;
  return {
    prefillUnknown,
    fields: {
      'speed.decode_tokens_per_s': [s?.decode_tokens_per_s, s ? fmt.rate(s.decode_tokens_per_s) : none],
      'speed.decode_tokens_per_s_after_prompt': [afterPrompt, s ? (afterPrompt > 0 ? fmt.rate(afterPrompt) : '—') : none],
      'speed.decode_tokens_per_s_total': [s?.decode_tokens_per_s_total, s ? fmt.rate(s.decode_tokens_per_s_total) : none],
      'speed.decode_tokens_per_s_per_sequence': [s?.decode_tokens_per_s_per_sequence, s ? fmt.rate(s.decode_tokens_per_s_per_sequence) : none],
      'speed.prefill_tokens_per_s': [prefillUnknown ? null : s?.prefill_tokens_per_s, s ? (prefillUnknown ? 'unknown' : fmt.rate(s.prefill_tokens_per_s)) : none],
      'speed.ttft_s': [prefillUnknown ? null : s?.ttft_s, s ? (prefillUnknown ? 'unknown' : fmt.seconds(s.ttft_s)) : none],
    },
  };
}

// The engine's speed object carries nulls where it has no decode figure (no
// fit, or no bandwidth for the device): that is no speed.
export function hasSpeed(speed) {
  return speed?.decode_tokens_per_s > 0;
}

// The sentence where no speed is given: why, in the user's terms.
export function noSpeedNote(fits, deviceChosen) {
  if (fits === false) return 'No speed: as set it does not fit; these figures appear once it does.';
  return deviceChosen ? "No speed: this device's memory bandwidth is not sourced, and every speed here starts from it."
    : 'Choose a device to see speeds.';
}

const BACKENDS = { cuda: 'CUDA', rocm: 'ROCm', metal: 'Metal', vulkan: 'Vulkan', sycl: 'SYCL', cann: 'CANN', musa: 'MUSA', cpu: 'the CPU', other: "the vendor's own runtime" };
const ENGINES = { 'llama.cpp': 'llama.cpp', ollama: 'Ollama', vllm: 'vLLM', sglang: 'SGLang', mlx: 'MLX-LM', 'tensorrt-llm': 'TensorRT-LLM' };
export function backendLabel(backend) {
  return BACKENDS[backend] ?? backend;
}

// The sentence under the speeds: the engine and backend they assume, what
// each decode figure assumes, and what prefill and TTFT are for (or why they
// are unknown). scenario: the estimate's (engine, backend).
export function speedNote(speed, { ctx, batch, prompt }, scenario = null) {
  const s = speed;
  const runtime = scenario?.backend ? `${ENGINES[scenario.engine] ?? scenario.engine} on ${backendLabel(scenario.backend)}: ` : '';
  return `${runtime}Decode with the full window of ${fmt.tokens(ctx)} tokens cached` +
    (s.after_prompt_cached_tokens > 0 ? `, and right after the prompt with ${fmt.tokens(s.after_prompt_cached_tokens)}` : '') +
    `${batch > 1 ? `; per sequence while all ${batch} run together (full window), and their total` : ''}. ` +
    (!(s.prefill_tokens_per_s > 0) ? 'Prefill and TTFT need a throughput figure this device lacks.'
      : `Prefill and time to first token for a ${fmt.tokens(prompt)}-token prompt` +
        (s.basis?.memory_class === 'ddr' ? ", from the CPU's FP32 peak (cores × base clock × FLOPs per cycle) and an efficiency fitted on measured CPU prompts."
          : s.basis?.flops_basis === 'fp32_vector' ? ', from its FP32 rate, the only throughput its maker states.' : '.')) +
    servingNote(s.basis) + pipelineNote(s) + estimatedInputsNote(s.basis?.estimated_inputs) + calibratedNote(s.basis?.machine_calibration) +
    networkNote(s.basis);
}

// A serving engine's figures alone are its serving row's at one request in
// flight: the Serving panel's first point, one model.
function servingNote(basis) {
  const f = basis?.serving_factors;
  if (!f) return '';
  return ` As the serving engine runs one request at a time (the Serving panel's first point, its ${basis.runtime} row fitted on measured serving runs)` +
    (f.request_overhead_s > 0 ? `; the first token includes its ${fmt.fixed(f.request_overhead_s * 1000, 0)} ms per request (tokenizing, admission, the HTTP round trip)` : '') +
    (basis.serving_prompt_pass_overhead_s > 0 ? `; each prompt pass costs ${fmt.fixed(basis.serving_prompt_pass_overhead_s * 1000, 0)} ms beside its compute (it runs without the GPU graphs the decode steps replay), which the requests decoding meanwhile wait for too.` : '.') +
    (basis.serving_rough_because ? ` Rough estimate: ${basis.serving_rough_because}.`
      : basis.serving_ttft_rough_because ? ` The time to first token is rougher than the rest: ${basis.serving_ttft_rough_because}.` : '');
}

// llama.cpp's layer split pipelines a prompt's micro-batches through the
// GPUs; GeForce cards, without peer access, gain little from it.
function pipelineNote(s) {
  if (!(s.breakdown?.prefill?.work?.pipeline_stages > 1) || s.basis?.peer_access !== false) return '';
  return ' GeForce cards have no peer access to each other (their copies go through host memory), so a prompt gains little' +
    " from pipelining its micro-batches across them: measured on four RTX 4090s, 1.1-1.2x where 2.3x is ideal.";
}

// llama.cpp's RPC over several machines: the network wait the speeds include.
function networkNote(basis) {
  if (!(basis?.network_machines > 1)) return '';
  const boundaries = basis.network_machines === 2 ? 'the machine boundary' : `each of the ${basis.network_machines - 1} machine boundaries`;
  return ` Over ${basis.network_machines} machines (llama.cpp's RPC), each token waits about ` +
    `${fmt.fixed(basis.network_hop_s * 1000, 1)} ms at ${boundaries}, as measured with gpt-oss-120b on 1 to 4 ` +
    'Strix Halo machines (llama.cpp of August 2025).';
}

// Speeds scaled by the machine's own factors (its pasted llama-bench rows).
function calibratedNote(c) {
  if (!c) return '';
  const parts = [['bandwidth_factor', 'bandwidth'], ['compute_factor', 'compute'], ['overhead_factor', 'fixed cost per layer'],
    ['attention_factor', 'attention'], ['kv_factor', 'KV cache reads']]
    .filter(([key], i) => i < 2 || c[key] !== 1).map(([key, name]) => `${name} × ${fmt.fixed(c[key], 2)}`);
  return ` Calibrated on your ${c.rows} measurement${c.rows === 1 ? '' : 's'}: ${parts.join(', ')} of the fitted model's.`;
}

const INPUT_NAMES = {
  bandwidth_gb_per_s: 'memory bandwidth', fp16_tflops: 'FP16 rate', fp8_tflops: 'FP8 rate',
  fp4_tflops: 'FP4 rate', fp32_tflops: 'FP32 rate',
};

// The device figures the engine marks as estimates (not vendor or measured).
function estimatedInputsNote(fields) {
  if (!fields?.length) return '';
  const names = fields.map((f) => INPUT_NAMES[f] ?? f);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  return ` This device's ${list} ${names.length > 1 ? 'are estimates, not vendor or measured figures'
    : 'is an estimate, not a vendor or measured figure'} (its notes give the source): these speeds follow.`;
}
