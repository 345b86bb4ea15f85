// Where the experts of a mixture-of-experts model live: the fewest leading
// layers' experts in RAM (llama.cpp's --n-cpu-moe) that make a scenario fit,
// shared by "what can I run" and the hardware recommendations.
#pragma once
#include <cstdint>
#include <optional>

#include "llmsizer/estimate.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/suggestions.hpp"
#include "planner_edge.hpp"

namespace llmsizer {

struct ExpertsFit {
  std::optional<Estimate> estimate;  // the fitting estimate at the requested context
  Scenario scenario;                 // with the offload that made it fit
};

// The scenario with n_in_ram of the model's layers' experts in RAM.
inline Scenario with_experts_in_ram(Scenario s, std::int64_t n_in_ram, int layers) {
  s.offload_mode = OffloadMode::experts;
  s.offload_fraction = static_cast<double>(n_in_ram) / layers;
  return s;
}

// Whether system RAM holds what the estimate puts there, and by how much.
inline EdgeProbe ram_probe(const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  return EdgeProbe{m.ram_fits, static_cast<double>(m.system_ram_bytes - m.ram_required_bytes)};
}

// The placements a search over j, the layers whose experts stay on the GPUs,
// has tried, remembering the fitting one that keeps the most, so the answer
// needs no rerun. probe(j) returns the verdict's EdgeProbe for find_edge.
template <typename Placed>
struct KeptSearch {
  Placed& placed;
  Scenario base;
  int layers;
  EdgeProbe (*verdict)(const Estimate&);
  std::optional<Suggestion> best;
  std::int64_t best_kept = -1;

  Result<EdgeProbe> operator()(std::int64_t j) {
    auto p = placed(with_experts_in_ram(base, layers - j, layers));
    if (!p) return p.error();
    const EdgeProbe probe = verdict(p.value().estimate);
    if (probe.fits && j > best_kept) {
      best_kept = j;
      best = std::move(p).value();
    }
    return probe;
  }
};

// Fits at the requested context, first all on the GPUs, then (MoE under a
// llama.cpp-based engine, RAM given) with the experts of the fewest leading
// layers in RAM: fits(k layers' experts in RAM) only improves with k, so the
// edge search (planner_edge.hpp) over the layers kept whole on the GPUs finds
// the least k; RAM must then hold them and the host buffers.
// Equal cards split as llama.cpp does by default; where one is over and
// another has room, the layers split to balance them (a --tensor-split, as the
// fix suggestions give it) count as fitting too.
// ram_bytes: the RAM given for them (a unified-memory machine's own memory:
// its CPU's share, checked by the estimate against the one pool); 0: none.
ExpertsFit fit_moving_experts(const Sizer& sizer, const SizedModel& model, Scenario s, std::int64_t ram_bytes, int& estimates);

}  // namespace llmsizer
