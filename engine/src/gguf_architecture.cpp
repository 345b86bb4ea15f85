// The Architecture of a GGUF model, from its metadata (llama.cpp's LLM_KV keys,
// "<arch>.block_count" and so on) and the shapes of its tensors. The tensors
// decide what each layer is (attention, latent attention, Mamba, linear
// attention; dense MLP or experts) and give the widths exactly; the metadata
// gives what shapes cannot (head counts, sliding windows, experts per token).
// Architectures the catalog lacks work the same way.
#include <algorithm>
#include <optional>
#include <string>

#include "architecture_checks.hpp"
#include "file_text.hpp"
#include "gguf_internal.hpp"

namespace llmsizer::gguf_detail {
namespace {

// Same bound as config.json fields: products of a few of them stay in 64 bits.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
constexpr std::int64_t kMaxLayers = 4096;  // llama.cpp allows 512 (LLAMA_MAX_LAYERS)
constexpr std::int64_t kMaxContext = std::int64_t{1} << 30;

// Typed, range-checked access to "<arch>.<key>"; the first error is kept.
class Meta {
 public:
  Meta(const GgufFile& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

  const GgufValue* raw(std::string_view key) const { return file_.find(prefix_ + "." + std::string(key)); }

  // An integer in [0, max], nullopt when absent.
  std::optional<std::int64_t> get(std::string_view key, std::int64_t max = kMaxDimension) {
    const GgufValue* v = raw(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_integer_array()) return checked(key, v->integers.front(), max);  // per-layer list: first layer
    if (!v->is_integer()) {
      fail("gguf.bad_value", prefix_ + "." + std::string(key) + " must be an integer");
      return std::nullopt;
    }
    return checked(key, v->integer, max);
  }
  // One layer's value of a key that is either one integer or one per layer.
  std::optional<std::int64_t> at_layer(std::string_view key, std::size_t layer) {
    const GgufValue* v = raw(key);
    if (v == nullptr || v->type != GgufValueType::array) return get(key);
    if (!v->is_integer_array() || v->integers.size() <= layer) {
      fail("gguf.bad_value", prefix_ + "." + std::string(key) + " has " + std::to_string(v->array_count) +
                                 " values, not one integer per layer");
      return std::nullopt;
    }
    return checked(key, v->integers[layer], kMaxDimension);
  }
  std::int64_t need(std::string_view key) {
    const auto v = get(key);
    if (!v && !failed()) fail("gguf.missing_key", "the GGUF metadata lacks " + prefix_ + "." + std::string(key));
    return v.value_or(0);
  }

  void fail(const char* id, std::string message) {
    if (!error_) error_ = Error{id, printable(message, 200)};
  }
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<std::int64_t> checked(std::string_view key, std::int64_t value, std::int64_t max) {
    if (value < 0 || value > max) {
      fail("gguf.bad_value", prefix_ + "." + std::string(key) + " is " + std::to_string(value) + ", outside 0.." +
                                 std::to_string(max));
      return std::nullopt;
    }
    return value;
  }

  const GgufFile& file_;
  std::string prefix_;
  std::optional<Error> error_;
};

// Which layers hold only a window, as llama.cpp decides it: its hparams.set_swa_pattern(n)
// makes layer il sliding when il % n < n - 1. Most architectures hardcode n in
// llama-model.cpp; newer files may say it in attention.sliding_window_pattern.
struct SlidingPattern {
  AttentionKind kind = AttentionKind::sliding;
  std::int64_t window = 0;
  std::vector<bool> layers;  // true: windowed
};

struct SwaDefault {
  const char* arch;
  std::int64_t period;
};
constexpr SwaDefault kSwaPeriods[] = {
    {"gemma2", 2}, {"gemma3", 6}, {"gemma3n", 5}, {"gemma-embedding", 6},
    {"cohere2", 4}, {"gpt-oss", 2}, {"exaone4", 4},
};

SlidingPattern sliding_pattern(Meta& m, const std::string& arch, std::size_t n_layer) {
  SlidingPattern p;
  p.layers.assign(n_layer, false);
  std::int64_t period = 0;
  p.window = m.get("attention.sliding_window").value_or(0);
  if (arch == "llama4") {
    // Llama 4: chunked attention of 8192 tokens on three layers of four, unless
    // the file sets sliding_window to 0 (llama-model.cpp, LLM_ARCH_LLAMA4).
    if (m.raw("attention.sliding_window") != nullptr && p.window == 0) return p;
    p.kind = AttentionKind::chunked;
    p.window = 8192;
    period = 4;
  }
  if (p.window <= 0) return p;
  if (const GgufValue* v = m.raw("attention.sliding_window_pattern")) {
    if (v->type == GgufValueType::array) {
      for (std::size_t i = 0; i < n_layer; ++i) {
        const auto flag = m.at_layer("attention.sliding_window_pattern", i);
        p.layers[i] = flag.value_or(0) != 0;
      }
      return p;
    }
    period = m.get("attention.sliding_window_pattern").value_or(0);
  }
  for (const SwaDefault& d : kSwaPeriods)
    if (period == 0 && arch == d.arch) period = d.period;
  // Other architectures (llama, qwen2, mistral) ignore the window in llama.cpp:
  // every layer keeps the full context.
  if (period <= 0) return p;
  for (std::size_t i = 0; i < n_layer; ++i)
    p.layers[i] = static_cast<std::int64_t>(i) % period < period - 1;
  return p;
}

bool is_linear_attention_arch(const std::string& arch) {
  return arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe" || arch == "kimi-linear";
}

class LayerBuilder {
 public:
  LayerBuilder(Meta& m, const TensorIndex& t, const std::string& arch, std::int64_t hidden)
      : m_(m), t_(t), arch_(arch), hidden_(hidden) {}

