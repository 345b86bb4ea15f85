// config.json -> Architecture, per family. Expected values are read off the
// configs by hand (field names in the comments).
#include "llmsizer/config_reader.hpp"

#include "test_support.hpp"

using namespace llmsizer;
using nlohmann::json;
using test::arch_from;
using test::catalog_arch;

namespace {

int count_kind(const Architecture& a, AttentionKind kind) {
  int n = 0;
  for (const auto& l : a.layers) n += (!l.is_mtp && l.attn.kind == kind) ? 1 : 0;
  return n;
}

json llama_like() {
  return {{"model_type", "llama"},        {"hidden_size", 4096},        {"intermediate_size", 14336},
          {"num_attention_heads", 32},    {"num_hidden_layers", 32},    {"num_key_value_heads", 8},
          {"vocab_size", 128256},         {"max_position_embeddings", 131072}};
}

}  // namespace

TEST_CASE("dense GQA: head_dim from hidden/heads unless the config gives it", "[config][dense]") {
  Architecture a = arch_from(llama_like());
  REQUIRE(a.layers.size() == 32);
  CHECK(a.layers[0].attn.n_kv_heads == 8);
  CHECK(a.layers[0].attn.head_dim_k == 128);  // 4096 / 32
  CHECK(a.layers[0].ffn.kind == FfnKind::dense);
  CHECK(a.max_context_tokens == 131072);
  CHECK(a.warnings.empty());
  json c = llama_like();
  c["head_dim"] = 64;  // Llama-3.2-1B style explicit head_dim
  CHECK(arch_from(c).layers[0].attn.head_dim_k == 64);
}

TEST_CASE("qwen2 has q/k/v biases without an attention_bias field", "[config][dense]") {
  Architecture a = catalog_arch("qwen2.5-7b");
  CHECK(a.layers[0].attn.qkv_bias);
  CHECK_FALSE(a.layers[0].attn.o_bias);
  CHECK(a.layers[0].attn.n_kv_heads == 4);  // num_key_value_heads 4
  // use_sliding_window false: every layer full attention.
  CHECK(count_kind(a, AttentionKind::sliding) == 0);
}

TEST_CASE("gemma 2 alternates sliding and global layers; gemma 3 keeps one global in six", "[config][sliding]") {
  Architecture g2 = catalog_arch("gemma-2-9b");
  CHECK(g2.layers.size() == 42);
  CHECK(count_kind(g2, AttentionKind::sliding) == 21);
  CHECK(g2.layers[0].attn.kind == AttentionKind::sliding);
  CHECK(g2.layers[0].attn.window_tokens == 4096);
  CHECK(g2.tied_embeddings);  // Gemma ties its head by default
  Architecture g3 = catalog_arch("gemma-3-27b-it");
  CHECK(g3.layers.size() == 62);
  // Layers 5, 11, ..., 59 are global: 10 of 62.
  CHECK(count_kind(g3, AttentionKind::full) == 10);
  CHECK(g3.layers[0].attn.window_tokens == 1024);
  CHECK(g3.vocab_size == 262208);  // Gemma3TextConfig default: the field is absent
}

TEST_CASE("gpt-oss: layer_types, sinks, MXFP4 experts", "[config][moe]") {
  Architecture a = catalog_arch("gpt-oss-120b");
  CHECK(a.layers.size() == 36);
  CHECK(count_kind(a, AttentionKind::sliding) == 18);
  CHECK(a.layers[0].attn.window_tokens == 128);
  CHECK(a.layers[0].attn.sinks);
  CHECK(a.layers[0].ffn.n_experts == 128);
  CHECK(a.layers[0].ffn.n_experts_used == 4);
  CHECK(a.native_format == NativeFormat::mxfp4_experts);
}

