// The draft's share of an estimate (speculative.hpp): its memory on the GPUs
// and the speed-up range. Internal to estimate.cpp.
#pragma once
#include "llmsizer/estimate.hpp"
#include "llmsizer/kv_cache.hpp"
#include "llmsizer/runtime.hpp"

namespace llmsizer {

struct DraftMemory {
  std::int64_t weights_bytes = 0;   // the draft's weights at the model's quantization; MTP: 0 unless not yet counted
  std::int64_t kv_cache_bytes = 0;  // at the same context and sequences
  std::int64_t runtime_bytes = 0;   // the draft context's compute buffer
  bool on_last_gpu = false;         // MTP layers sit with the output head; a draft model on the first GPU
  std::int64_t total() const { return weights_bytes + kv_cache_bytes + runtime_bytes; }
};

// Error "scenario.bad_value": MTP asked of a model without MTP layers, or of a
// GGUF whose converter drops them; a draft without an architecture.
Result<DraftMemory> draft_memory(const Architecture& arch, const Scenario& s, const KvRequest& kv_request,
                                 RuntimeRequest runtime_request, const Estimate& e);

// The speed-up range for one sequence, from the model's decode step (e.speed)
// and the draft's own (a draft model estimated alone on the first GPU; MTP
// layers as their share of the bytes a step reads). Null without e.speed.
std::optional<SpeculativeEstimate> estimate_speculation(const Architecture& arch, const Scenario& s, const Estimate& e);

}  // namespace llmsizer
