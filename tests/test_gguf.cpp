// GGUF headers (issue 7): synthetic files of real tensor layouts whose sizes are
// worked out by hand, the engine's own tensor list as a second witness, hostile
// headers refused with the right error id, and split sets summed.
#include "llmsizer/gguf.hpp"

#include <map>

#include "gguf_writer.hpp"
#include "llmsizer/kv_cache.hpp"
#include "llmsizer/tensors.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using test::GgufWriter;
namespace ggml_id = test::ggml_id;

namespace {

GgufFile read_complete(const std::string& bytes, GgufReadOptions options = {}) {
  auto r = read_gguf_header(bytes, options);
  if (!r) FAIL(r.error().id << ": " << r.error().message);
  if (!r.value().complete) FAIL("header incomplete, needs " << r.value().bytes_needed);
  return std::move(r).value().file;
}

GgufModel model_of(const std::vector<std::string>& headers) {
  std::vector<GgufFile> files;
  for (const auto& h : headers) files.push_back(read_complete(h));
  auto m = gguf_model(files);
  if (!m) FAIL(m.error().id << ": " << m.error().message);
  return std::move(m).value();
}

GgufModel model_of(const GgufWriter& w) { return model_of(std::vector<std::string>{w.header()}); }

std::string error_id(const std::string& bytes, GgufReadOptions options = {}) {
  auto r = read_gguf_header(bytes, options);
  if (r) return r.value().complete ? "complete" : "need_more";
  return r.error().id;
}

std::string model_error_id(const GgufWriter& w) {
  auto r = read_gguf_header(w.header());
  if (!r || !r.value().complete) return "unreadable";
  auto m = gguf_model({r.value().file});
  return m ? "ok" : m.error().id;
}

// The start of a header: magic, version, tensor and key counts.
std::string preamble(std::uint64_t n_tensors, std::uint64_t n_kv, std::uint32_t version = 3) {
  std::string out = "GGUF";
  test::put_u32(out, version);
  test::put_u64(out, n_tensors);
  test::put_u64(out, n_kv);
  return out;
}

// A tensor info by hand, for offsets and shapes the writer would not produce.
std::string tensor_info(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
  std::string out;
  test::put_string(out, name);
  test::put_u32(out, static_cast<std::uint32_t>(dims.size()));
  for (auto d : dims) test::put_u64(out, d);
  test::put_u32(out, type);
  test::put_u64(out, offset);
  return out;
}

const test::TypeChooser all_q8_0 = [](std::string_view, int) { return ggml_id::Q8_0; };

KvBreakdown kv_of(const Architecture& arch, std::int64_t ctx) {
  KvRequest r;
  r.context_tokens = ctx;
  r.type = KvType::f16;
  return compute_kv_cache(arch, r);
}

std::uint32_t id_of(GgmlType type) {
  for (std::uint32_t id = 0; id < 64; ++id)
    if (ggml_type_from_id(id) == type) return id;
  FAIL("no ggml id for " << traits(type).name);
  return 0;
}

}  // namespace

TEST_CASE("a Llama-3.1-8B GGUF at Q8_0 is sized by hand", "[gguf][llama]") {
  GgufWriter w;
  test::write_llama_31_8b(w, all_q8_0, 7);
  const GgufModel m = model_of(w);
  // Matrices: 2 x 4096 x 128256 (embedding, output) + 32 x (2 x 4096^2 (q, o)
  // + 2 x 4096 x 1024 (k, v) + 3 x 4096 x 14336 (gate, up, down)) = 8,029,995,008
  // weights at Q8_0, 34 bytes per 32: 8,531,869,696 bytes. Norms: (32 x 2 + 1) x
  // 4096 = 266,240 F32 weights, 1,064,960 bytes. Tensors: 8,532,934,656 bytes.
  CHECK(m.weights.weights.tensor_bytes == 8532934656);
  CHECK(m.weights.weights.total_bytes == w.file_bytes());
  CHECK(m.weights.weights.metadata_bytes == w.file_bytes() - 8532934656);
  // One layer: (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336) / 32 x 34 + 2 x 4096 x 4.
  CHECK(m.weights.weights.layer_bytes.at(0) == 231768064);
  CHECK(m.weights.weights.token_embd_bytes == 4096LL * 128256 / 32 * 34);
  CHECK(m.weights.weights.output_bytes == 4096LL * 128256 / 32 * 34 + 4096 * 4);
  CHECK(m.weights.params.total == 8030261248);  // Meta's count
  CHECK(m.weights.params.active == 8030261248);
  CHECK(m.weights.params.embedding == 525336576);
  CHECK(m.kind_bytes.norms == 32 * 2 * 4096 * 4);
  CHECK(m.kind_bytes.token_embd + m.kind_bytes.output + m.kind_bytes.attention + m.kind_bytes.ffn +
            m.kind_bytes.routed_experts + m.kind_bytes.norms + m.kind_bytes.other ==
        8532934656);
  CHECK(m.quant.name == "Q8_0");
  CHECK(m.name == "Meta Llama 3.1 8B");
  REQUIRE(m.type_bytes.size() == 2);
  CHECK(m.type_bytes[0].type == "Q8_0");
  CHECK(m.type_bytes[1].type == "F32");
  CHECK(m.type_bytes[1].tensors == 65);

  const Architecture& a = m.arch;
  CHECK(a.model_type == "llama");
  CHECK(a.hidden_size == 4096);
  CHECK(a.vocab_size == 128256);  // the token array's length, skipped without storing it
  CHECK_FALSE(a.tied_embeddings);
  CHECK(a.max_context_tokens == 131072);
  REQUIRE(a.layers.size() == 32);
  CHECK(a.layers[5].attn.n_heads == 32);
  CHECK(a.layers[5].attn.n_kv_heads == 8);
  CHECK(a.layers[5].attn.head_dim_k == 128);
  CHECK(a.layers[5].attn.kind == AttentionKind::full);
  CHECK(a.layers[5].ffn.intermediate == 14336);
  CHECK(a.layers[5].n_hidden_norms == 2);
  // Issue 2: 16384 MiB of f16 KV at 131072 tokens.
  CHECK(kv_of(a, 131072).total_bytes == 16384LL << 20);
}

