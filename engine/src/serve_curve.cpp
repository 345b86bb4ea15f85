#include <algorithm>
#include <cstdio>
#include <string>

#include "llmsizer/serve.hpp"
#include "llmsizer/speed.hpp"
#include "llmsizer/speed_json.hpp"

namespace llmsizer {
namespace {

Error bad(const std::string& what) { return Error{"serve.bad_value", what}; }

constexpr std::int64_t kMostConcurrency = 4096;

// Where the first point overflows, as the estimate's limit says.
Error does_not_fit(const Scenario& s, const Estimate& e) {
  std::string where;
  if (const auto& l = e.memory.limit) {
    where = l->where == "gpu" ? "GPU " + std::to_string(l->gpu_index + 1) + " of " + std::to_string(e.memory.per_gpu.size())
            : l->where == "ram" ? std::string("system RAM")
                                : std::string("unified memory");
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", l->utilization * 100.0);
    where = " (" + where + " needs " + share + " of what it holds)";
  }
  return Error{"serve.does_not_fit", (s.sequences == 1 ? std::string("one request") : std::to_string(s.sequences) + " requests") + " of " +
                                         std::to_string(s.prompt_tokens) + " tokens in and " +
                                         std::to_string(s.output_tokens) + " out" + (s.sequences == 1 ? " does" : " do") +
                                         " not fit" + where + ": nothing to serve"};
}

}  // namespace

Scenario serve_point_scenario(Scenario scenario, std::int64_t concurrency) {
  if (scenario.output_tokens <= 0) scenario.output_tokens = 1024;
  // Each request holds its prompt and output in the cache.
  scenario.context_tokens = std::max(scenario.context_tokens, scenario.prompt_tokens + scenario.output_tokens);
  scenario.sequences = concurrency;
  return scenario;
}

Result<ServeCurve> serve_curve(const Sizer& sizer, const SizedModel& model, Scenario scenario,
                               std::vector<std::int64_t> concurrencies, double target_tokens_per_s_per_user) {
  if (!(target_tokens_per_s_per_user >= 0.0 && target_tokens_per_s_per_user <= 100000.0))
    return bad("the target speed per user must be between 0 and 100000 tokens/s");
  for (std::int64_t c : concurrencies)
    if (c < 1 || c > kMostConcurrency) return bad("each concurrency must be between 1 and 4096");
  std::sort(concurrencies.begin(), concurrencies.end());
  concurrencies.erase(std::unique(concurrencies.begin(), concurrencies.end()), concurrencies.end());
  const bool sweep = concurrencies.empty();
  ServeCurve curve;
  curve.target_tokens_per_s_per_user = target_tokens_per_s_per_user;
  double last_decoding = 0.0;
  for (std::int64_t c = 1, i = 0; sweep ? c <= kMostConcurrency : i < static_cast<std::int64_t>(concurrencies.size());
       c *= 2, ++i) {
    const Scenario s = serve_point_scenario(scenario, sweep ? c : concurrencies[static_cast<std::size_t>(i)]);
    auto e = sizer.estimate(model, s);
    if (!e) return e.error();
    const Estimate& x = e.value();
    if (!x.memory.fits.value_or(false)) {
      if (curve.points.empty()) return does_not_fit(s, x);
      break;
    }
    if (!x.speed || !x.speed->served) return bad("the device has no throughput figure for the prompts: no served speed");
    if (curve.points.empty()) curve.warnings = x.warnings;
    ServePoint p;
    p.concurrency = s.sequences;
    p.served = *x.speed->served;
    const CostEstimate cost = estimate_cost(s, x);
    p.usd_per_million_output_tokens = cost.usd_per_million_output_tokens;
    curve.usd_per_hour = cost.usd_per_hour;
    curve.cost_basis = cost.basis;
    curve.purchase_note = cost.basis == "owned" ? cost.purchase_note : std::string();
    if (s.sequences == 1 && x.speed->decode_tokens_per_s_after_prompt > 0.0)
      curve.single_stream_tokens_per_s = x.speed->decode_tokens_per_s_after_prompt;
    curve.max_concurrency = p.served.max_concurrency;
    const double decoding = p.served.decoding_concurrency;
    curve.points.push_back(std::move(p));
    // The sweep ends once doubling the requests no longer adds decoding ones.
    if (sweep && decoding <= last_decoding * 1.01) break;
    last_decoding = decoding;
  }
  for (std::size_t i = 0; i < curve.points.size(); ++i) {
    const ServedEstimate& v = curve.points[i].served;
    if (!curve.saturation || v.output_tokens_per_s > curve.points[*curve.saturation].served.output_tokens_per_s)
      curve.saturation = i;
    // On one machine the cheapest token is the most output for the same hours.
    // A point whose requests queue for a place does not serve its users at
    // the target: they wait for their first token (gpt-oss-120b on one H100,
    // 256 in flight: 139 run at 25 tok/s, the rest wait 35 s).
    if (target_tokens_per_s_per_user > 0.0 && v.tokens_per_s_per_user >= target_tokens_per_s_per_user &&
        v.admitted_concurrency >= v.concurrency &&
        (!curve.target || v.output_tokens_per_s > curve.points[*curve.target].served.output_tokens_per_s))
      curve.target = i;
  }
  return curve;
}

Json serve_curve_to_json(const ServeCurve& curve) {
  Json points = Json::array();
  for (const ServePoint& p : curve.points) {
    // The fields of speed.served, and the point's cost.
    Json j = served_to_json(p.served, false);
    j["usd_per_million_output_tokens"] = optional_json(p.usd_per_million_output_tokens);
    points.push_back(std::move(j));
  }
  Json j = json_object(11);
  j["input_tokens"] = curve.points.empty() ? Json(nullptr) : Json(curve.points.front().served.input_tokens);
  j["output_tokens"] = curve.points.empty() ? Json(nullptr) : Json(curve.points.front().served.output_tokens);
  j["points"] = std::move(points);
  j["max_concurrency"] = optional_json(curve.max_concurrency);
  j["saturation"] = curve.saturation ? Json(curve.points[*curve.saturation].concurrency) : Json(nullptr);
  j["target_tokens_per_s_per_user"] =
      curve.target_tokens_per_s_per_user > 0.0 ? Json(curve.target_tokens_per_s_per_user) : Json(nullptr);
  j["target"] = curve.target ? Json(curve.points[*curve.target].concurrency) : Json(nullptr);
  j["usd_per_hour"] = optional_json(curve.usd_per_hour);
  j["cost_basis"] = curve.cost_basis.empty() ? Json(nullptr) : Json(curve.cost_basis);
  j["purchase_note"] = curve.purchase_note.empty() ? Json(nullptr) : Json(curve.purchase_note);
  j["single_stream_tokens_per_s"] = optional_json(curve.single_stream_tokens_per_s);
  j["warnings"] = curve.warnings;
  return j;
}

}  // namespace llmsizer
