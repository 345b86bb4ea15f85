// The pieces of the speed model that speed.cpp (equal devices) and
// speed_mixed_cards.cpp (one card after another, each at its own rates) share:
// a device's rates after the fitted efficiencies, and the seconds of a pass.
#pragma once
#include <algorithm>

#include "llmsizer/estimate.hpp"
#include "llmsizer/speed_calibration.hpp"
#include "llmsizer/speed_work.hpp"

namespace llmsizer {

// The device as one runtime sees it: rates after the fitted efficiencies.
struct EffectiveRates {
  SpeedBasis basis;
  double weight_bytes_per_s = 0.0;  // GPU memory, weight reads (dequantization included)
  double kv_bytes_per_s = 0.0;      // GPU memory, KV and state reads
  double ram_bytes_per_s = 0.0;     // system RAM read by the CPU
  double matrix_flops = 0.0;        // GEMMs: prefill and batched decode; 0 when unknown
  // Attention's products (queries by cached keys, scores by values): 16-bit
  // however the weights are stored, so FP8 and FP4 weights' rate does not
  // apply (FlashAttention / FlashMLA kernels multiply BF16). 0: matrix_flops.
  double attention_flops = 0.0;
  double link_bytes_per_s = 0.0;    // one direction of the GPU-to-GPU link
  double layer_overhead_s = 0.0;
  double allreduce_latency_s = 0.0;  // one small tensor-parallel all-reduce
  double step_overhead_s = 0.0;      // per pass on top of the layers' (a serving scheduler's step)
  double attention_scale = 1.0;      // a calibrated machine's attention_factor (MachineFactors)
  // Passes of an MoE model take this many times the modelled time (llama.cpp
  // on Intel GPUs: intel_moe_time_factors; Qwen3-Next's decode under llama.cpp:
  // qwen3next_decode_time_factor); 1 elsewhere.
  double moe_decode_time_factor = 1.0;
  double moe_prompt_time_factor = 1.0;
  // Routed-expert GEMMs of a prompt (llama.cpp's mul_mat_id): their own tile
  // fill (time x (1 + this / rows per expert)) and share of the dense rate at
  // full tiles. 0 / 1: the dense GEMMs' terms (serving engines).
  double expert_gemm_half_rows = 0.0;
  double expert_gemm_rate_factor = 1.0;
  // Layer split's pipelined micro-batches: the share of the ideal overlap the
  // GPUs realize (1 with peer access; SpeedConstants::pipeline_overlap_without_p2p).
  double pipeline_overlap = 1.0;
};

// s.device's rates under the engine and weight format (fp4: products FP4 by
// FP4, fp4_products) for this architecture.
EffectiveRates effective_rates(const Architecture& arch, const Scenario& s, const Estimate& e, EngineFamily engine,
                               WeightFamily weights, bool fp4);

// Seconds for a pass of work `w` at rates `r` (StepTime): gemm_factor scales
// the GEMM rate for prompts, pressure slows decode's reads.
StepTime step_time(const StepWork& w, const EffectiveRates& r, double gemm_factor, double pressure);

// The backend whose fitted rows a device reads: its own, but for Intel GPUs
// older than Battlemage under SYCL, Vulkan's (speed.cpp says why).
Backend calibration_backend(const Device& d);

// An Intel GPU under SYCL or Vulkan: where llama.cpp's MoE passes may take a
// measured multiple of the modelled time (EffectiveRates::moe_*_time_factor),
// and its Q2_K and IQ3_XS kernels run slower than modelled (the estimate warns).
bool intel_gpu_under_sycl_or_vulkan(const Device& d);
struct MoeTimeFactors {
  double decode = 1.0;
  double prompt = 1.0;
};
// Those multiples for the backend whose rows the device reads (calibration_backend):
// the geometric mean of the measured rows' times over the model's at this fit,
// where the rows agree on its direction (speed.cpp); 1 elsewhere.
MoeTimeFactors intel_moe_time_factors(Backend backend);
// Qwen3-Next's graph in llama.cpp (the qwen3next architecture: Qwen3-Next,
// Qwen3-Coder-Next), whose decode takes a measured multiple of the modelled
// time: qwen3next_decode_time_factor (speed.cpp), with its measurements.
bool qwen3next_graph(const Architecture& arch);
// Qwen3.5's MoE models (Qwen3.5/3.6-35B-A3B, -122B-A10B, -397B-A17B): llama.cpp's qwen35moe graph.
bool qwen35moe_graph(const Architecture& arch);
double qwen3next_decode_time_factor();
// An AMD GPU on LPDDR it shares with the CPU (Strix Halo), not a discrete Radeon.
bool integrated_amd_gpu(const Device& d);

// Whether llama.cpp's quantized INT8 GEMMs (MMQ) run on this device.
bool quantized_mma(const Device& d, EngineFamily engine);

// Dies the device's memory is attached to (Apple Ultra: 2; see Device::memory_dies).
int memory_dies(const Device& d);

// Decode of one sequence right after its prompt, from sp's full-window step:
// the same step when the prompt fills the window, else `time_of(cache, cached,
// work)` with the prompt's cache (each path times a step its own way).
template <typename TimeOf>
void set_decode_after_prompt(SpeedEstimate& sp, const Architecture& arch, const Scenario& s, const Estimate& e,
                             TimeOf time_of) {
  sp.after_prompt_cached_tokens = cached_after_prompt(s, e);
  if (std::min(s.prompt_tokens, s.context_tokens) == s.context_tokens) {
    sp.decode_after_prompt_work = sp.decode_single_work;
    sp.decode_after_prompt_time = sp.decode_single_time;
  } else {
    sp.decode_after_prompt_time =
        time_of(cache_after_prompt(arch, s, e), sp.after_prompt_cached_tokens, sp.decode_after_prompt_work);
  }
  if (sp.decode_after_prompt_time.total_s > 0.0)
    sp.decode_tokens_per_s_after_prompt = 1.0 / sp.decode_after_prompt_time.total_s;
}

}  // namespace llmsizer
