// A small GGUF writer for tests and fuzz seeds: metadata of every value type,
// tensor infos with the offsets llama.cpp expects, and the header bytes (a
// file's data is never needed: the engine reads headers only). Block sizes are
// its own table, transcribed from ../shared/reference/quant_types.json, so that
// the engine's table is checked rather than reused.
//
// Also the tensor layouts of three real models, as llama.cpp's converter names
// them (llama-arch.cpp): Llama-3.1-8B, gpt-oss-20b (MXFP4 experts) and
// DeepSeek-V2-Lite (latent attention, shared experts).
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llmsizer::test {

// enum ggml_type ids.
namespace ggml_id {
constexpr std::uint32_t F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q5_K = 13, Q6_K = 14, BF16 = 30,
                        MXFP4 = 39;
}

struct BlockSize {
  std::uint32_t id;
  std::int64_t elements;
  std::int64_t bytes;
};

// quant_types.json ggml_tensor_types: ggml_type_id, weights_per_block, bytes_per_block.
inline const std::vector<BlockSize>& block_sizes() {
  static const std::vector<BlockSize> table = {
      {0, 1, 4},      {1, 1, 2},      {2, 32, 18},    {3, 32, 20},    {6, 32, 22},    {7, 32, 24},
      {8, 32, 34},    {9, 32, 36},    {10, 256, 84},  {11, 256, 110}, {12, 256, 144}, {13, 256, 176},
      {14, 256, 210}, {15, 256, 292}, {16, 256, 66},  {17, 256, 74},  {18, 256, 98},  {19, 256, 50},
      {20, 32, 18},   {21, 256, 110}, {22, 256, 82},  {23, 256, 136}, {24, 1, 1},     {25, 1, 2},
      {26, 1, 4},     {27, 1, 8},     {28, 1, 8},     {29, 256, 56},  {30, 1, 2},     {34, 256, 54},
      {35, 256, 66},  {39, 32, 17},   {40, 64, 36},   {41, 128, 18},  {42, 64, 18},
  };
  return table;
}

inline std::int64_t ggml_bytes(std::uint32_t id, const std::vector<std::int64_t>& dims) {
  for (const BlockSize& b : block_sizes()) {
    if (b.id != id) continue;
    std::int64_t bytes = dims.at(0) / b.elements * b.bytes;
    for (std::size_t d = 1; d < dims.size(); ++d) bytes *= dims[d];
    return bytes;
  }
  throw std::invalid_argument("unknown ggml type id");
}

// Little-endian encoders, for the writer and for hand-made hostile headers.
inline void put_u8(std::string& out, std::uint8_t v) { out.push_back(static_cast<char>(v)); }
inline void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
inline void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
inline void put_string(std::string& out, std::string_view s) {
  put_u64(out, s.size());
  out.append(s.data(), s.size());
}

class GgufWriter {
 public:
  enum Type : std::uint32_t { u8 = 0, i8, u16, i16, u32, i32, f32, boolean, string, array, u64, i64, f64 };

  explicit GgufWriter(std::uint32_t version = 3, std::uint64_t alignment = 32)
      : version_(version), alignment_(alignment) {}

  void add_u8(std::string_view key, std::uint8_t v) { scalar(key, u8, v, 1); }
  void add_u16(std::string_view key, std::uint16_t v) { scalar(key, u16, v, 2); }
  void add_i16(std::string_view key, std::int16_t v) { scalar(key, i16, static_cast<std::uint16_t>(v), 2); }
  void add_i8(std::string_view key, std::int8_t v) { scalar(key, i8, static_cast<std::uint8_t>(v), 1); }
  void add_u32(std::string_view key, std::uint32_t v) { scalar(key, u32, v, 4); }
  void add_i32(std::string_view key, std::int32_t v) { scalar(key, i32, static_cast<std::uint32_t>(v), 4); }
  void add_u64(std::string_view key, std::uint64_t v) { scalar(key, u64, v, 8); }
  void add_i64(std::string_view key, std::int64_t v) { scalar(key, i64, static_cast<std::uint64_t>(v), 8); }
  void add_bool(std::string_view key, bool v) { scalar(key, boolean, v ? 1 : 0, 1); }
  void add_f32(std::string_view key, float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    scalar(key, f32, bits, 4);
  }
  void add_f64(std::string_view key, double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, 8);
    scalar(key, f64, bits, 8);
  }
  void add_string(std::string_view key, std::string_view v) {
    begin(key, string);
    put_string(kv_, v);
  }
  void add_array_i32(std::string_view key, const std::vector<std::int32_t>& values) {
    begin_array(key, i32, values.size());
    for (std::int32_t v : values) put_u32(kv_, static_cast<std::uint32_t>(v));
  }
  void add_array_u32(std::string_view key, const std::vector<std::uint32_t>& values) {
    begin_array(key, u32, values.size());
    for (std::uint32_t v : values) put_u32(kv_, v);
  }
  void add_array_bool(std::string_view key, const std::vector<bool>& values) {
    begin_array(key, boolean, values.size());
    for (bool v : values) put_u8(kv_, v ? 1 : 0);
  }
  void add_array_f32(std::string_view key, const std::vector<float>& values) {
    begin_array(key, f32, values.size());
    for (float v : values) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v, 4);
      put_u32(kv_, bits);
    }
  }
  void add_array_string(std::string_view key, const std::vector<std::string>& values) {
    begin_array(key, string, values.size());
    for (const std::string& v : values) put_string(kv_, v);
  }

  // dims as ggml's ne: ne[0] is the row width (the input features of a matrix).
  void add_tensor(std::string_view name, std::uint32_t type_id, const std::vector<std::int64_t>& dims) {
    tensors_.push_back({std::string(name), type_id, dims});
  }

  // Magic through the last tensor info, padded to the alignment.
  std::string header() const {
    std::string out = "GGUF";
    put_u32(out, version_);
    put_u64(out, tensors_.size());
    put_u64(out, n_kv_);
    out += kv_;
    std::int64_t offset = 0;
    for (const Tensor& t : tensors_) {
      put_string(out, t.name);
      put_u32(out, static_cast<std::uint32_t>(t.dims.size()));
      for (std::int64_t d : t.dims) put_u64(out, static_cast<std::uint64_t>(d));
      put_u32(out, t.type_id);
      put_u64(out, static_cast<std::uint64_t>(offset));
      offset += pad(ggml_bytes(t.type_id, t.dims));
    }
    out.resize(static_cast<std::size_t>(pad(static_cast<std::int64_t>(out.size()))), '\0');
    return out;
  }
  std::int64_t tensor_bytes() const {
    std::int64_t sum = 0;
    for (const Tensor& t : tensors_) sum += ggml_bytes(t.type_id, t.dims);
    return sum;
  }
  std::int64_t data_bytes() const {
    std::int64_t sum = 0;
    for (const Tensor& t : tensors_) sum += pad(ggml_bytes(t.type_id, t.dims));
    return sum;
  }
  std::int64_t file_bytes() const { return static_cast<std::int64_t>(header().size()) + data_bytes(); }

  // The parts gguf-split would write: every part has split.no, split.count and
  // split.tensors.count; part 0 also all the metadata; tensors in order, spread
  // evenly.
  std::vector<GgufWriter> split(int parts) const {
    std::vector<GgufWriter> out;
    for (int p = 0; p < parts; ++p) {
      GgufWriter part(version_, alignment_);
      if (p == 0) {
        part.kv_ = kv_;
        part.n_kv_ = n_kv_;
      }
      part.add_u16("split.no", static_cast<std::uint16_t>(p));
      part.add_u16("split.count", static_cast<std::uint16_t>(parts));
      part.add_i32("split.tensors.count", static_cast<std::int32_t>(tensors_.size()));
      const std::size_t begin = tensors_.size() * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts);
      const std::size_t end = tensors_.size() * static_cast<std::size_t>(p + 1) / static_cast<std::size_t>(parts);
      for (std::size_t i = begin; i < end; ++i) part.tensors_.push_back(tensors_[i]);
      out.push_back(std::move(part));
    }
    return out;
  }

 private:
  std::int64_t pad(std::int64_t n) const {
    const auto a = static_cast<std::int64_t>(alignment_);
    return (n + a - 1) / a * a;
  }
  void begin(std::string_view key, Type type) {
    put_string(kv_, key);
    put_u32(kv_, type);
    ++n_kv_;
  }
  void begin_array(std::string_view key, Type element, std::size_t count) {
    begin(key, array);
    put_u32(kv_, element);
    put_u64(kv_, count);
  }
  void scalar(std::string_view key, Type type, std::uint64_t bits, int width) {
    begin(key, type);
    for (int i = 0; i < width; ++i) kv_.push_back(static_cast<char>((bits >> (8 * i)) & 0xffu));
  }

  struct Tensor {
    std::string name;
    std::uint32_t type_id;
    std::vector<std::int64_t> dims;
  };

  std::uint32_t version_;
  std::uint64_t alignment_;
  std::string kv_;
  std::uint64_t n_kv_ = 0;
  std::vector<Tensor> tensors_;
};