TEST_CASE("a Llama GGUF at Q4_K_M matches the engine's own tensor list", "[gguf][llama]") {
  // The catalog's Llama-3.1-8B config through list_tensors and the quantizer
  // replay, written as a GGUF: the file's bytes must be the computed ones, layer
  // by layer, and its metadata must give the same KV cache.
  const Architecture config_arch = test::catalog_arch("llama-3.1-8b");
  const QuantScheme q4km = quant_scheme_from_name("Q4_K_M").value();
  const std::vector<TensorInfo> tensors = list_tensors(config_arch);
  const std::vector<GgmlType> types = gguf_tensor_types(config_arch, tensors, q4km);
  std::map<std::pair<TensorRole, int>, std::uint32_t> type_by_role;
  for (std::size_t i = 0; i < tensors.size(); ++i) type_by_role[{tensors[i].role, tensors[i].layer}] = id_of(types[i]);
  const std::map<std::string_view, TensorRole> roles = {
      {"token_embd", TensorRole::token_embd}, {"output", TensorRole::output},   {"attn_q", TensorRole::attn_q},
      {"attn_k", TensorRole::attn_k},         {"attn_v", TensorRole::attn_v},   {"attn_output", TensorRole::attn_output},
      {"ffn_gate", TensorRole::ffn_gate},     {"ffn_up", TensorRole::ffn_up},   {"ffn_down", TensorRole::ffn_down}};
  GgufWriter w;
  test::write_llama_31_8b(w, [&](std::string_view role, int layer) { return type_by_role.at({roles.at(role), layer}); },
                          15);
  const GgufModel m = model_of(w);
  const WeightBreakdown computed = compute_weights(config_arch, q4km);
  CHECK(m.quant.name == "Q4_K_M");
  CHECK(m.weights.weights.tensor_bytes == computed.tensor_bytes);
  CHECK(m.weights.weights.layer_bytes == computed.layer_bytes);
  CHECK(m.weights.weights.token_embd_bytes == computed.token_embd_bytes);
  CHECK(m.weights.weights.output_bytes == computed.output_bytes);
  const ParamCounts p = count_params(config_arch);
  CHECK(m.weights.params.total == p.total);
  CHECK(m.weights.params.active == p.active);
  CHECK(m.weights.params.embedding == p.embedding);
  CHECK(kv_of(m.arch, 32768).total_bytes == kv_of(config_arch, 32768).total_bytes);

  // The estimate takes the file's bytes: weights_bytes is the tensor data the
  // device holds, file_bytes the file's size with its header.
  Scenario s;
  s.quant = m.quant;
  s.device = test::device_of("rtx-4090");
  auto measured = estimate(m.arch, s, m.weights);
  REQUIRE(measured);
  CHECK(measured.value().memory.weights_bytes == m.weights.weights.tensor_bytes);
  CHECK(measured.value().memory.weights_bytes < w.file_bytes());
  CHECK(measured.value().memory.file_bytes == w.file_bytes());
  CHECK(measured.value().params.total == 8030261248);
  auto from_config = estimate(config_arch, s);
  REQUIRE(from_config);
  CHECK(measured.value().memory.kv_cache_bytes == from_config.value().memory.kv_cache_bytes);
  CHECK(measured.value().memory.runtime_bytes == from_config.value().memory.runtime_bytes);
  // Only the metadata differs: the file's header against the engine's estimate of it.
  CHECK(measured.value().memory.required_bytes == from_config.value().memory.required_bytes);
}

TEST_CASE("a gpt-oss-20b GGUF with MXFP4 experts is sized by hand", "[gguf][moe]") {
  GgufWriter w;
  test::write_gpt_oss_20b(w);
  const GgufModel m = model_of(w);
  // Per layer (hidden 2880, 64 heads x 64, 8 KV heads, 32 experts of 2880):
  //   attention at Q8_0: (2880 x 4096 x 2 + 2880 x 512 x 2) / 32 x 34 = 28,200,960
  //   F32: norms 2 x 2880, biases 4096 + 2 x 512 + 2880, sinks 64, router 2880 x 32
  //        + 32: 106,016 weights = 424,064 bytes
  //   experts MXFP4 (17 bytes per 32): 3 x 2880 x 2880 x 32 / 32 x 17 = 423,014,400
  //   expert biases F32: 3 x 2880 x 32 x 4 = 1,105,920
  //   layer: 452,745,344 bytes
  // Embedding and output at Q8_0: 2 x 2880 x 201088 / 32 x 34 = 1,230,658,560;
  // output_norm 11,520. Tensors: 24 x 452,745,344 + 1,230,658,560 + 11,520
  // = 12,096,558,336 bytes.
  CHECK(m.weights.weights.tensor_bytes == 12096558336);
  CHECK(m.weights.weights.layer_bytes.at(3) == 452745344);
  CHECK(m.weights.weights.layer_expert_bytes.at(3) == 423014400 + 1105920);
  CHECK(m.weights.weights.routed_expert_bytes == 24LL * (423014400 + 1105920));
  CHECK(m.kind_bytes.routed_experts == 24LL * (423014400 + 1105920));
  CHECK(m.quant.name == "MXFP4_MOE");
  CHECK(m.type_bytes.front().type == "MXFP4");
  CHECK(m.type_bytes.front().bytes == 24LL * 423014400);
  // Parameters: 20,914,757,184, of which 4 of 32 experts are read per token:
  // total - 24 x (3 x 2880 x 2880 x 32 + 3 x 2880 x 32) x 28 / 32 = 4,187,440,704.
  CHECK(m.weights.params.total == 20914757184);
  CHECK(m.weights.params.active == 4187440704);
  const Architecture config_arch = test::catalog_arch("gpt-oss-20b");
  CHECK(count_params(config_arch).total == 20914757184);

  const Architecture& a = m.arch;
  REQUIRE(a.layers.size() == 24);
  CHECK(a.layers[0].attn.kind == AttentionKind::sliding);  // llama.cpp: even layers windowed
  CHECK(a.layers[0].attn.window_tokens == 128);
  CHECK(a.layers[1].attn.kind == AttentionKind::full);
  CHECK(a.layers[0].attn.sinks);
  CHECK(a.layers[0].ffn.kind == FfnKind::moe);
  CHECK(a.layers[0].ffn.n_experts == 32);
  CHECK(a.layers[0].ffn.n_experts_used == 4);
  CHECK(a.layers[0].ffn.expert_intermediate == 2880);
  CHECK(a.layers[0].ffn.expert_bias);
  CHECK(a.layers[0].ffn.router_bias);
  CHECK(a.vocab_size == 201088);
  CHECK(kv_of(a, 8192).total_bytes == kv_of(config_arch, 8192).total_bytes);
}