  LayerSpec build(std::size_t i, const SlidingPattern& swa, std::vector<std::string>& warnings) {
    layer_ = static_cast<int>(i);
    LayerSpec spec;
    const bool recurrent = has("ssm_in") || has("ssm_conv1d");
    const bool mla = has("attn_kv_a_mqa");
    const bool attention = mla || has("attn_q") || has("attn_qkv") || has("attn_k") || has("attn_q_a");
    if (attention) {
      spec.attn = mla ? latent_attention() : standard_attention();
      if (swa.layers[i]) {
        spec.attn.kind = swa.kind;
        spec.attn.window_tokens = swa.window;
      }
      if (recurrent && !warned_parallel_) {
        warnings.push_back("layers with both attention and a recurrent mixer were sized for the attention only");
        warned_parallel_ = true;
      }
    } else if (recurrent) {
      spec.attn = recurrent_mixer();
    } else {
      spec.attn.kind = AttentionKind::none;
      if ((has_prefix("time_mix") || has_prefix("shortconv")) && !warned_mixer_) {
        warnings.push_back("this model's recurrent token mixer (" + printable(arch_) +
                           ") is not modelled: its per-sequence state is not counted");
        warned_mixer_ = true;
      }
    }
    spec.ffn = feed_forward();
    spec.n_hidden_norms = 0;
    for (const NamedTensor& n : t_.layers.size() > i ? t_.layers[i] : empty_)
      if (kind_of(n.name) == Kind::norm && n.info->dims[0] == hidden_ && n.info->n_dims <= 1 && n.name.suffix == "weight")
        ++spec.n_hidden_norms;
    return spec;
  }

 private:
  const GgufTensorInfo* get(std::string_view base, std::string_view suffix = "weight") const {
    return t_.find(layer_, base, suffix);
  }
  bool has(std::string_view base, std::string_view suffix = "weight") const { return get(base, suffix) != nullptr; }
  bool has_prefix(std::string_view prefix) const {
    if (static_cast<std::size_t>(layer_) >= t_.layers.size()) return false;
    for (const NamedTensor& n : t_.layers[static_cast<std::size_t>(layer_)])
      if (n.name.base.substr(0, prefix.size()) == prefix) return true;
    return false;
  }
  // A width read from a tensor shape, held to the same bound as metadata.
  std::int64_t dim(const GgufTensorInfo* t, int axis) {
    if (t == nullptr) return 0;
    const std::int64_t v = t->dims[static_cast<std::size_t>(axis)];
    if (v > kMaxDimension) {
      m_.fail("gguf.bad_value", "tensor " + t->name + " has a dimension of " + std::to_string(v) + ", above 16777216");
      return 0;
    }
    return v;
  }
  void bad(const std::string& what) { m_.fail("gguf.bad_value", "layer " + std::to_string(layer_) + ": " + what); }

