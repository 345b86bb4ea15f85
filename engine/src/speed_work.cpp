#include "llmsizer/speed_work.hpp"

#include <algorithm>
#include <cmath>

#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

// llama.cpp's logical batch (-b): tokens per llama_decode call, split into
// micro-batches of -ub.
constexpr std::int64_t kLlamaCppBatchTokens = 2048;

// Activations cross the interconnect in 16 bits.
constexpr double kActivationBytes = 2.0;

bool is_tensor_parallel(const Scenario& s, const Estimate& e) {
  return engine_uses_kv_pool(s.engine) && e.memory.per_gpu.size() > 1;
}

// Attention widths per head as the kernels see them: q.k over head_dim_k and
// p.v over head_dim_v; MLA decode attends over the 512-wide latent plus the
// 64-wide rope part (weights absorbed), MLA prefill over the expanded heads.
double attention_width(const AttentionSpec& a, bool decode) {
  if (a.mla && decode) return static_cast<double>(2 * a.kv_lora_rank + a.qk_rope_dim);
  return static_cast<double>(a.head_dim_k + a.head_dim_v);
}

bool attends(const AttentionSpec& a) {
  return a.kind == AttentionKind::full || a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked;
}

// Tokens one query attends to at position `pos` (1-based).
double attended_tokens(const AttentionSpec& a, double pos) {
  if ((a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked) && a.window_tokens > 0)
    return std::min(pos, static_cast<double>(a.window_tokens));
  return pos;
}

// Sum of attended tokens over positions 1..P: P(P+1)/2 under a causal mask,
// limited by the window on sliding layers.
double attended_tokens_sum(const AttentionSpec& a, double prompt) {
  const double w = (a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked) && a.window_tokens > 0
                       ? static_cast<double>(a.window_tokens)
                       : prompt;
  if (prompt <= w) return prompt * (prompt + 1.0) / 2.0;
  return w * (w + 1.0) / 2.0 + (prompt - w) * w;
}

// Row-parallel outputs summed across GPUs under tensor parallelism: one after
// the token mixer (attention, or a recurrent mixer) and one after the FFN, in
// each layer that has them. Hybrid stacks such as Nemotron-H give each layer
// only one of the two, so they all-reduce once per layer, not twice.
int allreduces_per_pass(const Architecture& arch) {
  int n = 0;
  // decoder_layer_count() walks the layers: once, not in the loop's test.
  const int n_layers = arch.decoder_layer_count();
  for (int i = 0; i < n_layers; ++i) {
    const LayerSpec& l = arch.layers[static_cast<std::size_t>(i)];
    if (l.attn.kind != AttentionKind::none) ++n;
    if (l.ffn.kind != FfnKind::none) ++n;
  }
  return n;
}

int attention_layer_count(const Architecture& arch) {
  int n = 0;
  const int n_layers = arch.decoder_layer_count();
  for (int i = 0; i < n_layers; ++i)
    if (arch.layers[static_cast<std::size_t>(i)].attn.kind != AttentionKind::none) ++n;
  return n;
}

int moe_layer_count(const Architecture& arch) {
  int n = 0;
  const int n_layers = arch.decoder_layer_count();
  for (int i = 0; i < n_layers; ++i)
    if (arch.layers[static_cast<std::size_t>(i)].ffn.n_experts > 0) ++n;
  return n;
}

// Where a layer's weights sit under the offload setting.
struct LayerPlacement {
  int cpu_layers = 0;         // whole layers in RAM (-ngl)
  int cpu_expert_layers = 0;  // routed experts of these first layers in RAM (--n-cpu-moe)
};

LayerPlacement placement(const Estimate& e) {
  LayerPlacement p;
  if (e.memory.offload_experts_only) p.cpu_expert_layers = e.memory.offloaded_layers;
  else p.cpu_layers = e.memory.offloaded_layers;
  return p;
}