TEST_CASE("DeepSeek-V3: MLA, 3 dense layers, shared expert, one MTP layer", "[config][mla]") {
  Architecture a = catalog_arch("deepseek-v3");
  REQUIRE(a.layers.size() == 62);  // 61 + 1 MTP
  CHECK(a.decoder_layer_count() == 61);
  CHECK(a.layers[61].is_mtp);
  CHECK(a.layers[0].ffn.kind == FfnKind::dense);
  CHECK(a.layers[2].ffn.kind == FfnKind::dense);
  CHECK(a.layers[3].ffn.kind == FfnKind::moe);
  CHECK(a.layers[3].ffn.n_experts == 256);
  CHECK(a.layers[3].ffn.shared_intermediate == 2048);
  CHECK(a.layers[3].ffn.router_bias);  // topk_method noaux_tc
  CHECK(a.layers[0].attn.mla);
  CHECK(a.layers[0].attn.kv_lora_rank == 512);
  CHECK(a.layers[0].attn.qk_rope_dim == 64);
  CHECK(a.native_format == NativeFormat::fp8_block);
  CHECK(a.fp8_weight_block == 128);  // quantization_config.weight_block_size [128, 128]
  CHECK_FALSE(a.mtp_in_gguf);  // llama.cpp's converter drops DeepSeek's MTP layer
  // DeepSeek V4.1 Flash's blocks are [32, 32]; a BF16 model has none.
  CHECK(catalog_arch("deepseek-v4.1-flash").fp8_weight_block == 32);
  CHECK(catalog_arch("glm-4.5").fp8_weight_block == 0);
}

TEST_CASE("GLM-4.5 keeps its next-token-prediction layer in GGUF", "[config][moe]") {
  Architecture a = catalog_arch("glm-4.5");
  CHECK(a.decoder_layer_count() == 92);
  CHECK(a.layers.size() == 93);
  CHECK(a.mtp_in_gguf);
  CHECK(a.layers[0].ffn.kind == FfnKind::dense);  // first_k_dense_replace 3
  CHECK(a.layers[3].ffn.n_experts == 160);
}

TEST_CASE("Llama 4: chunked local layers, every fourth global, all MoE with a shared expert", "[config][moe]") {
  Architecture a = catalog_arch("llama-4-scout-17b-16e");
  CHECK(a.layers.size() == 48);
  CHECK(count_kind(a, AttentionKind::chunked) == 36);
  CHECK(a.layers[0].attn.window_tokens == 8192);  // attention_chunk_size
  CHECK(a.layers[3].attn.kind == AttentionKind::full);
  CHECK(a.layers[0].ffn.kind == FfnKind::moe);
  CHECK(a.layers[0].ffn.n_experts == 16);
  CHECK(a.layers[0].ffn.shared_intermediate == 8192);
  // Maverick interleaves: interleave_moe_layer_step 2 -> odd layers MoE.
  Architecture m = catalog_arch("llama-4-maverick-17b-128e");
  CHECK(m.layers[0].ffn.kind == FfnKind::dense);
  CHECK(m.layers[0].ffn.intermediate == 16384);  // intermediate_size_mlp
  CHECK(m.layers[1].ffn.kind == FfnKind::moe);
}

TEST_CASE("Qwen3-Next: three linear-attention layers per full one", "[config][hybrid]") {
  Architecture a = catalog_arch("qwen3-next-80b-a3b-instruct");
  CHECK(a.decoder_layer_count() == 48);
  CHECK(count_kind(a, AttentionKind::full) == 12);
  CHECK(count_kind(a, AttentionKind::linear) == 36);
  CHECK(a.layers[3].attn.kind == AttentionKind::full);
  CHECK(a.layers[3].attn.output_gate);
  CHECK(a.layers[0].attn.linear_v_heads == 32);
  CHECK(a.layers[0].ffn.n_experts == 512);
}

TEST_CASE("Qwen3.5 reads its layer_types under text_config", "[config][hybrid]") {
  Architecture a = catalog_arch("qwen3.5-27b");
  CHECK(a.decoder_layer_count() == 64);
  CHECK(count_kind(a, AttentionKind::full) == 16);
  CHECK(a.layers[0].attn.linear_v_heads == 48);
  Architecture moe = catalog_arch("qwen3.5-35b-a3b");
  CHECK(moe.layers[0].ffn.kind == FfnKind::moe);  // no intermediate_size needed
}