// ---- synthetic models ---------------------------------------------------------

// Chooses the ggml type of a tensor from its name and layer (-1 for global ones).
using TypeChooser = std::function<std::uint32_t(std::string_view role, int layer)>;

inline std::string blk(int layer, std::string_view role, std::string_view suffix = "weight") {
  return "blk." + std::to_string(layer) + "." + std::string(role) + "." + std::string(suffix);
}

inline std::vector<std::string> token_strings(std::int64_t n) {
  std::vector<std::string> tokens;
  tokens.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) tokens.push_back("t" + std::to_string(i));
  return tokens;
}

// Meta-Llama-3.1-8B as convert_hf_to_gguf.py writes it (rope_freqs left out: the
// engine's tensor list has no such tensor). vocab_tokens: how many token strings
// to write (the real 128256 by default; fewer for small fuzz seeds).
inline void write_llama_31_8b(GgufWriter& w, const TypeChooser& type_of, std::uint32_t file_type,
                              std::int64_t vocab_tokens = 128256) {
  const std::int64_t hidden = 4096, ff = 14336, vocab = 128256, kv = 8 * 128;
  w.add_string("general.architecture", "llama");
  w.add_string("general.name", "Meta Llama 3.1 8B");
  w.add_u32("general.file_type", file_type);
  w.add_u32("llama.block_count", 32);
  w.add_u32("llama.context_length", 131072);
  w.add_u32("llama.embedding_length", static_cast<std::uint32_t>(hidden));
  w.add_u32("llama.feed_forward_length", static_cast<std::uint32_t>(ff));
  w.add_u32("llama.attention.head_count", 32);
  w.add_u32("llama.attention.head_count_kv", 8);
  w.add_f32("llama.rope.freq_base", 500000.0f);
  w.add_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.add_u32("llama.rope.dimension_count", 128);
  w.add_u32("llama.vocab_size", static_cast<std::uint32_t>(vocab));
  w.add_string("tokenizer.ggml.model", "gpt2");
  w.add_string("tokenizer.ggml.pre", "llama-bpe");
  w.add_array_string("tokenizer.ggml.tokens", token_strings(vocab_tokens));
  w.add_array_i32("tokenizer.ggml.token_type", std::vector<std::int32_t>(static_cast<std::size_t>(vocab_tokens), 1));
  w.add_u32("tokenizer.ggml.bos_token_id", 128000);
  w.add_string("tokenizer.chat_template", "{% for message in messages %}{{ message.content }}{% endfor %}");
  w.add_u32("general.quantization_version", 2);

  w.add_tensor("token_embd.weight", type_of("token_embd", -1), {hidden, vocab});
  for (int i = 0; i < 32; ++i) {
    w.add_tensor(blk(i, "attn_norm"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "attn_q"), type_of("attn_q", i), {hidden, hidden});
    w.add_tensor(blk(i, "attn_k"), type_of("attn_k", i), {hidden, kv});
    w.add_tensor(blk(i, "attn_v"), type_of("attn_v", i), {hidden, kv});
    w.add_tensor(blk(i, "attn_output"), type_of("attn_output", i), {hidden, hidden});
    w.add_tensor(blk(i, "ffn_norm"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "ffn_gate"), type_of("ffn_gate", i), {hidden, ff});
    w.add_tensor(blk(i, "ffn_up"), type_of("ffn_up", i), {hidden, ff});
    w.add_tensor(blk(i, "ffn_down"), type_of("ffn_down", i), {ff, hidden});
  }
  w.add_tensor("output_norm.weight", ggml_id::F32, {hidden});
  w.add_tensor("output.weight", type_of("output", -1), {hidden, vocab});
}