// Weight bytes a pass of `tokens` tokens reads, split between GPU memory and RAM.
struct WeightReads {
  double gpu_bytes = 0.0;
  double ram_bytes = 0.0;
};

// A tensor-parallel GPU's share of the bytes a pass reads: 1/TP of each
// matrix, the tensors kept whole on every GPU (tp_whole_bytes) in full.
double tp_share(double read_bytes, const WeightBreakdown& w, bool attention_dp, int n_gpus) {
  const double whole = std::min(static_cast<double>(tp_whole_bytes(w, attention_dp)), read_bytes);
  return (read_bytes - whole) / n_gpus + whole;
}

// FLOPs a tensor-parallel GPU spends beyond its 1/TP share: the replicated
// matrices multiply every token on every GPU. (Attention data parallel's
// whole attention weights multiply only the GPU's own sequences: no extra.)
double replicated_flops(const WeightBreakdown& w, bool attention_dp, int n_gpus, double tokens) {
  const double params = static_cast<double>(attention_dp ? w.tp_replicated_params - w.tp_replicated_mixer_params
                                                         : w.tp_replicated_params);
  return 2.0 * params * tokens * (1.0 - 1.0 / n_gpus);
}

WeightReads weight_reads(const Architecture& arch, const Estimate& e, std::int64_t tokens) {
  const LayerPlacement p = placement(e);
  const int n_layers = arch.decoder_layer_count();
  WeightReads r;
  // Layers share their expert counts: one share per distinct (n, k), not per layer.
  std::int64_t last_n = -1;
  std::int64_t last_k = -1;
  double share = 0.0;
  for (int i = 0; i < n_layers; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const FfnSpec& f = arch.layers[idx].ffn;
    const double experts = static_cast<double>(e.weights.layer_expert_bytes[idx]);
    const double dense = static_cast<double>(e.weights.layer_bytes[idx]) - experts;
    if (f.n_experts != last_n || f.n_experts_used != last_k) {
      last_n = f.n_experts;
      last_k = f.n_experts_used;
      share = expert_touched_share(f.n_experts, f.n_experts_used, tokens);
    }
    const double touched = experts * share;
    if (i < p.cpu_layers) {
      r.ram_bytes += dense + touched;
    } else if (i < p.cpu_expert_layers) {
      r.gpu_bytes += dense;
      r.ram_bytes += touched;
    } else {
      r.gpu_bytes += dense + touched;
    }
  }
  // The output head runs on the last GPU, or on the CPU with whole layers in
  // RAM (estimate.cpp: llama.cpp's -ngl below the layer count).
  const double head = static_cast<double>(e.weights.output_bytes);
  if (e.memory.output_in_ram) r.ram_bytes += head;
  else r.gpu_bytes += head;
  return r;
}

}  // namespace

// Prompt tokens per forward pass: as asked, or llama.cpp's default micro-batch
// (-ub 512); vLLM's chunked-prefill budget, SGLang's chunk and mlx-lm's prefill
// step are 2048 tokens.
SchedulerDefaults scheduler_defaults(const Scenario& s) {
  SchedulerDefaults d;
  const double memory_gib = s.device ? static_cast<double>(s.device->memory_bytes) / static_cast<double>(kGiB) : 0.0;
  switch (s.engine) {
    case InferenceEngine::vllm: {
      // vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults (V1, the
      // OpenAI server): 8192 tokens and 1024 requests on GPUs of 70 GiB or
      // more that are not A100s ("setting large max_num_batched_tokens for
      // A100 reduces throughput", PR #17885), else 2048 and 256.
      const bool a100 = s.device && s.device->id.rfind("a100", 0) == 0;
      const bool large = memory_gib >= 70.0 && !a100;
      d.token_budget = large ? 8192 : 2048;
      d.max_running_requests = large ? 1024 : 256;
      break;
    }
    case InferenceEngine::sglang:
      // python/sglang/srt/server_args.py: chunked_prefill_size 2048 below
      // 35 GB, 8192 below 160 GB (H100, H200, A100), 16384 above (B200,
      // MI300); max_running_requests follows the pool.
      d.token_budget = memory_gib < 35.0 ? 2048 : memory_gib < 160.0 ? 8192 : 16384;  // gpu_mem in MiB
      // enable_mixed_chunk: False ("Enabling mixing prefill and decode in a
      // batch when using chunked prefill", server_args.py; the server
      // arguments page, docs.sglang.io/advanced_features/server_arguments.html):
      // a prefill batch runs on its own, the decoding requests wait for it.
      d.mixes_prompts_with_decode = false;
      break;
    case InferenceEngine::tensorrt_llm:
      d.token_budget = 8192;  // the LLM API's max_num_tokens default
      break;
    case InferenceEngine::mlx:
      d.token_budget = 2048;  // mlx-lm's prefill step size
      break;
    case InferenceEngine::llama_cpp:
    case InferenceEngine::ollama:
      d.token_budget = 512;  // -ub
      break;
  }
  return d;
}