  AttentionSpec standard_attention() {
    AttentionSpec a;
    const auto i = static_cast<std::size_t>(layer_);
    const GgufTensorInfo* q = get("attn_q");
    const GgufTensorInfo* k = get("attn_k");
    std::int64_t heads = m_.at_layer("attention.head_count", i).value_or(0);
    std::int64_t head_k = m_.get("attention.key_length").value_or(0);
    if (head_k <= 0 && heads > 0) head_k = hidden_ / heads;  // llama.cpp: n_embd_head_k = n_embd / n_head
    if (heads <= 0 && q != nullptr && head_k > 0) heads = dim(q, 1) / head_k;
    const std::int64_t head_v = m_.get("attention.value_length").value_or(head_k);
    std::int64_t kv_heads = m_.at_layer("attention.head_count_kv", i).value_or(heads);
    if (kv_heads <= 0 && k != nullptr && head_k > 0) kv_heads = dim(k, 1) / head_k;
    if (heads <= 0 || kv_heads <= 0 || head_k <= 0 || head_v <= 0) {
      bad("attention tensors without head counts and sizes (attention.head_count, head_count_kv, key_length)");
      return a;
    }
    a.n_heads = heads;
    a.n_kv_heads = kv_heads;
    a.head_dim_k = head_k;
    a.head_dim_v = head_v;
    a.fused_qkv = has("attn_qkv");
    a.qkv_bias = has("attn_q", "bias") || has("attn_qkv", "bias");
    a.o_bias = has("attn_output", "bias");
    a.qk_norm = has("attn_q_norm");
    a.sinks = has("attn_sinks");
    a.output_gate = q != nullptr && dim(q, 1) == 2 * heads * head_k;
    a.k_eq_v = !a.fused_qkv && k != nullptr && !has("attn_v");
    if (has("attn_q_a")) a.q_lora_rank = dim(get("attn_q_a"), 1);
    return a;
  }

  // DeepSeek-V2/V3 style: the cache holds kv_lora_rank + rope elements per token,
  // exactly the output width of attn_kv_a_mqa.
  AttentionSpec latent_attention() {
    AttentionSpec a;
    a.mla = true;
    a.n_kv_heads = 1;
    const auto i = static_cast<std::size_t>(layer_);
    a.n_heads = m_.at_layer("attention.head_count", i).value_or(0);
    const std::int64_t kv_a_width = dim(get("attn_kv_a_mqa"), 1);
    a.kv_lora_rank = m_.get("attention.kv_lora_rank").value_or(dim(get("attn_kv_a_norm"), 0));
    a.qk_rope_dim = kv_a_width - a.kv_lora_rank;
    a.q_lora_rank = has("attn_q_a") ? dim(get("attn_q_a"), 1) : 0;
    // Newer converters write the absorbed sizes (key_length = kv_lora_rank + rope,
    // value_length = kv_lora_rank) and the per-head ones under *_mla.
    const std::int64_t head_k = m_.get("attention.key_length_mla").value_or(m_.get("attention.key_length").value_or(0));
    const std::int64_t head_v = m_.get("attention.value_length_mla").value_or(m_.get("attention.value_length").value_or(0));
    a.head_dim_k = head_k > 0 ? head_k : a.qk_rope_dim;
    a.head_dim_v = head_v > 0 ? head_v : a.kv_lora_rank;
    a.qk_nope_dim = std::max<std::int64_t>(0, a.head_dim_k - a.qk_rope_dim);
    if (a.n_heads <= 0 || a.kv_lora_rank <= 0 || a.qk_rope_dim < 0)
      bad("latent attention needs attention.head_count and attention.kv_lora_rank below attn_kv_a_mqa's width");
    return a;
  }