// openai/gpt-oss-20b as llama.cpp converts it: experts in MXFP4 (as published),
// attention and embeddings at Q8_0 here, biases, norms, sinks and router in F32.
// Even layers keep a 128-token window (llama.cpp: set_swa_pattern(2)).
inline void write_gpt_oss_20b(GgufWriter& w, std::int64_t vocab_tokens = 201088) {
  const std::int64_t hidden = 2880, vocab = 201088, heads = 64, kv_heads = 8, head = 64, experts = 32, ff = 2880;
  w.add_string("general.architecture", "gpt-oss");
  w.add_string("general.name", "Gpt Oss 20b");
  w.add_u32("general.file_type", 38);  // MXFP4_MOE
  w.add_u32("gpt-oss.block_count", 24);
  w.add_u32("gpt-oss.context_length", 131072);
  w.add_u32("gpt-oss.embedding_length", static_cast<std::uint32_t>(hidden));
  w.add_u32("gpt-oss.feed_forward_length", static_cast<std::uint32_t>(ff));
  w.add_u32("gpt-oss.attention.head_count", static_cast<std::uint32_t>(heads));
  w.add_u32("gpt-oss.attention.head_count_kv", static_cast<std::uint32_t>(kv_heads));
  w.add_u32("gpt-oss.attention.key_length", static_cast<std::uint32_t>(head));
  w.add_u32("gpt-oss.attention.value_length", static_cast<std::uint32_t>(head));
  w.add_u32("gpt-oss.attention.sliding_window", 128);
  w.add_u32("gpt-oss.expert_count", static_cast<std::uint32_t>(experts));
  w.add_u32("gpt-oss.expert_used_count", 4);
  w.add_u32("gpt-oss.expert_feed_forward_length", static_cast<std::uint32_t>(ff));
  w.add_string("tokenizer.ggml.model", "gpt2");
  w.add_array_string("tokenizer.ggml.tokens", token_strings(vocab_tokens));

  w.add_tensor("token_embd.weight", ggml_id::Q8_0, {hidden, vocab});
  for (int i = 0; i < 24; ++i) {
    w.add_tensor(blk(i, "attn_norm"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "attn_q"), ggml_id::Q8_0, {hidden, heads * head});
    w.add_tensor(blk(i, "attn_q", "bias"), ggml_id::F32, {heads * head});
    w.add_tensor(blk(i, "attn_k"), ggml_id::Q8_0, {hidden, kv_heads * head});
    w.add_tensor(blk(i, "attn_k", "bias"), ggml_id::F32, {kv_heads * head});
    w.add_tensor(blk(i, "attn_v"), ggml_id::Q8_0, {hidden, kv_heads * head});
    w.add_tensor(blk(i, "attn_v", "bias"), ggml_id::F32, {kv_heads * head});
    w.add_tensor(blk(i, "attn_output"), ggml_id::Q8_0, {heads * head, hidden});
    w.add_tensor(blk(i, "attn_output", "bias"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "attn_sinks"), ggml_id::F32, {heads});
    w.add_tensor(blk(i, "post_attention_norm"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "ffn_gate_inp"), ggml_id::F32, {hidden, experts});
    w.add_tensor(blk(i, "ffn_gate_inp", "bias"), ggml_id::F32, {experts});
    w.add_tensor(blk(i, "ffn_gate_exps"), ggml_id::MXFP4, {hidden, ff, experts});
    w.add_tensor(blk(i, "ffn_gate_exps", "bias"), ggml_id::F32, {ff, experts});
    w.add_tensor(blk(i, "ffn_up_exps"), ggml_id::MXFP4, {hidden, ff, experts});
    w.add_tensor(blk(i, "ffn_up_exps", "bias"), ggml_id::F32, {ff, experts});
    w.add_tensor(blk(i, "ffn_down_exps"), ggml_id::MXFP4, {ff, hidden, experts});
    w.add_tensor(blk(i, "ffn_down_exps", "bias"), ggml_id::F32, {hidden, experts});
  }
  w.add_tensor("output_norm.weight", ggml_id::F32, {hidden});
  w.add_tensor("output.weight", ggml_id::Q8_0, {hidden, vocab});
}