TEST_CASE("a DeepSeek-V2-Lite GGUF with latent attention is sized by hand", "[gguf][mla]") {
  GgufWriter w;
  test::write_deepseek_v2_lite(w);
  const GgufModel m = model_of(w);
  // Q8_0 weights: embedding and output 2 x 2048 x 102400; per layer attention
  // 2048 x 16 x 192 (q) + 2048 x 576 (kv_a) + 512 x 16 x 256 (kv_b) + 16 x 128 x 2048 (o)
  // = 12,320,768; layer 0 dense 3 x 2048 x 10944; 26 MoE layers of 3 x 2048 x 1408 x 64
  // routed + 3 x 2048 x 2816 shared: 15,702,949,888 weights -> 16,684,384,256 bytes.
  // F32: norms 27 x (2 x 2048 + 512) + 2048, router 26 x 2048 x 64: 3,534,336 weights
  // -> 14,137,344 bytes. Tensors: 16,698,521,600 bytes.
  CHECK(m.weights.weights.tensor_bytes == 16698521600);
  CHECK(m.weights.weights.layer_bytes.at(0) == 86083584);
  CHECK(m.weights.weights.layer_bytes.at(1) == 621799424);
  CHECK(m.weights.weights.layer_expert_bytes.at(1) == 588251136);  // 3 x 2048 x 1408 x 64 / 32 x 34
  CHECK(m.weights.weights.layer_expert_bytes.at(0) == 0);
  // 15,706,484,224 parameters (DeepSeek: 15.7B), 2,661,150,208 active with 6 of 64.
  CHECK(m.weights.params.total == 15706484224);
  CHECK(m.weights.params.active == 2661150208);

  const nlohmann::json config = {
      {"model_type", "deepseek_v2"}, {"hidden_size", 2048}, {"intermediate_size", 10944},
      {"moe_intermediate_size", 1408}, {"num_hidden_layers", 27}, {"num_attention_heads", 16},
      {"num_key_value_heads", 16}, {"n_routed_experts", 64}, {"n_shared_experts", 2},
      {"num_experts_per_tok", 6}, {"first_k_dense_replace", 1}, {"moe_layer_freq", 1},
      {"kv_lora_rank", 512}, {"q_lora_rank", nullptr}, {"qk_rope_head_dim", 64}, {"qk_nope_head_dim", 128},
      {"v_head_dim", 128}, {"vocab_size", 102400}, {"max_position_embeddings", 163840},
      {"topk_method", "greedy"}, {"tie_word_embeddings", false}};
  const Architecture config_arch = test::arch_from(config);
  CHECK(count_params(config_arch).total == 15706484224);

  const Architecture& a = m.arch;
  REQUIRE(a.layers.size() == 27);
  CHECK(a.layers[3].attn.mla);
  CHECK(a.layers[3].attn.kv_lora_rank == 512);
  CHECK(a.layers[3].attn.qk_rope_dim == 64);
  CHECK(a.layers[3].attn.n_heads == 16);
  CHECK(a.layers[3].attn.head_dim_v == 128);
  CHECK(a.layers[0].ffn.kind == FfnKind::dense);
  CHECK(a.layers[0].ffn.intermediate == 10944);
  CHECK(a.layers[1].ffn.kind == FfnKind::moe);
  CHECK(a.layers[1].ffn.n_experts == 64);
  CHECK(a.layers[1].ffn.n_experts_used == 6);
  CHECK(a.layers[1].ffn.shared_intermediate == 2816);
  // The cache holds the 576-wide latent: 576 x 4096 tokens x 2 bytes x 27 layers.
  CHECK(kv_of(a, 4096).total_bytes == 127401984);
  CHECK(kv_of(a, 4096).total_bytes == kv_of(config_arch, 4096).total_bytes);
}

