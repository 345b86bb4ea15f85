// The pieces of the speed model that speed.cpp (equal devices) and
// speed_mixed_cards.cpp (one card after another, each at its own rates) share:
// a device's rates after the fitted efficiencies, and the seconds of a pass.
#pragma once
#include "llmsizer/estimate.hpp"
#include "llmsizer/speed_calibration.hpp"

namespace llmsizer {

// The device as one runtime sees it: rates after the fitted efficiencies.
struct EffectiveRates {
  SpeedBasis basis;
  double weight_bytes_per_s = 0.0;  // GPU memory, weight reads (dequantization included)
  double kv_bytes_per_s = 0.0;      // GPU memory, KV and state reads
  double ram_bytes_per_s = 0.0;     // system RAM read by the CPU
  double matrix_flops = 0.0;        // GEMMs: prefill and batched decode; 0 when unknown
  double link_bytes_per_s = 0.0;    // one direction of the GPU-to-GPU link
  double layer_overhead_s = 0.0;
};

// s.device's rates under the engine and weight format.
EffectiveRates effective_rates(const Scenario& s, const Estimate& e, EngineFamily engine, WeightFamily weights);

// Seconds for a pass of work `w` at rates `r` (StepTime): gemm_factor scales
// the GEMM rate for prompts, pressure slows decode's reads.
StepTime step_time(const StepWork& w, const EffectiveRates& r, double gemm_factor, double pressure);

// Whether llama.cpp's quantized INT8 GEMMs (MMQ) run on this device.
bool quantized_mma(const Device& d, EngineFamily engine);

// Dies the device's memory is attached to (Apple Ultra: 2; see Device::memory_dies).
int memory_dies(const Device& d);

}  // namespace llmsizer
