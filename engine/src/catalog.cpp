#include "llmsizer/catalog.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "llmsizer/units.hpp"

namespace llmsizer::embedded {
extern const char* const kModelsJson[];
extern const char* const kDevicesJson[];
extern const char* const kModelFactsJson[];
extern const char* const kModelConfigsTsv[];
}  // namespace llmsizer::embedded

namespace llmsizer {
namespace {


std::string join_chunks(const char* const* chunks) {
  std::string out;
  for (const char* const* p = chunks; *p != nullptr; ++p) out += *p;
  return out;
}

std::optional<double> positive_number(const Json& entry, const char* key) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v <= 0.0) return std::nullopt;
  return v;
}

std::string string_or(const Json& entry, const char* key, const std::string& fallback) {
  auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool flag_or_false(const Json& entry, const char* key) {
  auto it = entry.find(key);
  return it != entry.end() && it->is_boolean() && it->get<bool>();
}

DeviceKind kind_from_name(const std::string& kind) {
  if (kind == "datacenter") return DeviceKind::datacenter;
  if (kind == "workstation") return DeviceKind::workstation;
  if (kind == "unified") return DeviceKind::unified;
  if (kind == "apu") return DeviceKind::apu;
  if (kind == "cpu") return DeviceKind::cpu;
  return DeviceKind::consumer;
}

// entry's config is moved out, not copied: the parsed document is thrown away.
Result<CatalogModel> parse_model(Json& entry, const std::string& path) {
  const auto id = entry.find("id");
  if (id == entry.end() || !id->is_string()) return Error{"catalog.bad_entry", path + "/id must be a string"};
  CatalogModel m;
  m.id = id->get<std::string>();
  m.name = string_or(entry, "name", m.id);
  m.family = string_or(entry, "family", "");
  m.hf_repo = string_or(entry, "hf_repo", "");
  if (auto it = entry.find("config"); it != entry.end()) {
    if (!it->is_object()) return Error{"catalog.bad_entry", path + "/config must be an object"};
    m.config = std::move(*it);
  }
  if (auto v = positive_number(entry, "official_params_total")) m.official_params_total = static_cast<std::int64_t>(*v);
  if (auto v = positive_number(entry, "official_params_active")) m.official_params_active = static_cast<std::int64_t>(*v);
  m.official_params_precise = flag_or_false(entry, "official_params_precise");
  if (auto it = entry.find("aliases"); it != entry.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) m.aliases.push_back(a.get<std::string>());
  if (auto it = entry.find("estimated_fields"); it != entry.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) m.estimated_fields.push_back(a.get<std::string>());
  m.license = string_or(entry, "license", "");
  m.native_dtype = string_or(entry, "native_dtype", "");
  m.llama_cpp_unsupported = string_or(entry, "llama_cpp_unsupported", "");
  m.gguf_default_quant = string_or(entry, "gguf_default_quant", "");
  m.release_of = string_or(entry, "release_of", "");
  m.config_provenance = string_or(entry, "config_provenance", "");
  if (auto v = positive_number(entry, "max_context_tokens")) m.max_context_tokens = static_cast<std::int64_t>(*v);
  if (auto it = entry.find("context_extension"); it != entry.end() && it->is_object()) {
    const auto factor = positive_number(*it, "factor");
    const auto original = positive_number(*it, "original_context_tokens");
    const auto max = positive_number(*it, "max_context_tokens");
    if (!factor || !original || !max)
      return Error{"catalog.bad_entry", path + "/context_extension needs factor, original_context_tokens and max_context_tokens"};
    m.context_extension = ContextExtension{*factor, static_cast<std::int64_t>(*original), static_cast<std::int64_t>(*max),
                                           positive_number(*it, "rope_theta").value_or(0.0)};
  }
  for (const char* key : {"gguf_repos", "ollama_tags", "uses"}) {
    auto& target = std::string(key) == "gguf_repos" ? m.gguf_repos : std::string(key) == "uses" ? m.uses : m.ollama_tags;
    if (auto it = entry.find(key); it != entry.end() && it->is_array())
      for (const auto& a : *it)
        if (a.is_string()) target.push_back(a.get<std::string>());
  }
  return m;
}

Result<Device> parse_device(const Json& entry, const std::string& path) {
  const auto id = entry.find("id");
  if (id == entry.end() || !id->is_string()) return Error{"catalog.bad_entry", path + "/id must be a string"};
  Device d;
  d.id = id->get<std::string>();
  d.name = string_or(entry, "name", d.id);
  if (auto it = entry.find("aliases"); it != entry.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) d.aliases.push_back(a.get<std::string>());
  if (auto it = entry.find("reported_names"); it != entry.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) d.reported_names.push_back(a.get<std::string>());
  d.vendor = string_or(entry, "vendor", "");
  d.backend = backend_from_name(string_or(entry, "backend", "other"));
  d.kind = kind_from_name(string_or(entry, "kind", "consumer"));
  d.unified_memory = flag_or_false(entry, "unified_memory");
  const auto memory_gb = positive_number(entry, "memory_gb_marketed");
  if (!memory_gb) return Error{"catalog.bad_entry", path + "/memory_gb_marketed must be a positive number"};
  // Marketed "GB" of DRAM is binary: 80 GB of HBM is 80 GiB (DESIGN.md, Units).
  d.memory_bytes = static_cast<std::int64_t>(*memory_gb * static_cast<double>(kGiB));
  if (auto mib = positive_number(entry, "driver_memory_mib"))
    d.driver_memory_bytes = static_cast<std::int64_t>(*mib) * static_cast<std::int64_t>(kMiB);
  if (auto mib = positive_number(entry, "gpu_memory_limit_mib"))
    d.gpu_memory_limit_bytes = static_cast<std::int64_t>(*mib) * static_cast<std::int64_t>(kMiB);
  d.bandwidth_bytes_per_s = positive_number(entry, "bandwidth_gb_per_s").value_or(0.0) * kGB;
  d.fp16_flops = positive_number(entry, "fp16_tflops").value_or(0.0) * 1e12;
  d.fp32_flops = positive_number(entry, "fp32_tflops").value_or(0.0) * 1e12;
  d.fp8_flops = positive_number(entry, "fp8_tflops").value_or(0.0) * 1e12;
  d.fp4_flops = positive_number(entry, "fp4_tflops").value_or(0.0) * 1e12;
  d.memory_type = string_or(entry, "memory_type", "");
  d.cpu_simd = string_or(entry, "cpu_simd", "");
  d.gpu_arch = string_or(entry, "gpu_arch", "");
  if (auto it = entry.find("estimated_fields"); it != entry.end() && it->is_array())
    for (const Json& f : *it)
      if (f.is_string()) d.estimated_fields.push_back(f.get<std::string>());
  d.tdp_w = positive_number(entry, "tdp_w").value_or(0.0);
  d.interconnect_bytes_per_s = positive_number(entry, "nvlink_gb_per_s").value_or(0.0) * kGB;
  d.price_usd = positive_number(entry, "price_usd");
  if (d.price_usd) {
    d.price_kind = string_or(entry, "price_kind", "");
    d.price_as_of = string_or(entry, "price_as_of", "");
    d.price_low_usd = positive_number(entry, "price_low_usd");
    d.price_high_usd = positive_number(entry, "price_high_usd");
    d.price_machine = string_or(entry, "price_machine", "");
    d.price_low_confidence = flag_or_false(entry, "price_low_confidence");
    d.sold_new_until = string_or(entry, "sold_new_until", "");
  }
  if (auto it = entry.find("server_board_gpus"); it != entry.end() && it->is_array())
    for (const Json& n : *it) {
      if (!n.is_number_integer() || n.get<int>() < 2)
        return Error{"catalog.bad_entry", path + "/server_board_gpus must list GPU counts of 2 or more"};
      d.server_board_gpus.push_back(n.get<int>());
    }
  if (auto it = entry.find("package_gpus"); it != entry.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<long long>() < 2 || it->get<long long>() > 16)
      return Error{"catalog.bad_entry", path + "/package_gpus must be a whole number in [2, 16] or null"};
    d.package_gpus = static_cast<int>(it->get<long long>());
  }
  d.server_price_usd = positive_number(entry, "server_price_usd");
  if (d.server_price_usd) {
    const auto gpus = entry.find("server_gpus");
    if (gpus == entry.end() || !gpus->is_number_integer() || gpus->get<long long>() < 1 || gpus->get<long long>() > 72)
      return Error{"catalog.bad_entry", path + "/server_gpus must be a whole number in [1, 72] where server_price_usd is given"};
    d.server_gpus = static_cast<int>(gpus->get<long long>());
    d.server_name = string_or(entry, "server_name", "");
    d.server_price_as_of = string_or(entry, "server_price_as_of", "");
  }
  d.launch_price_usd = positive_number(entry, "launch_price_usd");
  return d;
}

}  // namespace

