// KV cache and recurrent state per attention kind and engine. Expected bytes
// are computed by hand in the comments.
#include "llmsizer/kv_cache.hpp"

#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using test::catalog_arch;

namespace {

KvBreakdown kv(const Architecture& arch, std::int64_t ctx, KvType type = KvType::f16,
               InferenceEngine engine = InferenceEngine::llama_cpp, std::int64_t seqs = 1) {
  KvRequest r;
  r.context_tokens = ctx;
  r.type = type;
  r.engine = engine;
  r.sequences = seqs;
  return compute_kv_cache(arch, r);
}

}  // namespace

TEST_CASE("Llama-3.1-8B at 131072 tokens in f16 is the 16384 MiB llama.cpp prints", "[kv][reference]") {
  // 2 (K,V) x 32 layers x 8 KV heads x 128 x 131072 x 2 B = 16384 MiB
  // (reference README: "KV 16384.00 MiB (K 8192 + V 8192, f16)").
  const Architecture a = catalog_arch("llama-3.1-8b");
  CHECK(kv(a, 131072).total_bytes == 16384LL * static_cast<std::int64_t>(kMiB));
  // q8_0 stores 34 bytes per 32 elements: 16384 MiB x 34/64 = 8704 MiB.
  CHECK(kv(a, 131072, KvType::q8_0).total_bytes == 8704LL * static_cast<std::int64_t>(kMiB));
  // q4_0: 18 bytes per 32 -> 16384 x 18/64 = 4608 MiB.
  CHECK(kv(a, 131072, KvType::q4_0).total_bytes == 4608LL * static_cast<std::int64_t>(kMiB));
}

TEST_CASE("llama.cpp pads the context to 256 and -np slots share it", "[kv][llama.cpp]") {
  const Architecture a = catalog_arch("llama-3.1-8b");
  // 131072 bytes per token (2 x 32 x 8 x 128 x 2 B); 1000 tokens pad to 1024.
  CHECK(kv(a, 1000).total_bytes == 1024LL * 131072);
  // Four sequences of 8192: one cache of 32768 cells.
  CHECK(kv(a, 8192, KvType::f16, InferenceEngine::llama_cpp, 4).total_bytes == 32768LL * 131072);
  // vLLM pages in 16-token blocks per sequence: 1000 -> 1008.
  CHECK(kv(a, 1000, KvType::f16, InferenceEngine::vllm).total_bytes == 1008LL * 131072);
}

TEST_CASE("Mistral-Small-22B with q8_0 at 49152 tokens: the 5712 MiB Ollama logged", "[kv][reference]") {
  // Reference README: num_ctx 49152, q8_0 KV -> KV 5712.00 MiB.
  // 56 layers x 49152 x (8 x 128 x 2) x 34/32 B = 5712 MiB.
  const nlohmann::json config = {{"model_type", "mistral"}, {"hidden_size", 6144}, {"intermediate_size", 16384},
                                 {"num_attention_heads", 48}, {"num_hidden_layers", 56}, {"num_key_value_heads", 8},
                                 {"head_dim", 128}, {"vocab_size", 32768}, {"max_position_embeddings", 131072}};
  CHECK(kv(test::arch_from(config), 49152, KvType::q8_0, InferenceEngine::ollama).total_bytes ==
        5712LL * static_cast<std::int64_t>(kMiB));
}

TEST_CASE("MLA caches the 576-wide latent, not full heads", "[kv][mla]") {
  // DeepSeek-V3: (kv_lora_rank 512 + rope 64) x 2 B x 61 layers = 70272 B per
  // token; 32768 tokens -> 2,302,672,896 B. Full heads would be 128 x (192 +
  // 128) x 2 x 61 = 4,997,120 B per token, 71x more.
  const KvBreakdown k = kv(catalog_arch("deepseek-v3"), 32768);
  CHECK(k.total_bytes == 70272LL * 32768);
  CHECK(k.bytes_per_token == 70272);
}

