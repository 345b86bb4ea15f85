// GGUF tensor names as llama.cpp writes them (llama-arch.cpp LLM_TENSOR_NAMES):
// "blk.N.<role>.<suffix>" per layer, "<role>.<suffix>" for global tensors.
#include <algorithm>

#include "gguf_internal.hpp"

namespace llmsizer::gguf_detail {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Layers beyond this are not layers but a malformed name (llama.cpp allows 512).
constexpr int kMaxLayerIndex = 1 << 16;

}  // namespace

TensorName parse_tensor_name(std::string_view name) {
  TensorName out;
  std::string_view rest = name;
  if (starts_with(rest, "blk.")) {
    std::size_t i = 4;
    long long layer = 0;
    while (i < rest.size() && i < 4 + 6 && rest[i] >= '0' && rest[i] <= '9') layer = layer * 10 + (rest[i++] - '0');
    if (i > 4 && i < rest.size() && rest[i] == '.' && layer < kMaxLayerIndex) {
      out.layer = static_cast<int>(layer);
      rest = rest.substr(i + 1);
    }
  }
  const std::size_t dot = rest.rfind('.');
  if (dot == std::string_view::npos) {
    out.base = rest;
  } else {
    out.base = rest.substr(0, dot);
    out.suffix = rest.substr(dot + 1);
  }
  return out;
}

Kind kind_of(const TensorName& n) {
  if (n.layer < 0) {
    if (n.base == "token_embd" || n.base == "per_layer_token_embd") return Kind::token_embd;
    return Kind::output;
  }
  const std::string_view b = n.base;
  if (b.find("_exps") != std::string_view::npos) return Kind::routed_experts;
  if (ends_with(b, "norm")) return Kind::norm;
  if (starts_with(b, "attn_") || starts_with(b, "ssm_") || starts_with(b, "time_mix") || starts_with(b, "shortconv"))
    return Kind::attention;
  if (starts_with(b, "ffn_") || b == "exp_probs_b") return Kind::ffn;
  return Kind::other;
}

const GgufTensorInfo* TensorIndex::find(int layer, std::string_view base, std::string_view suffix) const {
  if (layer < 0 || static_cast<std::size_t>(layer) >= layers.size()) return nullptr;
  for (const NamedTensor& t : layers[static_cast<std::size_t>(layer)])
    if (t.name.base == base && t.name.suffix == suffix) return t.info;
  return nullptr;
}

const GgufTensorInfo* TensorIndex::find_global(std::string_view base, std::string_view suffix) const {
  for (const NamedTensor& t : global)
    if (t.name.base == base && t.name.suffix == suffix) return t.info;
  return nullptr;
}

TensorIndex index_tensors(const std::vector<const GgufFile*>& files) {
  TensorIndex index;
  for (const GgufFile* file : files) {
    for (const GgufTensorInfo& info : file->tensors) {
      NamedTensor t{&info, parse_tensor_name(info.name)};
      index.all.push_back(t);
      if (t.name.layer < 0) {
        index.global.push_back(t);
        continue;
      }
      const auto layer = static_cast<std::size_t>(t.name.layer);
      if (index.layers.size() <= layer) index.layers.resize(layer + 1);
      index.layers[layer].push_back(t);
    }
  }
  return index;
}

}  // namespace llmsizer::gguf_detail