const CatalogModel* Catalog::find_model(std::string_view id) const {
  for (const auto& m : models) {
    if (m.id == id) return &m;
    for (const auto& alias : m.aliases)
      if (alias == id) return &m;
  }
  return nullptr;
}

const Device* Catalog::find_device(std::string_view id) const {
  for (const auto& d : devices) {
    if (d.id == id) return &d;
    for (const auto& alias : d.aliases)
      if (alias == id) return &d;
  }
  return nullptr;
}

namespace {

// One entry of model_facts.json; nullopt when it is not the expected shape
// (the model's facts are then read from its architecture).
std::optional<ModelFacts> parse_facts(const Json& e) {
  const auto flag = [&](const char* key) {
    auto it = e.find(key);
    return it != e.end() && it->is_boolean() && it->get<bool>();
  };
  const auto count = [&](const char* key) -> std::int64_t {
    auto it = e.find(key);
    return it != e.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
  };
  ModelFacts f;
  f.sizable = flag("sizable");
  f.estimated = flag("estimated");
  if (!f.sizable) {
    f.error = string_or(e, "error", "");
    return f.error.empty() ? std::nullopt : std::optional<ModelFacts>(f);
  }
  f.params_total = count("params_total");
  f.params_active = count("params_active");
  f.max_context_tokens = count("max_context_tokens");
  if (f.params_total < 0 || f.params_active < 0 || f.max_context_tokens < 0) return std::nullopt;
  f.moe = flag("moe");
  f.mla = flag("mla");
  f.swa = flag("swa");
  f.hybrid = flag("hybrid");
  f.vision = flag("vision");
  f.mtp = flag("mtp");
  return f;
}

// The catalog's models by id (the first of a repeated id, as find_model).
std::unordered_map<std::string_view, CatalogModel*> models_by_id(Catalog& catalog) {
  std::unordered_map<std::string_view, CatalogModel*> by_id;
  for (CatalogModel& m : catalog.models) by_id.emplace(m.id, &m);
  return by_id;
}

void attach_facts(Catalog& catalog, std::string_view facts_json) {
  if (facts_json.empty()) return;
  const Json facts = parse_json(facts_json);
  const auto list = facts.find("models");
  if (list == facts.end() || !list->is_array()) return;
  const auto by_id = models_by_id(catalog);
  for (const Json& e : *list) {
    const auto it = e.find("id");
    if (it == e.end() || !it->is_string()) continue;
    if (const auto found = by_id.find(*it->get_ptr<const std::string*>()); found != by_id.end())
      found->second->facts = parse_facts(e);
  }
}

// Gives each model without an inline config its line of configs_tsv.
void attach_config_texts(Catalog& catalog, std::string_view tsv) {
  const auto by_id = models_by_id(catalog);
  while (!tsv.empty()) {
    const std::size_t end = std::min(tsv.find('\n'), tsv.size());
    const std::string_view line = tsv.substr(0, end);
    tsv.remove_prefix(std::min(end + 1, tsv.size()));
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos) continue;
    const auto found = by_id.find(line.substr(0, tab));
    if (found != by_id.end() && found->second->config.is_null())
      found->second->config_text = std::string(line.substr(tab + 1));
  }
}

}  // namespace