// deepseek-ai/DeepSeek-V2-Lite as llama.cpp's deepseek2 architecture: latent
// attention without a q LoRA (attn_q direct), kv_lora_rank 512, rope 64, nope 128,
// v 128; layer 0 dense, 26 MoE layers of 64 experts (6 routed) plus 2 shared.
// Everything at Q8_0 but the norms and the router (F32).
inline void write_deepseek_v2_lite(GgufWriter& w, std::int64_t vocab_tokens = 102400) {
  const std::int64_t hidden = 2048, vocab = 102400, heads = 16, kv_lora = 512, rope = 64, nope = 128, v = 128;
  const std::int64_t dense_ff = 10944, expert_ff = 1408, experts = 64, shared_ff = 2 * 1408;
  w.add_string("general.architecture", "deepseek2");
  w.add_string("general.name", "DeepSeek V2 Lite");
  w.add_u32("general.file_type", 7);  // Q8_0
  w.add_u32("deepseek2.block_count", 27);
  w.add_u32("deepseek2.context_length", 163840);
  w.add_u32("deepseek2.embedding_length", static_cast<std::uint32_t>(hidden));
  w.add_u32("deepseek2.feed_forward_length", static_cast<std::uint32_t>(dense_ff));
  w.add_u32("deepseek2.attention.head_count", static_cast<std::uint32_t>(heads));
  w.add_u32("deepseek2.attention.head_count_kv", static_cast<std::uint32_t>(heads));
  w.add_u32("deepseek2.attention.key_length", static_cast<std::uint32_t>(nope + rope));
  w.add_u32("deepseek2.attention.value_length", static_cast<std::uint32_t>(v));
  w.add_u32("deepseek2.attention.kv_lora_rank", static_cast<std::uint32_t>(kv_lora));
  w.add_u32("deepseek2.rope.dimension_count", static_cast<std::uint32_t>(rope));
  w.add_u32("deepseek2.leading_dense_block_count", 1);
  w.add_u32("deepseek2.expert_count", static_cast<std::uint32_t>(experts));
  w.add_u32("deepseek2.expert_used_count", 6);
  w.add_u32("deepseek2.expert_shared_count", 2);
  w.add_u32("deepseek2.expert_feed_forward_length", static_cast<std::uint32_t>(expert_ff));
  w.add_f32("deepseek2.expert_weights_scale", 1.0f);
  w.add_array_string("tokenizer.ggml.tokens", token_strings(vocab_tokens));

  w.add_tensor("token_embd.weight", ggml_id::Q8_0, {hidden, vocab});
  for (int i = 0; i < 27; ++i) {
    w.add_tensor(blk(i, "attn_norm"), ggml_id::F32, {hidden});
    w.add_tensor(blk(i, "attn_q"), ggml_id::Q8_0, {hidden, heads * (nope + rope)});
    w.add_tensor(blk(i, "attn_kv_a_mqa"), ggml_id::Q8_0, {hidden, kv_lora + rope});
    w.add_tensor(blk(i, "attn_kv_a_norm"), ggml_id::F32, {kv_lora});
    w.add_tensor(blk(i, "attn_kv_b"), ggml_id::Q8_0, {kv_lora, heads * (nope + v)});
    w.add_tensor(blk(i, "attn_output"), ggml_id::Q8_0, {heads * v, hidden});
    w.add_tensor(blk(i, "ffn_norm"), ggml_id::F32, {hidden});
    if (i == 0) {
      w.add_tensor(blk(i, "ffn_gate"), ggml_id::Q8_0, {hidden, dense_ff});
      w.add_tensor(blk(i, "ffn_up"), ggml_id::Q8_0, {hidden, dense_ff});
      w.add_tensor(blk(i, "ffn_down"), ggml_id::Q8_0, {dense_ff, hidden});
      continue;
    }
    w.add_tensor(blk(i, "ffn_gate_inp"), ggml_id::F32, {hidden, experts});
    w.add_tensor(blk(i, "ffn_gate_exps"), ggml_id::Q8_0, {hidden, expert_ff, experts});
    w.add_tensor(blk(i, "ffn_up_exps"), ggml_id::Q8_0, {hidden, expert_ff, experts});
    w.add_tensor(blk(i, "ffn_down_exps"), ggml_id::Q8_0, {expert_ff, hidden, experts});
    w.add_tensor(blk(i, "ffn_gate_shexp"), ggml_id::Q8_0, {hidden, shared_ff});
    w.add_tensor(blk(i, "ffn_up_shexp"), ggml_id::Q8_0, {hidden, shared_ff});
    w.add_tensor(blk(i, "ffn_down_shexp"), ggml_id::Q8_0, {shared_ff, hidden});
  }
  w.add_tensor("output_norm.weight", ggml_id::F32, {hidden});
  w.add_tensor("output.weight", ggml_id::Q8_0, {hidden, vocab});
}

}  // namespace llmsizer::test
