// Safetensors headers and indexes (issue 7): exact bytes from dtype x shape,
// placed on the config's layers by name; hostile headers refused by id.
#include "llmsizer/safetensors.hpp"

#include "test_support.hpp"

using namespace llmsizer;
using nlohmann::json;

namespace {

// A safetensors header: 8-byte little-endian length, then the JSON.
std::string header_bytes(const std::string& text) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * i)) & 0xffu));
  return out + text;
}

// Builds a header tensor by tensor with contiguous data_offsets.
class SafetensorsWriter {
 public:
  void add(const std::string& name, const std::string& dtype, std::vector<std::int64_t> shape, std::int64_t bytes_per_element = 2) {
    std::int64_t n = bytes_per_element;
    for (auto d : shape) n *= d;
    header_[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {offset_, offset_ + n}}};
    offset_ += n;
  }
  std::string bytes() const { return header_bytes(header_.dump()); }
  std::int64_t data_bytes() const { return offset_; }

 private:
  json header_ = {{"__metadata__", {{"format", "pt"}}}};
  std::int64_t offset_ = 0;
};

SafetensorsFile read_complete(const std::string& bytes) {
  auto r = read_safetensors_header(bytes);
  if (!r) FAIL(r.error().id << ": " << r.error().message);
  if (!r.value().complete) FAIL("incomplete, needs " << r.value().bytes_needed);
  return r.value().file;
}

std::string error_id(const std::string& bytes, SafetensorsReadOptions options = {}) {
  auto r = read_safetensors_header(bytes, options);
  if (r) return r.value().complete ? "complete" : "need_more";
  return r.error().id;
}

std::string entry_error(const json& entry) { return error_id(header_bytes(json{{"w", entry}}.dump())); }

// Meta-Llama-3.1-8B in BF16 as transformers shards it (4 files).
std::vector<SafetensorsWriter> llama_31_8b_shards() {
  std::vector<SafetensorsWriter> shards(4);
  const std::int64_t h = 4096, ff = 14336, v = 128256, kv = 1024;
  shards[0].add("model.embed_tokens.weight", "BF16", {v, h});
  for (int i = 0; i < 32; ++i) {
    SafetensorsWriter& s = shards[static_cast<std::size_t>(i / 9)];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    s.add(p + "input_layernorm.weight", "BF16", {h});
    s.add(p + "self_attn.q_proj.weight", "BF16", {h, h});
    s.add(p + "self_attn.k_proj.weight", "BF16", {kv, h});
    s.add(p + "self_attn.v_proj.weight", "BF16", {kv, h});
    s.add(p + "self_attn.o_proj.weight", "BF16", {h, h});
    s.add(p + "post_attention_layernorm.weight", "BF16", {h});
    s.add(p + "mlp.gate_proj.weight", "BF16", {ff, h});
    s.add(p + "mlp.up_proj.weight", "BF16", {ff, h});
    s.add(p + "mlp.down_proj.weight", "BF16", {h, ff});
  }
  shards[3].add("model.norm.weight", "BF16", {h});
  shards[3].add("lm_head.weight", "BF16", {v, h});
  return shards;
}

}  // namespace

TEST_CASE("a BF16 Llama-3.1-8B checkpoint is measured from its shard headers", "[safetensors]") {
  std::vector<SafetensorsFile> files;
  for (const auto& s : llama_31_8b_shards()) files.push_back(read_complete(s.bytes()));
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  std::vector<std::string> warnings;
  auto measured = safetensors_weights(arch, files, warnings);
  REQUIRE(measured);
  const WeightBreakdown& w = measured.value().weights;
  // 8,030,261,248 parameters, every one in BF16: 16,060,522,496 bytes.
  CHECK(w.tensor_bytes == 16060522496);
  CHECK(w.total_bytes == 16060522496);
  // A layer: (2 x 4096^2 + 2 x 1024 x 4096 + 3 x 14336 x 4096 + 2 x 4096) x 2 bytes.
  CHECK(w.layer_bytes.at(17) == 436224000);
  CHECK(w.token_embd_bytes == 128256LL * 4096 * 2);
  CHECK(w.output_bytes == (128256LL * 4096 + 4096) * 2);
  CHECK(w.routed_expert_bytes == 0);
  CHECK(w.bits_per_weight == 16.0);
  CHECK(measured.value().params.total == 8030261248);
  CHECK(warnings.empty());

  Scenario s;
  s.quant = quant_scheme_from_name("native").value();
  s.engine = InferenceEngine::vllm;
  s.device = test::device_of("h100-sxm");
  auto e = estimate(arch, s, measured.value());
  REQUIRE(e);
  CHECK(e.value().memory.weights_bytes == 16060522496);
}

