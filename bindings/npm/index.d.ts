// llm-sizer: LLM hardware sizing (memory, fit, speed, cost, launch commands)
// computed by the llm-sizer engine compiled to WebAssembly. Every function
// takes a request with the keys of the engine's JSON contract and resolves to
// the engine's answer (what the CLI prints with --json), or rejects with an
// LlmSizerError. Bytes are integers; GiB = 2^30 bytes.

/** The reason an answer could not be given: `id` is stable ("request.bad_value", "request.unknown_model", ...). */
export class LlmSizerError extends Error {
  readonly id: string;
  constructor(id: string, message: string);
}

/** A device for an estimate where the catalog has none: llm-sizer estimate --gpu-memory-gib ... */
export interface CustomGpu {
  memory_gib: number;
  bandwidth_gbs?: number;
  tflops?: number;
  vendor?: 'nvidia' | 'amd' | 'apple' | 'intel' | 'cpu';
}

/** The scenario: the flags of `llm-sizer estimate` (their JSON names). Give `model` or `config`. */
export interface EstimateRequest {
  /** A catalog model id ("llama-3.1-8b"; catalog().models lists them). */
  model?: string;
  /** A Hugging Face config.json, as text, instead of `model`. */
  config?: string;
  /** Quantization: a GGUF type ("Q4_K_M"), "FP8", "NVFP4", "AWQ", "native", ... (--quant). */
  quant?: string;
  /** Context window in tokens (--ctx). */
  ctx?: number;
  /** Concurrent sequences (--batch). */
  batch?: number;
  /** KV cache type: "f16", "bf16", "fp8", "q8_0", "q4_0", ... (--kv-type). */
  kv?: string;
  /** "llama.cpp" | "ollama" | "vllm" | "sglang" | "tensorrt-llm" | "mlx" (--engine). */
  engine?: string;
  /** A catalog device id ("rtx-4090"; catalog().devices lists them) (--gpu). */
  gpu?: string;
  custom_gpu?: CustomGpu;
  /** Devices (--gpus). */
  gpus?: number;
  /** Copies of the setup side by side, 1 to 64 (--copies): the commands start them all; every figure is one copy's. */
  copies?: number;
  /** Share of the weights in system RAM, 0 to 1 (--offload). */
  offload?: number;
  /** "auto" | "layers" | "experts" (--offload-mode). */
  offload_mode?: string;
  /** Prompt tokens for prefill and time to first token (--prompt). */
  prompt?: number;
  /** Output tokens per request: the served speed under load (--output-tokens). */
  output_tokens?: number;
  /** Each device attends to its own sequences, experts split (--attention-dp). */
  attention_data_parallel?: boolean;
  flash_attention?: boolean;
  /** Its vision encoder and one image (--vision). */
  vision?: boolean;
  /** A draft model id, or "mtp" (--draft); `draft_tokens` per step. */
  draft?: string;
  draft_tokens?: number;
  /** System RAM in GiB (--ram-gib) and its bandwidth (--ram-bandwidth-gbs). */
  ram_gib?: number;
  ram_bandwidth_gbs?: number;
  /** A Mac's iogpu.wired_limit_mb (--gpu-limit-mib). */
  gpu_limit_mib?: number;
  /** llama.cpp layers per GPU, "41,39" (--layer-split). */
  layer_split?: string;
  /** Cost: a rental price per hour for the whole machine, or a purchase price. */
  hourly_price_usd?: number;
  purchase_price_usd?: number;
  years?: number;
  hours_per_day?: number;
  electricity_usd_per_kwh?: number;
  /** Speeds even where it does not fit (as if it did). */
  speed_if_no_fit?: boolean;
  /** Where it does not fit, what would make it fit (default true). */
  suggestions?: boolean;
}

export interface Memory {
  weights_bytes: number;
  kv_cache_bytes: number;
  runtime_bytes: number;
  required_bytes: number;
  usable_bytes: number | null;
  headroom_bytes: number | null;
  utilization: number | null;
  /** null without a device. */
  fits: boolean | null;
  [key: string]: unknown;
}

export interface Speed {
  decode_tokens_per_s: number | null;
  decode_tokens_per_s_total: number | null;
  prefill_tokens_per_s: number | null;
  ttft_s: number | null;
  /** Under a serving engine with output_tokens: speed per user, throughput, TTFT under load. */
  served: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface LaunchCommand {
  /** Shell commands, in order. */
  steps: string[];
  /** What to know first (empty when nothing). */
  note: string;
}

export interface EstimateAnswer {
  model: string;
  scenario: Record<string, unknown>;
  params: Record<string, unknown>;
  weights: Record<string, unknown>;
  memory: Memory;
  /** null where no speed is estimated (no device, no sourced bandwidth, or it does not fit). */
  speed: Speed | null;
  cost: Record<string, unknown> | null;
  /** Where it does not fit: each change that would make it fit, with its own memory and speed. */
  suggestions?: Record<string, unknown>[];
  /** Where it runs: how to start it, per engine. */
  commands?: Record<string, LaunchCommand>;
  warnings: string[];
}

export interface RecommendRequest extends EstimateRequest {
  /** With tokens_per_s_per_user: the hardware that serves this many users at that speed. */
  users?: number;
  tokens_per_s_per_user?: number;
}

export interface ServeRequest extends EstimateRequest {
  /** Requests in flight to estimate; absent: a sweep to saturation. */
  concurrency?: number[];
  /** The cheapest point that gives each user at least this speed. */
  target_tokens_per_s_per_user?: number;
}

export interface FitRequest extends Omit<EstimateRequest, 'model' | 'config'> {
  /** "quality" | "speed" | "context". */
  rank?: string;
  /** "coding" | "reasoning" | "chat" | "vision". */
  use?: string;
  min_tokens_per_s?: number;
}

export interface FinetuneRequest {
  model?: string;
  config?: string;
  /** "full" | "lora" | "qlora". */
  method: string;
  seq?: number;
  micro_batch?: number;
  gpus?: number;
  lora_rank?: number;
  lora_targets?: string;
  optimizer?: string;
  gradient_checkpointing?: boolean;
  zero?: number;
  flash_attention?: boolean;
}

/** Memory, fit, speed and cost of one scenario: llm-sizer estimate --json. */
export function estimate(request: EstimateRequest): Promise<EstimateAnswer>;
/** How to start it, per engine, fitting or not: llm-sizer command --json. */
export function command(request: EstimateRequest): Promise<Record<string, LaunchCommand>>;
/** Hardware to buy or rent for the scenario: llm-sizer recommend --json. */
export function recommend(request: RecommendRequest): Promise<Record<string, unknown>>;
/** The cheapest hardware for `users` at `tokens_per_s_per_user`. */
export function target(request: RecommendRequest): Promise<Record<string, unknown>>;
/** Cloud offers and rent against buy for the scenario. */
export function offers(request: EstimateRequest): Promise<Record<string, unknown>>;
/** What can I run on this device: every catalog model that fits, ranked: llm-sizer fit --json. */
export function fit(request: FitRequest): Promise<Record<string, unknown>>;
/** A serving engine under load, one point per concurrency: llm-sizer serve --json. */
export function serve(request: ServeRequest): Promise<Record<string, unknown>>;
/** Fine-tuning memory: llm-sizer finetune --json. */
export function finetune(request: FinetuneRequest): Promise<Record<string, unknown>>;
/** The embedded catalog: models, devices, quantizations and engines, each with its source. */
export function catalog(): Promise<Record<string, unknown>>;
