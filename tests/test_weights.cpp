// Weight bytes: replaying llama-quantize tensor by tensor, checked against
// llama.cpp's own size table and real GGUF files.
#include "llmsizer/weights.hpp"

#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using test::catalog_arch;

namespace {

WeightBreakdown weights_of(const Architecture& arch, const std::string& quant) {
  auto scheme = quant_scheme_from_name(quant);
  if (!scheme) FAIL(scheme.error().message);
  return compute_weights(arch, scheme.value());
}

}  // namespace

TEST_CASE("block sizes are ggml's", "[weights][ggml]") {
  // ../shared/reference/quant_types.json (ggml type_traits): Q4_K 256 elements
  // in 144 bytes, Q8_0 32 in 34, IQ2_XXS 256 in 66, MXFP4 32 in 17.
  CHECK(tensor_bytes(GgmlType::Q4_K, 4096, 4096) == 4096LL * 4096 / 256 * 144);
  CHECK(tensor_bytes(GgmlType::Q8_0, 4096, 1) == 4096 / 32 * 34);
  CHECK(tensor_bytes(GgmlType::IQ2_XXS, 256, 1) == 66);
  CHECK(tensor_bytes(GgmlType::MXFP4, 2880, 1) == 2880 / 32 * 17);
}

TEST_CASE("Llama-3.1-8B matches llama.cpp's size table for every file type", "[weights][reference]") {
  // Source: ../shared/reference/quant_types.json measured_llama_3_1_8b
  // (llama.cpp tools/quantize/README.md): bits per weight of the whole file.
  const Architecture arch = catalog_arch("llama-3.1-8b");
  const nlohmann::json table = test::golden("llama31_8b_size_table.json");
  for (const auto& row : table["rows"]) {
    const std::string quant = row["quant"];
    INFO(quant);
    const WeightBreakdown w = weights_of(arch, quant);
    CHECK_THAT(w.bits_per_weight, WithinAbs(row["bits_per_weight"].get<double>(), 0.0005));
  }
}

TEST_CASE("real GGUF files are sized within 1%", "[weights][reference]") {
  // Source: tests/golden/gguf_file_sizes.json, from ../shared/reference/gguf_sizes.json.
  const nlohmann::json golden = test::golden("gguf_file_sizes.json");
  for (const auto& c : golden["cases"]) {
    INFO(c["repo"].get<std::string>() << " " << c["quant"].get<std::string>());
    const Architecture arch = c.contains("model") ? catalog_arch(c["model"]) : test::arch_from(c["config"]);
    const WeightBreakdown w = weights_of(arch, c["quant"]);
    CHECK_THAT(static_cast<double>(w.total_bytes),
               WithinRel(c["size_bytes"].get<double>(), c["tolerance_rel"].get<double>()));
  }
}

TEST_CASE("Q4_K_M keeps output at Q6_K and bumps half of attn_v/ffn_down", "[weights][mix]") {
  // Q4_K_M bits per weight must sit between pure Q4_K (4.5) and Q6_K (6.5625),
  // and Q4_K_S (4.6672 measured) below Q4_K_M (4.8944 measured).
  const Architecture arch = catalog_arch("llama-3.1-8b");
  const double m = weights_of(arch, "Q4_K_M").bits_per_weight;
  const double s = weights_of(arch, "Q4_K_S").bits_per_weight;
  CHECK(m > s);
  CHECK(s > 4.5);
  CHECK(m < 6.5625);
}

TEST_CASE("rows not divisible by 256 fall back: gpt-oss hidden 2880", "[weights][fallback]") {
  // 2880 % 256 != 0, so K-quant tensors fall back (Q4_K -> Q5_0) and the
  // experts stay MXFP4 whatever the label: Q4_K_M is barely smaller than Q8_0.
  const Architecture arch = catalog_arch("gpt-oss-20b");
  const WeightBreakdown q4 = weights_of(arch, "Q4_K_M");
  const WeightBreakdown q8 = weights_of(arch, "Q8_0");
  const WeightBreakdown mx = weights_of(arch, "MXFP4_MOE");
  // Experts: 24 layers x 32 experts x 3 x 2880 x 2880 weights at 17/32 bytes.
  const std::int64_t expert_bytes = 24LL * 32 * 3 * 2880 * 2880 / 32 * 17;
  CHECK(q4.routed_expert_bytes == expert_bytes);
  CHECK(q8.routed_expert_bytes == expert_bytes);
  CHECK(mx.routed_expert_bytes == expert_bytes);
  CHECK(static_cast<double>(q4.total_bytes) / static_cast<double>(q8.total_bytes) > 0.85);
}