TEST_CASE("experts, MTP layers and vision towers are placed by name", "[safetensors]") {
  // Two decoder layers (dense, then 4 experts of width 64) and one MTP layer.
  const Architecture arch = test::arch_from(
      {{"model_type", "deepseek_v3"}, {"hidden_size", 128}, {"intermediate_size", 256},
       {"moe_intermediate_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
       {"n_routed_experts", 4}, {"n_shared_experts", 1}, {"num_experts_per_tok", 2}, {"first_k_dense_replace", 1},
       {"kv_lora_rank", 32}, {"q_lora_rank", 48}, {"qk_rope_head_dim", 16}, {"qk_nope_head_dim", 32},
       {"v_head_dim", 32}, {"vocab_size", 1000}, {"num_nextn_predict_layers", 1}});
  REQUIRE(arch.layers.size() == 3);
  SafetensorsWriter s;
  s.add("model.embed_tokens.weight", "BF16", {1000, 128});
  s.add("model.layers.0.mlp.up_proj.weight", "BF16", {256, 128});
  for (int e = 0; e < 4; ++e)
    s.add("model.layers.1.mlp.experts." + std::to_string(e) + ".up_proj.weight", "F8_E4M3", {64, 128}, 1);
  s.add("model.layers.1.mlp.experts.0.up_proj.weight_scale_inv", "F32", {1, 1}, 4);
  s.add("model.layers.1.mlp.shared_experts.up_proj.weight", "F8_E4M3", {64, 128}, 1);
  s.add("model.layers.2.mlp.experts.0.up_proj.weight", "F8_E4M3", {64, 128}, 1);
  s.add("model.layers.2.embed_tokens.weight", "BF16", {1000, 128});
  s.add("model.layers.7.mlp.up_proj.weight", "BF16", {8, 8});
  s.add("vision_tower.blocks.0.attn.qkv.weight", "BF16", {384, 128});
  s.add("lm_head.weight", "BF16", {1000, 128});
  std::vector<std::string> warnings;
  auto measured = safetensors_weights(arch, {read_complete(s.bytes())}, warnings);
  REQUIRE(measured);
  const WeightBreakdown& w = measured.value().weights;
  CHECK(w.tensor_bytes == s.data_bytes());
  CHECK(w.token_embd_bytes == 1000 * 128 * 2);
  CHECK(w.layer_bytes.at(0) == 256 * 128 * 2);
  // Routed: 4 experts of 64 x 128 fp8 plus one 4-byte scale; the shared expert is not routed.
  CHECK(w.layer_expert_bytes.at(1) == 4 * 64 * 128 + 4);
  CHECK(w.layer_bytes.at(1) == 5 * 64 * 128 + 4);
  CHECK(w.routed_expert_bytes == 4 * 64 * 128 + 4);
  // The MTP layer (model.layers.2) with its own embedding.
  CHECK(w.mtp_bytes == 64 * 128 + 1000 * 128 * 2);
  CHECK(w.layer_expert_bytes.at(2) == 64 * 128);
  // lm_head, the vision tower and the stray layer 7 sit with the output.
  CHECK(w.output_bytes == (1000 * 128 + 384 * 128 + 64) * 2);
  CHECK(warnings.size() == 1);
}

TEST_CASE("a safetensors index gives the exact total and the shard names", "[safetensors][index]") {
  const json index = {{"metadata", {{"total_size", 16060522496LL}}},
                      {"weight_map",
                       {{"model.embed_tokens.weight", "model-00001-of-00004.safetensors"},
                        {"model.layers.0.mlp.up_proj.weight", "model-00002-of-00004.safetensors"},
                        {"model.layers.1.mlp.up_proj.weight", "model-00002-of-00004.safetensors"},
                        {"lm_head.weight", "model-00004-of-00004.safetensors"}}}};
  auto parsed = read_safetensors_index(index.dump());
  REQUIRE(parsed);
  CHECK(parsed.value().total_size == 16060522496);
  CHECK(parsed.value().tensor_count == 4);
  CHECK(parsed.value().shards == std::vector<std::string>{"model-00001-of-00004.safetensors",
                                                          "model-00002-of-00004.safetensors",
                                                          "model-00004-of-00004.safetensors"});
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  std::vector<std::string> warnings;
  auto w = safetensors_index_weights(arch, parsed.value(), warnings);
  REQUIRE(w);
  CHECK(w.value().weights.total_bytes == 16060522496);
  std::int64_t sum = w.value().weights.token_embd_bytes + w.value().weights.output_bytes;
  for (auto b : w.value().weights.layer_bytes) sum += b;
  CHECK(sum == 16060522496);
  CHECK(warnings.size() == 1);

  CHECK(read_safetensors_index("[1]").error().id == "safetensors.not_json");
  CHECK(read_safetensors_index("{\"metadata\": {}}").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"weight_map": {"a": "../../etc/passwd"}})").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"weight_map": {"a": 3}})").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"weight_map": {}, "metadata": {"total_size": -5}})").error().id ==
        "safetensors.bad_index");
  auto no_total = read_safetensors_index(R"({"weight_map": {"a": "x.safetensors"}})");
  REQUIRE(no_total);
  CHECK(safetensors_index_weights(arch, no_total.value(), warnings).error().id == "safetensors.bad_index");
}

