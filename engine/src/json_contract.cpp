#include "llmsizer/layer_split.hpp"
#include "llmsizer/json_contract.hpp"

#include "llmsizer/hub_files.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/runtime_support.hpp"

#include <cmath>

#include "config_view.hpp"
#include "request_json.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/gguf.hpp"
#include "llmsizer/hub_files.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/safetensors.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/speed_json.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer {

Result<SizerRequest> request_from_json(const Json& request, ModelKey model_key) {
  if (!request.is_object()) return Error{"request.not_object", "the request must be a JSON object"};
  SizerRequest r;
  FieldReader f{request, {}};
  f.text("model", r.model_id, kModelLength);
  f.text("config", r.config_json, kConfigLength);
  f.text("quant", r.quant, kQuantLength);
  f.integer(kContextLimit, r.context_tokens);
  f.integer(kBatchLimit, r.sequences);
  f.text("kv", r.kv_type, kKvLength);
  f.text("engine", r.engine, kEngineLength);
  f.text("gpu", r.gpu_id, kGpuLength);
  f.integer(kGpusLimit, r.gpu_count);
  f.integer(kCopiesLimit, r.copies);
  f.number(kOffloadLimit.key, r.offload_fraction, kOffloadLimit.low, kOffloadLimit.high);
  f.text("offload_mode", r.offload_mode, 16);
  f.integer(kPromptLimit, r.prompt_tokens);
  f.integer(kOutputLimit, r.output_tokens);
  f.boolean("flash_attention", r.flash_attention);
  f.boolean("attention_data_parallel", r.attention_data_parallel);
  f.boolean("vision", r.vision);
  f.text("draft", r.draft, kModelLength);
  f.integer(Limit{"draft_tokens", 1, 64}, r.draft_tokens);
  double price = -1.0;
  f.number("hourly_price_usd", price, 0.0, 1e6);
  if (price >= 0.0) r.hourly_price_usd = price;
  double purchase = -1.0;
  f.number("purchase_price_usd", purchase, 0.0, 1e9);
  if (purchase >= 0.0) r.purchase_price_usd = purchase;
  f.number("years", r.amortization_years, 0.1, 50.0);
  f.number("hours_per_day", r.hours_per_day, 0.0, 24.0);
  f.number("electricity_usd_per_kwh", r.electricity_usd_per_kwh, 0.0, 10.0);
  f.number("ram_bandwidth_gbs", r.ram_bandwidth_gb_per_s, 1.0, 10000.0);
  f.number(kRamLimit.key, r.system_ram_gib, kRamLimit.low, kRamLimit.high);
  f.number("gpu_limit_mib", r.gpu_limit_mib, 0.0, 1073741824.0);
  f.text("layer_split", r.layer_split, 512);
  f.text("backend", r.backend, 16);
  f.boolean("speed_if_no_fit", r.speed_if_no_fit);
  f.boolean("suggestions", r.suggestions);
  if (const Json* custom = f.find("custom_gpu"); custom != nullptr && !f.check.error) {
    if (!custom->is_object()) return bad_key("custom_gpu", "must be an object");
    CustomDevice c;
    FieldReader g{*custom, {}};
    g.number("memory_gib", c.memory_gib, 0.0, 1048576.0);
    g.number("bandwidth_gbs", c.bandwidth_gb_per_s, 0.0, 1e6);
    g.number("tflops", c.fp16_tflops, 0.0, 1e6);
    g.text("vendor", c.vendor, 16);
    if (g.check.error) return Error{g.check.error->id, "custom_gpu: " + g.check.error->message};
    r.custom_gpu = c;
  }
  if (const Json* served = f.find("served_calibration"); served != nullptr && !f.check.error) {
    // A calibrated machine's serving constants (and the fit's trial values).
    if (!served->is_object()) return bad_key("served_calibration", "must be an object");
    ServedFactors factors;
    FieldReader g{*served, {}};
    g.number("bandwidth_factor", factors.bandwidth_factor, 0.01, 10.0);
    g.number("compute_factor", factors.compute_factor, 0.01, 10.0);
    g.number("step_overhead_s", factors.step_overhead_s, 0.0, 1.0);
    g.number("allreduce_latency_factor", factors.allreduce_latency_factor, 0.0, 100.0);
    g.number("request_overhead_s", factors.request_overhead_s, 0.0, 60.0);
    g.number("sequence_overhead_s", factors.sequence_overhead_s, 0.0, 0.01);
    g.number("prompt_pass_layer_overhead_s", factors.prompt_pass_layer_overhead_s, 0.0, 60.0);
    if (g.check.error) return Error{g.check.error->id, "served_calibration: " + g.check.error->message};
    r.served_factors = factors;
  }
  if (const Json* machine = f.find("machine_calibration"); machine != nullptr && !f.check.error) {
    // This machine's own factors (llm-sizer calibrate); its backend with them.
    auto m = machine_calibration_from_json(*machine);
    if (!m) return m.error();
    if (!m.value().backend.empty()) {
      if (!r.backend.empty() && r.backend != m.value().backend)
        return bad_key("machine_calibration", "was measured on the " + m.value().backend + " backend, not " + r.backend.substr(0, 16));
      r.backend = m.value().backend;
    }
    r.machine_factors = m.value().factors;
  }
  if (f.check.error) return *f.check.error;
  if (model_key == ModelKey::required && r.model_id.empty() == r.config_json.empty())
    return Error{"request.bad_value", "give exactly one of 'model' (a catalog id) or 'config' (config.json text)"};
  return r;
}

