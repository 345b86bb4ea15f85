// The front door shared by the CLI and the WebAssembly bindings: a request in
// the vocabulary people use (model id, quant name, engine name, GPU id), resolved
// against the catalog into a Scenario, estimated, and returned. A catalog model's
// architecture is read from its config.json the first time it is needed, then
// kept: making a Sizer reads none. Not for use from several threads at once.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/catalog.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/tensors.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

struct CustomDevice {
  double memory_gib = 0.0;
  double bandwidth_gb_per_s = 0.0;
  double fp16_tflops = 0.0;
  std::string vendor = "nvidia";  // nvidia | amd | apple | intel | cpu
};

struct SizerRequest {
  std::string model_id;     // a catalog id or alias, or
  std::string config_json;  // an HF config.json as text
  std::string quant;        // empty: the engine's usual format (Q4_K_M, native, MLX-4bit)
  std::int64_t context_tokens = 8192;
  std::int64_t sequences = 1;
  std::string kv_type;  // empty: f16 for llama.cpp/MLX, bf16 for paged engines
  std::string engine = "llama.cpp";
  // A catalog device, or mixed cards as a comma-separated list of catalog ids
  // ("rtx-3090,rtx-3090,rtx-3060-12gb", one per card, as the URL hash holds it), or
  std::string gpu_id;
  std::optional<CustomDevice> custom_gpu;
  int gpu_count = 1;
  int copies = 1;  // Scenario::copies
  double offload_fraction = 0.0;
  std::string offload_mode = "auto";  // auto | layers | experts
  std::int64_t prompt_tokens = 4096;
  std::optional<ServedFactors> served_factors;  // Scenario::served_factors
  std::optional<MachineFactors> machine_factors;  // Scenario::machine_factors
  // The llama.cpp backend the device runs ("cuda", "vulkan", ...); empty: the
  // catalog's for the device. A calibration's rows were measured on one.
  std::string backend;
  std::int64_t output_tokens = 0;  // served figures (speed.served) for requests of this many output tokens
  bool flash_attention = true;
  bool attention_data_parallel = false;  // Scenario::attention_data_parallel
  // Speculative decoding: a catalog id of the draft model, or "mtp" (the
  // model's own MTP layers); empty: none. draft_tokens 0: 4 for a draft model,
  // the MTP layer count for MTP.
  std::string draft;
  int draft_tokens = 0;
  bool vision = false;  // images in: the vision encoder and projector, one image's tokens (Scenario::vision)
  std::optional<double> hourly_price_usd;
  std::optional<double> purchase_price_usd;
  double amortization_years = 3.0;
  double hours_per_day = 24.0;
  double electricity_usd_per_kwh = 0.15;
  double ram_bandwidth_gb_per_s = 89.6;  // dual-channel DDR5-5600
  double system_ram_gib = 64.0;          // RAM that may hold offloaded layers or experts
  std::string layer_split;               // llama.cpp over equal cards: layers per GPU, "41,39"; empty: llama.cpp's own
  double gpu_limit_mib = 0.0;            // unified memory: the GPU limit set (macOS iogpu.wired_limit_mb); 0: default
  // Answer speed and cost even where the scenario does not fit (the speed
  // calibration compares configurations people ran against the model).
  bool speed_if_no_fit = false;
  // Answer the suggestions where it does not fit (false: the page's input path,
  // which asks for them once the headline figures are shown).
  bool suggestions = true;
};

struct SizedModel {
  const CatalogModel* entry = nullptr;       // null for a config given as text
  std::shared_ptr<const Architecture> owned;  // that config's architecture
  const Architecture* architecture = nullptr; // the catalog's, or owned
  std::string label;

  const Architecture& arch() const { return *architecture; }
};

// Where the catalog says llama.cpp cannot run the model and the scenario's
// engine is llama.cpp or Ollama, a first warning says so (the estimate's
// figures are then what it would take).
void note_runtime_support(const CatalogModel* entry, const Scenario& scenario, Estimate& e);

// A catalog model's facts read from its architecture (or its error).
ModelFacts read_model_facts(const CatalogModel& model, const Result<Architecture>& arch);

// A catalog model's architecture: its config read, with the facts the catalog
// sourced where the config copy lacks them (maximum context, published format).
Result<Architecture> read_catalog_architecture(const CatalogModel& model);

class Sizer {
 public:
  explicit Sizer(Catalog catalog);

  const Catalog& catalog() const { return catalog_; }
  // The architecture of catalog model i, or the error that kept it out.
  const Result<Architecture>& catalog_architecture(std::size_t index) const;
  // What the model list shows of catalog model i: the build's precomputed
  // facts, else read from its architecture.
  ModelFacts model_facts(std::size_t index) const;

  // Error ids: "request.unknown_model", "request.unknown_gpu", "request.bad_value",
  // plus those of read_hf_config and quant_scheme_from_name.
  Result<SizedModel> model_for(const SizerRequest& request) const;
  Result<Scenario> scenario_for(const SizerRequest& request) const;
  Result<Estimate> estimate(const SizerRequest& request) const;
  // The same, for a model and scenario already resolved (the page's many calls).
  Result<Estimate> estimate(const SizedModel& model, const Scenario& scenario) const;

 private:
  // Weights depend only on the model and the quantization: a page that redraws
  // twenty scenarios per slider move computes each (model, quant) once.
  const ModelWeights& weights_for(const SizedModel& model, const QuantScheme& quant) const;

  Catalog catalog_;
  mutable std::vector<std::optional<Result<Architecture>>> architectures_;  // read on first use
  std::unordered_map<std::string, std::size_t> model_index_;   // ids and aliases
  std::unordered_map<std::string, std::size_t> device_index_;  // ids and aliases
  mutable std::map<std::pair<const CatalogModel*, std::string>, ModelWeights> weights_cache_;
  // A model's tensor list and parameter counts, the same at every quantization:
  // a sweep over six quantizations lists the tensors once.
  struct TensorsAndParams {
    std::vector<TensorInfo> tensors;
    ParamCounts params;
  };
  mutable std::vector<std::optional<TensorsAndParams>> tensors_cache_;  // by catalog index, filled on first use
};

}  // namespace llmsizer
