// A serving engine under load: continuous batching with chunked prefill, as
// vLLM, SGLang, TensorRT-LLM and llama-server (-np) schedule it. Physics only:
// the steps are timed by the same roofline as every other pass (step_time).
//
// Requests bring I prompt tokens and leave with O output tokens; C of them are
// in flight (a benchmark's max concurrency), at most the KV pool's share at
// once. A scheduler step has a token budget B (the chunked-prefill chunk): it
// decodes one token for each of the D requests past their prompt and fills the
// rest with waiting prompt tokens. In steady state prompts arrive as fast as
// requests finish, D/O per step, and bring I tokens each: D x I / O prompt
// tokens per step, which the room left, B - D, must absorb. When it cannot,
// fewer requests decode at once: D/O = (B - D)/I, D = B x O / (I + O).
#include "speed_served.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "llmsizer/engines.hpp"
#include "llmsizer/kv_cache.hpp"

namespace llmsizer {
namespace {

// Below these a serving row's figures are labelled a rough estimate: a fit on
// a handful of runs, or one that leaves its own runs scattered by more than
// a fifth, says little about the next model on that platform.
constexpr int kServedRunsForConfidence = 5;
constexpr int kServedTypicalErrorForConfidencePct = 20;
// The TTFT of a row whose runs' TTFTs it misses by more than this on median
// (issue 35's goal for TTFT) is labelled apart: a fixed per-request cost fits
// 8-GPU runs' 100-190 ms and one GPU's 28 ms badly (docs/accuracy.md).
constexpr int kServedTtftErrorForConfidencePct = 25;

// The M/D/1 queue's mean wait for a prompt's chunks: service time x u / (2 (1 - u)),
// u the share of time the budget spends on prompts. Held below 0.9: at
// saturation the closed-loop count of waiting requests (Little's law) decides.
double mean_wait_s(double service_s, double busy_share) {
  const double u = std::clamp(busy_share, 0.0, 0.9);
  return service_s * u / (2.0 * (1.0 - u));
}

// The serving row, the most specific the engine has one of for the kernels a
// step runs: the weight format's (MXFP4, NVFP4; INT4 for an MoE's experts,
// the W4A16 MoE kernels: a dense INT4 model's GEMMs are not those), else
// attention data parallel's where the run attends that way (each rank's own
// batch, the experts' gathers and scatters), else multi-head latent
// attention's (its MLA kernels), else a hybrid model's (its recurrent
// layers' kernels), else the engine's on the platform.
const ServedCalibration& served_row(const Architecture& arch, const Scenario& s) {
  const std::string_view weights = served_weights_key(s.quant, arch.native_format);
  const bool moe = arch.is_moe();
  const ServedCalibration& by_weights =
      served_calibration(s.engine, s.device->backend, weights == "int4" && !moe ? "" : weights);
  if (!by_weights.weights.empty()) return by_weights;
  const auto own_row = [&](std::string_view key) -> const ServedCalibration* {
    const ServedCalibration& row = served_calibration(s.engine, s.device->backend, key);
    return row.weights == key ? &row : nullptr;
  };
  const bool mla = std::any_of(arch.layers.begin(), arch.layers.end(), [](const LayerSpec& l) { return l.attn.mla; });
  if (s.attention_data_parallel && s.gpu_count > 1)
    if (const ServedCalibration* row = own_row("attention-dp")) return *row;
  if (mla)
    if (const ServedCalibration* row = own_row("mla")) return *row;
  // A hybrid model's recurrent layers run kernels of their own (a state
  // update per layer and token in decode, chunked scans in prefill).
  if (arch.is_hybrid())
    if (const ServedCalibration* row = own_row("hybrid")) return *row;
  return by_weights;
}

// The single-stream rates as the serving engine's batched steps see them.
EffectiveRates served_rates(const EffectiveRates& single, const ServedFactors& f) {
  EffectiveRates r = single;
  r.weight_bytes_per_s *= f.bandwidth_factor;
  r.kv_bytes_per_s *= f.bandwidth_factor;
  r.matrix_flops *= f.compute_factor;
  r.attention_flops *= f.compute_factor;
  r.allreduce_latency_s *= f.allreduce_latency_factor;
  r.step_overhead_s = f.step_overhead_s;
  return r;
}

// Why a row's figures for this scenario are a rough estimate; empty when not.
std::string rough_because(const ServedCalibration& row, const Architecture& arch, const Scenario& s) {
  if (row.backend != s.device->backend)
    return std::string("no serving runs measured on ") + backend_name(s.device->backend) + ": the engine's " +
           backend_name(row.backend) + " row";
  if (row.fitted_records == 0)
    // A row no run fitted says why in its basis (borrowed, or runs no factor reproduces).
    return row.basis.empty() ? "no serving runs measured for this engine" : std::string(row.basis);
  if (row.fitted_records < kServedRunsForConfidence)
    return "only " + std::to_string(row.fitted_records) + " measured runs behind this row";
  if (memory_class(*s.device) != MemoryClass::hbm)
    // Every serving run measured is on HBM datacenter parts (serving_speeds.json,
    // serving_measurements.json): a card of GDDR, LPDDR or DIMMs is outside them.
    return std::string("serving runs were measured on HBM datacenter GPUs only, none with ") +
           (memory_class(*s.device) == MemoryClass::gddr    ? "GDDR"
            : memory_class(*s.device) == MemoryClass::lpddr ? "LPDDR"
                                                             : "DDR") +
           " memory like this device's";
  if (row.typical_error_pct > kServedTypicalErrorForConfidencePct)
    return "its measured runs scatter " + std::to_string(row.typical_error_pct) + "% around it on median";
  // Where hybrid models were measured, the engine's row for the others put
  // them up to 82% too fast (docs/accuracy.md): a row fitted without them says so.
  if (arch.is_hybrid() && row.weights != "hybrid")
    return "no serving run of a hybrid (linear-attention) model was measured on this row; where one was (vLLM "
           "on ROCm, SGLang on CUDA), the engine's row for other models put it up to 82% too fast";
  return "";
}

std::string row_name(const ServedCalibration& row) {
  return std::string(engine_name(row.engine)) + "/" + backend_name(row.backend) +
         (row.weights.empty() ? "" : "/" + std::string(row.weights));
}

// Why the TTFT is rougher than the row's throughput ("" when it is not, or
// when the whole row is labelled rough): the row's runs measured TTFTs it
// misses by more than issue 35's goal, or measured none (its per-request cost
// is another row's).
std::string ttft_rough_because(const ServedCalibration& row, const Scenario& s, bool row_rough) {
  if (row_rough || s.served_factors) return "";
  if (row.ttft_typical_error_pct > kServedTtftErrorForConfidencePct)
    return "the row's measured times to first token scatter " + std::to_string(row.ttft_typical_error_pct) +
           "% around it on median";
  if (row.ttft_typical_error_pct < 0 && row.fitted_records > 0)
    return row.ttft_basis.empty() ? "no first-token time measured on this row's runs" : std::string(row.ttft_basis);
  return "";
}

}  // namespace

double prompt_pass_overhead_s(const ServedFactors& f, int layers) {
  return f.prompt_pass_layer_overhead_s * static_cast<double>(layers);
}

ServingEngineStep serving_engine_step(const Architecture& arch, const Scenario& s, const EffectiveRates& single_rates) {
  const ServedCalibration& row = served_row(arch, s);
  const ServedFactors& f = s.served_factors ? *s.served_factors : row.factors;
  ServingEngineStep step;
  step.rates = served_rates(single_rates, f);
  step.factors = f;
  step.rough_because = rough_because(row, arch, s);
  step.ttft_rough_because = ttft_rough_because(row, s, !step.rough_because.empty());
  step.row = row_name(row);
  return step;
}

std::optional<ServedEstimate> estimate_served(const Architecture& arch, const Scenario& s, const Estimate& e,
                                              const EffectiveRates& single_rates) {
  if (s.output_tokens <= 0 || single_rates.matrix_flops <= 0.0 || e.memory.per_gpu.empty()) return std::nullopt;
  ServedEstimate v;
  const ServedCalibration& row = served_row(arch, s);
  v.calibration_row = row_name(row);
  v.calibration_records = row.fitted_records;
  v.calibration_typical_error_pct = row.typical_error_pct;
  v.calibration_rough_because = rough_because(row, arch, s);
  v.calibration_rough = !v.calibration_rough_because.empty();
  v.calibration_ttft_typical_error_pct = row.ttft_typical_error_pct;
  v.ttft_rough_because = ttft_rough_because(row, s, v.calibration_rough);
  v.calibration_basis = std::string(row.basis);
  v.calibration_override = s.served_factors.has_value();
  v.factors = s.served_factors.value_or(row.factors);
  const EffectiveRates rates = served_rates(single_rates, v.factors);
  v.concurrency = std::max<std::int64_t>(s.sequences, 1);
  v.input_tokens = std::max<std::int64_t>(s.prompt_tokens, 1);
  v.output_tokens = s.output_tokens;
  // A step's sequences hold, on average, the prompt and half their output.
  const auto cached = std::min<std::int64_t>(v.input_tokens + v.output_tokens / 2, s.context_tokens);
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(s, cached));
  // The engine runs what its KV pool holds, at most its request limit
  // (vLLM's max_num_seqs); the rest wait their turn. vLLM and SGLang admit
  // on the blocks sequences have filled (and preempt when the pool runs dry),
  // not their whole windows: in steady state, requests at every stage of their
  // answer, the mean occupancy above. TensorRT-LLM's default capacity policy
  // (GUARANTEED_NO_EVICT) reserves each request's whole window.
  v.max_concurrency = e.memory.max_concurrent_sequences;
  if (v.max_concurrency && (s.engine == InferenceEngine::vllm || s.engine == InferenceEngine::sglang) && cache.total_bytes > 0) {
    const KvBreakdown window = compute_kv_cache(arch, kv_request_for(s, s.context_tokens));
    const double scale = static_cast<double>(window.total_bytes) / static_cast<double>(cache.total_bytes);
    v.max_concurrency = static_cast<std::int64_t>(std::floor(static_cast<double>(*v.max_concurrency) * std::max(1.0, scale)));
  }
  const std::int64_t running_limit = scheduler_defaults(s).max_running_requests;
  if (running_limit > 0) v.max_concurrency = std::min(v.max_concurrency.value_or(running_limit), running_limit);
  v.admitted_concurrency =
      v.max_concurrency ? std::clamp<std::int64_t>(*v.max_concurrency, 1, v.concurrency) : v.concurrency;
  const double in = static_cast<double>(v.input_tokens);
  const double out = static_cast<double>(v.output_tokens);
  // The budget holds every decoding sequence and at least one prompt token.
  v.chunk_tokens = std::max<std::int64_t>(prefill_chunk_tokens(s), v.admitted_concurrency + 1);
  const double budget = static_cast<double>(v.chunk_tokens);

