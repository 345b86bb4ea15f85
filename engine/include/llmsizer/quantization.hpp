// Quantization schemes: llama.cpp file types (replaying llama-quantize's
// per-tensor choices), labelled third-party GGUF mixes, and native checkpoint
// formats (BF16, FP8 block, MXFP4, AWQ/GPTQ, NF4, MLX).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/ggml_types.hpp"
#include "llmsizer/result.hpp"
#include "llmsizer/tensors.hpp"

namespace llmsizer {

enum class LlamaFtype {
  ALL_F32, F16, BF16, Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q5_0, Q5_1, Q4_K_M, Q4_K_S, Q4_0, Q4_1,
  Q3_K_L, Q3_K_M, Q3_K_S, Q2_K, Q2_K_S, IQ4_XS, IQ4_NL, IQ3_M, IQ3_S, IQ3_XS, IQ3_XXS,
  IQ2_M, IQ2_S, IQ2_XS, IQ2_XXS, IQ1_M, IQ1_S, TQ1_0, TQ2_0, MXFP4_MOE
};

enum class SchemeKind {
  gguf,          // llama-quantize file type, rules replayed exactly
  gguf_q8_edges, // bartowski *_L / *_XL: the file type with Q8_0 embedding and output
  gguf_dynamic,  // unsloth UD-*: approximation of the dynamic mix (labelled)
  native,        // the checkpoint as published (config's dtype / quantization_config)
  bf16, fp16, fp8_block, mxfp4, nvfp4, awq_int4, gptq_int4, nf4, mlx_4bit, mlx_8bit
};

struct QuantScheme {
  std::string name;  // as the user wrote it, canonicalised (e.g. "Q4_K_M")
  SchemeKind kind = SchemeKind::gguf;
  LlamaFtype ftype = LlamaFtype::F16;  // gguf kinds only
  bool approximate = false;            // third-party mixes: a model of the recipe, not its replay
  bool is_gguf() const {
    return kind == SchemeKind::gguf || kind == SchemeKind::gguf_q8_edges || kind == SchemeKind::gguf_dynamic;
  }
};

// Error id "quant.unknown" with the list of accepted names.
Result<QuantScheme> quant_scheme_from_name(std::string_view name);
std::vector<std::string> quant_scheme_names();

// The ggml type llama-quantize gives each tensor for this file type.
std::vector<GgmlType> gguf_tensor_types(const Architecture& arch, const std::vector<TensorInfo>& tensors,
                                        const QuantScheme& scheme);

}  // namespace llmsizer
