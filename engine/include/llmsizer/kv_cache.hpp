// KV cache and recurrent state, per layer, as each engine holds them.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/engines.hpp"

namespace llmsizer {

struct KvRequest {
  std::int64_t context_tokens = 4096;  // per sequence
  std::int64_t sequences = 1;          // concurrent sequences (llama.cpp -np slots)
  KvType type = KvType::f16;
  InferenceEngine engine = InferenceEngine::llama_cpp;
  std::int64_t ubatch_tokens = 512;  // llama.cpp -ub
  bool swa_full = false;             // llama.cpp --swa-full: sliding layers keep the whole context
  // llama.cpp -kvu: one cache stream for all sequences. Off, as llama-server
  // runs with an explicit -np (the commands printed here); "-np auto" turns it on.
  bool unified = false;
};

struct KvBreakdown {
  std::int64_t total_bytes = 0;      // attention cache + recurrent state
  std::int64_t attention_bytes = 0;  // K and V (or MLA latent) of all attention layers
  std::int64_t state_bytes = 0;      // linear-attention / Mamba state, fixed per sequence
  std::int64_t cells = 0;            // token slots of a full-attention layer (padded)
  std::int64_t swa_cells = 0;        // token slots of a sliding-window layer where fewer (llama.cpp's iSWA cache)
  std::int64_t bytes_per_token = 0;  // full-attention bytes per cached token, all layers
  std::vector<std::int64_t> layer_bytes;  // per decoder layer
  // The same total had the elements been stored in each KvType (indexed by the
  // enum), summed layer by layer in the same pass: the page shows the request
  // in every type, and a second walk of the layers per type cost as much as
  // the cache itself.
  std::array<std::int64_t, kKvTypeCount> total_bytes_as{};
};

// Bytes per element of a KV type, as a ratio: bytes = elements * num / den.
struct KvElementSize {
  std::int64_t num;
  std::int64_t den;
};
KvElementSize kv_element_size(KvType type);

KvBreakdown compute_kv_cache(const Architecture& arch, const KvRequest& request);

// The breakdown's total had its elements been stored as `type` (same layout).
std::int64_t kv_bytes_as(const KvBreakdown& kv, KvType type);

}  // namespace llmsizer