  const double balance = budget * out / (in + out);
  v.prefill_bound = static_cast<double>(v.admitted_concurrency) > balance;
  v.decoding_concurrency = std::min(static_cast<double>(v.admitted_concurrency), balance);
  const double decoding = v.decoding_concurrency;
  const double room = budget - decoding;
  // Prompt tokens arriving per step, and what a step that takes prompts
  // carries: one whole prompt when it fits the room (prompts arriving more
  // often than one a step share the steps), else a room's worth.
  const double arriving = decoding * in / out;
  const double carried = std::min(room, std::max(in, arriving));
  v.prefill_step_share = std::min(1.0, arriving / carried);

  const auto sequences = std::max<std::int64_t>(1, std::llround(decoding));
  const auto chunk = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(carried)));
  v.decode_step_work = served_step_work(arch, s, e, sequences, cache, cached, 0, 0.0);
  v.decode_step_time = step_time(v.decode_step_work, rates, 1.0, rates.basis.memory_pressure);
  // SGLang runs a step's prompts in a pass of their own (one decoding
  // sequence's worth beside them, a rounding), then the decode step: the
  // decoders wait one prompt pass more per step that takes prompts.
  const bool mixed = scheduler_defaults(s).mixes_prompts_with_decode;
  v.mixed_step_work = served_step_work(arch, s, e, mixed ? sequences : 1, cache, cached, chunk, in / 2.0);
  v.mixed_step_time = step_time(v.mixed_step_work, rates, 1.0, rates.basis.memory_pressure);
  // The host's work for each running sequence, every step (ServedFactors).
  const auto host = [&](StepTime& t, std::int64_t running) {
    const double host_s = v.factors.sequence_overhead_s * static_cast<double>(running);
    t.overhead_s += host_s;
    t.total_s += host_s;
  };
  host(v.decode_step_time, sequences);
  host(v.mixed_step_time, mixed ? sequences : 1);
  // A step that takes prompts runs without the decode batches' CUDA graphs.
  const double pass_overhead_s = prompt_pass_overhead_s(v.factors, v.mixed_step_work.layers);
  v.mixed_step_time.overhead_s += pass_overhead_s;
  v.mixed_step_time.total_s += pass_overhead_s;
  const double light_s = v.decode_step_time.total_s;
  const double prompt_pass_s = v.mixed_step_time.total_s;
  const double heavy_s = mixed ? prompt_pass_s : light_s + prompt_pass_s;
  if (!(light_s > 0.0) || !(heavy_s > 0.0)) return std::nullopt;

  // Every step gives each decoding sequence a token. A request's time per
  // output token (from its first token on) sees the other requests' prompts
  // in its steps, not its own (that is before its first token): alone, none.
  // All requests' output together runs at the mean step, every prompt's in it.
  const double others_share = std::min(1.0, std::max(0.0, decoding - 1.0) * in / out / carried);
  v.tpot_s = others_share * heavy_s + (1.0 - others_share) * light_s;
  v.tokens_per_s_per_user = 1.0 / v.tpot_s;
  const double mean_step_s = v.prefill_step_share * heavy_s + (1.0 - v.prefill_step_share) * light_s;
  v.output_tokens_per_s = decoding / mean_step_s;
  v.output_tokens_per_s_per_gpu = v.output_tokens_per_s / static_cast<double>(e.memory.per_gpu.size());

  // Time to first token: the prompt's chunks (heavy steps), the wait for the
  // budget, and the step that returns the first token.
  const double prompt_steps = std::ceil(in / std::min(std::floor(room), std::max(in, 1.0)));
  const double own_prompt_s = prompt_steps * prompt_pass_s;
  const double waiting = static_cast<double>(v.concurrency) - decoding;
  if (waiting > 0.5) {
    // More requests in flight than decode at once (the pool is full, or
    // prompts arrive faster than the budget takes them): by Little's law each
    // spends waiting / (decoding / O) steps before it decodes.
    const double before_decode_s = waiting * out / decoding * mean_step_s;
    v.queue_s = std::max(0.0, before_decode_s - own_prompt_s);
  } else {
    const double busy = v.prefill_step_share * heavy_s / mean_step_s;
    v.queue_s = mean_wait_s(own_prompt_s, busy);
  }
  v.request_overhead_s = v.factors.request_overhead_s;
  v.ttft_s = v.request_overhead_s + v.queue_s + own_prompt_s + light_s;
  return v;
}

}  // namespace llmsizer