TEST_CASE("a short span asks for the header's length, then its bytes", "[safetensors][reader]") {
  SafetensorsWriter s;
  s.add("a", "F32", {4}, 4);
  const std::string bytes = s.bytes();
  CHECK(error_id("") == "need_more");
  CHECK(read_safetensors_header(bytes.substr(0, 5)).value().bytes_needed == 8);
  auto partial = read_safetensors_header(bytes.substr(0, 12));
  REQUIRE(partial);
  CHECK(partial.value().bytes_needed == static_cast<std::int64_t>(bytes.size()));
  const SafetensorsFile f = read_complete(bytes + std::string(16, '\0'));
  CHECK(f.tensor_bytes == 16);
  CHECK(f.file_bytes() == static_cast<std::int64_t>(bytes.size()) + 16);
  REQUIRE(f.metadata.size() == 1);
  CHECK(f.metadata[0].second == "pt");
}

TEST_CASE("hostile safetensors headers are refused with the right error id", "[safetensors][reader][hostile]") {
  std::string huge;
  for (int i = 0; i < 8; ++i) huge.push_back(i == 7 ? '\x40' : '\0');  // 2^62
  CHECK(error_id(huge) == "safetensors.too_large");
  CHECK(error_id(header_bytes("[1, 2]")) == "safetensors.not_json");
  CHECK(error_id(header_bytes("{\"a\": ")) == "safetensors.not_json");
  CHECK(error_id(header_bytes("")) == "safetensors.not_json");
  CHECK(error_id(header_bytes("{}")) == "complete");
  CHECK(error_id(header_bytes(R"({"__metadata__": {"a": 1}})")) == "safetensors.bad_header");
  CHECK(entry_error({{"shape", {2}}, {"data_offsets", {0, 4}}}) == "safetensors.bad_header");
  CHECK(entry_error({{"dtype", "F16"}, {"data_offsets", {0, 4}}}) == "safetensors.bad_header");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {0}}}) == "safetensors.bad_header");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {-2}}, {"data_offsets", {0, 4}}}) == "safetensors.bad_header");
  CHECK(entry_error({{"dtype", "Q4"}, {"shape", {2}}, {"data_offsets", {0, 4}}}) == "safetensors.bad_dtype");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {0, 4}}}) == "complete");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {0, 5}}}) == "safetensors.bad_offsets");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {4, 0}}}) == "safetensors.bad_offsets");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {2}}, {"data_offsets", {4, 8}}}) == "safetensors.bad_offsets");
  CHECK(entry_error({{"dtype", "F4"}, {"shape", {3}}, {"data_offsets", {0, 1}}}) == "safetensors.bad_offsets");
  CHECK(entry_error({{"dtype", "F4"}, {"shape", {4}}, {"data_offsets", {0, 2}}}) == "complete");
  CHECK(entry_error({{"dtype", "F16"}, {"shape", {1LL << 40, 1LL << 40}}, {"data_offsets", {0, 4}}}) ==
        "safetensors.too_large");
  CHECK(entry_error(3) == "safetensors.bad_header");
  // Overlapping ranges.
  const json overlap = {{"a", {{"dtype", "U8"}, {"shape", {4}}, {"data_offsets", {0, 4}}}},
                        {"b", {{"dtype", "U8"}, {"shape", {4}}, {"data_offsets", {2, 6}}}}};
  CHECK(error_id(header_bytes(overlap.dump())) == "safetensors.bad_offsets");
  // Truncation when the file's size is known.
  SafetensorsWriter s;
  s.add("a", "F32", {4}, 4);
  SafetensorsReadOptions sized;
  sized.file_bytes = static_cast<std::int64_t>(s.bytes().size()) + 15;
  CHECK(error_id(s.bytes(), sized) == "safetensors.truncated");
  sized.file_bytes = 10;
  CHECK(error_id(s.bytes(), sized) == "safetensors.truncated");
}

TEST_CASE("the header's JSON is held to the shape of a safetensors header", "[safetensors][reader][hostile]") {
  CHECK(error_id(header_bytes(R"({"__metadata__": "pt"})")) == "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"__metadata__": {"a": {"b": "c"}}})")) == "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": [1]})")) == "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [[4]], "data_offsets": [0, 4]}})")) ==
        "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [4, "x"], "data_offsets": [0, 4]}})")) ==
        "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": "4", "foo": "bar", "data_offsets": [0, 4]}})")) ==
        "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": 8, "shape": [4], "data_offsets": [0, 4]}})")) == "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                                  "w": {"dtype": "U8", "shape": [4], "data_offsets": [4, 8]}})")) == "safetensors.bad_header");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4], "extra": 1}})")) == "complete");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [4.0], "data_offsets": [0, 4.0]}})")) == "complete");
  CHECK(error_id(header_bytes(R"({"w": {"dtype": "U8", "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], "data_offsets": [0, 1]}})")) ==
        "safetensors.bad_header");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  CHECK(error_id(header_bytes(deep)) == "safetensors.bad_header");  // refused at depth 3, no recursion
  CHECK(read_safetensors_index(R"({"weight_map": {"a": {"b": "c"}}})").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"weight_map": []})").error().id == "safetensors.bad_index");
  CHECK(read_safetensors_index(R"({"weight_map": {"a": "x.safetensors"}, "other": [1, {"b": null}]})"));
  CHECK(read_safetensors_index(std::string(100000, '[')).error().id == "safetensors.not_json");
}
