// Shared by the gguf_*.cpp files: tensor names split into layer and role, the
// tensors of each layer, and the two halves of gguf_model (architecture from
// the metadata, weights from the tensors).
#pragma once
#include <string_view>
#include <vector>

#include "llmsizer/gguf.hpp"

namespace llmsizer::gguf_detail {

// "blk.12.ffn_up_exps.weight" -> layer 12, base "ffn_up_exps", suffix "weight".
// Global tensors ("token_embd.weight") have layer -1.
struct TensorName {
  int layer = -1;
  std::string_view base;
  std::string_view suffix;  // after the last '.', "" when there is none
};
TensorName parse_tensor_name(std::string_view name);

enum class Kind { token_embd, output, attention, ffn, routed_experts, norm, other };
Kind kind_of(const TensorName& name);

struct NamedTensor {
  const GgufTensorInfo* info;
  TensorName name;
};

// The tensors of one model, all split parts together, grouped by layer.
struct TensorIndex {
  std::vector<NamedTensor> global;
  std::vector<std::vector<NamedTensor>> layers;  // by blk index, up to the highest seen
  std::vector<NamedTensor> all;

  const GgufTensorInfo* find(int layer, std::string_view base, std::string_view suffix = "weight") const;
  const GgufTensorInfo* find_global(std::string_view base, std::string_view suffix = "weight") const;
};
TensorIndex index_tensors(const std::vector<const GgufFile*>& files);

// Error ids "gguf.missing_key", "gguf.bad_value".
Result<Architecture> build_architecture(const GgufFile& meta, const TensorIndex& tensors);

// Bytes per layer and kind, parameters; file_bytes is the files' size on disk.
ModelWeights measure_weights(const Architecture& arch, const TensorIndex& tensors, std::int64_t file_bytes,
                             GgufKindBytes& kinds, std::vector<std::string>& warnings);

}  // namespace llmsizer::gguf_detail