Result<MachineCalibrationKey> machine_calibration_from_json(const Json& j) {
  if (!j.is_object()) return bad_key("machine_calibration", "must be an object");
  MachineCalibrationKey out;
  FieldReader g{j, {}};
  g.number("bandwidth_factor", out.factors.bandwidth_factor, 0.05, 20.0);
  g.number("compute_factor", out.factors.compute_factor, 0.05, 20.0);
  g.number("overhead_factor", out.factors.overhead_factor, 0.05, 20.0);
  g.number("attention_factor", out.factors.attention_factor, 0.05, 20.0);
  g.number("kv_factor", out.factors.kv_factor, 0.05, 20.0);
  g.integer(Limit{"rows", 0, 100000}, out.factors.rows);
  g.text("backend", out.backend, 16);
  if (g.check.error) return Error{g.check.error->id, "machine_calibration: " + g.check.error->message};
  return out;
}

Json machine_calibration_to_json(const MachineCalibration& c) {
  Json j = json_object(7);
  Json factors = machine_factors_to_json(c.factors);
  factors["backend"] = c.backend;
  j["factors"] = std::move(factors);
  j["device"] = c.device;
  j["gpus"] = c.gpu_count;
  j["fitted"] = c.fitted;
  Json rows = Json::array();
  for (const CalibratedRow& r : c.rows) {
    Json row = json_object(10);
    row["where"] = r.where;
    row["test"] = r.test;
    row["model_as_stated"] = r.model_as_stated;
    row["model"] = r.model.empty() ? Json(nullptr) : Json(r.model);
    row["quant"] = r.quant.empty() ? Json(nullptr) : Json(r.quant);
    row["measured_tokens_per_s"] = r.measured_tokens_per_s;
    const bool used = r.left_out.empty();
    row["estimated_tokens_per_s"] = used ? Json(r.estimated_tokens_per_s) : Json(nullptr);
    row["calibrated_tokens_per_s"] = used && r.calibrated_tokens_per_s > 0.0 ? Json(r.calibrated_tokens_per_s) : Json(nullptr);
    row["residual_pct"] = used && r.calibrated_tokens_per_s > 0.0
                              ? Json(100.0 * (r.calibrated_tokens_per_s / r.measured_tokens_per_s - 1.0))
                              : Json(nullptr);
    row["left_out"] = used ? Json(nullptr) : Json(r.left_out);
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  j["warnings"] = c.warnings;
  return j;
}

Json log_check_to_json(const LogCheck& c) {
  Json j = json_object(11);
  j["model"] = c.model;
  j["quant"] = c.quant;
  j["device"] = c.device;
  j["gpus"] = c.gpu_count;
  j["context_tokens"] = c.context_tokens;
  j["sequences"] = c.sequences;
  j["kv_type"] = c.kv_type;
  j["flash_attention"] = c.flash_attention;
  j["offload_fraction"] = c.offload_fraction;
  Json lines = Json::array();
  for (const LogCheckLine& l : c.lines) {
    Json line = json_object(7);
    line["item"] = l.item;
    line["where"] = l.where.empty() ? Json(nullptr) : Json(l.where);
    line["log_mib"] = l.log_mib;
    line["estimate_mib"] = l.estimate_mib ? Json(*l.estimate_mib) : Json(nullptr);
    line["difference_pct"] = l.estimate_mib ? Json(l.difference_pct) : Json(nullptr);
    line["differs"] = l.differs;
    line["hint"] = l.hint.empty() ? Json(nullptr) : Json(l.hint);
    lines.push_back(std::move(line));
  }
  j["lines"] = std::move(lines);
  j["warnings"] = c.warnings;
  return j;
}

Result<SizerRequest> request_from_fields(const RequestFields& x) {
  SizerRequest r;
  ValueChecker c;
  c.text("model", x.model, r.model_id, kModelLength);
  c.text("config", x.config, r.config_json, kConfigLength);
  c.text("quant", x.quant, r.quant, kQuantLength);
  if (!std::isnan(x.ctx)) c.integer(kContextLimit, x.ctx, r.context_tokens);
  if (!std::isnan(x.batch)) c.integer(kBatchLimit, x.batch, r.sequences);
  c.text("kv", x.kv, r.kv_type, kKvLength);
  if (!x.engine.empty()) c.text("engine", x.engine, r.engine, kEngineLength);
  c.text("gpu", x.gpu, r.gpu_id, kGpuLength);
  if (!std::isnan(x.gpus)) c.integer(kGpusLimit, x.gpus, r.gpu_count);
  if (!std::isnan(x.offload)) c.number(kOffloadLimit.key, x.offload, r.offload_fraction, kOffloadLimit.low, kOffloadLimit.high);
  if (!std::isnan(x.prompt)) c.integer(kPromptLimit, x.prompt, r.prompt_tokens);
  if (!std::isnan(x.ram_gib)) c.number(kRamLimit.key, x.ram_gib, r.system_ram_gib, kRamLimit.low, kRamLimit.high);
  if (c.error) return *c.error;
  if (r.model_id.empty() == r.config_json.empty())
    return Error{"request.bad_value", "give exactly one of 'model' (a catalog id) or 'config' (config.json text)"};
  return r;
}

Json params_to_json(const ParamCounts& p) {
  Json j = json_object(6);
  j["total"] = p.total;
  j["active"] = p.active;
  j["embedding"] = p.embedding;
  j["mtp"] = p.mtp;
  j["routed_expert"] = p.routed_expert;
  j["lookup"] = p.lookup;
  return j;
}

Json launch_commands_to_json(const std::vector<LaunchCommand>& commands) {
  Json out = json_object(commands.size());
  for (const LaunchCommand& c : commands) {
    Json entry = json_object(2);
    entry["steps"] = c.steps;
    entry["note"] = c.note;
    out[c.engine] = std::move(entry);
  }
  return out;
}

Json suggestions_to_json(const std::vector<Suggestion>& suggestions, const SizedModel* model) {
  Json out = Json::array();
  for (const Suggestion& x : suggestions) {
    Json change = Json::object();
    if (x.change.quant) change["quant"] = *x.change.quant;
    if (x.change.gpus) change["gpus"] = *x.change.gpus;
    if (x.change.ctx) change["ctx"] = *x.change.ctx;
    if (x.change.offload) change["offload"] = *x.change.offload;
    if (x.change.offload_mode) change["offload_mode"] = *x.change.offload_mode;
    if (x.change.kv) change["kv"] = *x.change.kv;
    if (x.change.gpu_limit_mib) change["gpu_limit_mib"] = *x.change.gpu_limit_mib;
    if (!x.change.layer_split.empty()) change["layer_split"] = layer_split_text(x.change.layer_split);
    Json j = json_object(13);
    j["change"] = std::move(change);
    j["cost"] = x.cost;
    j["fits"] = x.fits;
    j["required_bytes"] = x.required_bytes;
    j["usable_bytes"] = x.usable_bytes;
    j["utilization"] = x.utilization;
    j["ram_required_bytes"] = x.ram_required_bytes;
    j["offloaded_layers"] = x.offloaded_layers;
    j["decode_tokens_per_s"] = x.decode_tokens_per_s > 0.0 ? Json(x.decode_tokens_per_s) : Json(nullptr);
    j["decode_tokens_per_s_total"] = x.decode_tokens_per_s_total > 0.0 ? Json(x.decode_tokens_per_s_total) : Json(nullptr);
    j["prefill_tokens_per_s"] = x.prefill_tokens_per_s > 0.0 ? Json(x.prefill_tokens_per_s) : Json(nullptr);
    j["ttft_s"] = x.ttft_s > 0.0 ? Json(x.ttft_s) : Json(nullptr);
    if (model != nullptr) j["commands"] = launch_commands_to_json(launch_commands(*model, x.scenario, x.estimate));
    out.push_back(std::move(j));
  }
  return out;
}

Json estimate_to_json(const Estimate& e, const Scenario& s, const std::string& model_label,
                      const std::vector<LaunchCommand>& commands, const std::vector<Suggestion>& suggestions,
                      bool speed_if_no_fit, const SizedModel* model) {
  Json j = json_object(10);
  j["model"] = model_label;
  Json scenario = json_object(9);
  scenario["quant"] = s.quant.name;
  scenario["ctx"] = s.context_tokens;
  scenario["batch"] = s.sequences;
  scenario["kv_type"] = std::string(kv_type_name(s.kv_type));
  scenario["engine"] = std::string(engine_name(s.engine));
  scenario["gpu"] = s.device ? Json(s.device->id) : Json(nullptr);
  scenario["gpus"] = s.gpu_count;
  // Whole machines on a network (several Macs, DGX Sparks, Strix Halos): how
  // many; 0 when the GPUs share one host.
  scenario["machines"] = networked_machines(s);
  // Copies of this setup side by side (Scenario::copies): every figure here is
  // one copy's; the commands start them all.
  scenario["copies"] = s.copies;
  // The backend the speeds assume, and the others this engine runs on this
  // device (a choice where there are several: CUDA or Vulkan, ROCm or Vulkan).
  scenario["backend"] = s.device && s.cards.empty() ? Json(std::string(backend_name(s.device->backend))) : Json(nullptr);
  Json backends = Json::array();
  if (s.device && s.cards.empty())
    for (Backend b : backends_for(s.engine, *s.device)) backends.push_back(std::string(backend_name(b)));
  scenario["backends"] = std::move(backends);
  // Every card's id in order, equal cards repeated ([] without a device): the
  // request's "gpu" list form, "rtx-3090,rtx-3090,rtx-3060-12gb", split.
  Json cards = Json::array();
  if (s.device)
    for (int i = 0; i < s.gpu_count; ++i)
      cards.push_back(s.cards.empty() ? s.device->id : s.cards[static_cast<std::size_t>(i)].id);
  scenario["cards"] = std::move(cards);
  scenario["mixed_cards"] = !s.cards.empty();
  scenario["offload"] = s.offload_fraction;
  // The RAM offloaded bytes are read from, as the speed estimate takes it (with
  // or without a speed): the host's, or the device's own where they share it.
  const bool host_ram = !(s.device && shares_memory_with_cpu(*s.device));
  scenario["ram_bandwidth_gbs"] = (host_ram ? s.ram_bandwidth_bytes_per_s : s.device->bandwidth_bytes_per_s) / kGB;
  scenario["ram_is_host"] = host_ram;
  scenario["prompt"] = s.prompt_tokens;
  scenario["output_tokens"] = s.output_tokens;
  scenario["vision"] = s.vision;
  scenario["draft"] = s.draft ? Json(s.draft->use_mtp ? std::string("mtp") : s.draft->label) : Json(nullptr);
  scenario["draft_tokens"] = s.draft ? Json(s.draft->drafted_tokens) : Json(nullptr);
  j["scenario"] = std::move(scenario);
  j["params"] = params_to_json(e.params);

  Json weights = json_object(7);
  weights["bits_per_weight"] = e.weights.bits_per_weight;
  weights["tensor_bytes"] = e.weights.tensor_bytes;
  weights["metadata_bytes"] = e.weights.metadata_bytes;
  weights["token_embd_bytes"] = e.weights.token_embd_bytes;
  weights["routed_expert_bytes"] = e.weights.routed_expert_bytes;
  weights["mtp_bytes"] = e.weights.mtp_bytes;
  weights["mixer_bytes"] = e.weights.mixer_bytes;  // what attention data parallel keeps whole on every GPU
  weights["approximate_mix"] = s.quant.approximate;
  j["weights"] = std::move(weights);

  const MemoryEstimate& m = e.memory;
  Json mem = json_object(40);
  mem["weights_bytes"] = m.weights_bytes;
  mem["file_bytes"] = optional_json(m.file_bytes);
  mem["kv_cache_bytes"] = m.kv_cache_bytes;
  mem["kv_state_bytes"] = m.kv_state_bytes;
  mem["runtime_bytes"] = m.runtime_bytes;
  mem["offload_bytes"] = m.offload_bytes;
  mem["host_bytes"] = m.host_bytes;
  mem["host_compute_bytes"] = m.host_compute_bytes;
  mem["required_bytes"] = m.required_bytes;
  mem["weights_on_gpus_bytes"] = m.weights_on_gpus_bytes;
  mem["kv_cache_on_gpus_bytes"] = m.kv_cache_on_gpus_bytes;
  mem["usable_bytes"] = optional_json(m.usable_bytes);
  mem["headroom_bytes"] = optional_json(m.headroom_bytes);
  mem["utilization"] = optional_json(m.utilization);
  mem["fits"] = optional_json(m.fits);
  mem["kv_pool_bytes"] = optional_json(m.kv_pool_bytes);
  mem["kv_pool_tokens"] = optional_json(m.kv_pool_tokens);
  mem["offloaded_layers"] = m.offloaded_layers;
  mem["output_in_ram"] = m.output_in_ram;
  mem["ram_required_bytes"] = m.ram_required_bytes;
  mem["system_ram_bytes"] = m.system_ram_bytes;
  mem["ram_fits"] = m.ram_fits;
  mem["fit_margin_bytes_per_gpu"] = m.fit_margin_bytes_per_gpu;
  // What runs at once: every sequence, or what a paged engine's pool admits.
  mem["kv_cache_request_bytes"] = m.kv_cache_request_bytes;
  mem["concurrent_sequences"] = m.concurrent_sequences;
  mem["max_concurrent_sequences"] = optional_json(m.max_concurrent_sequences);
  mem["attention_ranks"] = m.attention_ranks;
  // Unified memory: the one pool, the OS's share, the GPU's limit and its rule.
  mem["unified_pool"] = m.unified_pool;
  // The OS's share of the host's RAM (or of the unified pool): system_ram_bytes
  // is what it leaves for what the setting keeps on the CPU's side.
  mem["os_reserve_bytes"] = m.os_reserve_bytes;
  if (m.unified_pool) {
    mem["shared_pool_bytes"] = m.shared_pool_bytes;
    mem["gpu_limit_bytes"] = m.gpu_limit_bytes;
    mem["gpu_limit_basis"] = m.gpu_limit_basis;
  }
  if (m.limit) {
    Json limit = json_object(5);
    limit["where"] = m.limit->where;
    limit["gpu_index"] = m.limit->gpu_index >= 0 ? Json(m.limit->gpu_index) : Json(nullptr);
    limit["required_bytes"] = m.limit->required_bytes;
    limit["available_bytes"] = m.limit->available_bytes;
    limit["utilization"] = m.limit->utilization;
    mem["limit"] = std::move(limit);
  } else {
    mem["limit"] = nullptr;
  }
  // Images (request "vision": true): the mmproj at F16 and the image tokens' KV
  // (inside kv_cache_bytes); 0 without vision.
  mem["projector_bytes"] = m.projector_bytes;
  mem["projector_params"] = {{"encoder", m.projector_params.encoder},
                             {"projector", m.projector_params.projector},
                             {"total", m.projector_params.total}};
  mem["image_tokens"] = m.image_tokens;
  mem["image_kv_bytes"] = m.image_kv_bytes;
  // Speculative decoding (request "draft"): the draft's bytes on the GPUs; 0 without one.
  mem["draft_weights_bytes"] = m.draft_weights_bytes;
  mem["draft_kv_cache_bytes"] = m.draft_kv_cache_bytes;
  mem["draft_runtime_bytes"] = m.draft_runtime_bytes;
  Json by_type = Json::object();
  for (const auto& [type, bytes] : m.kv_cache_bytes_by_type) by_type[std::string(kv_type_name(type))] = bytes;
  mem["kv_cache_bytes_by_type"] = std::move(by_type);
  Json per_gpu = Json::array();
  const std::vector<double>* card_seconds =
      e.speed && !e.speed->decode_seconds_per_gpu.empty() ? &e.speed->decode_seconds_per_gpu : nullptr;
  for (std::size_t i = 0; i < m.per_gpu.size(); ++i) {
    const GpuShare& g = m.per_gpu[i];
    Json share = json_object(10);
    share["gpu"] = !s.cards.empty() && i < s.cards.size() ? Json(s.cards[i].id) : s.device ? Json(s.device->id) : Json(nullptr);
    share["weights_bytes"] = g.weights_bytes;
    share["kv_cache_bytes"] = g.kv_cache_bytes;
    share["runtime_bytes"] = g.runtime_bytes;
    share["projector_bytes"] = g.projector_bytes;
    share["draft_bytes"] = g.draft_bytes;
    share["required_bytes"] = g.required_bytes;
    share["usable_bytes"] = m.usable_bytes ? Json(g.usable_bytes) : Json(nullptr);
    share["fits"] = m.fits ? Json(g.fits) : Json(nullptr);
    share["first_layer"] = g.first_layer;
    share["last_layer"] = g.last_layer;
    // Mixed cards: this card's seconds of one decode step (its layers at its bandwidth).
    if (card_seconds != nullptr && i < card_seconds->size() && (runs(e) || speed_if_no_fit))
      share["decode_s"] = (*card_seconds)[i];
    per_gpu.push_back(std::move(share));
  }
  mem["per_gpu"] = std::move(per_gpu);
  j["memory"] = std::move(mem);

  // A scenario that does not fit has no speed or cost: they would read as if it ran.
  const bool shown = runs(e) || speed_if_no_fit;
  j["speed"] = shown ? speed_to_json(e.speed) : Json(nullptr);
  if (shown && e.speed && e.speed->speculative && j["speed"].is_object()) {
    const SpeculativeEstimate& x = *e.speed->speculative;
    j["speed"]["speculative"] = {{"draft", x.draft},
                                 {"drafted_tokens", x.drafted_tokens},
                                 {"acceptance_low", x.acceptance_low},
                                 {"acceptance_high", x.acceptance_high},
                                 {"tokens_per_step_low", x.tokens_per_step_low},
                                 {"tokens_per_step_high", x.tokens_per_step_high},
                                 {"draft_step_s", x.draft_step_s},
                                 {"model_step_s", x.model_step_s},
                                 {"decode_tokens_per_s_low", x.decode_tokens_per_s_low},
                                 {"decode_tokens_per_s_high", x.decode_tokens_per_s_high},
                                 {"basis", "tokens per step (1 - a^(k+1)) / (1 - a) for k drafted tokens each accepted "
                                           "with probability a (assumed 0.6 to 0.8); a step costs one decode step "
                                           "of the model plus k of the draft"}};
  }
  j["cost"] = shown ? cost_to_json(e.cost) : Json(nullptr);
  if (!runs(e)) j["suggestions"] = suggestions_to_json(suggestions, model);
  // Commands for what runs: a scenario that does not fit has them per suggestion.
  if (!commands.empty() && runs(e)) j["commands"] = launch_commands_to_json(commands);
  j["warnings"] = e.warnings;
  return j;
}

namespace {

// The facts' keys, in the order the catalog answer has always listed them.
void append_model_facts(Json& j, const ModelFacts& f) {
  j["sizable"] = f.sizable;
  if (f.sizable) {
    j["params_total"] = f.params_total;
    j["params_active"] = f.params_active;
    j["moe"] = f.moe;
    j["mla"] = f.mla;
    j["swa"] = f.swa;
    j["hybrid"] = f.hybrid;
    j["vision"] = f.vision;
    j["mtp"] = f.mtp;
    j["max_context_tokens"] = f.max_context_tokens;
  } else {
    j["error"] = f.error;
  }
  j["estimated"] = f.estimated;
}

}  // namespace

Json model_facts_to_json(const Sizer& sizer) {
  Json models = Json::array();
  for (std::size_t i = 0; i < sizer.catalog().models.size(); ++i) {
    Json j;
    j["id"] = sizer.catalog().models[i].id;
    append_model_facts(j, sizer.model_facts(i));
    models.push_back(std::move(j));
  }
  Json out;
  out["schema_version"] = 1;
  out["generated_by"] = "scripts/catalog/model_facts.sh from data/embedded/models.json and model_configs.tsv; test_catalog checks it";
  out["models"] = std::move(models);
  return out;
}

Json catalog_to_json(const Sizer& sizer) {
  const Catalog& c = sizer.catalog();
  Json models = Json::array();
  for (std::size_t i = 0; i < c.models.size(); ++i) {
    const CatalogModel& m = c.models[i];
    Json j = json_object(20);
    j["id"] = m.id;
    j["name"] = m.name;
    j["family"] = m.family;
    j["hf_repo"] = m.hf_repo;
    j["license"] = m.license;
    j["native_dtype"] = m.native_dtype;
    j["aliases"] = m.aliases;  // older ids that still resolve (a shared link's)
    // Its own GGUF type where not Q4_K_M (gpt-oss): the page takes it unasked, as the engine does.
    j["gguf_default_quant"] = m.gguf_default_quant.empty() ? Json() : Json(m.gguf_default_quant);
    j["gguf_repos"] = m.gguf_repos;
    j["ollama_tags"] = m.ollama_tags;
    j["official_params_total"] = optional_json(m.official_params_total);
    j["official_params_active"] = optional_json(m.official_params_active);
    j["uses"] = m.uses;
    append_model_facts(j, sizer.model_facts(i));
    // No maximum known: null, not 0 (the page would read "up to 0 tokens").
    if (j.contains("max_context_tokens") && j["max_context_tokens"] == 0) j["max_context_tokens"] = nullptr;
    // The longer context its publisher documents with YaRN (the catalog's, sourced there).
    j["yarn_context_tokens"] = m.context_extension ? Json(m.context_extension->max_context_tokens) : Json();
    models.push_back(std::move(j));
  }
  Json devices = Json::array();
  for (const Device& d : c.devices) {
    const UsableMemory u = usable_memory(d);
    Json j = json_object(13);
    j["id"] = d.id;
    j["name"] = d.name;
    j["vendor"] = d.vendor;
    j["backend"] = backend_name(d.backend);
    j["unified_memory"] = d.unified_memory;
    j["memory_bytes"] = d.memory_bytes;
    j["usable_bytes"] = u.usable_bytes;
    j["usable_basis"] = u.basis;
    j["bandwidth_bytes_per_s"] = d.bandwidth_bytes_per_s;
    j["fp16_flops"] = d.fp16_flops;
    j["tdp_w"] = d.tdp_w;
    j["price_usd"] = optional_json(d.price_usd);
    // What a search for a machine ("Mac Studio", "Framework Desktop") finds.
    j["aliases"] = d.aliases;
    j["machine"] = d.price_machine.empty() ? Json(nullptr) : Json(d.price_machine);
    // The engines with a build for this device (runtime_support.hpp): the page labels the others.
    Json runs_here = Json::array();
    for (InferenceEngine e : engines_for(d)) runs_here.push_back(std::string(engine_name(e)));
    j["engines"] = std::move(runs_here);
    devices.push_back(std::move(j));
  }
  Json quants = Json::array();
  for (const std::string& name : quant_scheme_names()) {
    const QuantScheme q = quant_scheme_from_name(name).value();
    Json j;
    j["name"] = q.name;
    j["gguf"] = q.is_gguf();
    j["approximate"] = q.approximate;
    quants.push_back(std::move(j));
  }
  Json engines = Json::array();
  for (const char* e : {"llama.cpp", "ollama", "vllm", "sglang", "mlx", "tensorrt-llm"}) engines.push_back(e);
  Json ram_profiles = Json::array();
  for (const RamProfile& p : c.ram_profiles)
    ram_profiles.push_back({{"id", p.id}, {"name", p.name}, {"bandwidth_bytes_per_s", p.bandwidth_bytes_per_s},
                            {"platform", p.platform.empty() ? Json(nullptr) : Json(p.platform)}});
  Json out = json_object(7);  // growing would copy the model and device lists
  out["models"] = std::move(models);
  out["devices"] = std::move(devices);
  out["ram_profiles"] = std::move(ram_profiles);
  out["quants"] = std::move(quants);
  out["engines"] = std::move(engines);
  out["kv_types"] = Json::array_t{"f16", "bf16", "fp8", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1"};
  return out;
}

// {"ok": false, "error": {"id", "message"}}; strings from files never make dump() throw.
std::string error_response(const Error& e) {
  Json j;
  j["ok"] = false;
  j["error"] = {{"id", e.id}, {"message", e.message}};
  return dump_json(j);
}

namespace {

// The "parts" of a file request: each file's name, size and how many of its
// leading bytes were sent, sliced out of `bytes` in order.
struct FilePart {
  std::string name;
  std::string kind;
  std::string_view bytes;
  std::int64_t file_bytes = -1;
};

Result<std::vector<FilePart>> file_parts(const Json& request, std::string_view bytes, std::size_t max_parts) {
  const Json parts_json = request.contains("parts") ? request["parts"] : Json();
  if (!parts_json.is_array() || parts_json.empty() || parts_json.size() > max_parts)
    return Error{"request.bad_value", "request field 'parts' must list 1 to " + std::to_string(max_parts) + " files"};
  std::vector<FilePart> parts;
  std::size_t offset = 0;
  for (const Json& p : parts_json) {
    const double length = json_number_or(p, "length", -1.0);
    const double file_bytes = json_number_or(p, "file_bytes", -1.0);
    if (!(length >= 0.0) || length > static_cast<double>(bytes.size() - offset) || !(file_bytes >= -1.0) || file_bytes > 9e15)
      return Error{"request.bad_value", "request field 'parts' lengths do not match the bytes given"};
    FilePart part;
    part.name = json_string_or(p, "name", "").substr(0, 200);
    part.kind = json_string_or(p, "kind", "");
    part.bytes = bytes.substr(offset, static_cast<std::size_t>(length));
    part.file_bytes = static_cast<std::int64_t>(file_bytes);
    offset += static_cast<std::size_t>(length);
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

Result<ResolvedRequest> resolve_request(const Sizer& sizer, std::string_view request_json) {
  const Json parsed = parse_json(request_json);
  if (parsed.is_discarded()) return Error{"request.not_json", "the request is not valid JSON"};
  return resolve_request(sizer, parsed);
}

Result<ResolvedRequest> resolve_request(const Sizer& sizer, const Json& parsed) {
  auto request = request_from_json(parsed);
  if (!request) return request.error();
  auto model = sizer.model_for(request.value());
  if (!model) return model.error();
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return scenario.error();
  return ResolvedRequest{std::move(model).value(), std::move(scenario).value(), request.value().speed_if_no_fit,
                         request.value().suggestions};
}

Result<Estimate> estimate_request(const Sizer& sizer, std::string_view request_json) {
  auto resolved = resolve_request(sizer, request_json);
  if (!resolved) return resolved.error();
  resolved.value().scenario.prefill_speed = false;
  return sizer.estimate(resolved.value().model, resolved.value().scenario);
}

Result<Estimate> estimate_request(const Sizer& sizer, const RequestFields& fields) {
  auto request = request_from_fields(fields);
  if (!request) return request.error();
  auto model = sizer.model_for(request.value());
  if (!model) return model.error();
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return scenario.error();
  scenario.value().prefill_speed = false;
  return sizer.estimate(model.value(), scenario.value());
}

std::string estimate_response(const Sizer& sizer, std::string_view request_json) {
  auto resolved = resolve_request(sizer, request_json);
  if (!resolved) return error_response(resolved.error());
  const ResolvedRequest& r = resolved.value();
  auto result = sizer.estimate(r.model, r.scenario);
  if (!result) return error_response(result.error());
  Json j;
  j["ok"] = true;
  const Estimator by_sizer = [&](const Scenario& s) { return sizer.estimate(r.model, s); };
  const std::vector<Suggestion> suggestions =
      r.suggestions ? suggest_fits(r.model.arch(), r.scenario, result.value(), by_sizer,
                                   [&](const Scenario& s, const Estimate& e) { return engine_starts(r.model, s, e); })
                    : std::vector<Suggestion>{};
  Json body = estimate_to_json(result.value(), r.scenario, r.model.label,
                               launch_commands(r.model, r.scenario, result.value()), suggestions, r.speed_if_no_fit,
                               &r.model);
  // Not asked for: no key, so a reader cannot take "none found" from it.
  if (!r.suggestions) body.erase("suggestions");
  move_entries(j, body);
  // error_handler_t::replace: strings from a config never make dump() throw.
  return dump_json(j);
}

namespace {

// "hub": the Hub repo the files were read from (owner/repo[:TAG]), whose
// name the launch commands use; absent for local files (no commands then).
Result<std::optional<HubName>> hub_of(Json& parsed) {
  if (!parsed.contains("hub")) return std::optional<HubName>{};
  if (!parsed["hub"].is_string()) return Error{"request.bad_value", "hub must be a Hub repo's name, owner/repo[:QUANT]"};
  auto name = parse_hub_name(parsed["hub"].get<std::string>());
  parsed.erase("hub");
  if (!name) return name.error();
  return std::optional<HubName>{name.value()};
}

}  // namespace

std::string estimate_safetensors_response(const Sizer& sizer, std::string_view request_json, std::string_view bytes) {
  Json parsed = parse_json(request_json);
  if (parsed.is_discarded() || !parsed.is_object()) return error_response(Error{"request.not_json", "the request is not a JSON object"});
  auto file_list = file_parts(parsed, bytes, 1024);
  if (!file_list) return error_response(file_list.error());
  auto hub = hub_of(parsed);
  if (!hub) return error_response(hub.error());
  parsed.erase("parts");
  parsed.erase("model");
  auto request = request_from_json(parsed);  // needs "config": the checkpoint's config.json
  if (!request) return error_response(request.error());
  auto model = sizer.model_for(request.value());
  if (!model) return error_response(model.error());
  std::vector<SafetensorsFile> shards;
  std::vector<std::int64_t> needed;
  std::optional<SafetensorsIndex> index;
  bool complete = true;
  for (const FilePart& p : file_list.value()) {
    const std::string_view part = p.bytes;
    if (p.kind == "index") {
      auto read = read_safetensors_index(part);
      if (!read) return error_response(read.error());
      index = read.value();
      needed.push_back(0);
      continue;
    }
    SafetensorsReadOptions options;
    options.file_bytes = p.file_bytes;
    auto read = read_safetensors_header(part, options);
    if (!read) return error_response(read.error());
    needed.push_back(read.value().complete ? 0 : read.value().bytes_needed);
    complete = complete && read.value().complete;
    if (read.value().complete) shards.push_back(std::move(read.value().file));
  }
  if (!complete) {
    Json j;
    j["ok"] = true;
    j["complete"] = false;
    j["bytes_needed"] = needed;
    return dump_json(j);
  }
  std::vector<std::string> warnings;
  auto weights = !shards.empty() ? safetensors_weights(model.value().arch(), shards, warnings)
                 : index ? safetensors_index_weights(model.value().arch(), *index, warnings)
                         : Result<ModelWeights>(Error{"request.bad_value", "give .safetensors shards or an index"});
  if (!weights) return error_response(weights.error());
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return error_response(scenario.error());
  Scenario s = scenario.value();
  s.quant = quant_scheme_from_name("native").value();
  auto result = estimate(model.value().arch(), s, weights.value());
  if (!result) return error_response(result.error());
  for (auto& w : warnings) result.value().warnings.push_back(w);
  Json j;
  j["ok"] = true;
  j["complete"] = true;
  j["safetensors"] = {{"shards", shards.size()}, {"from_index", shards.empty()}};
  Json body = estimate_to_json(result.value(), s, "safetensors checkpoint");
  move_entries(j, body);
  if (hub.value() && runs(result.value())) {
    HubModelSource source;
    source.repo = hub.value()->repo;
    source.native_dtype = native_dtype_name(model.value().arch().native_format);
    j["commands"] = launch_commands_to_json(hub_launch_commands(source, model.value(), s, result.value()));
  }
  return dump_json(j);
}

std::string estimate_gguf_response(const Sizer& sizer, std::string_view request_json, std::string_view bytes) {
  Json parsed = parse_json(request_json);
  if (parsed.is_discarded() || !parsed.is_object()) return error_response(Error{"request.not_json", "the request is not a JSON object"});
  auto file_list = file_parts(parsed, bytes, 256);
  if (!file_list) return error_response(file_list.error());
  auto hub = hub_of(parsed);
  if (!hub) return error_response(hub.error());
  std::vector<GgufPart> parts;
  for (const FilePart& p : file_list.value()) parts.push_back(GgufPart{p.name, p.bytes, p.file_bytes});
  auto read = read_gguf_model(parts);
  if (!read) return error_response(read.error());
  if (!read.value().complete) {
    Json j;
    j["ok"] = true;
    j["complete"] = false;
    j["bytes_needed"] = read.value().bytes_needed;
    return dump_json(j);
  }
  const GgufModel& model = read.value().model;
  // The rest of the request reads like any other, with the file in place of a model id.
  parsed.erase("parts");
  parsed["config"] = "{}";
  parsed.erase("model");
  auto request = request_from_json(parsed);
  if (!request) return error_response(request.error());
  request.value().config_json.clear();
  request.value().model_id.clear();
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return error_response(scenario.error());
  Scenario s = scenario.value();
  s.quant = model.quant;
  auto result = estimate(model.arch, s, model.weights);
  if (!result) return error_response(result.error());
  Json j;
  j["ok"] = true;
  j["complete"] = true;
  j["gguf"] = {{"name", model.name}, {"architecture", model.architecture}, {"quant", model.quant.name},
               {"split_count", model.split_count}, {"layers", model.arch.decoder_layer_count()}};
  Json body = estimate_to_json(result.value(), s, model.name.empty() ? std::string("GGUF file") : model.name);
  move_entries(j, body);
  if (hub.value() && runs(result.value())) {
    HubModelSource source;
    source.repo = hub.value()->repo;
    source.gguf_tag = hub.value()->quant.empty() ? model.quant.name : hub.value()->quant;
    source.gguf_parts = static_cast<int>(parts.size());
    SizedModel sized;
    sized.architecture = &model.arch;
    sized.label = source.repo;
    j["commands"] = launch_commands_to_json(hub_launch_commands(source, sized, s, result.value()));
  }
  return dump_json(j);
}

}  // namespace llmsizer
