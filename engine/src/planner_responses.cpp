// The planner's JSON doors (planner_responses.hpp): read the request's keys,
// ask the planner, write its answer. No sizing happens here.
#include "llmsizer/planner_responses.hpp"

#include "llmsizer/llama_bench.hpp"
#include "llmsizer/load_log.hpp"
#include "llmsizer/log_check.hpp"
#include "llmsizer/machine_calibration.hpp"

#include "llmsizer/json_contract.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/serve.hpp"
#include "llmsizer/units.hpp"
#include "request_json.hpp"

namespace llmsizer {
namespace {

std::string ok_response(Json body) {
  Json j;
  j["ok"] = true;
  move_entries(j, body);
  return dump_json(j);
}

// "users" and "tokens_per_s_per_user"; no target when the latter is absent.
Result<std::optional<ServingTarget>> read_target(const Json& request, const Scenario& scenario) {
  FieldReader f{request, {}};
  ServingTarget t;
  t.users = scenario.sequences;
  f.integer(Limit{"users", 1, 4096}, t.users);
  double speed = -1.0;
  f.number("tokens_per_s_per_user", speed, 0.001, 100000.0);
  if (f.check.error) return *f.check.error;
  if (speed < 0.0) return std::optional<ServingTarget>{};
  t.tokens_per_s_per_user = speed;
  return std::optional<ServingTarget>{t};
}

}  // namespace

Result<Json> parse_request(std::string_view request_json) {
  Json parsed = parse_json(request_json);
  if (parsed.is_discarded()) return Error{"request.not_json", "the request is not valid JSON"};
  if (!parsed.is_object()) return Error{"request.not_object", "the request must be a JSON object"};
  return parsed;
}

Result<Json> recommend_json(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                            const std::vector<CloudOffer>& offers, const std::optional<ServingTarget>& target,
                            const RecommendOptions& options) {
  auto r = recommend(sizer, model, scenario, offers, options);
  if (!r) return r.error();
  Json j = recommendation_to_json(r.value());
  if (target) {
    auto plan = plan_for_target(sizer, model, scenario, offers, *target, options);
    if (!plan) return plan.error();
    j["target"] = target_plan_to_json(plan.value());
  }
  j["offers"] = offer_costs_to_json(rent_vs_buy(sizer, model, scenario, offers));
  return j;
}

namespace {

// A planner request: the estimate keys resolved, the serving target read,
// and the catalog's cloud offers.
struct PlannerRequest {
  ResolvedRequest resolved;
  std::optional<ServingTarget> target;
  std::vector<CloudOffer> offers;
  RecommendOptions options;
};

Result<PlannerRequest> planner_request(const Sizer& sizer, std::string_view request_json) {
  auto parsed = parse_request(request_json);
  if (!parsed) return parsed.error();
  auto resolved = resolve_request(sizer, parsed.value());
  if (!resolved) return resolved.error();
  auto target = read_target(parsed.value(), resolved.value().scenario);
  if (!target) return target.error();
  auto offers = embedded_cloud_offers();
  if (!offers) return offers.error();
  RecommendOptions options;
  FieldReader f{parsed.value(), {}};
  f.integer(Limit{"max_gpus", 0, 64}, options.max_gpus);
  f.number("min_tokens_per_s", options.min_tokens_per_s, 0.0, 100000.0);
  if (f.check.error) return *f.check.error;
  // "quants": the quantizations to answer the smallest hardware for.
  if (const Json* quants = f.find("quants")) {
    if (!quants->is_array() || quants->size() > 32) return bad_key("quants", "must be an array of at most 32 names");
    for (const Json& q : *quants) {
      if (!q.is_string() || q.get_ref<const std::string&>().size() > kQuantLength)
        return bad_key("quants", "must hold quantization names");
      auto scheme = quant_scheme_from_name(q.get_ref<const std::string&>());
      if (!scheme) return scheme.error();
      options.per_quant_names.push_back(scheme.value().name);
    }
  }
  return PlannerRequest{std::move(resolved).value(), target.value(), std::move(offers).value(), options};
}

}  // namespace

std::string recommend_response(const Sizer& sizer, std::string_view request_json) {
  auto r = planner_request(sizer, request_json);
  if (!r) return error_response(r.error());
  const PlannerRequest& p = r.value();
  auto j = recommend_json(sizer, p.resolved.model, p.resolved.scenario, p.offers, p.target, p.options);
  if (!j) return error_response(j.error());
  return ok_response(std::move(j).value());
}

std::string target_response(const Sizer& sizer, std::string_view request_json) {
  auto r = planner_request(sizer, request_json);
  if (!r) return error_response(r.error());
  const PlannerRequest& p = r.value();
  if (!p.target) return error_response(bad_key("tokens_per_s_per_user", "is required"));
  auto plan = plan_for_target(sizer, p.resolved.model, p.resolved.scenario, p.offers, *p.target, p.options);
  if (!plan) return error_response(plan.error());
  return ok_response(target_plan_to_json(plan.value()));
}

std::string offers_response(const Sizer& sizer, std::string_view request_json) {
  auto resolved = resolve_request(sizer, request_json);
  if (!resolved) return error_response(resolved.error());
  auto offers = embedded_cloud_offers();
  if (!offers) return error_response(offers.error());
  const ResolvedRequest& r = resolved.value();
  Json j;
  j["hours_per_day"] = r.scenario.hours_per_day;
  j["electricity_usd_per_kwh"] = r.scenario.electricity_usd_per_kwh;
  j["offers"] = offer_costs_to_json(rent_vs_buy(sizer, r.model, r.scenario, offers.value()));
  return ok_response(std::move(j));
}

std::string command_response(const Sizer& sizer, std::string_view request_json) {
  auto resolved = resolve_request(sizer, request_json);
  if (!resolved) return error_response(resolved.error());
  const ResolvedRequest& r = resolved.value();
  auto e = sizer.estimate(r.model, r.scenario);
  if (!e) return error_response(e.error());
  Json j;
  j["commands"] = launch_commands_to_json(launch_commands(r.model, r.scenario, e.value()));
  return ok_response(std::move(j));
}

std::string serve_response(const Sizer& sizer, std::string_view request_json) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  Json request = parsed.value();
  // A serving engine's chat mix unless told (llm-sizer serve's defaults):
  // 1024 tokens in, 1024 out, each request's window its own tokens.
  const bool window_given = request.contains("ctx") && !request["ctx"].is_null();
  if (!request.contains("prompt") || request["prompt"].is_null()) request["prompt"] = 1024;
  if (!request.contains("output_tokens") || request["output_tokens"].is_null()) request["output_tokens"] = 1024;
  std::vector<std::int64_t> counts;
  if (const auto it = request.find("concurrency"); it != request.end() && !it->is_null()) {
    if (!it->is_array() || it->size() > 64)
      return error_response(bad_key("concurrency", "must be a list of at most 64 counts"));
    for (const Json& c : *it) {
      if (!c.is_number_integer() || c.get<std::int64_t>() < 1 || c.get<std::int64_t>() > 4096)
        return error_response(bad_key("concurrency", "each count must be a whole number between 1 and 4096"));
      counts.push_back(c.get<std::int64_t>());
    }
    request.erase("concurrency");
  }
  double target = 0.0;
  if (const auto it = request.find("target_tokens_per_s_per_user"); it != request.end() && !it->is_null()) {
    if (!it->is_number() || !(it->get<double>() >= 0.0 && it->get<double>() <= 100000.0))
      return error_response(bad_key("target_tokens_per_s_per_user", "must be a number between 0 and 100000"));
    target = it->get<double>();
    request.erase("target_tokens_per_s_per_user");
  }
  auto resolved = resolve_request(sizer, request);
  if (!resolved) return error_response(resolved.error());
  Scenario s = resolved.value().scenario;
  if (!s.device) return error_response(Error{"request.bad_value", "give 'gpu' (a catalog id) or 'custom_gpu'"});
  if (has_mixed_cards(s))
    return error_response(Error{"serve.mixed_cards", "served speeds are for equal GPUs: mixed cards run one after another, "
                                                     "not as a serving engine's tensor-parallel group"});
  if (!window_given) s.context_tokens = s.prompt_tokens + s.output_tokens;
  auto curve = serve_curve(sizer, resolved.value().model, s, counts, target);
  if (!curve) return error_response(curve.error());
  Json j = serve_curve_to_json(curve.value());
  j["gpus"] = s.gpu_count;
  j["engine"] = std::string(engine_name(s.engine));
  return ok_response(std::move(j));
}