TEST_CASE("native checkpoints: BF16, FP8 block scales, MXFP4, 4-bit formats", "[weights][native]") {
  const Architecture llama = catalog_arch("llama-3.1-8b");
  const std::int64_t n = 8030261248LL;
  // BF16: 2 bytes a weight, norms included (the file holds them as bf16 too,
  // but they are 0.0003% of it).
  CHECK_THAT(static_cast<double>(weights_of(llama, "BF16-native").total_bytes), WithinRel(2.0 * n, 0.001));
  // AWQ/GPTQ group 128: (4 + 20/128) bits on the linear layers, fp16 embeddings and head.
  const double embed_and_head = 2.0 * 525336576.0;
  const double awq = (n - embed_and_head) * (4.0 + 20.0 / 128.0) / 8.0 + embed_and_head * 2.0;
  CHECK_THAT(static_cast<double>(weights_of(llama, "AWQ").total_bytes), WithinRel(awq, 0.001));
  // MXFP4 of a model not published in it: AMD Quark's checkpoints, every
  // linear layer at 4 bits + an 8-bit scale per 32 (4.25 bits), the
  // embeddings and head bf16: (8030261248 - 1050673152) x 4.25 / 8 + 1050673152 x 2
  // = 3,707,906,176 + 2,101,346,304 = 5,809,252,480 bytes (not 16 GB: nothing
  // was quantized when MXFP4 meant experts only, and Llama has none).
  const double mxfp4 = (n - embed_and_head) * 4.25 / 8.0 + embed_and_head * 2.0;
  CHECK_THAT(static_cast<double>(weights_of(llama, "MXFP4").total_bytes), WithinRel(mxfp4, 0.001));
  // MLX 4-bit group 64: 4.5 bits for everything.
  CHECK_THAT(static_cast<double>(weights_of(llama, "MLX-4bit").total_bytes), WithinRel(n * 4.5 / 8.0, 0.001));
  // DeepSeek-V3 as published: FP8 e4m3 + one fp32 scale per 128x128 block,
  // bf16 embedding and head; with the MTP layer about 685B weights, ~690 GB.
  const Architecture ds = catalog_arch("deepseek-v3");
  const double native = static_cast<double>(weights_of(ds, "native").total_bytes);
  CHECK(native > 680e9);
  CHECK(native < 700e9);
  // gpt-oss-120b as published: MXFP4 experts (4.25 bits) + bf16 rest: the
  // release is about 65 GB (OpenAI: "fits on a single 80GB GPU").
  const double oss = static_cast<double>(weights_of(catalog_arch("gpt-oss-120b"), "native").total_bytes);
  CHECK(oss > 60e9);
  CHECK(oss < 66e9);
  // Asked for as MXFP4 it is the same checkpoint: its own layout, not Quark's.
  CHECK(weights_of(catalog_arch("gpt-oss-120b"), "MXFP4").total_bytes ==
        weights_of(catalog_arch("gpt-oss-120b"), "native").total_bytes);
}

TEST_CASE("more bits per weight never give fewer bytes", "[weights][property]") {
  const char* ladder[] = {"IQ1_S", "IQ2_XXS", "IQ2_M", "Q2_K", "IQ3_M", "Q3_K_M", "Q4_K_S",
                          "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16", "F32"};
  for (const char* id : {"llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3", "gemma-2-9b"}) {
    const Architecture arch = catalog_arch(id);
    std::int64_t previous = 0;
    for (const char* q : ladder) {
      INFO(id << " " << q);
      const std::int64_t bytes = weights_of(arch, q).total_bytes;
      CHECK(bytes >= previous);
      previous = bytes;
    }
  }
}

TEST_CASE("third-party mixes are labelled approximate; unknown names are refused", "[weights][names]") {
  CHECK(quant_scheme_from_name("UD-Q4_K_XL").value().approximate);
  CHECK(quant_scheme_from_name("Q4_K_L").value().kind == SchemeKind::gguf_q8_edges);
  CHECK_FALSE(quant_scheme_from_name("q4_k_m").value().approximate);  // case-insensitive
  CHECK(quant_scheme_from_name("Q4_K").value().name == "Q4_K_M");     // llama-quantize alias
  auto bad = quant_scheme_from_name("Q9_Z");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().id == "quant.unknown");
  // bartowski's Q4_K_L: Q4_K_M with Q8_0 embedding and output: 5.31 GB for
  // Llama-3.1-8B (../shared/reference/gguf_sizes.json, decimal GB as listed).
  CHECK_THAT(static_cast<double>(weights_of(catalog_arch("llama-3.1-8b"), "Q4_K_L").total_bytes),
             WithinRel(5.31e9, 0.01));
}

