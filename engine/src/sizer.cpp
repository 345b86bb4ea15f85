#include "llmsizer/layer_split.hpp"
#include "llmsizer/sizer.hpp"

#include <cmath>

#include "llmsizer/catalog_similar.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/speculative.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/weights.hpp"
#include "llmsizer/units.hpp"
#include "file_text.hpp"

namespace llmsizer {
namespace {

Error bad_value(const std::string& message) { return Error{"request.bad_value", message}; }

Result<Device> custom_device(const CustomDevice& c) {
  if (!(c.memory_gib > 0.0 && c.memory_gib <= 1048576.0))
    return bad_value("custom GPU memory must be between 0 and 1048576 GiB");
  if (!(c.bandwidth_gb_per_s >= 0.0 && c.bandwidth_gb_per_s < 1e6) || !(c.fp16_tflops >= 0.0 && c.fp16_tflops < 1e6))
    return bad_value("custom GPU bandwidth and TFLOPS must be non-negative and below 1e6");
  Device d;
  d.id = "custom";
  d.name = "custom device";
  d.vendor = c.vendor;
  if (c.vendor == "nvidia") d.backend = Backend::cuda;
  else if (c.vendor == "amd") d.backend = Backend::rocm;
  else if (c.vendor == "apple") d.backend = Backend::metal;
  else if (c.vendor == "intel") d.backend = Backend::sycl;
  else if (c.vendor == "cpu") d.backend = Backend::cpu;
  else return bad_value("custom GPU vendor must be nvidia, amd, apple, intel or cpu");
  d.unified_memory = c.vendor == "apple";
  d.kind = d.unified_memory ? DeviceKind::unified : c.vendor == "cpu" ? DeviceKind::cpu : DeviceKind::consumer;
  d.memory_bytes = static_cast<std::int64_t>(c.memory_gib * static_cast<double>(kGiB));
  d.bandwidth_bytes_per_s = c.bandwidth_gb_per_s * kGB;
  d.fp16_flops = c.fp16_tflops * 1e12;
  return d;
}

// The catalog's native_dtype, for a config that states only a 16-bit dtype.
void apply_catalog_native_dtype(const std::string& dtype, Architecture& arch) {
  const NativeFormat f = arch.native_format;
  if (f != NativeFormat::bf16 && f != NativeFormat::fp16 && f != NativeFormat::fp32) return;
  const bool moe = arch.is_moe();
  if (dtype == "fp8") arch.native_format = NativeFormat::fp8_block;
  else if (dtype == "nvfp4") arch.native_format = NativeFormat::nvfp4;
  else if (dtype == "mxfp4" && moe) arch.native_format = NativeFormat::mxfp4_experts;
  else if (dtype == "int4" && moe) {
    // Moonshot's native INT4: routed experts only, a bf16 scale per 32 weights
    // (the layout of Kimi-K2.5's full config, read_compressed_tensors).
    arch.native_format = NativeFormat::int4_experts;
    arch.native_int4_bits = 4.0 + 16.0 / 32.0;
  }
}

}  // namespace

Sizer::Sizer(Catalog catalog) : catalog_(std::move(catalog)) {
  architectures_.resize(catalog_.models.size());
  tensors_cache_.resize(catalog_.models.size());
  // First entry wins, as in Catalog::find_model / find_device.
  for (std::size_t i = 0; i < catalog_.models.size(); ++i) {
    model_index_.emplace(catalog_.models[i].id, i);
    for (const auto& alias : catalog_.models[i].aliases) model_index_.emplace(alias, i);
  }
  for (std::size_t i = 0; i < catalog_.devices.size(); ++i) {
    device_index_.emplace(catalog_.devices[i].id, i);
    for (const auto& alias : catalog_.devices[i].aliases) device_index_.emplace(alias, i);
  }
}

const Result<Architecture>& Sizer::catalog_architecture(std::size_t index) const {
  std::optional<Result<Architecture>>& slot = architectures_[index];
  if (!slot) slot.emplace(read_catalog_architecture(catalog_.models[index]));
  return *slot;
}

Result<Architecture> read_catalog_architecture(const CatalogModel& m) {
  auto config = model_config(m);
  if (!config) return config.error();
  auto arch = read_hf_config(config.value());
  if (!arch) return arch;
  // A config without its maximum (a derived record) takes the one the catalog sourced.
  if (arch.value().max_context_tokens <= 0 && m.max_context_tokens > 0)
    arch.value().max_context_tokens = m.max_context_tokens;
  // A trimmed config copy without its quantization_config (GLM-4.7-FP8,
  // Kimi K2 Thinking) takes the published format the catalog sourced.
  apply_catalog_native_dtype(m.native_dtype, arch.value());
  if (m.context_extension && m.context_extension->max_context_tokens > arch.value().max_context_tokens)
    arch.value().context_extension = m.context_extension;
  return arch;
}

ModelFacts read_model_facts(const CatalogModel& m, const Result<Architecture>& arch) {
  ModelFacts f;
  f.estimated = !m.estimated_fields.empty() || m.config_provenance == "derived";
  f.sizable = arch.ok();
  if (!arch) {
    f.error = arch.error().message;
    return f;
  }
  const Architecture& a = arch.value();
  const ParamCounts p = count_params(a);
  f.params_total = p.total;
  f.params_active = p.active;
  for (const auto& layer : a.layers) {
    f.mla = f.mla || layer.attn.mla;
    f.swa = f.swa || layer.attn.kind == AttentionKind::sliding || layer.attn.kind == AttentionKind::chunked;
    f.mtp = f.mtp || layer.is_mtp;
  }
  f.vision = a.vision.has_value();
  f.moe = a.is_moe();
  f.hybrid = a.is_hybrid();
  f.max_context_tokens = a.max_context_tokens;
  f.estimated = f.estimated || !a.warnings.empty();
  return f;
}

ModelFacts Sizer::model_facts(std::size_t index) const {
  const CatalogModel& m = catalog_.models[index];
  if (m.facts) return *m.facts;
  return read_model_facts(m, catalog_architecture(index));
}

Result<SizedModel> Sizer::model_for(const SizerRequest& r) const {
  if (!r.config_json.empty()) {
    auto arch = read_hf_config_text(r.config_json);
    if (!arch) return arch.error();
    SizedModel sized;
    sized.owned = std::make_shared<const Architecture>(std::move(arch).value());
    sized.architecture = sized.owned.get();
    sized.label = "config.json";
    return sized;
  }
  if (const auto found = model_index_.find(r.model_id); found != model_index_.end()) {
    const std::size_t i = found->second;
    const CatalogModel& m = catalog_.models[i];
    const Result<Architecture>& arch = catalog_architecture(i);
    if (!arch) return Error{arch.error().id, "catalog model " + m.id + ": " + arch.error().message};
    SizedModel sized;
    sized.entry = &m;
    sized.architecture = &arch.value();
    sized.label = m.id;
    return sized;
  }
  return Error{"request.unknown_model",
               "unknown model '" + r.model_id.substr(0, 80) + "'" + did_you_mean(similar_model_ids(catalog_, r.model_id))};
}

Result<Scenario> Sizer::scenario_for(const SizerRequest& r) const {
  Scenario s;
  auto engine = engine_from_name(r.engine);
  if (!engine)
    return Error{"request.bad_value", "unknown engine '" + r.engine.substr(0, 40) +
                                          "'; expected llama.cpp, ollama, vllm, sglang, mlx or tensorrt-llm"};
  s.engine = *engine;
  std::string_view model_gguf_default;
  if (r.config_json.empty())
    if (const auto found = model_index_.find(r.model_id); found != model_index_.end())
      model_gguf_default = catalog_.models[found->second].gguf_default_quant;
  const std::string default_quant(default_quant_name(s.engine, model_gguf_default));
  auto quant = quant_scheme_from_name(r.quant.empty() ? default_quant : r.quant);
  if (!quant) return quant.error();
  s.quant = quant.value();
  if (!r.kv_type.empty()) {
    auto kv = kv_type_from_name(r.kv_type);
    if (!kv) return bad_value("unknown KV type '" + r.kv_type.substr(0, 40) +
                              "'; expected f16, bf16, fp8, q8_0, q4_0, q4_1, q5_0 or q5_1");
    s.kv_type = *kv;
  } else {
    s.kv_type = default_kv_type(s.engine);
  }
  s.context_tokens = r.context_tokens;
  s.sequences = r.sequences;
  s.prompt_tokens = r.prompt_tokens;
  s.output_tokens = r.output_tokens;
  s.served_factors = r.served_factors;
  s.machine_factors = r.machine_factors;
  s.system_ram_bytes = static_cast<std::int64_t>(r.system_ram_gib * static_cast<double>(kGiB));
  s.gpu_limit_bytes = static_cast<std::int64_t>(r.gpu_limit_mib) * static_cast<std::int64_t>(kMiB);
  if (!r.layer_split.empty()) {
    auto split = parse_layer_split(r.layer_split);
    if (!split) return split.error();
    s.layers_per_gpu = split.value();
  }
  s.gpu_count = r.gpu_count;
  s.copies = r.copies;
  s.offload_fraction = r.offload_fraction;
  s.flash_attention = r.flash_attention;
  s.attention_data_parallel = r.attention_data_parallel;
  s.vision = r.vision;
  if (!r.draft.empty()) {
    DraftModel d;
    if (r.draft == "mtp") {
      d.use_mtp = true;
      d.label = "mtp";
    } else {
      SizerRequest draft_request;
      draft_request.model_id = r.draft;
      auto draft = model_for(draft_request);
      if (!draft) return Error{draft.error().id, "draft: " + draft.error().message};
      d.arch = std::make_shared<const Architecture>(draft.value().arch());
      d.label = draft.value().label;
    }
    d.drafted_tokens = r.draft_tokens > 0 ? r.draft_tokens : (d.use_mtp ? kDefaultMtpDraftedTokens : kDefaultDraftedTokens);
    s.draft = std::move(d);
  }
  s.hourly_price_usd = r.hourly_price_usd;
  s.purchase_price_usd = r.purchase_price_usd;
  s.amortization_years = r.amortization_years;
  s.hours_per_day = r.hours_per_day;
  s.electricity_usd_per_kwh = r.electricity_usd_per_kwh;
  s.ram_bandwidth_bytes_per_s = r.ram_bandwidth_gb_per_s * kGB;
  if (r.offload_mode == "auto") s.offload_mode = OffloadMode::automatic;
  else if (r.offload_mode == "layers") s.offload_mode = OffloadMode::layers;
  else if (r.offload_mode == "experts") s.offload_mode = OffloadMode::experts;
  else return bad_value("offload mode must be auto, layers or experts");
  if (r.gpu_id.find(',') != std::string::npos) {
    // Mixed cards: "rtx-3090,rtx-3090,rtx-3060-12gb", one id per card; a gpus
    // other than the default 1 must agree with the list.
    auto found = find_cards(catalog_, r.gpu_id);
    if (!found) return found.error();
    std::vector<Device> cards = std::move(found).value();
    if (r.gpu_count != 1 && r.gpu_count != static_cast<int>(cards.size()))
      return bad_value("gpus is " + std::to_string(r.gpu_count) + " but gpu lists " + std::to_string(cards.size()) +
                       " cards; give one id per card and leave gpus out");
    if (auto error = set_cards(s, std::move(cards))) return *error;
  } else if (!r.gpu_id.empty()) {
    const auto found = device_index_.find(r.gpu_id);
    if (found == device_index_.end())
      return Error{"request.unknown_gpu",
                   "unknown GPU '" + r.gpu_id.substr(0, 80) + "'" + did_you_mean(similar_device_ids(catalog_, r.gpu_id))};
    s.device = catalog_.devices[found->second];
  } else if (r.custom_gpu) {
    auto d = custom_device(*r.custom_gpu);
    if (!d) return d.error();
    s.device = d.value();
  }
  if (!r.backend.empty()) {
    const Backend backend = backend_from_name(r.backend);
    if (backend == Backend::other) return bad_value("unknown backend '" + printable(r.backend, 40) + "'; expected cuda, rocm, metal, vulkan, sycl or cpu");
    if (!s.device) return bad_value("a backend needs a device (gpu)");
    auto set = [&](Device& d) -> std::optional<Error> {
      if (!backend_runs_on(backend, d))
        return Error{"request.bad_value", std::string("llama.cpp's ") + backend_name(backend) + " backend does not run on " + d.name};
      choose_backend(d, backend);
      return std::nullopt;
    };
    if (auto e = set(*s.device)) return *e;
    for (Device& card : s.cards)
      if (auto e = set(card)) return *e;
  }
  return s;
}

Result<Estimate> Sizer::estimate(const SizerRequest& r) const {
  auto model = model_for(r);
  if (!model) return model.error();
  auto s = scenario_for(r);
  if (!s) return s.error();
  return estimate(model.value(), s.value());
}

Result<Estimate> Sizer::estimate(const SizedModel& model, const Scenario& scenario) const {
  if (scenario.vision && !model.arch().vision) return no_vision_error(model.arch(), model.label);
  if (model.entry == nullptr) return llmsizer::estimate(model.arch(), scenario);  // a pasted config: not cached
  Result<Estimate> e = llmsizer::estimate(model.arch(), scenario, weights_for(model, scenario.quant));
  if (e) note_runtime_support(model.entry, scenario, e.value());
  return e;
}

void note_runtime_support(const CatalogModel* entry, const Scenario& scenario, Estimate& e) {
  // The figures are what llama.cpp would need and reach; say first that it
  // cannot run this model at all, as the launch commands do.
  const bool llama = scenario.engine == InferenceEngine::llama_cpp || scenario.engine == InferenceEngine::ollama;
  if (entry == nullptr || !llama || entry->llama_cpp_unsupported.empty()) return;
  e.warnings.insert(e.warnings.begin(), std::string(engine_name(scenario.engine)) + " cannot run this model: " +
                                            entry->llama_cpp_unsupported +
                                            "; these figures are what it would take (vLLM and SGLang serve it)");
}

const ModelWeights& Sizer::weights_for(const SizedModel& model, const QuantScheme& quant) const {
  const auto key = std::make_pair(model.entry, quant.name);
  auto it = weights_cache_.find(key);
  if (it != weights_cache_.end()) return it->second;
  // model.entry is one of this Sizer's catalog models (model_for made it).
  std::optional<TensorsAndParams>& shape = tensors_cache_[static_cast<std::size_t>(model.entry - catalog_.models.data())];
  if (!shape) {
    std::vector<TensorInfo> tensors = list_tensors(model.arch());
    ParamCounts params = count_params(model.arch(), tensors);
    shape = TensorsAndParams{std::move(tensors), params};
  }
  const TensorsAndParams& s = *shape;
  return weights_cache_.emplace(key, ModelWeights{compute_weights(model.arch(), s.tensors, quant), s.params}).first->second;
}

}  // namespace llmsizer
