// The planner's answers as JSON, with the keys of issue 6 (bytes as integers).
#include "llmsizer/planner.hpp"

namespace llmsizer {
namespace {

Json hardware_json(const std::optional<HardwareChoice>& c) {
  if (!c) return nullptr;
  Json j;
  j["gpu"] = c->gpu;
  j["count"] = c->count;
  j["price_usd"] = c->price_usd ? Json(*c->price_usd) : Json(nullptr);
  j["required_bytes"] = c->required_bytes;
  j["usable_bytes"] = c->usable_bytes;
  return j;
}

Json cloud_json(const std::optional<CloudChoice>& c) {
  if (!c) return nullptr;
  Json j;
  j["provider"] = c->provider;
  j["instance"] = c->instance;
  j["usd_per_hour"] = c->usd_per_hour;
  j["gpu"] = c->gpu;
  j["count"] = c->count;
  j["billing"] = c->billing;
  return j;
}

}  // namespace

Json recommendation_to_json(const Recommendation& r) {
  Json j;
  j["single"] = hardware_json(r.single);
  j["value"] = hardware_json(r.value);
  j["unified"] = hardware_json(r.unified);
  j["cloud"] = cloud_json(r.cloud);
  j["cloud_any"] = cloud_json(r.cloud_any);
  Json per = Json::array();
  for (const QuantChoice& q : r.per_quant) {
    Json item;
    item["quant"] = q.quant;
    item["gpu"] = q.hardware ? Json(q.hardware->gpu) : Json(nullptr);
    item["count"] = q.hardware ? q.hardware->count : 0;
    per.push_back(std::move(item));
  }
  j["per_quant"] = std::move(per);
  j["max_ctx"] = r.max_ctx;
  j["max_ctx_gpu"] = r.max_ctx_gpu ? Json(*r.max_ctx_gpu) : Json(nullptr);
  j["max_ctx_gpu_count"] = r.max_ctx_gpu_count;
  return j;
}

Json fit_sweep_to_json(const FitSweep& sweep) {
  Json results = Json::array();
  for (const FitResult& r : sweep.results) {
    Json item;
    item["model"] = r.model;
    item["quant"] = r.quant;
    item["quant_rank"] = r.quant_rank;
    item["max_ctx"] = r.max_ctx;
    item["decode_tokens_per_s"] = r.decode_tokens_per_s;
    item["offload_bytes"] = r.offload_bytes;
    item["offloaded_layers"] = r.offloaded_layers;
    item["required_bytes"] = r.required_bytes;
    results.push_back(std::move(item));
  }
  Json j;
  j["results"] = std::move(results);
  j["estimates"] = sweep.estimates;
  return j;
}

}  // namespace llmsizer