TEST_CASE("Qwen3.8 and DeepSeek V4.1 native checkpoints against their files", "[weights][native]") {
  // Sizes: sourced_arch_facts_qwen38_dsv41.json files. Qwen's BF16 shards sum to
  // 360,000,192,888 bytes (with a 27-layer vision tower the text count leaves out: the engine
  // is 0.2% below); the FP8 release is 172.78 GiB, 2.4% above the engine's FP8 block count
  // (which tensors it keeps in BF16 besides lm_head is not stated).
  const Architecture qwen = catalog_arch("qwen3.8-flash-next");
  const WeightBreakdown bf16 = weights_of(qwen, "native");
  CHECK_THAT(static_cast<double>(bf16.total_bytes), WithinRel(360000192888.0, 0.005));
  CHECK_THAT(static_cast<double>(weights_of(qwen, "fp8").total_bytes), WithinRel(172.78 * 1073741824.0, 0.03));
  // The n-gram table sits with the token embedding, outside every layer's bytes (what a
  // decode step reads): (248320 x 2560 + 320,001,536 x 160) x 2 B.
  CHECK(bf16.token_embd_bytes == (248320LL * 2560 + 320001536LL * 160) * 2);
  std::int64_t in_layers = 0;
  for (const std::int64_t b : bf16.layer_bytes) in_layers += b;
  CHECK(in_layers + bf16.token_embd_bytes + bf16.output_bytes == bf16.tensor_bytes);
  // DeepSeek V4.1: the checkpoint is 96,085 tensors / 475.2 GiB (colibri), with a vision tower
  // of about 2.3 GiB the count leaves out. Engram rows are FP8 with an E8M0 scale per 32:
  // 264 B per 256-wide row, 768,022,850 rows = 202,758,032,400 B (the source's 188.8 GiB),
  // beside a BF16 embedding of 129280 x 5120 x 2 B.
  const WeightBreakdown ds = weights_of(catalog_arch("deepseek-v4.1-flash"), "native");
  CHECK(ds.token_embd_bytes == 202758032400LL + 129280LL * 5120 * 2);
  CHECK_THAT(static_cast<double>(ds.total_bytes), WithinRel(475.2 * 1073741824.0, 0.005));
}

TEST_CASE("native INT4 and FP8 releases whose configs say so in compressed-tensors terms", "[weights][native]") {
  // Kimi K2.5 (compressed-tensors pack-quantized, routed experts only, group 32):
  // 60 MoE layers x 384 experts x 3 matrices x 7168 x 2048 = 1,014,686,023,680
  // expert weights at 4 + 16/32 = 4.5 bits = 570,760,888,320 B; the other
  // 11,722,208,768 weights (embedding and head 2 x 163840 x 7168, MLA attention
  // 61 x 101,122,048, dense layer 0 3 x 7168 x 18432, shared experts
  // 60 x 3 x 7168 x 2048, routers, norms) in bf16: 23,444,417,536 B.
  // Sum 594,205,305,856 B; the routers' fp32 adds 0.06%.
  const WeightBreakdown k25 = weights_of(catalog_arch("kimi-k2.5"), "native");
  CHECK_THAT(static_cast<double>(k25.total_bytes), WithinRel(594205305856.0, 0.002));
  CHECK_THAT(static_cast<double>(k25.routed_expert_bytes), WithinRel(570760888320.0, 0.0001));
  // Kimi K2 Thinking's trimmed config has no quantization_config: the catalog's
  // native_dtype (int4, same layout) gives the same bytes, not 2 TB of bf16.
  CHECK_THAT(static_cast<double>(weights_of(catalog_arch("kimi-k2-thinking"), "native").total_bytes),
             WithinRel(static_cast<double>(k25.total_bytes), 1e-6));
  // Kimi K3 (mxfp4-pack-quantized experts): "The official checkpoint is around
  // 1.56 TB" (FareedKhan-dev/kimi-k3-in-c#3, 2026-08-03).
  CHECK_THAT(static_cast<double>(weights_of(catalog_arch("kimi-k3"), "native").total_bytes), WithinRel(1.56e12, 0.01));
  // GLM-4.5-FP8 (float-quantized, every linear layer but the head): the same
  // bytes as the FP8 scheme of GLM-4.5, about half its BF16 file.
  const Architecture glm = catalog_arch("glm-4.5");
  const double fp8 = static_cast<double>(weights_of(glm, "FP8").total_bytes);
  CHECK_THAT(static_cast<double>(weights_of(catalog_arch("glm-4.5-fp8"), "native").total_bytes), WithinRel(fp8, 0.001));
  // GLM-4.7-FP8's trimmed copy (no quantization_config, no MTP count) takes the catalog's fp8.
  const Architecture glm47 = catalog_arch("glm-4.7-fp8");
  CHECK(weights_of(glm47, "native").total_bytes == weights_of(glm47, "FP8").total_bytes);
  CHECK(fp8 < 0.51 * static_cast<double>(weights_of(glm, "native").total_bytes));
}
