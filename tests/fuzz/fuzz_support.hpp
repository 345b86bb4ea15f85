// Shared by the fuzz targets: a fixed scenario on a catalog GPU, so that every
// architecture a hostile input manages to produce is also estimated end to end.
#pragma once
#include <cstdlib>

#include "llmsizer/catalog.hpp"
#include "llmsizer/estimate.hpp"

namespace llmsizer::fuzz {

inline const Catalog& catalog() {
  static const Catalog c = [] {
    auto parsed = embedded_catalog();
    if (!parsed) std::abort();
    return parsed.value();
  }();
  return c;
}

// llama.cpp at 4096 tokens on an RTX 4090, and vLLM at 32768 x 4 on two H100s.
inline std::vector<Scenario> scenarios(const QuantScheme& quant) {
  Scenario a;
  a.quant = quant;
  a.context_tokens = 4096;
  a.device = *catalog().find_device("rtx-4090");
  a.offload_fraction = 0.25;
  Scenario b = a;
  b.engine = InferenceEngine::vllm;
  b.kv_type = KvType::bf16;
  b.context_tokens = 32768;
  b.sequences = 4;
  b.gpu_count = 2;
  b.offload_fraction = 0.0;
  b.device = *catalog().find_device("h100-sxm");
  return {a, b};
}

// A broken invariant is a finding, like a crash.
inline void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace llmsizer::fuzz
