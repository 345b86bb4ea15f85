#include "llmsizer/params.hpp"

#include "llmsizer/tensors.hpp"

namespace llmsizer {

ParamCounts count_params(const Architecture& arch) { return count_params(arch, list_tensors(arch)); }

ParamCounts count_params(const Architecture& arch, const std::vector<TensorInfo>& tensors) {
  ParamCounts counts;
  for (const TensorInfo& t : tensors) {
    const std::int64_t n = t.elements();
    if (t.is_mtp) {
      counts.mtp += n;
      continue;
    }
    counts.total += n;
    if (t.role == TensorRole::per_layer_embd) {
      // A token looks up a few rows of these tables: they are weights in
      // memory, not parameters a token runs through.
      counts.lookup += n;
      continue;
    }
    if (t.role == TensorRole::token_embd) counts.embedding += n;
    if (t.is_per_expert()) {
      if (t.is_routed_expert()) counts.routed_expert += n;
      const FfnSpec& f = arch.layers[static_cast<std::size_t>(t.layer)].ffn;
      // Only n_experts_used of n_experts are read for a token.
      counts.active += n / f.n_experts * f.n_experts_used;
    } else {
      counts.active += n;
    }
  }
  counts.total += arch.extra_params;
  counts.active += arch.extra_params;
  counts.embedding += arch.extra_params;
  return counts;
}

}  // namespace llmsizer
