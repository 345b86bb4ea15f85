// The work behind decode and prefill, from the memory estimate: the bytes each
// step reads and where they sit (GPU memory, system RAM), and the FLOPs it
// costs. Physics only; efficiencies are applied in speed.cpp.
#pragma once
#include <cstdint>

#include "llmsizer/estimate.hpp"

namespace llmsizer {

// Expected share of a layer's n routed experts that `batch` tokens touch when
// each picks k of them: 1 - (1 - k/n)^batch. k/n at batch 1, towards 1 as the
// batch grows (n = 128, k = 8: 6.25% at batch 1, 98.4% at batch 64).
double expert_touched_share(std::int64_t n_experts, std::int64_t n_used, std::int64_t batch);

// Multiply-accumulate weights a token runs through, counted once per use:
// active parameters without the embedding lookup, with the output head (a tied
// head is the embedding matrix used a second time).
double matmul_params_per_token(const Architecture& arch, const ParamCounts& params);

// One decode step of `batch` sequences, each holding s.context_tokens in its
// cache (KV read scales with the batch's share of the estimate's cache).
StepWork decode_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t batch);

// The same step with `cache` in place of the estimate's (a cache that holds
// `cached_tokens` per sequence): the KV read and the attention follow it.
StepWork decode_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t batch,
                          const KvBreakdown& cache, std::int64_t cached_tokens);

// The cache once the prompt is in: min(prompt, context) tokens per sequence,
// plus the image's with Scenario::vision, sized the way the estimate sized its window.
KvBreakdown cache_after_prompt(const Architecture& arch, const Scenario& s, const Estimate& e);
std::int64_t cached_after_prompt(const Scenario& s, const Estimate& e);

// Prompt tokens per pass: -ub for llama.cpp (512 by default), the chunked-prefill
// budget of the serving engines (scheduler_defaults), or s.prefill_ubatch_tokens.
std::int64_t prefill_chunk_tokens(const Scenario& s);

// What a serving engine schedules per step unless told otherwise, on the
// scenario's device: the token budget of a step (vLLM max_num_batched_tokens,
// SGLang chunked_prefill_size, TensorRT-LLM max_num_tokens, llama.cpp -ub) and
// the most requests it runs at once (vLLM max_num_seqs; 0: only the KV pool).
struct SchedulerDefaults {
  std::int64_t token_budget = 512;
  std::int64_t max_running_requests = 0;
  // Whether a step that takes prompt tokens also decodes the running requests
  // (vLLM V1, TensorRT-LLM's in-flight batching, llama-server), or runs the
  // prompts alone while they wait (SGLang without --enable-mixed-chunk).
  bool mixes_prompts_with_decode = true;
};
SchedulerDefaults scheduler_defaults(const Scenario& s);

// One scheduler step of a serving engine under load (continuous batching with
// chunked prefill): `decode_sequences` sequences each decode a token with
// `cached_tokens` in their cache (`cache` sized as for decode_step_work), and
// `prefill_tokens` of other requests' prompts ride in the same pass, each
// attending to `prefill_position` tokens before it. Weights are read once for
// the whole step (the experts all its tokens touch); FLOPs add up.
StepWork served_step_work(const Architecture& arch, const Scenario& s, const Estimate& e, std::int64_t decode_sequences,
                          const KvBreakdown& cache, std::int64_t cached_tokens, std::int64_t prefill_tokens,
                          double prefill_position);

// A prompt of s.prompt_tokens tokens into an empty cache, in micro-batches of
// s.prefill_ubatch_tokens (default: llama.cpp's -ub 512; chunks of 2048 for
// vLLM/SGLang/TensorRT-LLM and MLX), logits for its last token only.
StepWork prefill_work(const Architecture& arch, const Scenario& s, const Estimate& e);

}  // namespace llmsizer
