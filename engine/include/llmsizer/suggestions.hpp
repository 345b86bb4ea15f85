// What would make a scenario fit: the best single change of each kind, each
// re-estimated with its own memory and speed, in the order of what it costs
// the user: settings that cost nothing (an uneven layer split, a Mac's GPU
// limit raised), an 8-bit KV cache, a smaller quantization of the same bit
// class, layers or experts in system RAM, a quantization below 4 bits, a
// shorter context, one more device. The estimate's answer when it does not
// fit, in place of speed and cost figures that would read as if it ran.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/layer_split.hpp"

namespace llmsizer {

// The change, keyed as the request's fields: one is set (offload with its
// mode), or, where no one change fits, a quantization with an offload or a
// context.
struct SuggestedChange {
  std::optional<std::string> quant;
  std::optional<int> gpus;
  std::optional<std::int64_t> ctx;
  std::optional<double> offload;  // share of layers: offload_layers / decoder layers
  std::optional<std::string> offload_mode;  // "experts" (--n-cpu-moe) or "layers" (-ngl)
  std::optional<std::string> kv;            // KV cache type: q8_0 (llama.cpp, Ollama) or fp8 (paged engines)
  std::optional<std::int64_t> gpu_limit_mib;  // a Mac's GPU limit: sudo sysctl iogpu.wired_limit_mb=N
  std::vector<int> layer_split;             // layers per GPU (llama.cpp --tensor-split)
};

struct Suggestion {
  SuggestedChange change;
  // What it costs: "none" (a setting), "kv_precision", "quality", "speed",
  // "context" or "hardware"; the list is in this order.
  std::string cost;
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

// Whether the scenario's engine can start a changed scenario as set: for
// vLLM, SGLang and TensorRT-LLM a checkpoint of the quantization is known or
// the engine makes one as it loads (launch_commands' engine_starts). A
// quantization the engine cannot start is no fix while another is: AWQ for
// GLM-4.5 Air on four RTX 3090s under vLLM, with no AWQ checkpoint known, was
// the only change offered. Empty: every scenario counts as startable.
using Startable = std::function<bool(const Scenario&, const Estimate&)>;

// The GGUF file types a quantization suggestion chooses from, best quality
// first: llama.cpp's K- and I-quant mixes by file size (in llama-quantize's
// own table a larger K-quant file has the lower perplexity; I-quants sit at
// their bits per weight), with the bits class each belongs to (8, 6, 5, 4, 3,
// 2 or 1).
struct QuantRung {
  const char* name;
  int bits_class;
};
const std::vector<QuantRung>& gguf_quality_ladder();
// A quantization's bits class on that ladder; 4 for the checkpoint formats
// (BF16, FP8, AWQ), which are 4 bits or more.
int quant_bits_class(const std::string& name);

// Empty when the scenario has no device or already fits. Offload applies to
// llama.cpp and Ollama (experts of the first layers for MoE models, else whole
// layers, within the RAM the scenario has); quantizations are the largest
// smaller one that fits (gguf_quality_ladder for GGUF engines, else
// checkpoint_quality_ladder) and that the engine can start (`startable`; the
// best one it cannot start comes last, when it starts none); device counts
// stop at the practical count of the device (planner_rules.hpp) and at what
// the engine can split; the context is the largest that fits, in the engine's
// steps. Where no one change fits, two together: a smaller quantization with
// part of it in RAM (llama.cpp, Ollama), else with the longest context that
// fits at it (at least 4,096 tokens).
std::vector<Suggestion> suggest_fits(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                                     const Estimator& estimate_fn, const Startable& startable);

// The checkpoint formats a quantization suggestion chooses from where the
// engine does not load GGUF, best quality first: standard_quants (MLX's 8 and
// 4 bits; 16 bits, FP8 and AWQ for vLLM, SGLang and TensorRT-LLM) and, for
// those three, GPTQ-INT4, the other 4-bit format they load.
std::vector<std::string> checkpoint_quality_ladder(InferenceEngine engine);

// Equal cards under llama.cpp (or Ollama) where one is over and another has
// room: the layer split (--tensor-split) that fits with the lowest fullest
// card, re-estimated; nothing when no split fits or the scenario keeps whole
// layers in RAM. The suggestions and the "what can I run" planner share it.
std::optional<Suggestion> balanced_layer_split(const Architecture& arch, const Estimator& estimate_fn,
                                               const Scenario& scenario, const Estimate& estimate);

// The estimate of a scenario as llama.cpp would place it on equal cards: its
// own, or, where the default split leaves a card over, with the layers split
// to balance the cards where that holds them (balanced_layer_split). Which
// split holds the GPUs is asked with RAM out of the way (a card's bytes do
// not depend on it); the estimate returned is with the scenario's RAM, so a
// search over experts in RAM judges the GPUs and RAM apart. The offload
// suggestions and the "what can I run" planner share it.
Result<Suggestion> balanced_placement(const Architecture& arch, const Estimator& estimate_fn, const Scenario& scenario);

}  // namespace llmsizer