TEST_CASE("Nemotron-H: one mixer per pattern letter", "[config][hybrid]") {
  Architecture a = catalog_arch("nemotron-h-56b");
  // "M-M-M-M*-..." : 118 letters, 54 M, 10 *, 54 -.
  CHECK(a.layers.size() == 118);
  CHECK(count_kind(a, AttentionKind::mamba2) == 54);
  CHECK(count_kind(a, AttentionKind::full) == 10);
  CHECK(a.layers[1].ffn.kind == FfnKind::dense);
  CHECK_FALSE(a.layers[1].ffn.gated);  // relu2 MLP
  CHECK(a.layers[0].attn.ssm_heads == 256);
  // Nemotron 3 Ultra lists its layers as layers_block_type without num_hidden_layers.
  Architecture ultra = catalog_arch("nemotron-3-ultra-550b-a55b");
  CHECK(ultra.decoder_layer_count() == 108);
  CHECK(count_kind(ultra, AttentionKind::full) == 12);
}

TEST_CASE("Gemma 4 full layers share K as V with their own head count", "[config][sliding]") {
  Architecture a = catalog_arch("gemma-4-26b-a4b");
  const LayerSpec& full = a.layers[5];
  CHECK(full.attn.kind == AttentionKind::full);
  CHECK(full.attn.k_eq_v);
  CHECK(full.attn.n_kv_heads == 2);    // num_global_key_value_heads
  CHECK(full.attn.head_dim_k == 512);  // global_head_dim
  CHECK(a.layers[0].attn.kind == AttentionKind::sliding);
  CHECK(a.layers[0].ffn.parallel_dense_intermediate == 2112);
}

TEST_CASE("unknown model_type with standard fields is sized as dense, with a warning", "[config][errors]") {
  json c = llama_like();
  c["model_type"] = "brand_new_arch";
  Architecture a = arch_from(c);
  CHECK(a.layers.size() == 32);
  REQUIRE(a.warnings.size() == 1);
  CHECK(a.warnings[0].find("brand_new_arch") != std::string::npos);
}

TEST_CASE("a config lacking a needed field is refused, naming the field", "[config][errors]") {
  json c = llama_like();
  c.erase("num_attention_heads");
  auto r = read_hf_config_text(c.dump());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().id == "config.missing_field");
  CHECK(r.error().message == "config.json lacks the field /num_attention_heads needed to size this model");

  json nested = {{"model_type", "gemma3"}, {"text_config", {{"hidden_size", 2560}, {"num_hidden_layers", 34}}}};
  auto n = read_hf_config_text(nested.dump());
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message.find("/text_config/num_attention_heads") != std::string::npos);
}

TEST_CASE("malformed configs get a clear error, not a crash", "[config][errors]") {
  CHECK(read_hf_config_text("{not json").error().id == "config.not_json");
  // Where, as an editor counts: line 2, column 19 is the 'x' of "40x96" (1-based).
  CHECK(read_hf_config_text("{\"model_type\": \"llama\",\n \"hidden_size\": 40x96}").error().message ==
        "config.json is not valid JSON at line 2, column 19");
  CHECK(read_hf_config_text("{\"a\": 1").error().message == "config.json is not valid JSON at line 1, column 8");  // just past the end
  CHECK(read_hf_config_text("[1,2,3]").error().id == "config.not_object");
  json c = llama_like();
  c["hidden_size"] = -5;
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
  c["hidden_size"] = "4096";
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
  c["hidden_size"] = 1e300;
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
  c = llama_like();
  c["num_key_value_heads"] = 64;  // more KV heads than heads
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
  c = llama_like();
  c["num_key_value_heads"] = 5;  // 32 query heads cannot share 5 KV heads evenly
  const auto uneven = read_hf_config_text(c.dump());
  REQUIRE_FALSE(uneven);
  CHECK(uneven.error().id == "config.bad_field");
  CHECK(uneven.error().message ==
        "config.json field /num_attention_heads (32) must be a multiple of /num_key_value_heads (5)");
  c = llama_like();
  c["model_type"] = "nemotron_h";
  c["hybrid_override_pattern"] = "MX";
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
}

// Found by the config fuzzer: a pattern entry of 4.4e40 was read with get<int>(),
// undefined behaviour. Any number that is not 1 marks a full-attention layer.
TEST_CASE("a huge number in a per-layer pattern is read, not narrowed", "[config][errors]") {
  const CatalogModel* m = test::catalog().find_model("mimo-v2-flash");
  REQUIRE(m != nullptr);
  auto config = model_config(*m);
  REQUIRE(config.ok());
  json c = json::parse(config.value().dump());
  REQUIRE(c["hybrid_layer_pattern"].is_array());
  const std::size_t n = c["hybrid_layer_pattern"].size();
  for (std::size_t i = 0; i < n; ++i) c["hybrid_layer_pattern"][i] = (i % 2 == 0) ? 4.4e40 : 1.0;
  const Architecture a = arch_from(c);
  CHECK(a.layers[0].attn.kind == AttentionKind::full);     // 4.4e40 is not 1
  CHECK(a.layers[1].attn.kind == AttentionKind::sliding);  // 1.0 is 1
}