Result<Json> model_config(const CatalogModel& m) {
  if (m.config.is_object()) return m.config;
  Json parsed = parse_json(m.config_text);
  if (parsed.is_discarded() || !parsed.is_object())
    return Error{"catalog.bad_entry", "the config of " + m.id + " is not a JSON object"};
  return parsed;
}

Result<Catalog> parse_catalog(std::string_view models_json, std::string_view devices_json, std::string_view facts_json,
                              std::string_view configs_tsv) {
  Catalog catalog;
  Json models = parse_json(models_json);
  const auto model_list_it = models.find("models");
  if (model_list_it == models.end() || !model_list_it->is_array())
    return Error{"catalog.not_json", "models catalog must be a JSON object with a 'models' array"};
  Json& model_list = *model_list_it;
  for (std::size_t i = 0; i < model_list.size(); ++i) {
    auto m = parse_model(model_list[i], "/models/" + std::to_string(i));
    if (!m) return m.error();
    catalog.models.push_back(std::move(m).value());
  }
  attach_config_texts(catalog, configs_tsv);
  for (std::size_t i = 0; i < catalog.models.size(); ++i)
    if (catalog.models[i].config.is_null() && catalog.models[i].config_text.empty())
      return Error{"catalog.bad_entry", "/models/" + std::to_string(i) + "/config must be an object"};
  const Json devices = parse_json(devices_json);
  const auto device_list_it = devices.find("devices");
  if (device_list_it == devices.end() || !device_list_it->is_array())
    return Error{"catalog.not_json", "devices catalog must be a JSON object with a 'devices' array"};
  const Json& device_list = *device_list_it;
  for (std::size_t i = 0; i < device_list.size(); ++i) {
    auto d = parse_device(device_list[i], "/devices/" + std::to_string(i));
    if (!d) return d.error();
    catalog.devices.push_back(std::move(d).value());
  }
  if (auto ram = devices.find("ram_profiles"); ram != devices.end() && ram->is_array())
    for (std::size_t i = 0; i < ram->size(); ++i) {
      const Json& entry = (*ram)[i];
      const auto bandwidth = positive_number(entry, "bandwidth_gb_per_s");
      const std::string id = string_or(entry, "id", "");
      if (!bandwidth || id.empty())
        return Error{"catalog.bad_entry", "/ram_profiles/" + std::to_string(i) + " needs an id and a bandwidth_gb_per_s"};
      catalog.ram_profiles.push_back({id, string_or(entry, "name", id), *bandwidth * kGB, string_or(entry, "platform", "")});
    }
  attach_facts(catalog, facts_json);
  return catalog;
}

Result<Catalog> embedded_catalog(EmbeddedFacts facts) {
  return parse_catalog(join_chunks(embedded::kModelsJson), join_chunks(embedded::kDevicesJson),
                       facts == EmbeddedFacts::use ? join_chunks(embedded::kModelFactsJson) : std::string(),
                       join_chunks(embedded::kModelConfigsTsv));
}

}  // namespace llmsizer
