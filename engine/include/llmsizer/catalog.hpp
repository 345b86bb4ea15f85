// The catalog of models and devices (data/*.json), parsed from text. The build
// embeds the files; embedded_catalog() parses that copy.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/json.hpp"

#include "llmsizer/device.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

struct CatalogModel {
  std::string id;
  std::string name;
  std::string family;
  std::string hf_repo;
  std::vector<std::string> aliases;
  Json config;  // the HF config.json, read by read_hf_config
  std::optional<std::int64_t> official_params_total;
  std::optional<std::int64_t> official_params_active;
  bool official_params_precise = false;
  std::vector<std::string> estimated_fields;
  std::string license;
  std::string native_dtype;
  std::string config_provenance;  // "verbatim_copy" or "derived"
  std::vector<std::string> gguf_repos;
  std::vector<std::string> ollama_tags;
};

struct Catalog {
  std::vector<CatalogModel> models;
  std::vector<Device> devices;

  const CatalogModel* find_model(std::string_view id) const;
  const Device* find_device(std::string_view id) const;
};

// Error ids: "catalog.not_json", "catalog.bad_entry" (with the JSON path).
Result<Catalog> parse_catalog(std::string_view models_json, std::string_view devices_json);
Result<Catalog> embedded_catalog();

}  // namespace llmsizer
