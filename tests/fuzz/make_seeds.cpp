// Writes the fuzzers' seed corpora: GGUF headers of the test writer's models
// (small vocabularies, so that a seed is a few KB), a split set, hybrid and
// sliding-window stacks; safetensors headers and an index; and every catalog
// model's config.json.
//   make_fuzz_seeds OUT_DIR   ->  OUT_DIR/{gguf,safetensors,config}/...
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "gguf_writer.hpp"

using namespace llmsizer;
using test::GgufWriter;
namespace ggml_id = test::ggml_id;

namespace {

std::string out_dir;

void write(const std::string& sub, const std::string& name, const std::string& bytes) {
  const std::string dir = out_dir + "/" + sub;
  mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

// A small transformer of any architecture name: 2 layers, GQA, gated MLP.
GgufWriter tiny(const std::string& arch, std::uint32_t version = 3) {
  GgufWriter w(version);
  w.add_string("general.architecture", arch);
  w.add_string("general.name", "tiny " + arch);
  w.add_u32("general.file_type", 15);
  w.add_u32(arch + ".block_count", 2);
  w.add_u32(arch + ".context_length", 4096);
  w.add_u32(arch + ".embedding_length", 256);
  w.add_u32(arch + ".feed_forward_length", 512);
  w.add_u32(arch + ".attention.head_count", 4);
  w.add_array_i32(arch + ".attention.head_count_kv", {2, 1});
  w.add_u32(arch + ".attention.sliding_window", 128);
  w.add_f32(arch + ".rope.freq_base", 10000.0f);
  w.add_bool("tokenizer.ggml.add_bos_token", true);
  w.add_u8("x.u8", 1);
  w.add_i8("x.i8", -1);
  w.add_u16("x.u16", 2);
  w.add_i16("x.i16", -2);
  w.add_u64("x.u64", 3);
  w.add_i64("x.i64", -3);
  w.add_f64("x.f64", 0.5);
  w.add_array_f32("tokenizer.ggml.scores", {0.0f, 1.0f});
  w.add_array_bool(arch + ".attention.sliding_window_pattern", {true, false});
  w.add_array_string("tokenizer.ggml.tokens", test::token_strings(300));
  w.add_tensor("token_embd.weight", ggml_id::Q4_K, {256, 300});
  for (int i = 0; i < 2; ++i) {
    w.add_tensor(test::blk(i, "attn_norm"), ggml_id::F32, {256});
    w.add_tensor(test::blk(i, "attn_q"), ggml_id::Q4_K, {256, 256});
    w.add_tensor(test::blk(i, "attn_k"), ggml_id::Q4_K, {256, 128 / (i + 1)});
    w.add_tensor(test::blk(i, "attn_v"), ggml_id::Q6_K, {256, 128 / (i + 1)});
    w.add_tensor(test::blk(i, "attn_output"), ggml_id::Q4_K, {256, 256});
    w.add_tensor(test::blk(i, "ffn_norm"), ggml_id::F32, {256});
    w.add_tensor(test::blk(i, "ffn_gate"), ggml_id::Q4_K, {256, 512});
    w.add_tensor(test::blk(i, "ffn_up"), ggml_id::Q4_K, {256, 512});
    w.add_tensor(test::blk(i, "ffn_down"), ggml_id::Q6_K, {512, 256});
  }
  w.add_tensor("output_norm.weight", ggml_id::F32, {256});
  w.add_tensor("output.weight", ggml_id::Q6_K, {256, 300});
  return w;
}

// Mamba2 and linear-attention layers between attention layers.
GgufWriter hybrid(const std::string& arch, bool linear) {
  GgufWriter w;
  w.add_string("general.architecture", arch);
  w.add_u32(arch + ".block_count", 2);
  w.add_u32(arch + ".embedding_length", 128);
  w.add_array_i32(arch + ".attention.head_count", {0, 4});
  w.add_array_i32(arch + ".attention.head_count_kv", {0, 2});
  w.add_u32(arch + ".ssm.conv_kernel", 4);
  w.add_u32(arch + ".ssm.inner_size", 256);
  w.add_u32(arch + ".ssm.state_size", 64);
  w.add_u32(arch + ".ssm.time_step_rank", 8);
  w.add_u32(arch + ".ssm.group_count", 2);
  w.add_u32(arch + ".expert_used_count", 2);
  w.add_tensor("token_embd.weight", ggml_id::F16, {128, 200});
  w.add_tensor(test::blk(0, "ssm_in"), ggml_id::F16, {128, 800});
  w.add_tensor(test::blk(0, "ssm_conv1d"), ggml_id::F32, {4, 512});
  if (linear) w.add_tensor(test::blk(0, "ssm_ba"), ggml_id::F16, {128, 16});
  w.add_tensor(test::blk(0, "ssm_out"), ggml_id::F16, {256, 128});
  w.add_tensor(test::blk(1, "attn_q"), ggml_id::F16, {128, 128});
  w.add_tensor(test::blk(1, "attn_k"), ggml_id::F16, {128, 64});
  w.add_tensor(test::blk(1, "ffn_gate_exps"), ggml_id::Q8_0, {128, 64, 4});
  w.add_tensor(test::blk(1, "ffn_up_exps"), ggml_id::Q8_0, {128, 64, 4});
  w.add_tensor(test::blk(1, "ffn_down_exps"), ggml_id::Q8_0, {64, 128, 4});
  w.add_tensor(test::blk(1, "ffn_up_shexp"), ggml_id::Q8_0, {128, 64});
  return w;
}

std::string safetensors_bytes(const nlohmann::json& header) {
  const std::string text = header.dump();
  std::string out;
  test::put_u64(out, text.size());
  return out + text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_fuzz_seeds OUT_DIR\n";
    return 2;
  }
  out_dir = argv[1];
  mkdir(out_dir.c_str(), 0755);

  const test::TypeChooser q8 = [](std::string_view, int) { return ggml_id::Q8_0; };
  GgufWriter llama;
  test::write_llama_31_8b(llama, q8, 7, 200);
  write("gguf", "llama-3.1-8b.gguf", llama.header());
  int part = 0;
  for (const GgufWriter& p : llama.split(3)) write("gguf", "llama-split-" + std::to_string(++part) + ".gguf", p.header());
  GgufWriter gpt_oss;
  test::write_gpt_oss_20b(gpt_oss, 200);
  write("gguf", "gpt-oss-20b.gguf", gpt_oss.header());
  GgufWriter deepseek;
  test::write_deepseek_v2_lite(deepseek, 200);
  write("gguf", "deepseek-v2-lite.gguf", deepseek.header());
  for (const char* arch : {"llama", "gemma3", "gpt-oss", "llama4", "frobnicator"}) write("gguf", std::string("tiny-") + arch + ".gguf", tiny(arch).header());
  write("gguf", "tiny-v2.gguf", tiny("qwen2", 2).header());
  write("gguf", "nemotron_h.gguf", hybrid("nemotron_h", false).header());
  write("gguf", "mamba.gguf", hybrid("mamba", false).header());
  write("gguf", "qwen3next.gguf", hybrid("qwen3next", true).header());

  using nlohmann::json;
  json st = {{"__metadata__", {{"format", "pt"}}},
             {"model.embed_tokens.weight", {{"dtype", "BF16"}, {"shape", {100, 16}}, {"data_offsets", {0, 3200}}}},
             {"model.layers.0.mlp.experts.0.up_proj.weight", {{"dtype", "F8_E4M3"}, {"shape", {8, 16}}, {"data_offsets", {3200, 3328}}}},
             {"model.layers.1.mlp.experts.gate_up_proj_blocks", {{"dtype", "U8"}, {"shape", {2, 4, 1, 16}}, {"data_offsets", {3328, 3456}}}},
             {"model.layers.47.self_attn.q_proj.weight", {{"dtype", "F4"}, {"shape", {4, 4}}, {"data_offsets", {3456, 3464}}}},
             {"mtp.layers.0.fc.weight", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {3464, 3472}}}},
             {"lm_head.weight", {{"dtype", "F16"}, {"shape", {100, 16}}, {"data_offsets", {3472, 6672}}}}};
  write("safetensors", "model.safetensors", safetensors_bytes(st));
  write("safetensors", "empty.safetensors", safetensors_bytes(json::object()));
  const json index = {{"metadata", {{"total_size", 61064245248LL}}},
                      {"weight_map", {{"model.embed_tokens.weight", "model-00001-of-00002.safetensors"},
                                      {"lm_head.weight", "model-00002-of-00002.safetensors"}}}};
  write("safetensors", "model.safetensors.index.json", index.dump());

  for (const CatalogModel& m : fuzz::catalog().models) write("config", m.id + ".json", model_config(m).value().dump());
  return 0;
}
