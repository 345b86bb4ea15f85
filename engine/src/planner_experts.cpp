#include "planner_experts.hpp"

#include "llmsizer/runtime_support.hpp"

namespace llmsizer {

ExpertsFit fit_moving_experts(const Sizer& sizer, const SizedModel& model, Scenario s, std::int64_t ram_bytes, int& estimates) {
  ExpertsFit a;
  s.offload_fraction = 0.0;
  a.scenario = s;
  const Architecture& arch = model.arch();
  const Estimator estimate_fn = [&](const Scenario& sc) {
    ++estimates;
    return sizer.estimate(model, sc);
  };
  auto placed = [&](const Scenario& sc) { return balanced_placement(arch, estimate_fn, sc); };
  auto whole = placed(s);
  if (!whole) return a;
  if (whole.value().estimate.memory.fits.value_or(false)) {
    a.scenario = whole.value().scenario;
    a.estimate = std::move(whole.value().estimate);
    return a;
  }
  if (!arch.is_moe() || ram_bytes <= 0 || !engine_is_llama_cpp_based(s.engine)) return a;
  const int n = arch.decoder_layer_count();
  if (n <= 0) return a;
  // kept(j): the scenario with j layers' experts left on the GPUs. The search
  // is on the GPUs' verdict, which only improves as experts leave (RAM's only
  // worsens): RAM is checked once, at the edge, as the fix suggestions do.
  // Requiring every expert in RAM to fit first (the search's far end) left out
  // models whose experts together exceed the RAM while the few that must
  // leave fit in it.
  KeptSearch<decltype(placed)> kept{placed, s, n, gpu_probe, std::nullopt, -1};
  auto all_in_ram = kept(0);
  if (!all_in_ram || !all_in_ram.value().fits) return a;
  auto edge = find_edge(0, all_in_ram.value(), n, gpu_probe(whole.value().estimate), kept);
  // The balanced split's placement is greedy, so a probe past the edge may fit
  // too: the most experts kept on the GPUs among the probes that fit is the answer.
  if (!edge || kept.best_kept < edge.value()) return a;
  // The estimate's RAM check: what stays in RAM within what the OS leaves.
  const Estimate& best = kept.best->estimate;
  if (!best.memory.ram_fits || !best.memory.fits.value_or(false)) return a;
  a.estimate = std::move(kept.best->estimate);
  a.scenario = kept.best->scenario;
  return a;
}

}  // namespace llmsizer
