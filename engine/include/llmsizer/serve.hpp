// A serving engine's curve: the served figures (speed.served) at each
// concurrency of a sweep, where throughput saturates, and the point that meets
// a speed per user at the least cost per token.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/json.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

struct ServePoint {
  std::int64_t concurrency = 1;
  ServedEstimate served;
  std::optional<double> usd_per_million_output_tokens;  // at the scenario's hourly price or owned cost
};

struct ServeCurve {
  std::vector<ServePoint> points;  // by concurrency
  std::optional<std::int64_t> max_concurrency;  // paged engines: requests the KV pool holds at once
  std::optional<std::size_t> saturation;  // index of the point of peak output throughput
  double target_tokens_per_s_per_user = 0.0;  // 0: no target
  std::optional<std::size_t> target;  // the most output per GPU among points meeting the target
  // What the points' cost per million output tokens is at: the hour of the
  // scenario's rented price ("rent") or of owning it ("owned"), else none.
  std::optional<double> usd_per_hour;
  std::string cost_basis;
  std::string purchase_note;  // owned: what the purchase buys (CostEstimate::purchase_note)
  // The single-stream speed model's decode for one request after its prompt
  // (speed.decode_tokens_per_s_after_prompt), beside the first point's: the
  // two are fitted on different measurements and may disagree.
  std::optional<double> single_stream_tokens_per_s;
  // The first point's estimate warnings (a prompt past the model's context,
  // a doubted price, an estimated device figure), as estimate gives them.
  std::vector<std::string> warnings;
};

// One point's scenario: `concurrency` requests of prompt_tokens in and
// output_tokens out (1024 when unset), each holding its prompt and output in
// the cache (a window below prompt + output is raised to it).
Scenario serve_point_scenario(Scenario scenario, std::int64_t concurrency);

// The scenario (model, device, engine, prompt_tokens in, output_tokens out) at
// each of `concurrencies`; empty: 1, 2, 4, ... until the point where more
// requests in flight no longer decode at once (the KV pool or the prompts'
// budget holds them back), at most 4096. A window (context_tokens) below
// prompt + output is raised to it. Errors: "serve.bad_value", "serve.does_not_fit"
// (the first point does not fit; it names where), or the estimate's.
Result<ServeCurve> serve_curve(const Sizer& sizer, const SizedModel& model, Scenario scenario,
                               std::vector<std::int64_t> concurrencies, double target_tokens_per_s_per_user);

Json serve_curve_to_json(const ServeCurve& curve);

}  // namespace llmsizer