  AttentionSpec recurrent_mixer() {
    AttentionSpec a;
    const std::int64_t conv = m_.need("ssm.conv_kernel");
    const std::int64_t inner = m_.need("ssm.inner_size");
    const std::int64_t state = m_.need("ssm.state_size");
    const std::int64_t dt_rank = m_.get("ssm.time_step_rank").value_or(0);
    const std::int64_t groups = m_.get("ssm.group_count").value_or(0);
    a.conv_kernel = conv;
    if (has("ssm_ba") || has("ssm_beta_alpha") || has("ssm_beta") || is_linear_attention_arch(arch_)) {
      // Gated delta net (Qwen3-Next): group_count key heads of state_size, time_step_rank
      // value heads sharing inner_size.
      a.kind = AttentionKind::linear;
      if (groups <= 0 || dt_rank <= 0 || inner % dt_rank != 0) {
        bad("linear attention needs ssm.group_count and ssm.time_step_rank dividing ssm.inner_size");
        return a;
      }
      a.linear_k_heads = groups;
      a.linear_v_heads = dt_rank;
      a.linear_k_dim = state;
      a.linear_v_dim = inner / dt_rank;
      return a;
    }
    a.kind = AttentionKind::mamba2;
    if (groups > 0) {  // Mamba2: time_step_rank is the head count
      if (dt_rank <= 0 || inner % dt_rank != 0) {
        bad("Mamba2 needs ssm.time_step_rank dividing ssm.inner_size");
        return a;
      }
      a.ssm_heads = dt_rank;
      a.ssm_head_dim = inner / dt_rank;
      a.ssm_groups = groups;
    } else {
      // Mamba1: one state row of state_size per inner channel; one B/C group
      // adds 2 x state_size x (conv_kernel - 1) conv elements that Mamba1 lacks.
      a.ssm_heads = inner;
      a.ssm_head_dim = 1;
      a.ssm_groups = 1;
    }
    a.ssm_state = state;
    if (inner <= 0 || state <= 0) bad("the recurrent mixer needs positive ssm.inner_size and ssm.state_size");
    return a;
  }

  FfnSpec feed_forward() {
    FfnSpec f;
    const GgufTensorInfo* gate_exps = get("ffn_gate_exps");
    const GgufTensorInfo* up_exps = get("ffn_up_exps");
    const GgufTensorInfo* down_exps = get("ffn_down_exps");
    const GgufTensorInfo* gate_up_exps = get("ffn_gate_up_exps");
    const GgufTensorInfo* up = get("ffn_up");
    const GgufTensorInfo* down = get("ffn_down");
    if (gate_exps || up_exps || down_exps || gate_up_exps) {
      f.kind = FfnKind::moe;
      // Stacked experts: ne = {in, out, n_expert}.
      const GgufTensorInfo* any = up_exps ? up_exps : down_exps ? down_exps : gate_exps ? gate_exps : gate_up_exps;
      f.n_experts = dim(any, 2);
      f.expert_intermediate = up_exps ? dim(up_exps, 1)
                              : down_exps ? dim(down_exps, 0)
                              : gate_exps ? dim(gate_exps, 1) : dim(gate_up_exps, 1) / 2;
      f.gated = gate_exps != nullptr || gate_up_exps != nullptr;
      const auto used = m_.get("expert_used_count");
      if (!used || *used < 1) {
        bad("expert tensors without a positive expert_used_count");
        return f;
      }
      f.n_experts_used = std::min(*used, std::max<std::int64_t>(1, f.n_experts));
      f.expert_bias = has("ffn_up_exps", "bias") || has("ffn_down_exps", "bias") || has("ffn_gate_exps", "bias");
      f.router_bias = has("ffn_gate_inp", "bias") || has("exp_probs_b", "bias") || has("exp_probs_b");
      if (const GgufTensorInfo* shexp = get("ffn_up_shexp")) {
        f.shared_intermediate = dim(shexp, 1);
        f.n_shared_experts = std::max<std::int64_t>(1, m_.get("expert_shared_count").value_or(1));
        f.shared_expert_gate = has("ffn_gate_inp_shexp");
      }
      if (up != nullptr) f.parallel_dense_intermediate = dim(up, 1);  // a dense MLP beside the experts
      if (f.n_experts <= 0 || f.expert_intermediate <= 0) bad("expert tensors with no experts or no width");
      return f;
    }
    if (up != nullptr || down != nullptr) {
      f.kind = FfnKind::dense;
      f.intermediate = up != nullptr ? dim(up, 1) : dim(down, 0);
      f.gated = has("ffn_gate");
      f.bias = has("ffn_up", "bias");
      if (f.intermediate <= 0) bad("an MLP of no width");
      return f;
    }
    f.kind = FfnKind::none;
    return f;
  }

