// The catalog of models and devices (data/*.json), parsed from text. The build
// embeds the files; embedded_catalog() parses that copy.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/json.hpp"

#include "llmsizer/device.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// What the model list shows of a catalog model, read from its architecture.
// The build embeds these for every model (data/embedded/model_facts.json,
// written by scripts/catalog/model_facts.sh and checked against the engine by
// test_catalog): a page then reads one architecture at startup, not a hundred.
struct ModelFacts {
  bool sizable = false;
  std::string error;  // why the model cannot be sized, when it cannot
  std::int64_t params_total = 0;
  std::int64_t params_active = 0;
  bool moe = false;
  bool mla = false;
  bool swa = false;     // sliding-window or chunked attention layers
  bool hybrid = false;  // linear-attention or Mamba layers
  bool estimated = false;  // estimated fields, a derived config, or approximations
  std::int64_t max_context_tokens = 0;
  bool vision = false;  // a vision section the engine sizes (request "vision")
  bool mtp = false;     // multi-token-prediction layers (request "draft": "mtp")

  bool operator==(const ModelFacts& o) const {
    return sizable == o.sizable && error == o.error && params_total == o.params_total &&
           params_active == o.params_active && moe == o.moe && mla == o.mla && swa == o.swa &&
           hybrid == o.hybrid && estimated == o.estimated && max_context_tokens == o.max_context_tokens &&
           vision == o.vision && mtp == o.mtp;
  }
};

struct CatalogModel {
  std::string id;
  std::string name;
  std::string family;
  std::string hf_repo;
  std::vector<std::string> aliases;
  Json config;  // the HF config.json when given inline (catalog files), or
  std::string config_text;  // its text (the build's model_configs.tsv): see model_config
  std::optional<std::int64_t> official_params_total;
  std::optional<std::int64_t> official_params_active;
  bool official_params_precise = false;
  std::vector<std::string> estimated_fields;
  std::string license;
  std::string native_dtype;
  // Why llama.cpp (and Ollama, which runs its kernels) cannot run the model,
  // from a source; "" where it can. The launch commands print it instead of a
  // command that would fail.
  std::string llama_cpp_unsupported;
  // The GGUF type llama.cpp and Ollama take when none is asked for, where the
  // model's own GGUF is not Q4_K_M (gpt-oss: its MXFP4 experts as released,
  // Ollama's only tag); "" for the usual Q4_K_M.
  std::string gguf_default_quant;
  // The catalog model this is a checkpoint of in another format (GLM-4.5-FP8:
  // "glm-4.5"); "" for a model as its publisher released it. A GGUF or MLX
  // build of it is that model's: "what can I run" lists it at its own format.
  std::string release_of;
  std::string config_provenance;  // "verbatim_copy" or "derived"
  std::vector<std::string> gguf_repos;
  std::vector<std::string> ollama_tags;
  // What the model is for: some of "coding", "reasoning", "chat", "vision",
  // from its own name, repository, config or card (the catalog's uses_sources).
  std::vector<std::string> uses;
  // The catalog's max_context_tokens: the config's own field, or a figure the
  // catalog build sourced elsewhere (a card's "128K context"); 0: none known.
  std::int64_t max_context_tokens = 0;
  std::optional<ContextExtension> context_extension;  // the catalog's, with its source there
  std::optional<ModelFacts> facts;  // precomputed by the build; else read on demand
};

// A kind of host RAM (data/system_ram.json): what offloaded layers are read
// from on a machine with a discrete card. Theoretical bandwidth: channels x 8
// bytes x MT/s.
struct RamProfile {
  std::string id;    // "ddr5-5600-2ch"
  std::string name;  // "DDR5-5600, 2 channels"
  double bandwidth_bytes_per_s = 0.0;
  std::string platform;  // where it is found ("desktop dual channel", "AMD EPYC 9004 (Genoa), per socket"), or ""
};

struct Catalog {
  std::vector<CatalogModel> models;
  std::vector<Device> devices;
  std::vector<RamProfile> ram_profiles;  // by bandwidth, slowest first

  const CatalogModel* find_model(std::string_view id) const;
  const Device* find_device(std::string_view id) const;
};

// Error ids: "catalog.not_json", "catalog.bad_entry" (with the JSON path).
// facts_json, when given: {"models": [{"id", ModelFacts' fields...}]}, matched
// to the models by id. configs_tsv, when given: one "id<TAB>config.json" line
// per model whose entry has no "config" object; kept as text until asked for.
Result<Catalog> parse_catalog(std::string_view models_json, std::string_view devices_json,
                              std::string_view facts_json = {}, std::string_view configs_tsv = {});
// A catalog model's config.json: the inline object, or its text parsed now
// ("catalog.bad_entry" when that text is not a JSON object).
Result<Json> model_config(const CatalogModel& model);
// The catalog compiled into the build, with its precomputed model facts or
// (for the check that they are current) without.
enum class EmbeddedFacts { use, ignore };
Result<Catalog> embedded_catalog(EmbeddedFacts facts = EmbeddedFacts::use);

}  // namespace llmsizer