std::int64_t prefill_chunk_tokens(const Scenario& s) {
  if (s.prefill_ubatch_tokens > 0) return s.prefill_ubatch_tokens;
  return scheduler_defaults(s).token_budget;
}

double expert_touched_share(std::int64_t n_experts, std::int64_t n_used, std::int64_t batch) {
  if (n_experts <= 0 || n_used <= 0) return 0.0;
  if (n_used >= n_experts) return 1.0;
  // miss^batch by squaring: within ~1e-14 of std::pow for every expert count
  // and batch the engine meets, and without pow's 6 KB of tables in the module.
  double miss = 1.0 - static_cast<double>(n_used) / static_cast<double>(n_experts);
  double all_missed = 1.0;
  for (std::int64_t n = std::max<std::int64_t>(batch, 1); n > 0; n >>= 1) {
    if ((n & 1) != 0) all_missed *= miss;
    miss *= miss;
  }
  return 1.0 - all_missed;
}

double matmul_params_per_token(const Architecture& arch, const ParamCounts& params) {
  const double head = static_cast<double>(arch.vocab_size) * static_cast<double>(arch.hidden_size);
  return static_cast<double>(params.active - params.embedding) + (arch.tied_embeddings ? head : 0.0);
}

StepWork decode_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t batch) {
  return decode_step_work(arch, s, e, batch, e.kv, s.context_tokens);
}

std::int64_t cached_after_prompt(const Scenario& s, const Estimate& e) {
  return std::min(s.prompt_tokens, s.context_tokens) + e.memory.image_tokens;
}

KvBreakdown cache_after_prompt(const Architecture& arch, const Scenario& s, const Estimate& e) {
  return compute_kv_cache(arch, kv_request_for(s, cached_after_prompt(s, e)));
}