TEST_CASE("a split set is summed from its parts' headers", "[gguf][split]") {
  GgufWriter w;
  test::write_llama_31_8b(w, all_q8_0, 7, 1000);
  const std::vector<GgufWriter> parts = w.split(3);
  std::vector<std::string> headers;
  std::int64_t files_bytes = 0;
  for (const auto& p : parts) {
    headers.push_back(p.header());
    files_bytes += p.file_bytes();
  }
  // Given in any order.
  const GgufModel m = model_of({headers[2], headers[0], headers[1]});
  CHECK(m.split_count == 3);
  CHECK(m.weights.weights.tensor_bytes == 8532934656);
  CHECK(m.weights.weights.total_bytes == files_bytes);
  CHECK(m.weights.params.total == 8030261248);
  CHECK(m.arch.layers.size() == 32);

  std::vector<GgufFile> two = {read_complete(headers[0]), read_complete(headers[2])};
  auto missing = gguf_model(two);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().id == "gguf.split");
  CHECK(missing.error().message.find("part 2 of 3 is missing") != std::string::npos);
  std::vector<GgufFile> twice = {read_complete(headers[0]), read_complete(headers[1]), read_complete(headers[1])};
  auto doubled = gguf_model(twice);
  REQUIRE_FALSE(doubled);
  CHECK(doubled.error().id == "gguf.split");
}

TEST_CASE("a short span asks for more bytes until the header is complete", "[gguf][reader]") {
  GgufWriter w;
  test::write_deepseek_v2_lite(w, 3000);
  const std::string header = w.header();
  const auto end_of_infos = static_cast<std::size_t>(read_complete(header).header_bytes);
  CHECK(read_complete(header.substr(0, end_of_infos)).tensors.size() == 27 * 7 + 26 * 7 + 3 + 3);
  // Every shorter prefix asks for more, and for more than it has.
  for (std::size_t n = 0; n < end_of_infos; n += 97) {
    auto r = read_gguf_header(std::string_view(header).substr(0, n));
    REQUIRE(r);
    REQUIRE_FALSE(r.value().complete);
    CHECK(r.value().bytes_needed > static_cast<std::int64_t>(n));
    CHECK(r.value().bytes_needed <= static_cast<std::int64_t>(header.size()));
  }
  // The page's loop: start small, grow to what is asked (at least double).
  std::int64_t n = 64;
  int calls = 0;
  for (;;) {
    ++calls;
    auto r = read_gguf_header(std::string_view(header).substr(0, static_cast<std::size_t>(std::min<std::int64_t>(n, header.size()))));
    REQUIRE(r);
    if (r.value().complete) {
      CHECK(r.value().file.tensors.size() == 27 * 7 + 26 * 7 + 3 + 3);
      break;
    }
    n = std::max(r.value().bytes_needed, 2 * n);
  }
  CHECK(calls < 16);
  // Bytes past the header (the tensor data) are not looked at.
  const GgufFile with_data = read_complete(header + std::string(1000, 'x'));
  CHECK(with_data.header_bytes <= static_cast<std::int64_t>(header.size()));
  CHECK(with_data.data_offset == static_cast<std::int64_t>(header.size()));
}