TEST_CASE("every catalog model reads", "[config][catalog]") {
  for (const auto& m : test::catalog().models) {
    INFO(m.id);
    auto config = model_config(m);
    REQUIRE(config.ok());
    auto a = read_hf_config(config.value());
    CHECK(a.ok());
  }
}

namespace {

// A catalog model's config as JSON, to take fields out of.
json catalog_config(const std::string& id) {
  const CatalogModel* m = test::catalog().find_model(id);
  if (m == nullptr) FAIL("catalog has no model " << id);
  auto config = model_config(*m);
  if (!config) FAIL(id << ": " << config.error().message);
  return json::parse(config.value().dump());
}

}  // namespace

TEST_CASE("Qwen3.8 Flash Next (qwen4_exp): delta-net and QSA layers, hyper-connections, one PLE layer",
          "[config][hybrid]") {
  // Config: seed_models.json 'Qwen3.8 Flash Next (125B-A6B)'; shapes in
  // scripts/catalog/sourced_arch_facts_qwen38_dsv41.json (llama.cpp qwen4exp.cpp, candle §12).
  const Architecture a = catalog_arch("qwen3.8-flash-next");
  REQUIRE(a.decoder_layer_count() == 48);
  REQUIRE(a.layers.size() == 49);  // mtp_num_hidden_layers 1
  CHECK(count_kind(a, AttentionKind::linear) == 36);
  CHECK(count_kind(a, AttentionKind::full) == 12);  // full_attention_interval 4: layers 3, 7, ..., 47
  const AttentionSpec& qsa = a.layers[47].attn;
  CHECK(qsa.kind == AttentionKind::full);
  CHECK(qsa.n_kv_heads == 2);
  CHECK(qsa.head_dim_k == 256);
  CHECK(qsa.output_gate);  // attn_q [12288, 2560] = 24 x 2 x 256
  CHECK(qsa.qsa_indexer);
  CHECK(qsa.index_n_heads == 4);
  CHECK(qsa.index_head_dim == 128);
  CHECK_FALSE(a.layers[0].attn.qsa_indexer);
  CHECK(a.layers[0].attn.linear_v_heads == 48);
  CHECK(a.layers[0].n_hidden_norms == 0);  // the hyper-connection norms are the layer norms
  CHECK(a.hc_streams == 4);
  CHECK(a.hc_lowrank == 320);
  CHECK(a.layers[0].ffn.n_experts == 512);
  CHECK(a.layers[0].ffn.n_experts_used == 10);
  CHECK(a.layers[0].ffn.shared_intermediate == 640);
  CHECK(a.layers[0].ffn.shared_expert_gate);
  // ple_layer_ids [2] is one-indexed: layer 1 (GGUF qwen4exp.ple.layers = [1]).
  REQUIRE(a.lookup_tables.size() == 1);
  CHECK(a.lookup_tables[0].layer == 1);
  // 16 heads ((3 - 1) x 8), each the next prime above 20,000,000: 20,000,003 ... 20,000,171,
  // summing to 320,001,446, padded to a multiple of 128: 320,001,536 rows (GGUF
  // per_layer_token_embd [160, 320001536]) of 2560 / 16 = 160.
  CHECK(a.lookup_tables[0].rows == 320001536LL);
  CHECK(a.lookup_tables[0].width == 160);
  CHECK(a.layers[1].side_tensors.size() == 4);  // ple_key, ple_value, three norms, ple_conv1d
  CHECK(a.layers[1].attn.carried_f32_elements == 9 * 10240);  // (kernel 4 - 1) x ngram_size 3 tokens x 10240
  CHECK(a.layers[48].is_mtp);
  CHECK(a.layers[48].attn.kind == AttentionKind::full);
  CHECK(a.native_format == NativeFormat::bf16);
}