std::string fit_response(const Sizer& sizer, std::string_view request_json) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  auto request = request_from_json(parsed.value(), ModelKey::optional);
  if (!request) return error_response(request.error());
  if (!request.value().model_id.empty() || !request.value().config_json.empty())
    return error_response(bad_key("model", "does not belong in a 'what can I run' request: every catalog model is tried"));
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return error_response(scenario.error());
  const Scenario& s = scenario.value();
  if (!s.device) return error_response(Error{"request.bad_value", "give 'gpu' (a catalog id) or 'custom_gpu'"});
  if (s.gpu_count > 64) return error_response(bad_key("gpus", "must be between 1 and 64"));
  if (auto error = check_mixed_cards(s)) return error_response(*error);
  FieldReader f{parsed.value(), {}};
  double ram_gib = 0.0;
  f.number("ram_gib", ram_gib, 0.0, 1048576.0);
  std::string rank = "quality", use;
  f.text("rank", rank, 16);
  f.text("use", use, 16);
  double min_tokens_per_s = FitRequest{}.min_tokens_per_s;
  f.number("min_tokens_per_s", min_tokens_per_s, 0.0, 100000.0);
  if (f.check.error) return error_response(*f.check.error);
  const std::optional<FitRank> fit_rank = fit_rank_from_name(rank);
  if (!fit_rank) return error_response(bad_key("rank", "must be quality, speed or context"));
  if (!use.empty() && !is_use_tag(use))
    return error_response(bad_key("use", "must be coding, reasoning, chat or vision (or left out: every model)"));
  FitRequest fit;
  fit.rank = *fit_rank;
  fit.use = use;
  fit.min_tokens_per_s = min_tokens_per_s;
  fit.device = *s.device;
  fit.gpu_count = s.gpu_count;
  fit.cards = s.cards;  // "gpu": "rtx-3090,rtx-3090,rtx-3060-12gb" lists mixed cards
  fit.ram_bytes = static_cast<std::int64_t>(ram_gib * static_cast<double>(kGiB));
  fit.context_tokens = s.context_tokens;
  fit.engine = s.engine;
  fit.machine_factors = s.machine_factors;
  return ok_response(fit_sweep_to_json(what_fits(sizer, fit)));
}

