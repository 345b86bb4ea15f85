// What would make a scenario fit: the smallest change of each kind (offload to
// system RAM, one quantization down, one more device, a shorter context), each
// re-estimated with its own memory and speed. The estimate's answer when it
// does not fit, in place of speed and cost figures that would read as if it ran.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/estimate.hpp"

namespace llmsizer {

// The change, keyed as the request's fields: exactly one of quant, gpus, ctx
// or offload is set (offload with its mode).
struct SuggestedChange {
  std::optional<std::string> quant;
  std::optional<int> gpus;
  std::optional<std::int64_t> ctx;
  std::optional<double> offload;  // share of layers: offload_layers / decoder layers
  std::optional<std::string> offload_mode;  // "experts" (--n-cpu-moe) or "layers" (-ngl)
};

struct Suggestion {
  SuggestedChange change;
  bool fits = false;  // the re-estimate's verdict (always true for what is returned)
  std::int64_t required_bytes = 0;
  std::int64_t usable_bytes = 0;
  double utilization = 0.0;
  std::int64_t ram_required_bytes = 0;
  int offloaded_layers = 0;
  // The re-estimate's speed; 0 where the device lacks the figure.
  double decode_tokens_per_s = 0.0;
  double decode_tokens_per_s_total = 0.0;
  double prefill_tokens_per_s = 0.0;
  double ttft_s = 0.0;
  Scenario scenario;  // the scenario with the change applied
  Estimate estimate;  // its estimate (for its launch commands)
};

// How a scenario is estimated for this model: the Sizer's (catalog model,
// config) or one with a file's measured weights (GGUF, safetensors).
using Estimator = std::function<Result<Estimate>(const Scenario&)>;

// Empty when the scenario has no device or already fits. Offload applies to
// llama.cpp and Ollama (experts of the first layers for MoE models, else whole
// layers, within scenario.system_ram_bytes); quantizations come from
// standard_quants(engine), smaller than the scenario's; device counts stop at
// the practical count of the device (planner_rules.hpp) and at what the engine
// can split; the context is the largest that fits, in the engine's steps.
std::vector<Suggestion> suggest_fits(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                                     const Estimator& estimate_fn);

}  // namespace llmsizer