TEST_CASE("DeepSeek V4.1 Flash (deepseek_v41): compressed KV on four source layers, Engram tables, DSpark",
          "[config][moe]") {
  // Config: seed_models.json 'DeepSeek V4.1 Flash (552B-A16B)'; census in
  // sourced_arch_facts_qwen38_dsv41.json (colibri docs/deepseek-v41-delta.md).
  const Architecture a = catalog_arch("deepseek-v4.1-flash");
  REQUIRE(a.decoder_layer_count() == 40);
  REQUIRE(a.layers.size() == 43);  // num_nextn_predict_layers 3 (DSpark)
  // kv_source_layer_ids [2, 8, 14, 20] with compress_ratios 2, 2, 2, 1; every other layer keeps
  // only its 128-token window.
  const std::pair<std::size_t, std::int64_t> sources[] = {{2, 2}, {8, 2}, {14, 2}, {20, 1}};
  for (const auto& [layer, ratio] : sources) {
    INFO(layer);
    CHECK(a.layers[layer].attn.kind == AttentionKind::full);
    CHECK(a.layers[layer].attn.kv_compress_ratio == ratio);
    CHECK(a.layers[layer].attn.window_tokens == 128);
    CHECK(a.layers[layer].attn.index_head_dim == 128);
  }
  CHECK(count_kind(a, AttentionKind::sliding) == 36);
  CHECK(a.layers[3].attn.window_tokens == 128);
  CHECK(a.layers[3].attn.index_head_dim == 0);
  CHECK(a.layers[0].attn.k_eq_v);
  CHECK(a.layers[0].attn.q_lora_rank == 1280);
  CHECK(a.layers[0].ffn.n_experts == 384);
  CHECK(a.layers[0].ffn.n_experts_used == 6);
  REQUIRE(a.lookup_tables.size() == 2);  // engram_layer_ids [1, 14]
  CHECK(a.lookup_tables[0].layer == 1);
  CHECK(a.lookup_tables[0].rows == 384006168LL);
  CHECK(a.lookup_tables[1].layer == 14);
  CHECK(a.lookup_tables[1].rows == 384016682LL);
  CHECK(a.lookup_tables[1].width == 256);
  CHECK(a.layers[14].side_tensors.size() == 3);  // engram q, k [4, 5120] and wkv [25600, 6144]
  CHECK(a.layers[40].is_mtp);
  CHECK(a.layers[40].ffn.n_experts == 128);  // dspark_n_routed_experts
  CHECK(a.layers[40].ffn.n_experts_used == 3);
  CHECK(a.native_format == NativeFormat::fp4_experts_fp8);  // expert_dtype inside quantization_config
}

TEST_CASE("Qwen3.8 and DeepSeek V4.1 configs lacking a field are refused, naming it", "[config][errors]") {
  const std::pair<const char*, const char*> cases[] = {
      {"qwen3.8-flash-next", "ple_layer_ids"},   {"qwen3.8-flash-next", "hc_count"},
      {"qwen3.8-flash-next", "ngram_vocab_size_base"}, {"qwen3.8-flash-next", "indexer_head_dim"},
      {"deepseek-v4.1-flash", "kv_source_layer_ids"}, {"deepseek-v4.1-flash", "engram_num_embeddings"},
      {"deepseek-v4.1-flash", "compress_ratios"}, {"deepseek-v4.1-flash", "engram_head_dim"},
  };
  for (const auto& [id, field] : cases) {
    INFO(id << " without " << field);
    json c = catalog_config(id);
    REQUIRE(c["text_config"].contains(field));
    c["text_config"].erase(field);
    const auto r = read_hf_config_text(c.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().id == "config.missing_field");
    CHECK(r.error().message.find(std::string("/text_config/") + field) != std::string::npos);
  }
  json c = catalog_config("qwen3.8-flash-next");
  c["text_config"]["ple_layer_ids"] = {49};  // past the 48 layers
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
  c = catalog_config("deepseek-v4.1-flash");
  c["text_config"]["engram_layer_ids"] = {1};  // two tables, one layer
  CHECK(read_hf_config_text(c.dump()).error().id == "config.bad_field");
}