TEST_CASE("sliding-window layers hold the window (llama.cpp: window + ubatch, padded)", "[kv][sliding]") {
  // Gemma-2-9B at 8192: 21 global layers x 8192 cells x 8192 B (8 heads x 256
  // x 2 x 2 B) = 1,409,286,144; 21 sliding layers x pad(4096 + 512, 256) = 4608
  // cells x 8192 B = 792,723,456. Total 2,202,009,600.
  const Architecture g = catalog_arch("gemma-2-9b");
  CHECK(kv(g, 8192).total_bytes == 2202009600LL);
  // gpt-oss-20b at 131072: 12 full layers x 131072 x 2048 B (8 x 64 x 2 x 2)
  // = 3,221,225,472; 12 sliding x pad(128 + 512, 256) = 768 cells x 2048 B.
  CHECK(kv(catalog_arch("gpt-oss-20b"), 131072).total_bytes == 3221225472LL + 12LL * 768 * 2048);
  // --swa-full keeps whole contexts on the sliding layers too.
  KvRequest full;
  full.context_tokens = 8192;
  full.swa_full = true;
  CHECK(compute_kv_cache(g, full).total_bytes == 2LL * 1409286144);
}

TEST_CASE("linear attention and Mamba hold a fixed state per sequence", "[kv][hybrid]") {
  // Qwen3-Next linear layer, llama.cpp F32: conv 3 x (2 x 16 x 128 + 32 x 128)
  // = 24576 floats, state 32 x 128 x 128 = 524288 floats -> 2,195,456 B x 36.
  const Architecture q = catalog_arch("qwen3-next-80b-a3b-instruct");
  const KvBreakdown short_ctx = kv(q, 4096);
  const KvBreakdown long_ctx = kv(q, 65536);
  CHECK(short_ctx.state_bytes == 2195456LL * 36);
  CHECK(long_ctx.state_bytes == short_ctx.state_bytes);
  // Full layers: 12 x 2 KV heads x 256 x 2 x 2 B = 24576 B per token.
  CHECK(long_ctx.attention_bytes == 24576LL * 65536);
  // Nemotron-H-56B Mamba2: d_inner 16384; conv 3 x (16384 + 2 x 8 x 256) =
  // 61440 floats; state 16384 x 256 floats: 17,022,976 B x 54 layers.
  CHECK(kv(catalog_arch("nemotron-h-56b"), 4096).state_bytes == 17022976LL * 54);
  // Two sequences hold two states.
  CHECK(kv(q, 4096, KvType::f16, InferenceEngine::llama_cpp, 2).state_bytes == 2 * short_ctx.state_bytes);
}

TEST_CASE("more context or more sequences never need less KV", "[kv][property]") {
  for (const char* id : {"llama-3.1-8b", "gemma-3-27b-it", "gpt-oss-120b", "deepseek-v3", "qwen3.5-27b",
                         "nemotron-3-nano-30b-a3b", "llama-4-scout-17b-16e"}) {
    const Architecture a = catalog_arch(id);
    for (auto engine : {InferenceEngine::llama_cpp, InferenceEngine::vllm, InferenceEngine::mlx}) {
      std::int64_t previous = 0;
      for (std::int64_t ctx = 256; ctx <= 262144; ctx *= 2) {
        INFO(id << " ctx " << ctx);
        const std::int64_t bytes = kv(a, ctx, KvType::f16, engine).total_bytes;
        CHECK(bytes >= previous);
        CHECK(kv(a, ctx, KvType::f16, engine, 2).total_bytes >= bytes);
        previous = bytes;
      }
    }
  }
}