TEST_CASE("hostile GGUF headers are refused with the right error id", "[gguf][reader][hostile]") {
  CHECK(error_id("GGUX" + preamble(0, 0).substr(4)) == "gguf.bad_magic");
  CHECK(error_id("GG") == "need_more");
  CHECK(error_id(preamble(0, 0, 1)) == "gguf.bad_version");
  CHECK(error_id(preamble(0, 0, 4)) == "gguf.bad_version");
  CHECK(error_id(preamble(0, 0, 0x03000000)) == "gguf.bad_version");  // big-endian v3
  CHECK(error_id(preamble(0, 0, 2)) == "complete");
  CHECK(error_id(preamble(0, 0, 3)) == "complete");
  // Counts that cannot fit in the header limit, refused before any allocation.
  CHECK(error_id(preamble(std::uint64_t{1} << 60, 0)) == "gguf.too_large");
  CHECK(error_id(preamble(0, std::uint64_t{1} << 60)) == "gguf.too_large");
  CHECK(error_id(preamble(~std::uint64_t{0}, ~std::uint64_t{0})) == "gguf.too_large");

  std::string huge_key = preamble(0, 1);
  test::put_u64(huge_key, std::uint64_t{1} << 62);
  CHECK(error_id(huge_key) == "gguf.too_large");
  std::string huge_value = preamble(0, 1);
  test::put_string(huge_value, "general.name");
  test::put_u32(huge_value, 8);
  test::put_u64(huge_value, std::uint64_t{1} << 62);
  CHECK(error_id(huge_value) == "gguf.too_large");
  for (std::uint32_t element : {0u, 8u}) {  // u8 and string elements
    std::string huge_array = preamble(0, 1);
    test::put_string(huge_array, "tokenizer.ggml.tokens");
    test::put_u32(huge_array, 9);
    test::put_u32(huge_array, element);
    test::put_u64(huge_array, std::uint64_t{1} << 60);
    CHECK(error_id(huge_array) == "gguf.too_large");
  }
  std::string nested = preamble(0, 1);
  test::put_string(nested, "a");
  test::put_u32(nested, 9);
  test::put_u32(nested, 9);
  test::put_u64(nested, 1);
  CHECK(error_id(nested) == "gguf.bad_type");
  std::string bad_type = preamble(0, 1);
  test::put_string(bad_type, "a");
  test::put_u32(bad_type, 13);
  CHECK(error_id(bad_type) == "gguf.bad_type");
  std::string duplicate_key = preamble(0, 2);
  for (int i = 0; i < 2; ++i) {
    test::put_string(duplicate_key, "general.name");
    test::put_u32(duplicate_key, 4);
    test::put_u32(duplicate_key, 1);
  }
  CHECK(error_id(duplicate_key) == "gguf.duplicate");

  auto one_tensor = [](const std::string& info) { return preamble(1, 0) + info; };
  CHECK(error_id(one_tensor(tensor_info("w", {64, 2}, ggml_id::Q8_0, 0))) == "complete");
  CHECK(error_id(one_tensor(tensor_info("w", {64, 2}, 4, 0))) == "gguf.bad_type");    // Q4_2, removed
  CHECK(error_id(one_tensor(tensor_info("w", {64, 2}, 200, 0))) == "gguf.bad_type");
  CHECK(error_id(one_tensor(tensor_info("w", {1, 1, 1, 1, 1}, 0, 0))) == "gguf.bad_shape");
  CHECK(error_id(one_tensor(tensor_info("w", {33}, ggml_id::Q8_0, 0))) == "gguf.bad_shape");
  CHECK(error_id(one_tensor(tensor_info("w", {std::uint64_t{1} << 63}, 0, 0))) == "gguf.too_large");
  CHECK(error_id(one_tensor(tensor_info("w", {std::uint64_t{1} << 40, std::uint64_t{1} << 40}, 0, 0))) ==
        "gguf.too_large");
  CHECK(error_id(one_tensor(tensor_info(std::string(64, 'n'), {32}, 0, 0))) == "gguf.too_large");
  CHECK(error_id(one_tensor(tensor_info("w", {32}, 0, 32))) == "gguf.bad_offset");
  CHECK(error_id(one_tensor(tensor_info("w", {32}, 0, ~std::uint64_t{0} - 31))) == "gguf.bad_offset");
  CHECK(error_id(preamble(2, 0) + tensor_info("w", {32}, 0, 0) + tensor_info("w", {32}, 0, 128)) == "gguf.duplicate");
  // The second tensor must start where the first ends, padded to 32: 8 x 4 = 32 bytes.
  CHECK(error_id(preamble(2, 0) + tensor_info("a", {8}, 0, 0) + tensor_info("b", {8}, 0, 32)) == "complete");
  CHECK(error_id(preamble(2, 0) + tensor_info("a", {8}, 0, 0) + tensor_info("b", {8}, 0, 64)) == "gguf.bad_offset");

  for (std::uint32_t alignment : {0u, 3u, 48u}) {
    GgufWriter w;
    w.add_u32("general.alignment", alignment);
    CHECK(error_id(w.header()) == "gguf.bad_value");
  }
  GgufWriter aligned(3, 64);
  aligned.add_u32("general.alignment", 64);
  aligned.add_tensor("a", ggml_id::F32, {8});
  aligned.add_tensor("b", ggml_id::F32, {8});
  CHECK(error_id(aligned.header()) == "complete");

  // Truncation, when the caller knows the file's size.
  GgufWriter w;
  test::write_llama_31_8b(w, all_q8_0, 7, 100);
  const std::string header = w.header();
  GgufReadOptions sized;
  sized.file_bytes = static_cast<std::int64_t>(header.size()) - 100;
  CHECK(error_id(header, sized) == "gguf.truncated");
  CHECK(error_id(header.substr(0, 1000), sized) == "need_more");
  sized.file_bytes = static_cast<std::int64_t>(header.size()) + 1000;  // header whole, tensors cut
  CHECK(error_id(header, sized) == "gguf.truncated");
  sized.file_bytes = w.file_bytes();
  CHECK(error_id(header, sized) == "complete");
  GgufReadOptions small_limit;
  small_limit.max_header_bytes = 1000;
  CHECK(error_id(header, small_limit) == "gguf.too_large");
}

TEST_CASE("GGUF metadata that cannot make a model is refused", "[gguf][model][hostile]") {
  GgufWriter no_arch;
  no_arch.add_u32("llama.block_count", 1);
  CHECK(model_error_id(no_arch) == "gguf.missing_key");

  GgufWriter no_layers;
  no_layers.add_string("general.architecture", "llama");
  no_layers.add_u32("llama.embedding_length", 64);
  no_layers.add_tensor("token_embd.weight", ggml_id::F32, {64, 100});
  CHECK(model_error_id(no_layers) == "gguf.missing_key");

  auto tiny = [](const std::function<void(GgufWriter&)>& extra) {
    GgufWriter w;
    w.add_string("general.architecture", "llama");
    w.add_u32("llama.block_count", 2);
    w.add_u32("llama.embedding_length", 64);
    w.add_u32("llama.attention.head_count", 4);
    extra(w);
    w.add_tensor("token_embd.weight", ggml_id::F32, {64, 100});
    for (int i = 0; i < 2; ++i) {
      w.add_tensor(test::blk(i, "attn_q"), ggml_id::F32, {64, 64});
      w.add_tensor(test::blk(i, "attn_k"), ggml_id::F32, {64, 32});
      w.add_tensor(test::blk(i, "ffn_up"), ggml_id::F32, {64, 128});
    }
    return w;
  };
  CHECK(model_error_id(tiny([](GgufWriter&) {})) == "ok");
  CHECK(model_error_id(tiny([](GgufWriter& w) { w.add_u64("llama.embedding_length_x", 1); })) == "ok");
  CHECK(model_error_id(tiny([](GgufWriter& w) { w.add_array_i32("llama.attention.head_count_kv", {2}); })) ==
        "gguf.bad_value");  // one value for two layers
  CHECK(model_error_id(tiny([](GgufWriter& w) { w.add_i32("llama.attention.head_count_kv", -1); })) ==
        "gguf.bad_value");
  CHECK(model_error_id(tiny([](GgufWriter& w) { w.add_string("llama.context_length", "long"); })) ==
        "gguf.bad_value");
  GgufWriter huge_layers;
  huge_layers.add_string("general.architecture", "llama");
  huge_layers.add_u64("llama.block_count", std::uint64_t{1} << 40);
  CHECK(model_error_id(huge_layers) == "gguf.bad_value");

  GgufWriter moe_without_routing;
  moe_without_routing.add_string("general.architecture", "qwen3moe");
  moe_without_routing.add_u32("qwen3moe.block_count", 1);
  moe_without_routing.add_u32("qwen3moe.embedding_length", 64);
  moe_without_routing.add_tensor("token_embd.weight", ggml_id::F32, {64, 100});
  moe_without_routing.add_tensor(test::blk(0, "ffn_up_exps"), ggml_id::F32, {64, 32, 8});
  CHECK(model_error_id(moe_without_routing) == "gguf.bad_value");
}

