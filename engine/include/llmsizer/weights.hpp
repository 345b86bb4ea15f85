// Bytes of the model's weights at a quantization, tensor by tensor.
#pragma once
#include <cstdint>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/tensors.hpp"

namespace llmsizer {

struct WeightBreakdown {
  std::int64_t total_bytes = 0;          // everything the files hold (tensors + GGUF metadata)
  std::int64_t file_bytes = -1;          // the files' size on disk when measured from them (GGUF), else -1
  std::int64_t tensor_bytes = 0;         // tensors only
  std::int64_t metadata_bytes = 0;       // GGUF header: tokenizer vocabulary and keys (estimate)
  std::int64_t token_embd_bytes = 0;     // input embedding (stays in RAM-side buffers in llama.cpp)
  std::int64_t output_bytes = 0;         // output head + final norm
  std::int64_t routed_expert_bytes = 0;  // decoder routed experts (what --n-cpu-moe moves)
  std::int64_t mtp_bytes = 0;            // MTP layers present in the files
  std::int64_t mixer_bytes = 0;          // decoder layers' attention / linear-attention / SSM projections (MTP not)
  // Decoder tensors tensor parallelism keeps whole on every GPU (TensorInfo::is_tp_replicated),
  // and those of them that are token-mixer projections (kept whole by attention data parallel anyway).
  std::int64_t tp_replicated_bytes = 0;
  std::int64_t tp_replicated_params = 0;
  std::int64_t tp_replicated_mixer_bytes = 0;
  std::int64_t tp_replicated_mixer_params = 0;
  std::vector<std::int64_t> layer_bytes;         // per decoder layer, all its tensors
  std::vector<std::int64_t> layer_expert_bytes;  // per decoder layer, its routed experts (and their biases)
  // Of those, the experts' bias vectors (gpt-oss's ffn_*_exps.bias): they move
  // with the experts but are no matrix llama.cpp copies for a prompt. Empty: none.
  std::vector<std::int64_t> layer_expert_bias_bytes;
  double bits_per_weight = 0.0;          // tensor bytes * 8 / parameters in the files
};

// Tensors that exist in the files for this scheme: GGUF drops MTP layers unless
// llama.cpp's converter keeps them; native checkpoints hold them.
WeightBreakdown compute_weights(const Architecture& arch, const QuantScheme& scheme);
// Bytes each GPU of a tensor-parallel group holds whole rather than 1/TP of:
// the replicated tensors, and with attention data parallel every token-mixer
// projection too.
std::int64_t tp_whole_bytes(const WeightBreakdown& w, bool attention_data_parallel);
// The same from the model's tensor list (list_tensors(arch)), which does not
// depend on the quantization: callers sizing many quantizations list it once.
WeightBreakdown compute_weights(const Architecture& arch, const std::vector<TensorInfo>& tensors, const QuantScheme& scheme);

}  // namespace llmsizer