TEST_CASE("pricing the same cache in another KV type equals computing it", "[kv][types]") {
  for (const char* id : {"llama-3.1-8b", "gemma-2-9b", "deepseek-v3", "qwen3-next-80b-a3b-instruct", "deepseek-v3.2"}) {
    const Architecture a = catalog_arch(id);
    for (auto engine : {InferenceEngine::llama_cpp, InferenceEngine::vllm}) {
      const KvBreakdown base = kv(a, 10000, KvType::f16, engine, 3);
      for (KvType t : {KvType::f16, KvType::bf16, KvType::fp8, KvType::q8_0, KvType::q4_0, KvType::q5_1}) {
        INFO(id << " " << kv_type_name(t));
        CHECK(kv_bytes_as(base, t) == kv(a, 10000, t, engine, 3).total_bytes);
      }
    }
  }
}

TEST_CASE("Qwen3.8 Flash Next: 12 QSA layers with index keys, 36 delta-net states and the PLE history",
          "[kv][hybrid]") {
  // Facts: sourced_arch_facts_qwen38_dsv41.json cache_facts. At 131072 tokens, one sequence:
  //   K and V: 12 layers x 2 x 2 KV heads x 256 x 2 B = 24,576 B per token ("at 24 KB/token",
  //   a llama.cpp user's note)                              x 131072 = 3,221,225,472
  //   llama.cpp index keys, 128 per cell per QSA layer at f16: 3,072 B per token = 402,653,184
  //   delta-net state per layer: conv 3 x 10240 x 4 B (F32 in llama.cpp) 122,880 + state
  //   48 x 128 x 128 x 4 B 3,145,728 = 3,268,608 x 36 = 117,669,888; PLE conv history
  //   9 x 10240 x 4 B = 368,640                                              = 118,038,528
  const Architecture a = catalog_arch("qwen3.8-flash-next");
  const KvBreakdown llama = kv(a, 131072);
  CHECK(llama.state_bytes == 118038528LL);
  CHECK(llama.total_bytes == 3221225472LL + 402653184LL + 118038528LL);
  CHECK(llama.bytes_per_token == 24576);
  // vLLM: the DSA-style index key (128 fp8 + a 4-byte scale) per token, 1,584 B per token
  // (207,618,048); the conv state in bf16: (61,440 + 3,145,728) x 36 + 368,640 = 115,826,688.
  CHECK(kv(a, 131072, KvType::f16, InferenceEngine::vllm).total_bytes == 3221225472LL + 207618048LL + 115826688LL);
}

TEST_CASE("DeepSeek V4.1 Flash: compressed KV on the four source layers, a window everywhere", "[kv][mla]") {
  // vLLM, bf16, 131072 tokens: layers 2, 8, 14 hold 65,536 compressed entries (ratio 2) + the
  // 128-token window = 65,664 x 512 x 2 B = 67,239,936, and their index keys 132 B x 65,664 =
  // 8,667,648: x 3 = 227,722,752; layer 20 (ratio 1) min(131072, 131200) cells: 134,217,728 +
  // 17,301,504 = 151,519,232; 36 window-only layers pad(min(ctx, 128 + 16), 16) = 144 cells x
  // 1,024 B = 147,456 x 36 = 5,308,416.
  const Architecture a = catalog_arch("deepseek-v4.1-flash");
  CHECK(kv(a, 131072, KvType::f16, InferenceEngine::vllm).total_bytes == 227722752LL + 151519232LL + 5308416LL);
  // Per token the compressed cache holds 3 x 512 / 2 + 512 = 1,280 elements: 1,280 B in fp8,
  // against the vendor's 890 B in FP4 with scales (720 B KV + 170 B index keys, the tech
  // report as quoted in search-index id 68612359658); the engine has no FP4 cache type.
  const std::int64_t fp8_long = kv(a, 2 * 131072, KvType::fp8, InferenceEngine::vllm).total_bytes;
  const std::int64_t fp8_short = kv(a, 131072, KvType::fp8, InferenceEngine::vllm).total_bytes;
  CHECK(fp8_long - fp8_short == 131072LL * (1280 + 3 * 132 / 2 + 132));
}