std::string finetune_response(const Sizer& sizer, std::string_view request_json) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  // Only the model keys of an estimate request matter here.
  Json lookup = Json::object();
  for (const char* key : {"model", "config"})
    if (parsed.value().contains(key)) lookup[key] = parsed.value()[key];
  auto request = request_from_json(lookup);
  if (!request) return error_response(request.error());
  auto model = sizer.model_for(request.value());
  if (!model) return error_response(model.error());

  FieldReader f{parsed.value(), {}};
  FinetuneRequest r;
  std::string method = "lora", optimizer = "adamw", targets = "all";
  f.text("method", method, 16);
  f.text("optimizer", optimizer, 16);
  f.text("lora_targets", targets, 64);
  f.integer(Limit{"seq", 1, 1048576}, r.sequence_tokens);
  f.integer(Limit{"micro_batch", 1, 4096}, r.micro_batch);
  f.integer(Limit{"gpus", 1, 4096}, r.gpus);
  f.integer(Limit{"lora_rank", 1, 65536}, r.lora_rank);
  f.integer(Limit{"zero", 0, 3}, r.zero_stage);
  f.boolean("gradient_checkpointing", r.gradient_checkpointing);
  f.boolean("flash_attention", r.flash_attention);
  if (f.check.error) return error_response(*f.check.error);
  auto m = finetune_method_from_name(method);
  if (!m) return error_response(bad_key("method", "must be full, lora or qlora"));
  r.method = *m;
  // Unless asked: QLoRA with checkpointing, as PEFT's prepare_model_for_kbit_training
  // (use_gradient_checkpointing=True by default) sets it up; LoRA and full without.
  if (f.find("gradient_checkpointing") == nullptr) r.gradient_checkpointing = r.method == FinetuneMethod::qlora;
  auto o = optimizer_from_name(optimizer);
  if (!o) return error_response(bad_key("optimizer", "must be adamw or adamw8bit"));
  r.optimizer = *o;
  auto t = lora_targets_from_name(targets);
  if (!t) return error_response(bad_key("lora_targets", "must be all, attention or a list of q, k, v, o, gate, up, down"));
  r.targets = *t;
  auto e = estimate_finetune(model.value().arch(), r);
  if (!e) return error_response(e.error());
  // "gpu": whether that device holds the per-GPU total (the page's chosen one).
  const Device* chosen = nullptr;
  if (const Json* gpu = f.find("gpu")) {
    if (!gpu->is_string()) return error_response(bad_key("gpu", "must be a string"));
    chosen = sizer.catalog().find_device(gpu->get_ref<const std::string&>());
    if (chosen == nullptr) return error_response(Error{"request.unknown_gpu", "unknown GPU in request field 'gpu'"});
  }
  Json j = finetune_to_json(e.value(), finetune_device(sizer.catalog(), e.value().total_bytes));
  j["method"] = method;
  j["gpus"] = r.gpus;
  if (chosen != nullptr) {
    const std::int64_t usable = usable_memory(*chosen).usable_bytes;
    j["gpu"] = chosen->id;
    j["gpu_usable_bytes"] = usable;
    j["gpu_holds"] = e.value().total_bytes <= usable;
  }
  return ok_response(std::move(j));
}

std::string calibrate_response(const Sizer& sizer, std::string_view request_json, std::string_view llama_bench_text) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  auto request = request_from_json(parsed.value(), ModelKey::optional);
  if (!request) return error_response(request.error());
  auto bench = parse_llama_bench(llama_bench_text);
  if (!bench) return error_response(bench.error());
  auto calibration = calibrate_machine(sizer, bench.value(), request.value());
  if (!calibration) return error_response(calibration.error());
  return ok_response(machine_calibration_to_json(calibration.value()));
}

std::string check_log_response(const Sizer& sizer, std::string_view request_json, std::string_view log_text) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  auto request = request_from_json(parsed.value(), ModelKey::optional);
  if (!request) return error_response(request.error());
  auto log = parse_load_log(log_text);
  if (!log) return error_response(log.error());
  auto check = check_load_log(sizer, log.value(), request.value());
  if (!check) return error_response(check.error());
  return ok_response(log_check_to_json(check.value()));
}

}  // namespace llmsizer
