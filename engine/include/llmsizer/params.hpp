// Parameter counts derived from the tensor list.
#pragma once
#include <cstdint>

#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/tensors.hpp"

namespace llmsizer {

struct ParamCounts {
  std::int64_t total = 0;      // decoder model, MTP layers excluded (what vendors quote)
  std::int64_t active = 0;     // per token: total minus the experts not routed to
  std::int64_t embedding = 0;  // token embedding table(s)
  std::int64_t mtp = 0;        // multi-token-prediction layers, present in the checkpoint
  std::int64_t routed_expert = 0;  // all routed-expert weights of the decoder
  std::int64_t lookup = 0;  // n-gram lookup tables (per_layer_embd): in total, not in active or embedding
};

ParamCounts count_params(const Architecture& arch);
// The same from the model's tensor list (list_tensors(arch)).
ParamCounts count_params(const Architecture& arch, const std::vector<TensorInfo>& tensors);

}  // namespace llmsizer
