// Engine buffers against the engine logs quoted in ../shared/reference/README.md
// ("Facts for runtime memory").
#include "llmsizer/runtime.hpp"

#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::WithinRel;
using test::catalog_arch;

TEST_CASE("llama.cpp compute buffer without flash attention at 131072 tokens", "[runtime][reference]") {
  // Logged: Llama-3.1-8B, n_ctx 131072, FA off -> compute buffer 8480.01 MiB.
  RuntimeRequest r;
  r.flash_attention = false;
  r.kv_cells = 131072;
  const RuntimeBreakdown rt = compute_runtime(catalog_arch("llama-3.1-8b"), r);
  CHECK_THAT(static_cast<double>(rt.compute_bytes), WithinRel(8480.01 * static_cast<double>(kMiB), 0.01));
  // Flash attention removes the 512 x 131072 x 32 x 4 B score matrix (8 GiB).
  r.flash_attention = true;
  CHECK(compute_runtime(catalog_arch("llama-3.1-8b"), r).compute_bytes < 300 * static_cast<std::int64_t>(kMiB));
}

TEST_CASE("llama.cpp compute buffer with flash attention", "[runtime][reference]") {
  // Logged: Qwen3-1.7B Q4_K_M, context 4480 MiB (40960 tokens), compute 300 MiB.
  RuntimeRequest r;
  r.kv_cells = 40960;
  CHECK_THAT(static_cast<double>(compute_runtime(catalog_arch("qwen3-1.7b"), r).compute_bytes),
             WithinRel(300.0 * static_cast<double>(kMiB), 0.06));
  // Logged: Mistral-Small-22B, num_ctx 49152, q8_0 KV -> compute 192 MiB.
  const nlohmann::json config = {{"model_type", "mistral"}, {"hidden_size", 6144}, {"intermediate_size", 16384},
                                 {"num_attention_heads", 48}, {"num_hidden_layers", 56}, {"num_key_value_heads", 8},
                                 {"head_dim", 128}, {"vocab_size", 32768}};
  r.kv_cells = 49152;
  r.kv_type = KvType::q8_0;
  r.engine = InferenceEngine::ollama;
  CHECK_THAT(static_cast<double>(compute_runtime(test::arch_from(config), r).compute_bytes),
             WithinRel(192.0 * static_cast<double>(kMiB), 0.10));
}

TEST_CASE("vLLM activation peak and non-torch memory", "[runtime][reference]") {
  // Logged: Meta-Llama-3-8B on one H100 (SXM, NVLink): activation peak 1.26
  // GiB, non-torch 1.79 GiB; at TP=2 non-torch 3.58 GiB per GPU
  // (vllm-project/vllm#10511).
  RuntimeRequest r;
  r.engine = InferenceEngine::vllm;
  r.gpu_link = true;
  const Architecture a = catalog_arch("llama-3.1-8b");
  const RuntimeBreakdown tp1 = compute_runtime(a, r);
  CHECK_THAT(static_cast<double>(tp1.compute_bytes), WithinRel(1.26 * static_cast<double>(kGiB), 0.03));
  CHECK_THAT(static_cast<double>(tp1.non_torch_bytes), WithinRel(1.79 * static_cast<double>(kGiB), 0.001));
  r.tensor_parallel = 2;
  CHECK_THAT(static_cast<double>(compute_runtime(a, r).non_torch_bytes), WithinRel(3.58 * static_cast<double>(kGiB), 0.001));
  // Two RTX 4090s on PCIe at TP=2: "non_torch_memory takes 0.25GiB" (vllm-project/vllm#13061).
  r.gpu_link = false;
  CHECK_THAT(static_cast<double>(compute_runtime(a, r).non_torch_bytes), WithinRel(0.25 * static_cast<double>(kGiB), 0.001));
}
