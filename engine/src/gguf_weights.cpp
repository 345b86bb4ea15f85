// Weight bytes and parameters measured from a GGUF's tensor infos: exact, with
// no quantizer replay, because the file says each tensor's type and shape.
#include "gguf_internal.hpp"

namespace llmsizer::gguf_detail {

ModelWeights measure_weights(const Architecture& arch, const TensorIndex& tensors, std::int64_t file_bytes,
                             GgufKindBytes& kinds, std::vector<std::string>& warnings) {
  ModelWeights out;
  WeightBreakdown& w = out.weights;
  ParamCounts& p = out.params;
  const std::size_t n_layers = arch.layers.size();
  w.layer_bytes.assign(n_layers, 0);
  w.layer_expert_bytes.assign(n_layers, 0);
  std::int64_t elements_in_files = 0;
  bool stray = false;

  for (const NamedTensor& t : tensors.all) {
    const std::int64_t bytes = t.info->bytes;
    const std::int64_t elements = t.info->elements();
    const Kind kind = kind_of(t.name);
    switch (kind) {
      case Kind::token_embd: kinds.token_embd += bytes; break;
      case Kind::output: kinds.output += bytes; break;
      case Kind::attention: kinds.attention += bytes; break;
      case Kind::ffn: kinds.ffn += bytes; break;
      case Kind::routed_experts: kinds.routed_experts += bytes; break;
      case Kind::norm: kinds.norms += bytes; break;
      case Kind::other: kinds.other += bytes; break;
    }
    w.tensor_bytes += bytes;
    elements_in_files += elements;

    const int layer = t.name.layer;
    const bool in_layer = layer >= 0 && static_cast<std::size_t>(layer) < n_layers;
    if (!in_layer) {
      if (layer >= 0) stray = true;
      // Global tensors other than the input embedding (output head, its norm,
      // rope factors) and any stray layer sit with the output head.
      if (kind == Kind::token_embd) w.token_embd_bytes += bytes;
      else w.output_bytes += bytes;
      p.total += elements;
      if (t.name.base == "per_layer_token_embd") {
        p.lookup += elements;  // looked up, not multiplied: as params.cpp counts per_layer_embd
        continue;
      }
      p.active += elements;
      if (kind == Kind::token_embd) p.embedding += elements;
      continue;
    }
    const auto idx = static_cast<std::size_t>(layer);
    const LayerSpec& spec = arch.layers[idx];
    const bool routed = kind == Kind::routed_experts;
    w.layer_bytes[idx] += bytes;
    if (routed) w.layer_expert_bytes[idx] += bytes;
    if (routed && t.name.suffix == "bias") {
      w.layer_expert_bias_bytes.resize(n_layers, 0);
      w.layer_expert_bias_bytes[idx] += bytes;
    }
    if (spec.is_mtp) {
      w.mtp_bytes += bytes;
      p.mtp += elements;
      continue;
    }
    if (routed) w.routed_expert_bytes += bytes;
    p.total += elements;
    if (routed && spec.ffn.n_experts > 0) {
      // A token reads n_experts_used of the n_experts stacked in ne[2].
      p.active += elements / spec.ffn.n_experts * spec.ffn.n_experts_used;
      if (t.name.suffix == "weight") p.routed_expert += elements;
    } else {
      p.active += elements;
    }
  }
  if (stray)
    warnings.push_back("the files hold tensors of layers beyond block_count; they were counted with the output head");
  w.metadata_bytes = file_bytes - w.tensor_bytes;  // headers and alignment padding
  w.total_bytes = file_bytes;
  w.file_bytes = file_bytes;
  w.bits_per_weight = elements_in_files > 0
                          ? static_cast<double>(w.tensor_bytes) * 8.0 / static_cast<double>(elements_in_files)
                          : 0.0;
  return out;
}

}  // namespace llmsizer::gguf_detail
