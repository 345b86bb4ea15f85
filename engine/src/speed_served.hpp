// Served figures under load (speed.served): the scheduler steps of a serving
// engine with continuous batching and chunked prefill. See speed_served.cpp.
#pragma once
#include <optional>
#include <string>

#include "speed_rates.hpp"

namespace llmsizer {

// A serving engine's own steps (vLLM, SGLang, TensorRT-LLM) for the figures of
// one sequence alone: the single-stream rates under the serving row's factors
// (the row speed.served uses), with its host costs per sequence and per
// request, so a sequence alone and the serving curve at one in flight are one
// model and agree.
struct ServingEngineStep {
  EffectiveRates rates;
  ServedFactors factors;  // its host's costs per running sequence and step, and per request
  std::string row;                   // "sglang/cuda", "vllm/cuda/mxfp4", ...
  std::string rough_because;         // why its figures here are a rough estimate; empty when not
  std::string ttft_rough_because;    // why its time to first token is rougher than the rest; empty when not
};
ServingEngineStep serving_engine_step(const Architecture& arch, const Scenario& s, const EffectiveRates& single_rates);

// The fixed cost of one pass that takes prompt tokens through `layers`
// layers, at the row's cost per layer (ServedFactors::prompt_pass_layer_overhead_s).
double prompt_pass_overhead_s(const ServedFactors& f, int layers);

// Null without output tokens (Scenario::output_tokens), a throughput figure
// for the prompts' chunks, or a device.
std::optional<ServedEstimate> estimate_served(const Architecture& arch, const Scenario& s, const Estimate& e,
                                              const EffectiveRates& rates);

}  // namespace llmsizer
