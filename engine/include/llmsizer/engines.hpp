// Inference engines and KV element types, as stable strings for CLI and bindings.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace llmsizer {

enum class InferenceEngine { llama_cpp, ollama, vllm, sglang, mlx, tensorrt_llm };
enum class KvType { f16, bf16, fp8, q8_0, q4_0, q4_1, q5_0, q5_1 };
constexpr std::size_t kKvTypeCount = 8;

std::optional<InferenceEngine> engine_from_name(std::string_view name);
std::string_view engine_name(InferenceEngine engine);
std::optional<KvType> kv_type_from_name(std::string_view name);
std::string_view kv_type_name(KvType type);

// Engines that pre-allocate a KV pool from a memory fraction instead of sizing to the request.
inline bool engine_uses_kv_pool(InferenceEngine e) {
  return e == InferenceEngine::vllm || e == InferenceEngine::sglang || e == InferenceEngine::tensorrt_llm;
}
inline bool engine_is_llama_cpp_based(InferenceEngine e) {
  return e == InferenceEngine::llama_cpp || e == InferenceEngine::ollama;
}
// The KV element type an engine uses unless told otherwise: llama.cpp, Ollama
// and MLX keep f16; the paged engines keep the model's dtype (bf16).
inline KvType default_kv_type(InferenceEngine e) { return engine_uses_kv_pool(e) ? KvType::bf16 : KvType::f16; }
// The quantization an engine runs unasked: GGUF Q4_K_M for llama.cpp and
// Ollama, or the model's own GGUF type where it has one (the catalog's
// gguf_default_quant: gpt-oss's MXFP4_MOE); MLX-LM's 4-bit; the published
// checkpoint for the serving engines.
inline std::string_view default_quant_name(InferenceEngine e, std::string_view model_gguf_default = {}) {
  if (engine_is_llama_cpp_based(e)) return model_gguf_default.empty() ? "Q4_K_M" : model_gguf_default;
  return e == InferenceEngine::mlx ? "MLX-4bit" : "native";
}
// Whether the engine can hold the KV cache in this element type.
bool engine_supports_kv_type(InferenceEngine engine, KvType type);

}  // namespace llmsizer