StepWork decode_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t batch,
                          const KvBreakdown& cache, std::int64_t cached_tokens) {
  StepWork w;
  const int n_layers = arch.decoder_layer_count();
  const double b = static_cast<double>(batch);
  const bool tp = is_tensor_parallel(s, e);
  const int n_gpus = static_cast<int>(std::max<std::size_t>(e.memory.per_gpu.size(), 1));
  w.layers = n_layers;
  w.moe_layers = moe_layer_count(arch);
  w.tensor_parallel = tp ? n_gpus : 1;
  w.layer_split_gpus = tp ? 1 : n_gpus;
  w.over_network = !tp && networked_machines(s) > 0;

  const WeightReads reads = weight_reads(arch, e, batch);
  w.ram_bytes = reads.ram_bytes;

  // KV read per step: this batch's share of the cache the estimate sized for
  // s.sequences sequences; recurrent state is read and written back.
  const double batch_share = b / static_cast<double>(s.sequences);
  const LayerPlacement p = placement(e);
  double kv_gpu = 0.0;
  double kv_ram = 0.0;
  for (int i = 0; i < n_layers; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const double bytes = static_cast<double>(cache.layer_bytes[idx]) * batch_share;
    if (i < p.cpu_layers) kv_ram += bytes;
    else kv_gpu += bytes;
  }
  const double state = static_cast<double>(cache.state_bytes) * batch_share;
  kv_gpu += state;  // written back after being read
  w.ram_bytes += kv_ram;

  double attention_flops = 0.0;
  const double ctx = static_cast<double>(cached_tokens);
  for (int i = 0; i < n_layers; ++i) {
    const AttentionSpec& a = arch.layers[static_cast<std::size_t>(i)].attn;
    if (!attends(a)) continue;
    attention_flops += 2.0 * static_cast<double>(a.n_heads) * attention_width(a, true) * attended_tokens(a, ctx);
  }
  // Offloaded layers are multiplied on the CPU, inside the time their RAM reads
  // take; the GPU computes the rest.
  const double weight_total = reads.gpu_bytes + reads.ram_bytes;
  const double gpu_share = weight_total > 0.0 ? reads.gpu_bytes / weight_total : 1.0;
  const double flops = b * (2.0 * matmul_params_per_token(arch, e.params) * gpu_share + attention_flops);
  w.attention_flops = b * attention_flops;

  if (tp) {
    // Every GPU holds 1/TP of each weight and its share of the KV heads (the
    // estimate's per-GPU KV, which keeps replicated heads and MLA latents).
    // (Per GPU against the GPUs' KV: a paged engine's admitted sequences.)
    const double kv_share = e.memory.kv_cache_bytes > 0 ? static_cast<double>(e.memory.per_gpu.front().kv_cache_bytes) /
                                                              static_cast<double>(e.memory.kv_cache_bytes)
                                                        : 1.0 / n_gpus;
    // Attention data parallel: every GPU reads the whole attention weights
    // for its own sequences (its cache share is kv_share already); the
    // attention output needs no all-reduce, the FFN's gather and scatter of
    // the batch's activations about one.
    const bool attention_dp = e.memory.attention_ranks > 1;
    w.gpu_weight_bytes = tp_share(reads.gpu_bytes, e.weights, attention_dp, n_gpus);
    w.gpu_kv_bytes = kv_gpu * kv_share;
    w.flops = flops / n_gpus + replicated_flops(e.weights, attention_dp, n_gpus, b);
    w.attention_flops /= n_gpus;
    w.allreduces = allreduces_per_pass(arch);
    w.allreduce_bytes = b * static_cast<double>(arch.hidden_size) * kActivationBytes;
    if (attention_dp) w.allreduces = allreduces_per_pass(arch) - attention_layer_count(arch);
  } else {
    w.gpu_weight_bytes = reads.gpu_bytes;
    w.gpu_kv_bytes = kv_gpu;
    w.flops = flops;
    if (n_gpus > 1) w.boundary_bytes = b * static_cast<double>(arch.hidden_size) * kActivationBytes;
  }
  return w;
}

// The serving engines' decode GEMMs pad a few tokens to a 16-row tile (the
// tensor cores' mma.m16n8k16 shape; cuBLAS and the fused-MoE kernels' smallest
// BLOCK_SIZE_M), not to the prompt's fitted tile term, which at one row made
// a 3090's compute 88 rows' worth.
constexpr double kDecodeTileRows = 16.0;

