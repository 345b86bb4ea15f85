// The planner's answers as JSON, with the keys of issue 6 (bytes as integers).
#include <algorithm>
#include <string>
#include <utility>

#include "llmsizer/planner.hpp"

namespace llmsizer {
namespace {

Json price_json(const std::optional<PriceInfo>& p) {
  if (!p) return nullptr;
  Json j;
  j["usd"] = p->usd;
  j["kind"] = p->kind;
  j["as_of"] = p->as_of.empty() ? Json(nullptr) : Json(p->as_of);
  j["low_usd"] = optional_json(p->low_usd);
  j["high_usd"] = optional_json(p->high_usd);
  j["machine"] = p->machine.empty() ? Json(nullptr) : Json(p->machine);
  j["server_board"] = p->server_board;
  j["board_gpus"] = p->board_gpus;
  j["low_confidence"] = p->low_confidence;
  j["sold_new_until"] = p->sold_new_until.empty() ? Json(nullptr) : Json(p->sold_new_until);
  j["launch_usd"] = optional_json(p->launch_usd);
  return j;
}

Json hardware_json(const HardwareChoice& c) {
  Json j;
  j["gpu"] = c.gpu;
  j["name"] = c.name;
  j["count"] = c.count;
  j["copies"] = c.copies;
  j["gpus_per_copy"] = c.count / std::max(c.copies, 1);
  j["users_per_copy"] = c.sequences_per_copy;
  // Machines alike the copies run on (each count / servers devices), 1 for one.
  j["servers"] = c.servers;
  j["machines"] = c.machines;
  j["price_usd"] = c.price ? Json(c.price->usd) : Json(nullptr);
  j["price"] = price_json(c.price);
  j["required_bytes"] = c.required_bytes;
  j["usable_bytes"] = c.usable_bytes;
  j["utilization"] = c.utilization;
  j["experts_in_ram_layers"] = c.experts_in_ram_layers;
  j["offload_bytes"] = c.offload_bytes;
  j["fits"] = true;
  j["tokens_per_s_per_user"] = optional_json(c.tokens_per_s_per_user);
  j["tokens_per_s_total"] = optional_json(c.tokens_per_s_total);
  j["prefill_tokens_per_s"] = optional_json(c.prefill_tokens_per_s);
  j["ttft_s"] = optional_json(c.ttft_s);
  j["below_usable_speed"] = c.below_usable_speed;
  return j;
}

Json hardware_json(const std::optional<HardwareChoice>& c) { return c ? hardware_json(*c) : Json(nullptr); }

Json cloud_json(const std::optional<CloudChoice>& c) {
  if (!c) return nullptr;
  Json j;
  j["provider"] = c->provider;
  j["instance"] = c->instance;
  j["usd_per_hour"] = c->usd_per_hour;
  j["gpu"] = c->gpu;
  j["name"] = c->name;
  j["count"] = c->count;
  j["copies"] = c->copies;
  j["gpus_per_copy"] = c->count / std::max(c->copies, 1);
  j["users_per_copy"] = c->sequences_per_copy;
  // Instances rented side by side (each count / instance_count GPUs); usd_per_hour is all of them.
  j["instance_count"] = c->instances;
  j["billing"] = c->billing;
  j["required_bytes"] = c->required_bytes;
  j["usable_bytes"] = c->usable_bytes;
  j["utilization"] = c->utilization;
  j["fits"] = true;
  j["tokens_per_s_per_user"] = c->tokens_per_s_per_user;
  j["tokens_per_s_total"] = c->tokens_per_s_total;
  j["prefill_tokens_per_s"] = optional_json(c->prefill_tokens_per_s);
  j["ttft_s"] = optional_json(c->ttft_s);
  j["usd_per_million_tokens"] = optional_json(c->usd_per_million_tokens);
  j["below_usable_speed"] = c->below_usable_speed;
  return j;
}

}  // namespace

Json recommendation_to_json(const Recommendation& r) {
  Json j;
  j["min_tokens_per_s"] = r.min_tokens_per_s;
  j["single"] = hardware_json(r.single);
  j["value"] = hardware_json(r.value);
  j["value_beaten_by_single"] = r.value_beaten_by_single;
  j["unified"] = hardware_json(r.unified);
  j["mac"] = hardware_json(r.mac);
  j["cloud"] = cloud_json(r.cloud);
  j["cloud_any"] = cloud_json(r.cloud_any);
  Json unpriced = Json::array();
  for (const HardwareChoice& c : r.unpriced) unpriced.push_back(hardware_json(c));
  j["unpriced"] = std::move(unpriced);
  Json per = Json::array();
  for (const QuantChoice& q : r.per_quant) {
    Json item;
    item["quant"] = q.quant;
    item["gpu"] = q.hardware ? Json(q.hardware->gpu) : Json(nullptr);
    item["name"] = q.hardware ? Json(q.hardware->name) : Json(nullptr);
    item["count"] = q.hardware ? q.hardware->count : 0;
    item["price_usd"] = q.hardware && q.hardware->price ? Json(q.hardware->price->usd) : Json(nullptr);
    item["price"] = q.hardware ? price_json(q.hardware->price) : Json(nullptr);
    item["required_bytes"] = q.hardware ? Json(q.hardware->required_bytes) : Json(nullptr);
    item["tokens_per_s_per_user"] = q.hardware ? optional_json(q.hardware->tokens_per_s_per_user) : Json(nullptr);
    item["below_usable_speed"] = q.hardware && q.hardware->below_usable_speed;
    item["starts"] = q.starts;
    per.push_back(std::move(item));
  }
  j["per_quant"] = std::move(per);
  j["max_ctx"] = r.max_ctx;
  j["max_ctx_gpu"] = r.max_ctx_gpu ? Json(*r.max_ctx_gpu) : Json(nullptr);
  j["max_ctx_gpu_count"] = r.max_ctx_gpu_count;
  j["max_ctx_known"] = r.max_ctx_known;
  j["max_gpus"] = r.max_gpus;
  return j;
}

Json fit_sweep_to_json(const FitSweep& sweep) {
  Json results = Json::array();
  for (const FitResult& r : sweep.results) {
    Json item;
    item["model"] = r.model;
    item["quant"] = r.quant;
    item["quant_rank"] = r.quant_rank;
    item["format"] = r.format;
    item["native_format"] = r.native_format.empty() ? Json() : Json(r.native_format);
    item["own_format"] = r.own_format;
    item["uses"] = r.uses;
    item["params_total"] = r.params_total;
    item["params_active"] = r.params_active;
    item["dense_equivalent_params"] = r.dense_equivalent_params;
    item["low_bit_tier"] = r.low_bit_tier;
    item["usable_speed"] = r.usable_speed;
    item["max_ctx"] = r.max_ctx;
    item["max_ctx_known"] = r.max_ctx_known;
    item["max_ctx_offload_bytes"] = r.max_ctx_offload_bytes;
    item["max_ctx_offload_fraction"] = r.max_ctx_offload_fraction;
    item["decode_tokens_per_s"] = r.decode_tokens_per_s;
    item["offload_bytes"] = r.offload_bytes;
    item["offloaded_layers"] = r.offloaded_layers;
    item["offload_fraction"] = r.offload_fraction;
    item["layer_split"] = r.layer_split.empty() ? Json(nullptr) : Json(layer_split_text(r.layer_split));
    item["required_bytes"] = r.required_bytes;
    results.push_back(std::move(item));
  }
  Json j;
  j["kv"] = kv_type_name(sweep.kv_type);
  j["rank"] = fit_rank_name(sweep.rank);
  j["use"] = sweep.use.empty() ? Json() : Json(sweep.use);
  j["min_tokens_per_s"] = sweep.min_tokens_per_s;
  j["results"] = std::move(results);
  j["estimates"] = sweep.estimates;
  j["refused"] = sweep.refused.empty() ? Json() : Json(sweep.refused);
  j["left_out_no_checkpoint"] = sweep.left_out_no_checkpoint;
  j["unified_memory_bytes"] = sweep.unified_memory_bytes;
  return j;
}

Json target_plan_to_json(const TargetPlan& plan) {
  Json j;
  j["users"] = plan.target.users;
  j["tokens_per_s_per_user"] = plan.target.tokens_per_s_per_user;
  j["input_tokens"] = plan.input_tokens;
  j["output_tokens"] = plan.output_tokens;
  j["buy"] = hardware_json(plan.buy);
  j["rent"] = cloud_json(plan.rent);
  j["rent_any"] = cloud_json(plan.rent_any);
  return j;
}

Json offer_costs_to_json(const std::vector<OfferCost>& rows) {
  Json out = Json::array();
  for (const OfferCost& r : rows) {
    Json item;
    item["provider"] = r.offer.provider;
    item["instance"] = r.offer.instance;
    item["gpu"] = r.offer.device_id;
    item["count"] = r.offer.device_count;
    item["rentable_gpu_counts"] = r.rentable_gpu_counts;
    item["usd_per_gpu_hour"] = r.offer.usd_per_hour / r.offer.device_count;
    item["billing"] = r.offer.billing;
    item["usd_per_hour"] = r.offer.usd_per_hour;
    item["usd_per_month"] = r.usd_per_month;
    item["fits"] = r.fits;
    item["required_bytes"] = r.required_bytes;
    item["usable_bytes"] = r.usable_bytes;
    item["decode_tokens_per_s"] = r.fits ? Json(r.decode_tokens_per_s) : Json(nullptr);
    item["decode_tokens_per_s_total"] = r.fits ? Json(r.decode_tokens_per_s_total) : Json(nullptr);
    item["usd_per_million_tokens"] = optional_json(r.usd_per_million_tokens);
    item["usd_per_million_tokens_batch"] = optional_json(r.usd_per_million_tokens_batch);
    item["purchase_usd"] = optional_json(r.purchase_usd);
    item["power_usd_per_month"] = optional_json(r.power_usd_per_month);
    item["break_even_months"] = optional_json(r.break_even_months);
    out.push_back(std::move(item));
  }
  return out;
}

Json catalog_sweep_to_json(const CatalogSweep& sweep) {
  Json j;
  j["ctx"] = sweep.context_tokens;
  j["engine"] = engine_name(sweep.engine);
  j["quants"] = sweep.quants;
  j["models"] = sweep.models;
  j["devices"] = sweep.devices;
  j["required_bytes"] = sweep.required_bytes;
  j["best_quant"] = sweep.best_quant;
  j["scenarios"] = sweep.scenarios;
  j["estimates"] = sweep.estimates;
  return j;
}

std::string sweep_response(const Sizer& sizer, std::string_view request_json) {
  Json j;
  auto fail = [&j](const char* id, const std::string& message) {
    j["ok"] = false;
    j["error"] = {{"id", id}, {"message", message}};
    return dump_json(j);
  };
  const Json request = parse_json(request_json);
  if (request.is_discarded()) return fail("request.not_json", "the request is not valid JSON");
  if (!request.is_object()) return fail("request.not_object", "the request must be a JSON object");
  SweepRequest r;
  if (auto it = request.find("ctx"); it != request.end()) {
    if (!it->is_number_integer()) return fail("request.bad_value", "request field 'ctx' must be an integer");
    r.context_tokens = it->get<std::int64_t>();
  }
  if (auto it = request.find("engine"); it != request.end()) {
    const auto engine = it->is_string() ? engine_from_name(it->get<std::string>()) : std::nullopt;
    if (!engine) return fail("request.bad_value", "request field 'engine' must be llama.cpp, ollama, vllm, sglang, mlx or tensorrt-llm");
    r.engine = *engine;
  }
  auto sweep = sweep_catalog(sizer, r);
  if (!sweep) return fail(sweep.error().id.c_str(), sweep.error().message);
  j["ok"] = true;
  Json body = catalog_sweep_to_json(sweep.value());
  move_entries(j, body);
  return dump_json(j);
}

}  // namespace llmsizer
