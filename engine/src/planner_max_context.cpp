// The largest context that fits, solved by bisection over a monotone verdict.
#include <algorithm>

#include "llmsizer/planner.hpp"

namespace llmsizer {
namespace {

// Beyond the model's own maximum nobody runs it; a config without one gets 1 Mi tokens.
constexpr std::int64_t kDefaultLimitTokens = std::int64_t{1} << 20;
constexpr std::int64_t kEngineLimitTokens = std::int64_t{1} << 24;  // estimate's own bound

}  // namespace

std::int64_t context_step_tokens(InferenceEngine engine) {
  // llama.cpp's KV cache is padded to 256 cells (llama_kv_cache::get_padding);
  // vLLM, SGLang and TensorRT-LLM page in 16-token blocks; MLX grows by 256-token steps.
  return engine_uses_kv_pool(engine) ? 16 : 256;
}

Result<MaxContext> solve_max_context(const Sizer& sizer, const SizedModel& model, Scenario scenario,
                                     std::int64_t limit_tokens) {
  if (!scenario.device) return Error{"planner.no_device", "the largest context needs a device"};
  const std::int64_t step = context_step_tokens(scenario.engine);
  std::int64_t limit = limit_tokens > 0 ? limit_tokens
                       : model.arch().max_context_tokens > 0 ? model.arch().max_context_tokens
                                                             : kDefaultLimitTokens;
  limit = std::min(limit, kEngineLimitTokens);
  MaxContext out;
  out.limit_tokens = limit;
  const std::int64_t prompt = scenario.prompt_tokens;

  // fits(k): does the scenario fit with k * step tokens of context?
  auto fits = [&](std::int64_t k) -> Result<bool> {
    scenario.context_tokens = k * step;
    scenario.prompt_tokens = std::min(prompt, scenario.context_tokens);
    ++out.estimates;
    auto e = sizer.estimate(model, scenario);
    if (!e) return e.error();
    return e.value().memory.fits.value_or(false);
  };

  std::int64_t lo = 0;                                   // largest k known to fit (0: none)
  std::int64_t hi = std::max<std::int64_t>(1, limit / step);  // candidate upper end
  auto top = fits(hi);
  if (!top) return top.error();
  if (top.value()) {
    out.context_tokens = hi * step;
    return out;
  }
  // Invariant: lo fits (or is 0), hi does not.
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    auto f = fits(mid);
    if (!f) return f.error();
    (f.value() ? lo : hi) = mid;
  }
  out.context_tokens = lo * step;
  return out;
}

}  // namespace llmsizer
