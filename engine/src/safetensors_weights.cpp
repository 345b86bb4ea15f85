// Weight bytes of a safetensors checkpoint, per layer and kind, from its tensor
// names as transformers writes them (model.layers.N.mlp.experts.E.up_proj.weight,
// lm_head.weight, ...), laid on the layers of the config's architecture.
#include <cmath>
#include <string>

#include "llmsizer/params.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/safetensors.hpp"
#include "llmsizer/weights.hpp"

namespace llmsizer {
namespace {

std::vector<std::string_view> segments(std::string_view name) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::size_t end = dot == std::string_view::npos ? name.size() : dot;
    out.push_back(name.substr(start, end - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Towers and projectors of multimodal checkpoints: not decoder layers.
bool is_auxiliary(std::string_view name) {
  for (const char* word : {"vision", "visual", "audio", "image", "multi_modal", "mm_projector", "speech"})
    if (name.find(word) != std::string_view::npos) return true;
  return false;
}

struct Placement {
  int layer = -1;          // decoder or MTP layer of arch, -1 for global tensors
  bool embedding = false;  // input embedding table
  bool routed = false;     // a routed expert's weight
  bool mtp = false;        // multi-token-prediction module
};

Placement place(std::string_view name, int decoder_layers) {
  Placement p;
  const auto parts = segments(name);
  p.mtp = !parts.empty() && parts[0] == "mtp";  // Qwen3-Next: mtp.layers.0...
  for (std::string_view s : parts) p.routed = p.routed || s == "experts";
  if (is_auxiliary(name)) return Placement{};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string_view s = parts[i];
    if ((s == "layers" || s == "h" || s == "blocks" || s == "layer" || s == "block") && all_digits(parts[i + 1])) {
      p.layer = std::stoi(std::string(parts[i + 1])) + (p.mtp ? decoder_layers : 0);
      return p;
    }
  }
  for (std::string_view s : parts)
    if (s == "embed_tokens" || s == "wte" || s == "word_embeddings" || s == "tok_embeddings") p.embedding = true;
  return p;
}

}  // namespace

Result<ModelWeights> safetensors_weights(const Architecture& arch, const std::vector<SafetensorsFile>& shards,
                                         std::vector<std::string>& warnings) {
  ModelWeights out;
  WeightBreakdown& w = out.weights;
  const std::size_t n_layers = arch.layers.size();
  const int decoder_layers = arch.decoder_layer_count();
  w.layer_bytes.assign(n_layers, 0);
  w.layer_expert_bytes.assign(n_layers, 0);
  std::size_t tensors = 0;
  bool stray = false;
  std::int64_t all_bytes = 0;
  for (const SafetensorsFile& shard : shards) {
    // Each shard is below 1 PiB (the reader's limit); the checkpoint is held to
    // 4 PiB so that the sums below stay far inside 64 bits.
    all_bytes += shard.tensor_bytes;
    if (all_bytes > (std::int64_t{1} << 52)) return Error{"safetensors.too_large", "the shards hold more than 4 PiB"};
  }
  for (const SafetensorsFile& shard : shards) {
    for (const SafetensorsTensor& t : shard.tensors) {
      ++tensors;
      const std::int64_t bytes = t.bytes();
      w.tensor_bytes += bytes;
      const Placement p = place(t.name, decoder_layers);
      if (p.layer >= 0 && static_cast<std::size_t>(p.layer) < n_layers) {
        const auto idx = static_cast<std::size_t>(p.layer);
        w.layer_bytes[idx] += bytes;
        if (p.routed) w.layer_expert_bytes[idx] += bytes;
        if (arch.layers[idx].is_mtp) w.mtp_bytes += bytes;
        else if (p.routed) w.routed_expert_bytes += bytes;
        continue;
      }
      if (p.layer >= 0) stray = true;
      if (p.mtp) {
        w.mtp_bytes += bytes;  // MTP tensors outside its layers (fc, norms)
        continue;
      }
      // Global tensors other than the embedding (lm_head, final norm, vision
      // towers) sit with the output head.
      if (p.embedding) w.token_embd_bytes += bytes;
      else w.output_bytes += bytes;
    }
  }
  if (tensors == 0) return Error{"safetensors.bad_header", "the safetensors files hold no tensors"};
  if (stray)
    warnings.push_back("the checkpoint has tensors of layers beyond config.json's num_hidden_layers; "
                       "they were counted with the output head");
  w.total_bytes = w.tensor_bytes;
  out.params = count_params(arch);
  const std::int64_t params = out.params.total + out.params.mtp;
  w.bits_per_weight = params > 0 ? static_cast<double>(w.tensor_bytes) * 8.0 / static_cast<double>(params) : 0.0;
  return out;
}

Result<ModelWeights> safetensors_index_weights(const Architecture& arch, const SafetensorsIndex& index,
                                               std::vector<std::string>& warnings) {
  if (index.total_size < 0)
    return Error{"safetensors.bad_index", "the index has no metadata.total_size; give the shards' headers instead"};
  const QuantScheme native = quant_scheme_from_name("native").value();
  ModelWeights out{compute_weights(arch, native), count_params(arch)};
  WeightBreakdown& w = out.weights;
  // Scale the computed native layout to the index's exact total.
  const double scale = w.tensor_bytes > 0 ? static_cast<double>(index.total_size) / static_cast<double>(w.tensor_bytes) : 0.0;
  auto scaled = [scale](std::int64_t bytes) { return static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * scale)); };
  std::int64_t in_layers = 0;
  for (std::size_t i = 0; i < w.layer_bytes.size(); ++i) {
    w.layer_bytes[i] = scaled(w.layer_bytes[i]);
    w.layer_expert_bytes[i] = scaled(w.layer_expert_bytes[i]);
    if (!arch.layers[i].is_mtp) in_layers += w.layer_bytes[i];
  }
  w.routed_expert_bytes = scaled(w.routed_expert_bytes);
  w.mtp_bytes = scaled(w.mtp_bytes);
  w.token_embd_bytes = scaled(w.token_embd_bytes);
  w.output_bytes = std::max<std::int64_t>(0, index.total_size - in_layers - w.mtp_bytes - w.token_embd_bytes);
  w.tensor_bytes = w.total_bytes = index.total_size;
  w.metadata_bytes = 0;
  const std::int64_t params = out.params.total + out.params.mtp;
  w.bits_per_weight = params > 0 ? static_cast<double>(w.tensor_bytes) * 8.0 / static_cast<double>(params) : 0.0;
  warnings.push_back("the total is the index's total_size; its split over layers follows config.json");
  return out;
}

}  // namespace llmsizer