StepWork served_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t decode_sequences,
                          const KvBreakdown& cache, std::int64_t cached_tokens, std::int64_t prefill_tokens,
                          double prefill_position) {
  StepWork w = decode_step_work(arch, s, e, decode_sequences, cache, cached_tokens);
  const std::int64_t step_tokens = decode_sequences + std::max<std::int64_t>(prefill_tokens, 0);
  const double tokens = static_cast<double>(step_tokens);
  const double split = static_cast<double>(w.tensor_parallel);
  // One GEMM over the step's tokens; each routed expert multiplies the tokens
  // routed to it: a batch of decode tokens leaves the tiles part empty too.
  // Except llama.cpp's decode steps, timed as its batched decode is
  // (decode_step_work, fitted on llama-batched-bench runs): up to 8 sequences
  // it multiplies with matrix-vector kernels ("#define MMVQ_MAX_BATCH_SIZE 8",
  // ggml/src/ggml-cuda/mmvq.cuh), above with MMQ, whose token tile (mmq_x)
  // it sizes to the batch in steps of 8 ("for (int mmq_x = 8; mmq_x <=
  // mmq_x_max && ntiles_x_best > 1; mmq_x += 8)", ggml-cuda/mmq.cuh), so the
  // tiles stay all but full: no tile term. (With one, a ninth request halved
  // the server's output: 70B Q4_K_M on an H200 NVL, 315 tok/s at 8, 155 at 9.)
  const bool own_decode_kernels = engine_is_llama_cpp_based(s.engine) && prefill_tokens <= 0;
  w.gemm_rows = own_decode_kernels ? 0.0 : tokens;
  if (!engine_is_llama_cpp_based(s.engine) && prefill_tokens <= 0) w.gemm_tile_rows = kDecodeTileRows;
  for (const LayerSpec& l : arch.layers) {
    if (l.ffn.n_experts > 0 && l.ffn.n_experts_used > 0) {
      const double used_share = static_cast<double>(l.ffn.n_experts_used) / static_cast<double>(l.ffn.n_experts);
      // Rows per expert the batch touches (at least one token each): a few
      // tokens reach a few experts, one row apiece, not a fraction of a row.
      const double touched = expert_touched_share(l.ffn.n_experts, l.ffn.n_experts_used, step_tokens);
      w.expert_rows = touched > 0.0 ? tokens * used_share / touched : tokens * used_share;
      w.expert_flops = 2.0 * static_cast<double>(e.params.routed_expert) * used_share * tokens / split;
      break;
    }
  }
  if (prefill_tokens <= 0) return w;
  const double prefill = static_cast<double>(prefill_tokens);
  // The chunk's tokens route to more experts: the step reads what all its
  // tokens touch, not only what the decoding sequences do.
  const WeightReads with_chunk = weight_reads(arch, e, step_tokens);
  const WeightReads decode_only = weight_reads(arch, e, decode_sequences);
  w.gpu_weight_bytes += (with_chunk.gpu_bytes - decode_only.gpu_bytes) / split;
  w.ram_bytes += with_chunk.ram_bytes - decode_only.ram_bytes;
  // Prompt tokens run every matrix but the head (their logits are not needed)
  // and attend to the prompt before them: on average half of it.
  const double head = static_cast<double>(arch.vocab_size) * static_cast<double>(arch.hidden_size);
  double attention = 0.0;
  const int n_layers = arch.decoder_layer_count();
  for (int i = 0; i < n_layers; ++i) {
    const AttentionSpec& a = arch.layers[static_cast<std::size_t>(i)].attn;
    if (!attends(a)) continue;
    attention += 2.0 * static_cast<double>(a.n_heads) * attention_width(a, false) * attended_tokens(a, prefill_position);
  }
  w.flops += prefill * (2.0 * (matmul_params_per_token(arch, e.params) - head) + attention) / split;
  if (w.tensor_parallel > 1)
    w.flops += replicated_flops(e.weights, e.memory.attention_ranks > 1, w.tensor_parallel, prefill);
  w.attention_flops += prefill * attention / split;
  if (w.allreduces > 0) w.allreduce_bytes = tokens * static_cast<double>(arch.hidden_size) * kActivationBytes;
  if (w.boundary_bytes > 0.0) w.boundary_bytes = tokens * static_cast<double>(arch.hidden_size) * kActivationBytes;
  return w;
}

