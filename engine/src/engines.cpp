#include "llmsizer/engines.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace llmsizer {
namespace {

constexpr std::array<std::pair<std::string_view, InferenceEngine>, 7> kEngines = {{
    {"llama.cpp", InferenceEngine::llama_cpp}, {"ollama", InferenceEngine::ollama},
    {"vllm", InferenceEngine::vllm},           {"sglang", InferenceEngine::sglang},
    {"mlx", InferenceEngine::mlx},             {"tensorrt-llm", InferenceEngine::tensorrt_llm},
    {"llamacpp", InferenceEngine::llama_cpp},
}};
constexpr std::array<std::pair<std::string_view, KvType>, 8> kKvTypes = {{
    {"f16", KvType::f16},   {"bf16", KvType::bf16}, {"fp8", KvType::fp8},   {"q8_0", KvType::q8_0},
    {"q4_0", KvType::q4_0}, {"q4_1", KvType::q4_1}, {"q5_0", KvType::q5_0}, {"q5_1", KvType::q5_1},
}};

// Names as people write them ("vLLM", "SGLang", "TensorRT-LLM", "Q8_0"): the
// tables' names are lower case, matched without regard to ASCII case.
bool same_name(std::string_view table_name, std::string_view name) {
  return std::equal(table_name.begin(), table_name.end(), name.begin(), name.end(), [](char t, char c) {
    return t == static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
}

}  // namespace

std::optional<InferenceEngine> engine_from_name(std::string_view name) {
  for (const auto& [n, e] : kEngines)
    if (same_name(n, name)) return e;
  return std::nullopt;
}
std::string_view engine_name(InferenceEngine engine) {
  for (const auto& [n, e] : kEngines)
    if (e == engine) return n;
  return "llama.cpp";
}
std::optional<KvType> kv_type_from_name(std::string_view name) {
  for (const auto& [n, t] : kKvTypes)
    if (same_name(n, name)) return t;
  return std::nullopt;
}
std::string_view kv_type_name(KvType type) {
  for (const auto& [n, t] : kKvTypes)
    if (t == type) return n;
  return "f16";
}

bool engine_supports_kv_type(InferenceEngine engine, KvType type) {
  switch (engine) {
    case InferenceEngine::llama_cpp: return type != KvType::fp8;
    case InferenceEngine::ollama: return type == KvType::f16 || type == KvType::q8_0 || type == KvType::q4_0;
    case InferenceEngine::vllm:
    case InferenceEngine::sglang:
    case InferenceEngine::tensorrt_llm: return type == KvType::f16 || type == KvType::bf16 || type == KvType::fp8;
    case InferenceEngine::mlx: return type == KvType::f16 || type == KvType::bf16 || type == KvType::q8_0 || type == KvType::q4_0;
  }
  return false;
}

}  // namespace llmsizer