  Meta& m_;
  const TensorIndex& t_;
  const std::string& arch_;
  std::int64_t hidden_;
  int layer_ = 0;
  bool warned_parallel_ = false;
  bool warned_mixer_ = false;
  const std::vector<NamedTensor> empty_;
};

}  // namespace

Result<Architecture> build_architecture(const GgufFile& meta_file, const TensorIndex& tensors) {
  const GgufValue* arch_value = meta_file.find("general.architecture");
  if (arch_value == nullptr || arch_value->type != GgufValueType::string || arch_value->text.empty())
    return Error{"gguf.missing_key", "the GGUF metadata lacks general.architecture"};
  const std::string& name = arch_value->text;
  Meta m(meta_file, name);
  Architecture arch;
  arch.model_type = name;

  const std::int64_t n_layer = m.get("block_count", kMaxLayers).value_or(0);
  if (!m.failed() && n_layer < 1)
    m.fail(m.raw("block_count") ? "gguf.bad_value" : "gguf.missing_key",
           "the GGUF metadata needs a positive " + name + ".block_count");
  const GgufTensorInfo* embd = tensors.find_global("token_embd");
  const GgufTensorInfo* output = tensors.find_global("output");
  arch.hidden_size = m.get("embedding_length").value_or(embd != nullptr ? embd->dims[0] : 0);
  if (!m.failed() && (arch.hidden_size < 1 || arch.hidden_size > kMaxDimension))
    m.fail("gguf.missing_key", "the GGUF metadata lacks " + name + ".embedding_length");

  // The logits width: the tokenizer's token count, else vocab_size, else the
  // embedding table's rows.
  std::int64_t vocab = 0;
  if (const GgufValue* tokens = meta_file.find("tokenizer.ggml.tokens");
      tokens != nullptr && tokens->type == GgufValueType::array && tokens->array_count <= static_cast<std::uint64_t>(kMaxDimension))
    vocab = static_cast<std::int64_t>(tokens->array_count);
  if (vocab <= 0) vocab = m.get("vocab_size").value_or(0);
  if (vocab <= 0 && embd != nullptr) vocab = embd->dims[1];
  if (vocab <= 0 && output != nullptr) vocab = output->dims[1];
  if (!m.failed() && (vocab < 1 || vocab > kMaxDimension))
    m.fail("gguf.missing_key", "the GGUF file gives no vocabulary size (tokenizer.ggml.tokens, token_embd)");
  arch.vocab_size = vocab;
  arch.tied_embeddings = output == nullptr;
  arch.max_context_tokens = m.get("context_length", kMaxContext).value_or(0);
  arch.falcon_style = name == "falcon";
  if (m.failed()) return m.error();

  const auto layers = static_cast<std::size_t>(n_layer);
  const SlidingPattern swa = sliding_pattern(m, name, layers);
  LayerBuilder builder(m, tensors, name, arch.hidden_size);
  for (std::size_t i = 0; i < layers && !m.failed(); ++i) arch.layers.push_back(builder.build(i, swa, arch.warnings));
  if (m.failed()) return m.error();

  // GLM-4.5 style files keep the multi-token-prediction layers as the last
  // nextn_predict_layers blocks (llama.cpp loads but does not run them).
  const std::int64_t nextn = m.get("nextn_predict_layers", kMaxLayers).value_or(0);
  if (nextn > 0 && nextn < n_layer) {
    for (std::size_t i = layers - static_cast<std::size_t>(nextn); i < layers; ++i) arch.layers[i].is_mtp = true;
    arch.mtp_in_gguf = true;
  }
  if (m.failed()) return m.error();
  if (auto error = check_architecture(arch)) return Error{"gguf.bad_value", error->message};
  return arch;
}

}  // namespace llmsizer::gguf_detail
