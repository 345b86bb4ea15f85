// ggml tensor storage types: elements per block and bytes per block, exact from
// ggml's type_traits (see data/quant_types.json for the source).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace llmsizer {

enum class GgmlType {
  F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
  Q2_K, Q3_K, Q4_K, Q5_K, Q6_K,
  IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ4_NL, IQ4_XS,
  TQ1_0, TQ2_0, MXFP4,
  F8_E4M3,  // 1-byte fp8 for native checkpoints (not a ggml type)
  // Types that GGUF files may hold but llama-quantize's file types do not choose.
  Q8_1, Q8_K, I8, I16, I32, I64, F64, NVFP4, Q1_0, Q2_0
};

struct GgmlTypeTraits {
  std::string_view name;
  std::int64_t block_elements;
  std::int64_t block_bytes;
};

const GgmlTypeTraits& traits(GgmlType type);
std::optional<GgmlType> ggml_type_from_name(std::string_view name);
// The type of a GGUF tensor info's ggml_type id (enum ggml_type); nullopt for ids
// ggml never had or has removed (4, 5, 31-33, 36-38).
std::optional<GgmlType> ggml_type_from_id(std::uint32_t ggml_id);

// Bytes of a tensor whose rows hold row_elements each (row_elements must be a
// multiple of the block size: callers choose a fallback type otherwise).
inline std::int64_t tensor_bytes(GgmlType type, std::int64_t row_elements, std::int64_t rows) {
  const GgmlTypeTraits& t = traits(type);
  return row_elements / t.block_elements * t.block_bytes * rows;
}

}  // namespace llmsizer