TEST_CASE("an architecture the catalog lacks: per-layer heads, Mamba2 and MLP layers", "[gguf][hybrid]") {
  // A Nemotron-H style stack of 4 layers: Mamba2, attention, MLP-only, Mamba2.
  // head_count_kv per layer (0 where there is no attention), as llama.cpp writes it.
  GgufWriter w;
  const std::int64_t hidden = 1024, inner = 2048, state = 128, groups = 8, heads = 32, ff = 4096;
  w.add_string("general.architecture", "nemotron_h");
  w.add_u32("nemotron_h.block_count", 4);
  w.add_u32("nemotron_h.embedding_length", static_cast<std::uint32_t>(hidden));
  w.add_u32("nemotron_h.context_length", 8192);
  w.add_array_i32("nemotron_h.attention.head_count", {0, 8, 0, 0});
  w.add_array_i32("nemotron_h.attention.head_count_kv", {0, 2, 0, 0});
  w.add_array_i32("nemotron_h.feed_forward_length", {0, 0, static_cast<std::int32_t>(ff), 0});
  w.add_u32("nemotron_h.attention.key_length", 128);
  w.add_u32("nemotron_h.attention.value_length", 128);
  w.add_u32("nemotron_h.ssm.conv_kernel", 4);
  w.add_u32("nemotron_h.ssm.inner_size", static_cast<std::uint32_t>(inner));
  w.add_u32("nemotron_h.ssm.state_size", static_cast<std::uint32_t>(state));
  w.add_u32("nemotron_h.ssm.time_step_rank", static_cast<std::uint32_t>(heads));
  w.add_u32("nemotron_h.ssm.group_count", static_cast<std::uint32_t>(groups));
  w.add_array_string("tokenizer.ggml.tokens", test::token_strings(5000));
  w.add_tensor("token_embd.weight", ggml_id::BF16, {hidden, 5000});
  for (int i : {0, 3}) {
    w.add_tensor(test::blk(i, "attn_norm"), ggml_id::F32, {hidden});
    w.add_tensor(test::blk(i, "ssm_in"), ggml_id::BF16, {hidden, 2 * inner + 2 * groups * state + heads});
    w.add_tensor(test::blk(i, "ssm_conv1d"), ggml_id::F32, {4, inner + 2 * groups * state});
    w.add_tensor(test::blk(i, "ssm_a"), ggml_id::F32, {1, heads});
    w.add_tensor(test::blk(i, "ssm_norm"), ggml_id::F32, {inner / groups, groups});
    w.add_tensor(test::blk(i, "ssm_out"), ggml_id::BF16, {inner, hidden});
  }
  w.add_tensor(test::blk(1, "attn_norm"), ggml_id::F32, {hidden});
  w.add_tensor(test::blk(1, "attn_q"), ggml_id::BF16, {hidden, 8 * 128});
  w.add_tensor(test::blk(1, "attn_k"), ggml_id::BF16, {hidden, 2 * 128});
  w.add_tensor(test::blk(1, "attn_v"), ggml_id::BF16, {hidden, 2 * 128});
  w.add_tensor(test::blk(1, "attn_output"), ggml_id::BF16, {8 * 128, hidden});
  w.add_tensor(test::blk(2, "attn_norm"), ggml_id::F32, {hidden});
  w.add_tensor(test::blk(2, "ffn_up"), ggml_id::BF16, {hidden, ff});
  w.add_tensor(test::blk(2, "ffn_down"), ggml_id::BF16, {ff, hidden});
  w.add_tensor("output_norm.weight", ggml_id::F32, {hidden});
  const GgufModel m = model_of(w);
  const Architecture& a = m.arch;
  REQUIRE(a.layers.size() == 4);
  CHECK(a.layers[0].attn.kind == AttentionKind::mamba2);
  CHECK(a.layers[0].attn.ssm_heads == 32);
  CHECK(a.layers[0].attn.ssm_head_dim == 64);
  CHECK(a.layers[0].attn.ssm_groups == 8);
  CHECK(a.layers[0].ffn.kind == FfnKind::none);
  CHECK(a.layers[1].attn.kind == AttentionKind::full);
  CHECK(a.layers[1].attn.n_heads == 8);
  CHECK(a.layers[1].attn.n_kv_heads == 2);
  CHECK(a.layers[2].attn.kind == AttentionKind::none);
  CHECK(a.layers[2].ffn.kind == FfnKind::dense);
  CHECK_FALSE(a.layers[2].ffn.gated);
  CHECK(a.tied_embeddings);  // no output.weight
  CHECK(a.vocab_size == 5000);
  // KV at 4096 tokens, llama.cpp: one attention layer, 2 x 2 x 128 x 4096 x 2 B =
  // 4 MiB; two Mamba2 states of (4 - 1) x (2048 + 2 x 8 x 128) x 4 B conv +
  // 2048 x 128 x 4 B SSM = 1,097,728 bytes each.
  const KvBreakdown kv = kv_of(a, 4096);
  CHECK(kv.attention_bytes == 4LL << 20);
  CHECK(kv.state_bytes == 2 * 1097728);

  Scenario s;
  s.quant = m.quant;
  CHECK(m.quant.name == "GGUF");  // no general.file_type
  s.device = test::device_of("rtx-4090");
  auto e = estimate(a, s, m.weights);
  REQUIRE(e);
  CHECK(e.value().memory.weights_bytes == m.weights.weights.tensor_bytes);
  CHECK(e.value().memory.file_bytes == w.file_bytes());
  CHECK(e.value().memory.fits.value_or(false));
}