StepWork prefill_work(const Architecture& arch, const Scenario& s, const Estimate& e) {
  StepWork w;
  const int n_layers = arch.decoder_layer_count();
  const bool tp = is_tensor_parallel(s, e);
  const int n_gpus = static_cast<int>(std::max<std::size_t>(e.memory.per_gpu.size(), 1));
  const double prompt = static_cast<double>(s.prompt_tokens);
  const std::int64_t chunk = std::min(prefill_chunk_tokens(s), s.prompt_tokens);
  w.layers = n_layers;
  w.moe_layers = moe_layer_count(arch);
  w.passes = static_cast<int>((s.prompt_tokens + chunk - 1) / chunk);
  w.tensor_parallel = tp ? n_gpus : 1;
  w.layer_split_gpus = tp ? 1 : n_gpus;
  w.over_network = !tp && networked_machines(s) > 0;

  // Each pass reads the weights its tokens touch (nearly every expert at 512
  // tokens). llama.cpp runs large batches on the GPU, copying offloaded weights
  // over PCIe for every pass instead of computing them on the CPU.
  const WeightReads reads = weight_reads(arch, e, chunk);
  const double passes = static_cast<double>(w.passes);

  // Logits for the last token only: the head runs once.
  const double head = static_cast<double>(arch.vocab_size) * static_cast<double>(arch.hidden_size);
  const double matmul = 2.0 * (matmul_params_per_token(arch, e.params) - head) * prompt + 2.0 * head;
  double attention = 0.0;
  for (int i = 0; i < n_layers; ++i) {
    const AttentionSpec& a = arch.layers[static_cast<std::size_t>(i)].attn;
    if (!attends(a)) continue;
    attention += 2.0 * static_cast<double>(a.n_heads) * attention_width(a, false) * attended_tokens_sum(a, prompt);
  }
  const double flops = matmul + attention;
  // Routed experts multiply only the tokens routed to them: chunk x k / n rows
  // per expert and pass (k / n from the first MoE layer).
  w.gemm_rows = static_cast<double>(chunk);
  for (const LayerSpec& l : arch.layers) {
    if (l.ffn.n_experts > 0 && l.ffn.n_experts_used > 0) {
      const double used_share = static_cast<double>(l.ffn.n_experts_used) / static_cast<double>(l.ffn.n_experts);
      w.expert_rows = static_cast<double>(chunk) * used_share;
      w.expert_flops = 2.0 * static_cast<double>(e.params.routed_expert) * used_share * prompt;
      break;
    }
  }

  w.attention_flops = attention;
  if (tp) {
    const bool attention_dp = e.memory.attention_ranks > 1;
    w.gpu_weight_bytes = tp_share(reads.gpu_bytes, e.weights, attention_dp, n_gpus) * passes;
    w.flops = flops / n_gpus + replicated_flops(e.weights, attention_dp, n_gpus, prompt);
    w.expert_flops /= n_gpus;
    w.attention_flops /= n_gpus;
    w.allreduces = allreduces_per_pass(arch) * w.passes;
    w.allreduce_bytes = static_cast<double>(chunk) * static_cast<double>(arch.hidden_size) * kActivationBytes;
  } else {
    w.gpu_weight_bytes = reads.gpu_bytes * passes;
    w.host_to_gpu_bytes = reads.ram_bytes * passes;
    w.flops = flops;
    if (n_gpus > 1) {
      w.boundary_bytes = prompt * static_cast<double>(arch.hidden_size) * kActivationBytes;
      // llama.cpp (since its pipeline-parallelism change) feeds a batch's
      // micro-batches through the GPUs one after another, so the GPUs work on
      // different micro-batches at once; -b 2048 tokens per batch by default.
      if (engine_is_llama_cpp_based(s.engine)) {
        w.pipeline_stages = n_gpus;
        const std::int64_t batch_tokens = std::max(kLlamaCppBatchTokens, chunk);
        w.batches = static_cast<int>((s.prompt_tokens + batch_tokens - 1) / batch_tokens);
      }
    }
  }
  return w;
}

}  // namespace llmsizer