TEST_CASE("a Qwen3-Next interval of full-attention layers must be a positive count", "[config][hybrid]") {
  // The interval divides each layer's index when layer_types is absent: 0 or a
  // negative count is a bad field, not a division by zero (found by fuzz_config).
  json c = catalog_config("qwen3-next-80b-a3b-instruct");
  c.erase("layer_types");
  for (const int interval : {0, -4}) {
    c["full_attention_interval"] = interval;
    const auto r = read_hf_config_text(c.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().id == "config.bad_field");
    CHECK(r.error().message.find("/full_attention_interval") != std::string::npos);
  }
  c["full_attention_interval"] = 4;  // 48 layers: every fourth full, 12 of them
  const auto ok = read_hf_config_text(c.dump());
  REQUIRE(ok.ok());
  CHECK(count_kind(ok.value(), AttentionKind::full) == 12);
}

TEST_CASE("quantized checkpoints: AWQ, GPTQ and compressed-tensors formats, and the catalog's for trimmed copies",
          "[config][native]") {
  // A small Llama and a small MoE (Qwen3-MoE) config, each given a quantization_config.
  Json dense = Json::parse(R"({"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
    "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 1000})");
  Json moe = Json::parse(R"({"model_type": "qwen3_moe", "hidden_size": 1024, "intermediate_size": 4096,
    "moe_intermediate_size": 512, "num_experts": 8, "num_experts_per_tok": 2, "num_hidden_layers": 2,
    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 1000})");
  const auto read = [](Json config, const char* quantization) {
    config["quantization_config"] = Json::parse(quantization);
    auto a = read_hf_config_text(config.dump());
    REQUIRE(a.ok());
    return a.value();
  };
  // AutoAWQ: 4 bits + an fp16 scale and a 4-bit zero per 128 weights = 4 + 20/128.
  Architecture a = read(dense, R"({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm"})");
  CHECK(a.native_format == NativeFormat::int4);
  CHECK(a.native_int4_bits == 4.0 + 20.0 / 128.0);
  // GPTQ's group_size -1 is one group per output channel: 4 bits and a row's scale.
  a = read(dense, R"({"quant_method": "gptq", "bits": 4, "group_size": -1, "desc_act": false})");
  CHECK(a.native_format == NativeFormat::int4);
  CHECK(a.native_int4_bits == 4.0);
  // 8-bit GPTQ is not an INT4 layout: sized as its 16-bit dtype rather than as 4 bits.
  CHECK(read(dense, R"({"quant_method": "gptq", "bits": 8, "group_size": 128})").native_format == NativeFormat::bf16);
  // llm-compressor W4A16, symmetric: a bf16 scale per 128, no zero point = 4.125 bits.
  a = read(dense, R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0":
    {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "group_size": 128, "symmetric": true}}},
    "ignore": ["lm_head"]})");
  CHECK(a.native_format == NativeFormat::int4);
  CHECK(a.native_int4_bits == 4.125);
  // The same on an MoE model that quantizes attention too (an ignore list without self_attn):
  // every linear layer. Moonshot's layout ignores attention: the routed experts only.
  CHECK(read(moe, R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
    "ignore": ["lm_head", "re:.*mlp.gate$"]})").native_format == NativeFormat::int4);
  a = read(moe, R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0":
    {"weights": {"num_bits": 4, "type": "int", "group_size": 32}}}, "ignore": ["lm_head", "re:.*self_attn.*"]})");
  CHECK(a.native_format == NativeFormat::int4_experts);
  CHECK(a.native_int4_bits == 4.5);
  // FP8 (float-quantized), also in a copy that lost quant_method (the reference's GLM-4.5-FP8).
  CHECK(read(dense, R"({"format": "float-quantized"})").native_format == NativeFormat::fp8_block);
  CHECK(read(moe, R"({"quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized"})").native_format ==
        NativeFormat::mxfp4_experts);
  CHECK(read(dense, R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"})").native_format ==
        NativeFormat::nvfp4);

  // Trimmed catalog copies without a quantization_config take the catalog's native_dtype.
  CHECK(catalog_arch("glm-4.7-fp8").native_format == NativeFormat::fp8_block);
  CHECK(catalog_arch("deepseek-v3-0324-nvfp4").native_format == NativeFormat::nvfp4);
  const Architecture k2 = catalog_arch("kimi-k2-thinking");
  CHECK(k2.native_format == NativeFormat::int4_experts);
  CHECK(k2.native_int4_bits == 4.5);
  // A 16-bit release stays 16-bit.
  CHECK(catalog_arch("glm-4.5").native_format == NativeFormat::bf16);
}
