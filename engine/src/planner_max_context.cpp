// The largest context that fits, solved over a monotone verdict (planner_edge.hpp).
#include <algorithm>
#include <utility>

#include "llmsizer/planner.hpp"
#include "planner_edge.hpp"

namespace llmsizer {
namespace {

// Beyond the model's own maximum nobody runs it; a config without one gets 1 Mi tokens.
constexpr std::int64_t kDefaultLimitTokens = std::int64_t{1} << 20;
constexpr std::int64_t kEngineLimitTokens = std::int64_t{1} << 24;  // estimate's own bound

}  // namespace

EdgeProbe edge_probe(const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  return EdgeProbe{m.fits.value_or(false), m.usable_bytes ? static_cast<double>(*m.usable_bytes - m.required_bytes) : 0.0};
}

EdgeProbe gpu_probe(const Estimate& e) {
  bool all = !e.memory.per_gpu.empty();
  for (const GpuShare& g : e.memory.per_gpu) all = all && g.fits;
  return EdgeProbe{all, edge_probe(e).margin_bytes};
}

std::int64_t context_step_tokens(InferenceEngine engine) {
  // llama.cpp's KV cache is padded to 256 cells (llama_kv_cache::get_padding);
  // vLLM, SGLang and TensorRT-LLM page in 16-token blocks; MLX grows by 256-token steps.
  return engine_uses_kv_pool(engine) ? 16 : 256;
}

Result<MaxContext> solve_max_context(const Sizer& sizer, const SizedModel& model, Scenario scenario,
                                     std::int64_t limit_tokens) {
  const Estimator by_sizer = [&](const Scenario& s) { return sizer.estimate(model, s); };
  return solve_max_context(by_sizer, model.arch().max_context_tokens, std::move(scenario), limit_tokens);
}

Result<MaxContext> solve_max_context(const Estimator& estimate_fn, std::int64_t max_context_tokens, Scenario scenario,
                                     std::int64_t limit_tokens) {
  if (!scenario.device) return Error{"planner.no_device", "the largest context needs a device"};
  const std::int64_t step = context_step_tokens(scenario.engine);
  std::int64_t limit = limit_tokens > 0 ? limit_tokens
                       : max_context_tokens > 0 ? max_context_tokens
                                                : kDefaultLimitTokens;
  limit = std::min(limit, kEngineLimitTokens);
  MaxContext out;
  out.limit_tokens = limit;
  const std::int64_t prompt = scenario.prompt_tokens;

  auto probe = [&](std::int64_t k) -> Result<EdgeProbe> {
    scenario.context_tokens = k * step;
    scenario.prompt_tokens = std::min(prompt, scenario.context_tokens);
    ++out.estimates;
    auto e = estimate_fn(scenario);
    if (!e) return e.error();
    return edge_probe(e.value());
  };

  const std::int64_t hi = std::max<std::int64_t>(1, limit / step);
  auto top = probe(hi);
  if (!top) return top.error();
  if (top.value().fits) {
    out.context_tokens = hi * step;
    return out;
  }
  if (hi == 1) return out;
  auto bottom = probe(1);
  if (!bottom) return bottom.error();
  if (!bottom.value().fits) return out;
  auto edge = find_edge(1, bottom.value(), hi, top.value(), probe);
  if (!edge) return edge.error();
  out.context_tokens = edge.value() * step;
  return out;
}

}  // namespace llmsizer