TEST_CASE("estimate refuses weights that do not match the architecture", "[gguf][estimate]") {
  GgufWriter w;
  test::write_llama_31_8b(w, all_q8_0, 7, 10);
  GgufModel m = model_of(w);
  m.weights.weights.layer_bytes.pop_back();
  Scenario s;
  s.quant = m.quant;
  auto e = estimate(m.arch, s, m.weights);
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "scenario.bad_value");
}

TEST_CASE("the page's loop: every part's first bytes, grown until the model reads", "[gguf][split][page]") {
  GgufWriter w;
  test::write_llama_31_8b(w, all_q8_0, 7, 5000);
  std::vector<std::string> files;  // header + 4096 bytes standing in for tensor data
  std::vector<std::int64_t> sizes;
  for (const auto& p : w.split(2)) {
    files.push_back(p.header() + std::string(4096, '\0'));
    sizes.push_back(p.file_bytes());
  }
  std::vector<std::int64_t> read = {256, 256};
  int calls = 0;
  GgufModelRead result;
  for (;; ++calls) {
    REQUIRE(calls < 20);
    std::vector<GgufPart> parts;
    for (std::size_t i = 0; i < files.size(); ++i)
      parts.push_back({"part" + std::to_string(i + 1), std::string_view(files[i]).substr(0, static_cast<std::size_t>(read[i])), sizes[i]});
    auto r = read_gguf_model(parts);
    REQUIRE(r);
    if (r.value().complete) {
      result = std::move(r).value();
      break;
    }
    for (std::size_t i = 0; i < files.size(); ++i)
      if (r.value().bytes_needed[i] > 0) read[i] = std::max(r.value().bytes_needed[i], 2 * read[i]);
  }
  CHECK(result.model.weights.weights.tensor_bytes == 8532934656);
  CHECK(result.model.weights.weights.total_bytes == sizes[0] + sizes[1]);
  // Only headers were read: at most twice the header of the part that carries the
  // vocabulary (the slices double), a few KB of the other, of files of 4 GB each.
  CHECK(read[0] < 2 * static_cast<std::int64_t>(w.split(2)[0].header().size()));
  CHECK(read[1] <= 16384);
  CHECK(read[0] < sizes[0] / 1000);

  std::vector<GgufPart> broken = {{"model-00001-of-00002.gguf", "GGUX", -1}};
  auto e = read_gguf_model(broken);
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "gguf.bad_magic");
  CHECK(e.error().message.rfind("model-00001-of-00002.gguf: ", 0) == 0);
}

namespace {

// A small stack of `layers` GQA layers (8 heads of 64, 2 KV heads) for metadata tests.
GgufWriter small_model(const std::string& arch, int layers, const std::function<void(GgufWriter&)>& extra) {
  GgufWriter w;
  w.add_string("general.architecture", arch);
  w.add_u32(arch + ".block_count", static_cast<std::uint32_t>(layers));
  w.add_u32(arch + ".embedding_length", 512);
  w.add_u32(arch + ".attention.head_count", 8);
  w.add_u32(arch + ".attention.head_count_kv", 2);
  extra(w);
  w.add_tensor("token_embd.weight", ggml_id::F16, {512, 1000});
  for (int i = 0; i < layers; ++i) {
    w.add_tensor(test::blk(i, "attn_q"), ggml_id::F16, {512, 512});
    w.add_tensor(test::blk(i, "attn_k"), ggml_id::F16, {512, 128});
    w.add_tensor(test::blk(i, "attn_v"), ggml_id::F16, {512, 128});
    w.add_tensor(test::blk(i, "ffn_up"), ggml_id::F16, {512, 1024});
    w.add_tensor(test::blk(i, "ffn_down"), ggml_id::F16, {1024, 512});
  }
  return w;
}

std::vector<AttentionKind> kinds_of(const Architecture& a) {
  std::vector<AttentionKind> out;
  for (const auto& l : a.layers) out.push_back(l.attn.kind);
  return out;
}

}  // namespace

TEST_CASE("sliding windows follow llama.cpp's per-architecture patterns", "[gguf][sliding]") {
  using K = AttentionKind;
  const auto window = [](GgufWriter& w, const std::string& arch) { w.add_u32(arch + ".attention.sliding_window", 1024); };
  // Gemma 3: set_swa_pattern(6), five windowed layers then one global.
  const GgufModel gemma3 = model_of(small_model("gemma3", 7, [&](GgufWriter& w) { window(w, "gemma3"); }));
  CHECK(kinds_of(gemma3.arch) == std::vector<K>{K::sliding, K::sliding, K::sliding, K::sliding, K::sliding, K::full, K::sliding});
  CHECK(gemma3.arch.layers[0].attn.window_tokens == 1024);
  // Gemma 2: every other layer, starting with a windowed one.
  const GgufModel gemma2 = model_of(small_model("gemma2", 3, [&](GgufWriter& w) { window(w, "gemma2"); }));
  CHECK(kinds_of(gemma2.arch) == std::vector<K>{K::sliding, K::full, K::sliding});
  // Llama and Mistral files may carry a window; llama.cpp keeps the full context.
  const GgufModel llama = model_of(small_model("llama", 2, [&](GgufWriter& w) { window(w, "llama"); }));
  CHECK(kinds_of(llama.arch) == std::vector<K>{K::full, K::full});
  // A pattern in the file wins: per layer ...
  const GgufModel listed = model_of(small_model("newarch", 3, [&](GgufWriter& w) {
    window(w, "newarch");
    w.add_array_bool("newarch.attention.sliding_window_pattern", {false, true, true});
  }));
  CHECK(kinds_of(listed.arch) == std::vector<K>{K::full, K::sliding, K::sliding});
  // ... or as a period.
  const GgufModel period = model_of(small_model("newarch", 4, [&](GgufWriter& w) {
    window(w, "newarch");
    w.add_u32("newarch.attention.sliding_window_pattern", 2);
  }));
  CHECK(kinds_of(period.arch) == std::vector<K>{K::sliding, K::full, K::sliding, K::full});
  // Llama 4: chunks of 8192 on three layers of four.
  const GgufModel llama4 = model_of(small_model("llama4", 4, [](GgufWriter&) {}));
  CHECK(kinds_of(llama4.arch) == std::vector<K>{K::chunked, K::chunked, K::chunked, K::full});
  CHECK(llama4.arch.layers[0].attn.window_tokens == 8192);
  // Head sizes from the metadata: 512 / 8 heads = 64 per head, 2 KV heads.
  CHECK(llama.arch.layers[1].attn.head_dim_k == 64);
  CHECK(llama.arch.layers[1].attn.n_kv_heads == 2);
}

