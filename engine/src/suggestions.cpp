// Each suggestion is the least change of its kind whose own estimate fits:
// memory only falls as layers move to RAM, as the quantization gets smaller,
// as devices are added and as the context shrinks, so each search walks (or
// bisects) one monotone verdict and the answer is the estimate at its edge.
#include "llmsizer/suggestions.hpp"

#include <algorithm>

#include "llmsizer/planner.hpp"
#include "planner_edge.hpp"
#include "planner_rules.hpp"

namespace llmsizer {
namespace {

Suggestion suggestion_of(const Scenario& scenario, const Estimate& e, SuggestedChange change) {
  Suggestion s;
  s.scenario = scenario;
  s.estimate = e;
  s.change = std::move(change);
  s.fits = e.memory.fits.value_or(false);
  s.required_bytes = e.memory.required_bytes;
  s.usable_bytes = e.memory.usable_bytes.value_or(0);
  s.utilization = e.memory.utilization.value_or(0.0);
  s.ram_required_bytes = e.memory.ram_required_bytes;
  s.offloaded_layers = e.memory.offloaded_layers;
  if (e.speed) {
    s.decode_tokens_per_s = e.speed->decode_tokens_per_s;
    s.decode_tokens_per_s_total = e.speed->decode_tokens_per_s_total;
    s.prefill_tokens_per_s = e.speed->prefill_tokens_per_s;
    s.ttft_s = e.speed->ttft_s;
  }
  return s;
}

// Whether every GPU holds its share: the offload search's verdict, which only
// improves as layers move to RAM (RAM is checked once, at the edge).
EdgeProbe gpu_probe(const Estimate& e) {
  bool all = !e.memory.per_gpu.empty();
  for (const GpuShare& g : e.memory.per_gpu) all = all && g.fits;
  const MemoryEstimate& m = e.memory;
  return EdgeProbe{all, m.usable_bytes ? static_cast<double>(*m.usable_bytes - m.required_bytes) : 0.0};
}

// The fewest leading layers (or their experts) in RAM with which the GPUs hold
// the rest; a suggestion only when system RAM then holds the offloaded share.
std::optional<Suggestion> offload_suggestion(const Architecture& arch, const Estimator& estimate_fn, Scenario s,
                                             OffloadMode mode, const EdgeProbe& at_zero) {
  const int n = arch.decoder_layer_count();
  if (n <= 0) return std::nullopt;
  s.offload_mode = mode;
  auto with = [&](std::int64_t k) {
    Scenario sc = s;
    sc.offload_fraction = static_cast<double>(k) / n;
    return sc;
  };
  // kept(j): j layers stay whole on the GPUs; fits only turns false as j grows.
  auto kept = [&](std::int64_t j) -> Result<EdgeProbe> {
    auto e = estimate_fn(with(n - j));
    if (!e) return e.error();
    return gpu_probe(e.value());
  };
  auto all_in_ram = kept(0);
  if (!all_in_ram || !all_in_ram.value().fits) return std::nullopt;
  auto edge = find_edge(0, all_in_ram.value(), n, at_zero, kept);
  if (!edge) return std::nullopt;
  const Scenario chosen = with(n - edge.value());
  auto e = estimate_fn(chosen);
  if (!e || !e.value().memory.fits.value_or(false)) return std::nullopt;
  SuggestedChange change;
  change.offload = chosen.offload_fraction;
  change.offload_mode = mode == OffloadMode::experts ? "experts" : "layers";
  return suggestion_of(chosen, e.value(), change);
}

std::optional<Suggestion> quant_suggestion(const Estimator& estimate_fn, const Scenario& s, const Estimate& current) {
  for (const std::string& name : standard_quants(s.engine)) {
    auto quant = quant_scheme_from_name(name);
    if (!quant || quant.value().name == s.quant.name) continue;
    Scenario sc = s;
    sc.quant = quant.value();
    auto e = estimate_fn(sc);
    // Only smaller formats: a suggestion is a step down, the best that fits.
    if (!e || e.value().memory.weights_bytes >= current.memory.weights_bytes) continue;
    if (!e.value().memory.fits.value_or(false)) continue;
    SuggestedChange change;
    change.quant = quant.value().name;
    return suggestion_of(sc, e.value(), change);
  }
  return std::nullopt;
}

std::optional<Suggestion> count_suggestion(const Architecture& arch, const Estimator& estimate_fn, const Scenario& s) {
  const Device& d = *s.device;
  for (int count = s.gpu_count + 1; count <= practical_device_count(d); ++count) {
    if (!split_allowed(arch, d, s.engine, count)) continue;
    Scenario sc = s;
    sc.gpu_count = count;
    auto e = estimate_fn(sc);
    if (!e || !e.value().memory.fits.value_or(false)) continue;
    SuggestedChange change;
    change.gpus = count;
    return suggestion_of(sc, e.value(), change);
  }
  return std::nullopt;
}

// The largest context below the scenario's that fits, as the planner solves it.
std::optional<Suggestion> context_suggestion(const Estimator& estimate_fn, const Scenario& s) {
  auto solved = solve_max_context(estimate_fn, 0, s, s.context_tokens);
  if (!solved || solved.value().context_tokens <= 0 || solved.value().context_tokens >= s.context_tokens)
    return std::nullopt;
  Scenario chosen = s;
  chosen.context_tokens = solved.value().context_tokens;
  chosen.prompt_tokens = std::min(s.prompt_tokens, chosen.context_tokens);
  auto e = estimate_fn(chosen);
  if (!e || !e.value().memory.fits.value_or(false)) return std::nullopt;
  SuggestedChange change;
  change.ctx = chosen.context_tokens;
  return suggestion_of(chosen, e.value(), change);
}

}  // namespace

std::vector<Suggestion> suggest_fits(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                                     const Estimator& estimate_fn) {
  std::vector<Suggestion> out;
  if (!scenario.device || estimate.memory.fits.value_or(true)) return out;
  auto add = [&](std::optional<Suggestion> s) {
    if (s) out.push_back(std::move(*s));
  };
  if (engine_is_llama_cpp_based(scenario.engine)) {
    // From the scenario without offload: the least offload that fits, not a
    // change relative to whatever share the user had set.
    Scenario base = scenario;
    base.offload_fraction = 0.0;
    auto at_zero = estimate_fn(base);
    if (at_zero) {
      const EdgeProbe probe = gpu_probe(at_zero.value());
      if (probe.fits && at_zero.value().memory.fits.value_or(false) && scenario.offload_fraction > 0.0) {
        // The offload set was the trouble (RAM too small for it): none is needed.
        SuggestedChange change;
        change.offload = 0.0;
        add(suggestion_of(base, at_zero.value(), change));
      } else if (!probe.fits) {
        std::optional<Suggestion> s;
        if (arch.is_moe()) s = offload_suggestion(arch, estimate_fn, base, OffloadMode::experts, probe);
        if (!s) s = offload_suggestion(arch, estimate_fn, base, OffloadMode::layers, probe);
        add(std::move(s));
      }
    }
  }
  add(quant_suggestion(estimate_fn, scenario, estimate));
  // One more card is a suggestion only for equal cards: of mixed ones, which?
  if (scenario.cards.empty()) add(count_suggestion(arch, estimate_fn, scenario));
  add(context_suggestion(estimate_fn, scenario));
  return out;
}

}  // namespace llmsizer