TEST_CASE("MTP layers kept in the file and absorbed latent-attention keys", "[gguf][mla][mtp]") {
  // GLM-4.5 style: the last nextn_predict_layers blocks are MTP layers, loaded
  // (their bytes count) but not run (no KV cache, not in params.total).
  const GgufModel glm = model_of(small_model("glm4moe", 3, [](GgufWriter& w) { w.add_u32("glm4moe.nextn_predict_layers", 1); }));
  REQUIRE(glm.arch.layers.size() == 3);
  CHECK(glm.arch.decoder_layer_count() == 2);
  CHECK(glm.arch.layers[2].is_mtp);
  CHECK(glm.arch.mtp_in_gguf);
  // A layer: (512 x 512 + 2 x 512 x 128 + 2 x 512 x 1024) x 2 bytes = 2,883,584.
  CHECK(glm.weights.weights.mtp_bytes == 2883584);
  CHECK(glm.weights.params.mtp == 2883584 / 2);
  CHECK(glm.weights.params.total == 1000 * 512 + 2 * 2883584 / 2);
  CHECK(kv_of(glm.arch, 4096).total_bytes == 2 * 2 * 2 * 64 * 4096 * 2);  // two layers, K and V

  // Newer deepseek2 files: head_count_kv 1 and the absorbed sizes (key 576,
  // value 512) with the per-head ones under *_mla; attn_k_b / attn_v_b.
  GgufWriter w;
  w.add_string("general.architecture", "deepseek2");
  w.add_u32("deepseek2.block_count", 1);
  w.add_u32("deepseek2.embedding_length", 1024);
  w.add_u32("deepseek2.attention.head_count", 16);
  w.add_u32("deepseek2.attention.head_count_kv", 1);
  w.add_u32("deepseek2.attention.key_length", 576);
  w.add_u32("deepseek2.attention.value_length", 512);
  w.add_u32("deepseek2.attention.key_length_mla", 192);
  w.add_u32("deepseek2.attention.value_length_mla", 128);
  w.add_u32("deepseek2.attention.kv_lora_rank", 512);
  w.add_u32("deepseek2.attention.q_lora_rank", 384);
  w.add_tensor("token_embd.weight", ggml_id::F16, {1024, 1000});
  w.add_tensor(test::blk(0, "attn_q_a"), ggml_id::F16, {1024, 384});
  w.add_tensor(test::blk(0, "attn_q_b"), ggml_id::F16, {384, 16 * 192});
  w.add_tensor(test::blk(0, "attn_kv_a_mqa"), ggml_id::F16, {1024, 576});
  w.add_tensor(test::blk(0, "attn_kv_a_norm"), ggml_id::F32, {512});
  w.add_tensor(test::blk(0, "attn_k_b"), ggml_id::F16, {128, 512, 16});
  w.add_tensor(test::blk(0, "attn_v_b"), ggml_id::F16, {512, 128, 16});
  w.add_tensor(test::blk(0, "attn_output"), ggml_id::F16, {16 * 128, 1024});
  const GgufModel m = model_of(w);
  const AttentionSpec& a = m.arch.layers.at(0).attn;
  CHECK(a.mla);
  CHECK(a.kv_lora_rank == 512);
  CHECK(a.qk_rope_dim == 64);
  CHECK(a.qk_nope_dim == 128);
  CHECK(a.head_dim_v == 128);
  CHECK(a.q_lora_rank == 384);
  CHECK(m.arch.layers[0].ffn.kind == FfnKind::none);
  CHECK(kv_of(m.arch, 4096).total_bytes == 576 * 4096 * 2);
}

TEST_CASE("counts are bounded even when the bytes are there", "[gguf][reader][hostile]") {
  // More tensors or keys than any model, claimed by a header whose bytes would fit
  // under the limit: refused before parsing, as parsed structures outgrow their bytes.
  CHECK(error_id(preamble((std::uint64_t{1} << 18) + 1, 0)) == "gguf.too_large");
  CHECK(error_id(preamble(0, (std::uint64_t{1} << 16) + 1)) == "gguf.too_large");
  // Many kept arrays: past the budget they are skipped and only counted.
  GgufWriter w;
  for (int i = 0; i < 20; ++i) w.add_array_i32("x.array" + std::to_string(i), std::vector<std::int32_t>(65536, 7));
  const GgufFile f = read_complete(w.header());
  REQUIRE(f.metadata.size() == 20);
  CHECK(f.metadata[0].value.integers.size() == 65536);
  CHECK(f.metadata[19].value.array_count == 65536);
  CHECK(f.metadata[19].value.integers.empty());
}
