#include "llmsizer/config_reader.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/json.hpp"

#include "architecture_checks.hpp"
#include "vision_config.hpp"
#include "config_view.hpp"

namespace llmsizer {
namespace {


// Sizes every family shares, read once.
struct CommonSizes {
  std::int64_t hidden = 0;
  std::int64_t n_layers = 0;
  std::int64_t n_heads = 0;
  std::int64_t n_kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;
  std::int64_t window = 0;
};

AttentionSpec standard_attention(const CommonSizes& s) {
  AttentionSpec a;
  a.n_heads = s.n_heads;
  a.n_kv_heads = s.n_kv_heads;
  a.head_dim_k = s.head_dim;
  a.head_dim_v = s.head_dim;
  return a;
}

FfnSpec dense_ffn(std::int64_t intermediate) {
  FfnSpec f;
  f.kind = FfnKind::dense;
  f.intermediate = intermediate;
  return f;
}

std::int64_t read_expert_count(const ConfigView& v) {
  return v.int_or({"n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"}, 0);
}

// The routed-expert block as most MoE configs spell it.
FfnSpec moe_ffn(ConfigView& v, const CommonSizes& s) {
  FfnSpec f;
  f.kind = FfnKind::moe;
  f.n_experts = read_expert_count(v);
  f.n_experts_used = v.int_or({"num_experts_per_tok", "num_experts_per_token", "experts_per_token", "moe_k", "moe_topk",
                               "top_k_experts", "moe_top_k", "num_selected_experts"}, 0);
  if (f.n_experts_used <= 0) {
    v.fail("config.missing_field", "config.json lacks the field " + v.path_of("num_experts_per_tok") +
                                       " needed for a mixture-of-experts model");
    f.n_experts_used = 1;
  }
  f.n_experts_used = std::min(f.n_experts_used, f.n_experts);
  f.expert_intermediate = v.int_or({"moe_intermediate_size", "expert_intermediate_size"}, s.intermediate);
  f.n_shared_experts = v.int_or({"n_shared_experts", "num_shared_experts", "moe_num_shared_experts",
                                 "num_shared_expert", "shared_expert_count"}, 0);
  const std::int64_t shared_total =
      v.int_or({"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                "shared_intermediate_size", "share_expert_dim"}, 0);
  if (shared_total > 0) {
    f.shared_intermediate = shared_total * std::max<std::int64_t>(1, f.n_shared_experts);
    if (f.n_shared_experts == 0) f.n_shared_experts = 1;
  } else {
    f.shared_intermediate = f.n_shared_experts * f.expert_intermediate;
  }
  const std::string topk = v.string_field({"topk_method"}).value_or("");
  f.router_bias = topk == "noaux_tc" || v.bool_or({"use_routing_bias", "use_moe_router_bias"}, false);
  return f;
}

// The routed-expert FFN reads some thirty field spellings and is the same in
// every MoE layer of a config: the family readers read it once.
class MoeFfn {
 public:
  const FfnSpec& operator()(ConfigView& v, const CommonSizes& s) {
    if (!spec_) spec_ = moe_ffn(v, s);
    return *spec_;
  }

 private:
  std::optional<FfnSpec> spec_;
};

// Which layers carry experts: the many spellings of "dense first, then MoE".
bool layer_is_moe(const ConfigView& v, std::int64_t i, std::int64_t n_layers) {
  if (const Json* list = v.json_field({"mlp_only_layers"}); list && list->is_array()) {
    for (const auto& x : *list)
      if (x.is_number_integer() && x.get<std::int64_t>() == i) return false;
  }
  if (const Json* freq = v.json_field({"moe_layer_freq"}); freq && freq->is_array()) {
    if (static_cast<std::size_t>(i) < freq->size() && (*freq)[static_cast<std::size_t>(i)].is_number())
      return (*freq)[static_cast<std::size_t>(i)].get<double>() != 0;
  }
  if (const Json* layers = v.json_field({"moe_layers_enum"}); layers && layers->is_string()) {
    const std::string text = layers->get<std::string>();
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t comma = text.find(',', pos);
      const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos && item.size() < 8) {
        std::int64_t layer = 0;  // at most 7 digits: no overflow
        for (char c : item) layer = layer * 10 + (c - '0');
        if (layer == i) return true;
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    return false;
  }
  const std::int64_t first_dense =
      v.int_or({"first_k_dense_replace", "moe_layer_start_index", "num_dense_layers"}, 0);
  if (i < first_dense) return false;
  if (auto end = v.int_field({"moe_layer_end_index"}); end && *end >= 0 && i > *end) return false;
  std::int64_t step = v.int_or({"decoder_sparse_step", "interleave_moe_layer_step", "moe_layer_interval"}, 1);
  if (const Json* freq = v.json_field({"moe_layer_freq"}); freq && freq->is_number_integer())
    step = freq->get<std::int64_t>();
  if (step <= 1) return true;
  // transformers' Qwen2-MoE: (i + 1) % step == 0; Llama 4 interleave uses the same phase.
  (void)n_layers;
  return (i + 1) % step == 0;
}

// Per-layer attention kind from layer_types or the older pattern fields.
AttentionKind layer_attention_kind(const ConfigView& v, std::int64_t i, const std::string& family) {
  if (const Json* types = v.json_field({"layer_types"}); types && types->is_array() &&
                                                         static_cast<std::size_t>(i) < types->size()) {
    const Json& t = (*types)[static_cast<std::size_t>(i)];
    if (t.is_string()) {
      const std::string name = t.get<std::string>();
      if (name.find("linear") != std::string::npos) return AttentionKind::linear;
      if (name.find("sliding") != std::string::npos) return AttentionKind::sliding;
      if (name.find("chunk") != std::string::npos) return AttentionKind::chunked;
      if (name.find("mamba") != std::string::npos) return AttentionKind::mamba2;
      return AttentionKind::full;
    }
  }
  const auto window = v.int_field({"sliding_window"});
  const bool windowed = window.has_value() && *window > 0 && v.bool_or({"use_sliding_window"}, true);
  if (family == "gemma2") return (windowed && i % 2 == 0) ? AttentionKind::sliding : AttentionKind::full;
  if (auto pattern = v.int_field({"sliding_window_pattern"}); pattern && *pattern > 1 && windowed) {
    return ((i + 1) % *pattern == 0) ? AttentionKind::full : AttentionKind::sliding;
  }
  if (family == "gemma3" || family == "gemma3_text") {
    return windowed && (i + 1) % 6 != 0 ? AttentionKind::sliding : AttentionKind::full;
  }
  if (family == "cohere2") {
    return windowed && (i + 1) % 4 != 0 ? AttentionKind::sliding : AttentionKind::full;
  }
  // Mistral v0.1 style: every layer windowed when a window below the context is set.
  const auto max_ctx = v.int_field({"max_position_embeddings"});
  if (windowed && (!max_ctx || *window < *max_ctx) &&
      (family == "mistral" || family == "mixtral" || family == "qwen2" || family == "qwen2_moe")) {
    return AttentionKind::sliding;
  }
  return AttentionKind::full;
}

// A compressed-tensors (llm-compressor) checkpoint: `format` names the
// packing, config_groups the bits and group size, and the ignore list what
// stays 16-bit. Moonshot's INT4 and MXFP4 releases ignore attention, shared
// experts and dense MLPs ("re:.*self_attn.*", "re:.*shared_experts.*":
// moonshotai/Kimi-K2.5 and Kimi-K3 config.json in the reference's
// models_more.json): only their routed experts are quantized. A copy without
// its ignore list (the catalog keeps a config's scalars) of an MoE model is
// read the same way. GLM-4.5-FP8's float-quantized weights are every linear
// layer but the head (its ignore list: norms, biases, mlp.gate, lm_head).
void read_compressed_tensors(const Json& q, bool moe, Architecture& arch) {
  const std::string fmt = json_string_or(q, "format", "");
  std::int64_t bits = 0, group = 0;
  std::string type;
  if (auto groups = q.find("config_groups"); groups != q.end() && groups->is_object())
    for (const auto& [name, g] : groups->items()) {
      auto w = g.is_object() ? g.find("weights") : g.end();
      if (!g.is_object() || w == g.end() || !w->is_object()) continue;
      bits = json_int_or(*w, "num_bits", 0);
      group = json_int_or(*w, "group_size", 0);
      type = json_string_or(*w, "type", "");
      break;
    }
  bool experts_only = moe;
  if (auto ignore = q.find("ignore"); moe && ignore != q.end() && ignore->is_array())
    experts_only = std::any_of(ignore->begin(), ignore->end(), [](const Json& e) {
      return e.is_string() && e.get<std::string>().find("self_attn") != std::string::npos;
    });
  if (fmt.find("nvfp4") != std::string::npos) {
    arch.native_format = NativeFormat::nvfp4;
  } else if (fmt.find("mxfp4") != std::string::npos) {
    if (moe) arch.native_format = NativeFormat::mxfp4_experts;
  } else if (fmt == "float-quantized" || (bits == 8 && type == "float")) {
    arch.native_format = NativeFormat::fp8_block;
  } else if (fmt == "pack-quantized" && (bits == 0 || bits == 4)) {
    arch.native_format = experts_only ? NativeFormat::int4_experts : NativeFormat::int4;
    // Symmetric: a bf16 scale per group, no zero point. Moonshot's INT4 has "a
    // quant scale of 1x32"; llm-compressor's W4A16 preset groups 128.
    if (group <= 0) group = experts_only ? 32 : 128;
    arch.native_int4_bits = 4.0 + 16.0 / static_cast<double>(group);
  }
}

void read_native_format(const ConfigView& v, Architecture& arch) {
  const std::string dtype = v.string_field({"torch_dtype", "dtype"}).value_or("bfloat16");
  arch.native_format = dtype == "float16"   ? NativeFormat::fp16
                       : dtype == "float32" ? NativeFormat::fp32
                                            : NativeFormat::bf16;
  const Json* q = v.json_field({"quantization_config"});
  if (q == nullptr || !q->is_object()) return;
  const std::string method = json_string_or(*q, "quant_method", "");
  const std::string fmt = json_string_or(*q, "fmt", "");
  if (method == "mxfp4") {
    arch.native_format = NativeFormat::mxfp4_experts;
  } else if (method == "fp8" || fmt.find("e4m3") != std::string::npos) {
    // expert_dtype at the top level (DeepSeek V4) or inside quantization_config (V4.1).
    const std::string expert = json_string_or(*q, "expert_dtype", v.string_field({"expert_dtype"}).value_or(""));
    arch.native_format = expert == "fp4" ? NativeFormat::fp4_experts_fp8 : NativeFormat::fp8_block;
    // [block_n, block_k]: a weight's output and input are both cut in these.
    if (auto b = q->find("weight_block_size"); b != q->end() && b->is_array() && !b->empty()) {
      for (const Json& w : *b)
        if (w.is_number_integer() && w.get<std::int64_t>() > 0)
          arch.fp8_weight_block = std::max(arch.fp8_weight_block, w.get<std::int64_t>());
    }
  } else if (method == "modelopt" || json_string_or(*q, "quant_algo", "").find("NVFP4") != std::string::npos) {
    arch.native_format = NativeFormat::nvfp4;
  } else if ((method == "awq" || method == "gptq") && json_int_or(*q, "bits", json_int_or(*q, "w_bit", 4)) == 4) {
    // AutoAWQ / GPTQ: INT4 with an fp16 scale and a packed 4-bit zero point per
    // group (qweight, scales, qzeros), the head left in 16 bits; GPTQ's group
    // size -1 is one group per output channel.
    const std::int64_t group = json_int_or(*q, "group_size", json_int_or(*q, "q_group_size", 128));
    arch.native_format = NativeFormat::int4;
    arch.native_int4_bits = 4.0 + (group > 0 ? 20.0 / static_cast<double>(group) : 0.0);
  } else if (method == "compressed-tensors" || (method.empty() && q->contains("format"))) {
    // Some copies lost the quant_method key (the reference's GLM-4.5-FP8).
    const bool moe = v.int_or({"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"}, 0) > 1;
    read_compressed_tensors(*q, moe, arch);
  }
}

std::string read_model_type(const Json& config) {
  for (const char* key : {"text_config", "llm_config", "language_config"}) {
    auto it = config.find(key);
    if (it != config.end() && it->is_object()) {
      auto mt = it->find("model_type");
      if (mt != it->end() && mt->is_string()) return mt->get<std::string>();
    }
  }
  auto mt = config.find("model_type");
  if (mt != config.end() && mt->is_string()) return mt->get<std::string>();
  auto archs = config.find("architectures");
  if (archs != config.end() && archs->is_array() && !archs->empty() && (*archs)[0].is_string()) {
    const std::string a = (*archs)[0].get<std::string>();
    if (a == "RWForCausalLM" || a == "FalconForCausalLM") return "falcon";
  }
  return "";
}

// transformers config-class defaults for fields configs may omit.
// Gemma3TextConfig: vocab_size 262208. NemotronHConfig: mamba_num_heads 128,
// mamba_head_dim 64, ssm_state_size 128, n_groups 8, conv_kernel 4.
const Json& class_defaults(const std::string& model_type) {
  static const Json none = Json::object();
  static const Json gemma3 = Json{{"vocab_size", 262208}, {"sliding_window", 4096}};
  static const Json nemotron_h = Json{{"mamba_num_heads", 128}, {"mamba_head_dim", 64}, {"ssm_state_size", 128},
                                  {"n_groups", 8}, {"conv_kernel", 4}};
  if (model_type == "gemma3" || model_type == "gemma3_text") return gemma3;
  if (model_type == "nemotron_h") return nemotron_h;
  return none;
}

// Nemotron-H layer list: hybrid_override_pattern, or layers_block_type in newer copies.
std::string hybrid_pattern(const ConfigView& v) {
  if (auto pattern = v.string_field({"hybrid_override_pattern"})) return *pattern;
  std::string out;
  if (const Json* types = v.json_field({"layers_block_type"}); types && types->is_array()) {
    for (const auto& t : *types) {
      const std::string name = t.is_string() ? t.get<std::string>() : "";
      out += name == "mamba" ? 'M' : name == "attention" ? '*' : name == "moe" ? 'E' : name == "mlp" ? '-' : '?';
    }
  }
  return out;
}

std::int64_t hybrid_pattern_length(const ConfigView& v) {
  return static_cast<std::int64_t>(hybrid_pattern(v).size());
}

// ---- family readers ---------------------------------------------------------

using FamilyReader = std::function<void(ConfigView&, const CommonSizes&, Architecture&)>;

void add_mtp_layers(ConfigView& v, Architecture& arch, std::int64_t count) {
  if (count <= 0 || arch.layers.empty()) return;
  // An MTP block is one more decoder layer of the last kind (MoE for DeepSeek/GLM).
  LayerSpec mtp = arch.layers.back();
  mtp.is_mtp = true;
  if (mtp.attn.kind == AttentionKind::linear || mtp.attn.kind == AttentionKind::mamba2) {
    for (auto it = arch.layers.rbegin(); it != arch.layers.rend(); ++it) {
      if (it->attn.kind == AttentionKind::full) {
        mtp.attn = it->attn;
        break;
      }
    }
  }
  (void)v;
  for (std::int64_t i = 0; i < count; ++i) arch.layers.push_back(mtp);
}

// Gemma 4 12B ("unified") has Gemma 4's decoder exactly (transformers'
// Gemma4UnifiedTextConfig subclasses Gemma4TextConfig, its decoder layer is
// Gemma 4's); only its vision and audio inputs differ (patch and frame
// embedders instead of encoder towers), which the text count leaves out as it
// does every model's vision encoder.
std::string transformer_family(const std::string& model_type) {
  if (model_type == "gemma4_unified") return "gemma4";
  if (model_type == "gemma4_unified_text") return "gemma4_text";
  return model_type;
}

// Dense and MoE transformers whose attention is plain (GQA) per layer.
void read_transformer(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const std::string family = transformer_family(arch.model_type);
  const bool gemma_family = family.rfind("gemma", 0) == 0;
  AttentionSpec base = standard_attention(s);
  const bool attention_bias = v.bool_or({"attention_bias", "bias", "use_bias"}, false);
  // Qwen2's q/k/v carry biases whatever the config says; GLM-4's follow
  // attention_bias (transformers' Glm4Attention: GLM-4-9B-0414 true,
  // GLM-4-32B-0414 false, whose GGUF holds no bias tensor), and their o_proj
  // has none either way.
  base.qkv_bias = attention_bias || family == "qwen2" || family == "qwen2_moe" || family == "qwen2_vl";
  base.o_bias = attention_bias && family != "glm4" && family != "glm4_moe";
  base.qk_norm = v.bool_or({"use_qk_norm", "qk_layernorm"}, false) || family == "qwen3" ||
                 family == "qwen3_moe" || family == "gemma3" || family == "gemma3_text" ||
                 family == "gemma4" || family == "gemma4_text" || family == "hunyuan" ||
                 family == "minimax_m2" || family == "minimax_m3" || family == "smollm3_qk" ||
                 family == "olmo2";
  if (family == "llama4" || family == "llama4_text") base.qk_norm = false;  // weightless L2 norm
  if (family == "phi3") base.fused_qkv = true;
  base.sinks = family == "gpt_oss";

  int norms = 2;
  if (family == "gemma2" || family == "gemma3" || family == "gemma3_text" || family == "glm4" ||
      family == "gemma4" || family == "gemma4_text")
    norms = 4;
  if (family == "cohere" || family == "cohere2") norms = 1;  // parallel attention and MLP

  const std::int64_t n_experts = read_expert_count(v);
  const bool moe_model = n_experts > 1 && (family != "gemma4" && family != "gemma4_text"
                                               ? true
                                               : v.bool_or({"enable_moe_block"}, true));
  const std::int64_t dense_width =
      v.int_or({"dense_intermediate_size", "intermediate_size_mlp", "dense_intermediate"}, s.intermediate);
  // Llama 4: local layers use chunked attention, every fourth is global.
  const std::int64_t chunk = v.int_or({"attention_chunk_size"}, 0);

  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.n_hidden_norms = norms;
    layer.attn = base;
    layer.attn.kind = layer_attention_kind(v, i, family);
    if ((family == "llama4" || family == "llama4_text") && chunk > 0 && (i + 1) % 4 != 0) {
      layer.attn.kind = AttentionKind::chunked;
      layer.attn.window_tokens = chunk;
    }
    if (layer.attn.kind == AttentionKind::sliding) layer.attn.window_tokens = s.window;
    if ((family == "gemma4" || family == "gemma4_text") && layer.attn.kind == AttentionKind::full) {
      layer.attn.n_kv_heads = v.int_or({"num_global_key_value_heads"}, s.n_kv_heads);
      layer.attn.head_dim_k = layer.attn.head_dim_v = v.int_or({"global_head_dim"}, s.head_dim);
      layer.attn.k_eq_v = v.bool_or({"attention_k_eq_v"}, false);
    }
    if (moe_model && layer_is_moe(v, i, s.n_layers)) {
      layer.ffn = routed(v, s);
      if (family == "qwen2_moe") layer.ffn.shared_expert_gate = true;
      if (family == "gpt_oss") {
        layer.ffn.expert_bias = true;
        layer.ffn.router_bias = true;
      }
      if (family == "llama4" || family == "llama4_text") {
        layer.ffn.n_shared_experts = 1;
        layer.ffn.shared_intermediate = s.intermediate;
      }
      if (family == "hunyuan" && layer.ffn.n_shared_experts > 0 && v.bool_or({"use_mixed_mlp_moe"}, false)) {
        layer.ffn.shared_intermediate = layer.ffn.n_shared_experts * s.intermediate;
      }
      if (family == "gemma4" || family == "gemma4_text") {
        layer.ffn.parallel_dense_intermediate = s.intermediate;
        layer.n_hidden_norms = norms + 3;  // pre/post norms of the second FFN branch
      }
    } else {
      layer.ffn = dense_ffn(moe_model ? dense_width : s.intermediate);
      if (family == "llama4" || family == "llama4_text") layer.ffn.intermediate = dense_width;
      layer.ffn.bias = v.bool_or({"mlp_bias"}, false);
    }
    arch.layers.push_back(layer);
  }
  if (family == "glm4_moe") {
    add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
    arch.mtp_in_gguf = true;
  } else {
    add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers", "num_mtp_modules"}, 0));
  }
  if (gemma_family) arch.tied_embeddings = v.bool_or({"tie_word_embeddings"}, true);
}

// Multi-head latent attention as DeepSeek's configs name it (and its DSA
// indexer where present). A family that may leave a width out gives its
// default; without one the field is required and positive.
struct LatentWidthDefaults {
  std::optional<std::int64_t> rope_dim;
  std::optional<std::int64_t> nope_dim;
  std::optional<std::int64_t> v_dim;
};

AttentionSpec latent_attention(ConfigView& v, const CommonSizes& s, const LatentWidthDefaults& d) {
  auto width = [&](const char* key, const std::optional<std::int64_t>& fallback) {
    return fallback ? v.int_or({key}, *fallback) : v.require_positive({key});
  };
  AttentionSpec a;
  a.mla = true;
  a.n_heads = s.n_heads;
  a.n_kv_heads = 1;  // one latent per token, shared by all heads
  a.q_lora_rank = v.int_or({"q_lora_rank"}, 0);
  a.kv_lora_rank = v.require_positive({"kv_lora_rank"});
  a.qk_rope_dim = width("qk_rope_head_dim", d.rope_dim);
  a.qk_nope_dim = width("qk_nope_head_dim", d.nope_dim);
  a.head_dim_v = width("v_head_dim", d.v_dim);
  a.head_dim_k = a.qk_nope_dim + a.qk_rope_dim;
  a.index_n_heads = v.int_or({"index_n_heads"}, 0);
  a.index_head_dim = v.int_or({"index_head_dim"}, 0);
  return a;
}

// DeepSeek-V2/V3 family: multi-head latent attention, shared + routed experts.
void read_latent_attention_moe(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const AttentionSpec a = latent_attention(v, s, {});
  const bool moe = read_expert_count(v) > 1;
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = a;
    layer.ffn = moe && layer_is_moe(v, i, s.n_layers) ? routed(v, s) : dense_ffn(s.intermediate);
    arch.layers.push_back(layer);
  }
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
  arch.mtp_in_gguf = arch.model_type == "glm4_moe_lite" || arch.model_type == "glm_moe_dsa";
}

// Qwen3-Next and Qwen3.5: gated delta-net linear attention with a full-attention
// layer every full_attention_interval layers; MoE or dense MLP.
void read_qwen_hybrid(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  AttentionSpec full = standard_attention(s);
  full.qk_norm = true;
  full.output_gate = v.bool_or({"attn_output_gate"}, true);
  AttentionSpec linear;
  linear.kind = AttentionKind::linear;
  linear.linear_k_heads = v.require_positive({"linear_num_key_heads"});
  linear.linear_v_heads = v.require_positive({"linear_num_value_heads"});
  linear.linear_k_dim = v.require_positive({"linear_key_head_dim"});
  linear.linear_v_dim = v.require_positive({"linear_value_head_dim"});
  linear.conv_kernel = v.int_or({"linear_conv_kernel_dim"}, 4);
  // A present interval must be a positive count (it divides a layer index).
  const std::int64_t interval =
      v.json_field({"full_attention_interval"}) ? v.require_positive({"full_attention_interval"}) : 4;
  const bool moe = read_expert_count(v) > 1;
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    AttentionKind kind = layer_attention_kind(v, i, arch.model_type);
    if (v.json_field({"layer_types"}) == nullptr)
      kind = (i + 1) % interval == 0 ? AttentionKind::full : AttentionKind::linear;
    layer.attn = kind == AttentionKind::linear ? linear : full;
    if (moe && layer_is_moe(v, i, s.n_layers)) {
      layer.ffn = routed(v, s);
      layer.ffn.shared_expert_gate = true;
    } else {
      layer.ffn = dense_ffn(s.intermediate);
    }
    arch.layers.push_back(layer);
  }
  add_mtp_layers(v, arch, v.int_or({"mtp_num_hidden_layers", "num_nextn_predict_layers"},
                                   arch.model_type == "qwen3_next" ? 1 : 0));
}

// Nemotron-H: one mixer per layer from hybrid_override_pattern
// (M = Mamba2, * = attention, - = MLP, E = MoE).
void read_nemotron_hybrid(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const std::string pattern = hybrid_pattern(v);
  if (pattern.empty()) {
    v.fail("config.missing_field", "config.json lacks the field " + v.path_of("hybrid_override_pattern") +
                                       " that says which layers are Mamba2, attention or MLP");
    return;
  }
  AttentionSpec mamba;
  mamba.kind = AttentionKind::mamba2;
  mamba.ssm_heads = v.require_positive({"mamba_num_heads"});
  mamba.ssm_head_dim = v.require_positive({"mamba_head_dim"});
  mamba.ssm_state = v.require_positive({"ssm_state_size"});
  mamba.ssm_groups = v.int_or({"n_groups"}, 1);
  mamba.conv_kernel = v.int_or({"conv_kernel"}, 4);
  AttentionSpec attention = standard_attention(s);
  attention.head_dim_k = attention.head_dim_v = v.int_or({"attention_head_dim", "head_dim"}, s.head_dim);
  for (const char c : pattern) {
    LayerSpec layer;
    layer.n_hidden_norms = 1;
    layer.attn.kind = AttentionKind::none;
    layer.ffn.kind = FfnKind::none;
    switch (c) {
      case 'M': layer.attn = mamba; break;
      case '*': layer.attn = attention; break;
      case '-':
        layer.ffn = dense_ffn(s.intermediate);
        layer.ffn.gated = false;  // relu2 MLP: up and down only
        break;
      case 'E':
        layer.ffn = routed(v, s);
        layer.ffn.gated = false;
        layer.ffn.router_bias = true;
        layer.ffn.expert_latent = v.int_or({"moe_latent_size"}, 0);
        break;
      default:
        v.fail("config.bad_field", "config.json field " + v.path_of("hybrid_override_pattern") +
                                       " holds '" + std::string(1, c) + "'; expected M, *, - or E "
                                       "(or mamba, attention, mlp, moe in layers_block_type)");
        return;
    }
    arch.layers.push_back(layer);
  }
  if (static_cast<std::int64_t>(pattern.size()) != s.n_layers)
    arch.warnings.push_back("hybrid_override_pattern has " + std::to_string(pattern.size()) +
                            " layers but num_hidden_layers says " + std::to_string(s.n_layers) +
                            "; the pattern was used");
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 0));
}

// Llama-Nemotron (DeciLM / nemotron-nas): each layer's attention and FFN width
// come from block_configs.
void read_nemotron_nas(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  const Json* blocks = v.json_field({"block_configs"});
  if (blocks == nullptr || !blocks->is_array() || blocks->empty()) {
    v.fail("config.missing_field", "config.json lacks the field " + v.path_of("block_configs") +
                                       " that gives each layer's attention and FFN");
    return;
  }
  for (const Json& block : *blocks) {
    LayerSpec layer;
    const Json& attn = json_object_or_empty(block, "attention");
    const Json& ffn = json_object_or_empty(block, "ffn");
    if (json_bool_or(attn, "no_op", false)) {
      layer.attn.kind = AttentionKind::none;
      layer.n_hidden_norms -= 1;
    } else if (json_bool_or(attn, "replace_with_linear", false)) {
      layer.attn.kind = AttentionKind::none;
      layer.ffn.kind = FfnKind::none;  // placeholder, set below; linear counted as extra params
      arch.extra_params += s.hidden * s.hidden;
    } else {
      layer.attn = standard_attention(s);
      const std::int64_t group = json_int_or(attn, "n_heads_in_group", 1);
      layer.attn.n_kv_heads = std::max<std::int64_t>(1, s.n_heads / std::max<std::int64_t>(1, group));
    }
    if (json_bool_or(ffn, "no_op", false)) {
      layer.ffn.kind = FfnKind::none;
      layer.n_hidden_norms -= 1;
    } else if (json_bool_or(ffn, "replace_with_linear", false)) {
      layer.ffn.kind = FfnKind::none;
      arch.extra_params += s.hidden * s.hidden;
    } else {
      // DeciLM: intermediate = multiple of 256 above 2/3 * ffn_mult * hidden.
      // Bounded: ffn_mult is a small ratio (1.0 to 5.25 in Nemotron Super).
      const double mult = std::min(64.0, std::max(0.0, json_number_or(ffn, "ffn_mult", 1.0)));
      const auto raw = static_cast<std::int64_t>(2.0 * mult * static_cast<double>(s.hidden) / 3.0);
      layer.ffn = dense_ffn((raw + 255) / 256 * 256);
    }
    arch.layers.push_back(layer);
  }
}

// MiMo-V2-Flash: full and sliding layers with their own head counts.
void read_mimo(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const Json* pattern = v.json_field({"hybrid_layer_pattern"});
  AttentionSpec full = standard_attention(s);
  full.head_dim_v = v.int_or({"v_head_dim"}, s.head_dim);
  AttentionSpec swa = full;
  swa.kind = AttentionKind::sliding;
  swa.n_heads = v.int_or({"swa_num_attention_heads"}, s.n_heads);
  swa.n_kv_heads = v.int_or({"swa_num_key_value_heads"}, s.n_kv_heads);
  swa.head_dim_k = v.int_or({"swa_head_dim"}, s.head_dim);
  swa.head_dim_v = v.int_or({"swa_v_head_dim"}, full.head_dim_v);
  swa.window_tokens = s.window;
  swa.sinks = v.bool_or({"add_swa_attention_sink_bias"}, false);
  full.sinks = v.bool_or({"add_full_attention_sink_bias"}, false);
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    const bool is_swa = pattern && pattern->is_array() && static_cast<std::size_t>(i) < pattern->size() &&
                        (*pattern)[static_cast<std::size_t>(i)].is_number() &&
                        (*pattern)[static_cast<std::size_t>(i)].get<double>() == 1.0;  // no narrowing: 4e40 is just "not 1"
    layer.attn = is_swa ? swa : full;
    layer.ffn = layer_is_moe(v, i, s.n_layers) ? routed(v, s) : dense_ffn(s.intermediate);
    arch.layers.push_back(layer);
  }
}

// Falcon (RW): fused qkv, multi-query in 7B, two LayerNorms with bias in 40B+.
void read_falcon(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  const bool new_arch = v.bool_or({"new_decoder_architecture"}, false);
  AttentionSpec a = standard_attention(s);
  a.fused_qkv = true;
  a.qkv_bias = v.bool_or({"bias"}, false);
  if (!v.int_field({"num_kv_heads", "n_head_kv", "num_key_value_heads"})) {
    const bool multi_query = v.bool_or({"multi_query"}, !new_arch);
    a.n_kv_heads = multi_query ? 1 : s.n_heads;
    if (!v.bool_field({"multi_query"}).has_value() && !new_arch) {
      arch.warnings.push_back("config.json does not say multi_query or num_kv_heads; "
                              "Falcon's default (multi-query, one KV head) was assumed");
    }
  }
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = a;
    layer.norm_bias = true;
    layer.n_hidden_norms = new_arch ? 2 : 1;
    layer.ffn = dense_ffn(s.intermediate);
    layer.ffn.gated = false;
    arch.layers.push_back(layer);
  }
  arch.falcon_style = true;
}

// DeepSeek V4: MQA over one 512-wide head with grouped low-rank output, KV
// compressed per layer (compress_ratios: 0 = sliding window only), MoE in every
// layer. Hyper-connection and compressor weights are small and not modelled.
AttentionSpec deepseek_v4_attention(const ConfigView& v, const CommonSizes& s) {
  AttentionSpec a = standard_attention(s);
  a.n_kv_heads = v.int_or({"num_key_value_heads"}, 1);
  a.k_eq_v = true;  // one cached vector per token serves as key and value
  a.q_lora_rank = v.int_or({"q_lora_rank"}, 0);
  a.o_lora_rank = v.int_or({"o_lora_rank"}, 0);
  a.o_groups = v.int_or({"o_groups"}, 1);
  a.index_n_heads = v.int_or({"index_n_heads"}, 0);
  a.index_head_dim = v.int_or({"index_head_dim"}, 0);
  return a;
}

void read_deepseek_v4(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const Json* ratios = v.json_field({"compress_ratios"});
  const AttentionSpec a = deepseek_v4_attention(v, s);
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = a;
    std::int64_t ratio = 0;
    if (ratios && ratios->is_array() && static_cast<std::size_t>(i) < ratios->size() &&
        (*ratios)[static_cast<std::size_t>(i)].is_number_integer())
      ratio = (*ratios)[static_cast<std::size_t>(i)].get<std::int64_t>();
    if (ratio <= 0) {
      layer.attn.kind = AttentionKind::sliding;
      layer.attn.window_tokens = s.window > 0 ? s.window : 128;
    } else {
      layer.attn.kv_compress_ratio = ratio;
      layer.attn.window_tokens = s.window;
    }
    layer.ffn = routed(v, s);
    arch.layers.push_back(layer);
  }
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
  arch.warnings.push_back("DeepSeek V4's compressed attention and hyper-connections are modelled approximately");
}

// A list of non-negative integers (layer ids, row counts), each within the
// config reader's integer bound; nullopt when the field is absent or is not one.
std::optional<std::vector<std::int64_t>> int_list(const ConfigView& v, const char* key) {
  const Json* list = v.json_field({key});
  if (list == nullptr || !list->is_array() || list->empty() || list->size() > 4096) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const Json& x : *list) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > (std::int64_t{1} << 31))
      return std::nullopt;
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

void fail_missing(ConfigView& v, const char* key, const std::string& why) {
  v.fail("config.missing_field", "config.json lacks the field " + v.path_of(key) + " " + why);
}

// Deterministic Miller-Rabin: bases 2, 3, 5 and 7 decide every n below
// 3,215,031,751, and the n-gram vocabularies stay below 2^31 + 2^20.
bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t p : {2u, 3u, 5u, 7u})
    if (n % p == 0) return n == p;
  std::uint64_t d = n - 1;
  int r = 0;
  for (; d % 2 == 0; d /= 2) ++r;
  for (std::uint64_t a : {2u, 3u, 5u, 7u}) {
    std::uint64_t x = 1;
    std::uint64_t base = a % n;
    for (std::uint64_t e = d; e > 0; e >>= 1) {  // n < 2^32: products stay in 64 bits
      if (e & 1) x = x * base % n;
      base = base * base % n;
    }
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < r && composite; ++i) {
      x = x * x % n;
      composite = x != n - 1;
    }
    if (composite) return false;
  }
  return true;
}

// Rows of Qwen3.8's n-gram table: each of the (ngram_size - 1) x heads_per_ngram
// hash heads has its own vocabulary, the next prime above
// ngram_vocab_size_base (20,000,003, 20,000,023, ... 20,000,171 for the
// release: 320,001,446 rows), the sum padded to
// make_ngram_vocab_size_divisible_by (320,001,536), the row count the
// checkpoint stores (a test that derives it this way "verified against the
// landed shards", search-index id 68851213698; GGUF per_layer_token_embd
// [160, 320001536]).
std::int64_t ngram_table_rows(std::int64_t base, std::int64_t heads, std::int64_t multiple) {
  std::int64_t rows = 0;
  std::uint64_t n = static_cast<std::uint64_t>(base);
  for (std::int64_t h = 0; h < heads; ++h) {
    do ++n;
    while (!is_prime(n));
    rows += static_cast<std::int64_t>(n);
  }
  return (rows + multiple - 1) / multiple * multiple;
}

// Qwen3.8 Flash Next (qwen4_exp): Qwen3.5's gated delta-net layers with a
// sparse-attention (QSA) layer every full_attention_interval, whose small
// indexer picks the tokens attended; 512 routed experts and one gated shared
// expert in every layer; hyper-connections (hc_count streams, low rank
// hc_lowrank, no Sinkhorn) whose norms replace the layer norms; and one PLE
// layer reading a hashed n-gram embedding table. Shapes: llama.cpp
// src/models/qwen4exp.cpp and candle docs/archived/qwen38_flash_next.md §12.2
// (scripts/catalog/sourced_arch_facts_qwen38_dsv41.json).
void read_qwen4_exp(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  const std::int64_t hc = v.require_positive({"hc_count"});
  const std::int64_t hc_lowrank = v.require_positive({"hc_lowrank"});
  const std::int64_t index_heads = v.require_positive({"indexer_n_heads"});
  const std::int64_t index_dim = v.require_positive({"indexer_head_dim"});
  const std::int64_t ngram_size = v.require_positive({"ngram_size"});
  const std::int64_t heads_per_ngram = v.require_positive({"heads_per_ngram"});
  const std::int64_t ple_dim = v.require_positive({"ple_embed_dim"});
  const std::int64_t ple_kernel = v.require_positive({"ple_conv_kernel_size"});
  if (v.has_error()) return;
  const std::int64_t base = v.int_or({"ngram_vocab_size_base"}, 0);
  if (base <= 0) return fail_missing(v, "ngram_vocab_size_base", "that sizes the n-gram embedding table");
  const auto ple_layers = int_list(v, "ple_layer_ids");
  if (!ple_layers) return fail_missing(v, "ple_layer_ids", "that says which layer reads the n-gram table");
  const std::int64_t heads = (ngram_size - 1) * heads_per_ngram;  // bigram and trigram heads: 16
  if (heads < 1 || heads > 1024 || ple_dim % heads != 0) {
    v.fail("config.bad_field", "config.json field " + v.path_of("ple_embed_dim") + " (" + std::to_string(ple_dim) +
                                   ") must divide among (ngram_size - 1) x heads_per_ngram n-gram heads");
    return;
  }
  read_qwen_hybrid(v, s, arch);
  if (v.has_error()) return;

  arch.hc_streams = hc;
  arch.hc_lowrank = hc_lowrank;
  const std::int64_t wide = hc * s.hidden;  // the hyper-connection residual, 10240
  for (LayerSpec& layer : arch.layers) {
    layer.n_hidden_norms = 0;  // the hyper-connection norms are the layer norms
    if (layer.attn.kind == AttentionKind::full) {
      layer.attn.qsa_indexer = true;
      layer.attn.index_n_heads = index_heads;
      layer.attn.index_head_dim = index_dim;
    }
  }
  const std::int64_t rows = ngram_table_rows(base, heads, std::max<std::int64_t>(1, v.int_or({"make_ngram_vocab_size_divisible_by"}, 1)));
  for (const std::int64_t one_based : *ple_layers) {
    if (one_based < 1 || one_based > s.n_layers) {
      v.fail("config.bad_field", "config.json field " + v.path_of("ple_layer_ids") + " names layer " +
                                     std::to_string(one_based) + "; layers count from 1 to num_hidden_layers");
      return;
    }
    LayerSpec& layer = arch.layers[static_cast<std::size_t>(one_based - 1)];  // ple_layer_ids [2]: layer 1
    // ple_key [10240, 2560], ple_value [2560, 2560], ple_norm_{key,query,conv}
    // [10240], ple_conv1d [10240, 4].
    layer.side_tensors = {{SideKind::projection, ple_dim, wide},
                          {SideKind::projection, ple_dim, s.hidden},
                          {SideKind::norm, wide, 3},
                          {SideKind::conv, ple_kernel, wide}};
    // The conv is dilated by ngram_size: (kernel - 1) x ngram_size = 9 tokens of
    // F32 history per sequence, a row of the recurrent cache in llama.cpp.
    layer.attn.carried_f32_elements = (ple_kernel - 1) * ngram_size * wide;
    arch.lookup_tables.push_back({static_cast<int>(one_based - 1), rows, ple_dim / heads});
  }
  arch.warnings.push_back(
      "Qwen3.8's MTP layer is sized as one more QSA and MoE layer with its two input projections; its "
      "own hyper-connection mixer and norms are counted approximately. The n-gram table is memory, not "
      "active parameters or per-token reads");
}

// DeepSeek V4.1 Flash (deepseek_v41): V4's attention (one 512-wide MQA head,
// low-rank q and grouped low-rank output) with a 128-token window in every
// layer, but only the kv_source_layer_ids layers compress and cache the global
// KV (and its index keys) that the other layers reuse; routed and shared
// experts in every layer; Engram n-gram tables on engram_layer_ids; three
// DSpark draft layers of their own expert count. Shapes: colibri
// docs/deepseek-v41-delta.md (sourced_arch_facts_qwen38_dsv41.json).
void read_deepseek_v41(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const auto ratios = int_list(v, "compress_ratios");
  const auto kv_sources = int_list(v, "kv_source_layer_ids");
  const auto engram_layers = int_list(v, "engram_layer_ids");
  const auto engram_rows = int_list(v, "engram_num_embeddings");
  if (!ratios) return fail_missing(v, "compress_ratios", "that gives each layer's KV compression");
  if (!kv_sources) return fail_missing(v, "kv_source_layer_ids", "that says which layers cache the compressed KV");
  if (!engram_layers || !engram_rows)
    return fail_missing(v, engram_layers ? "engram_num_embeddings" : "engram_layer_ids",
                        "that places and sizes the Engram tables");
  const std::int64_t window = v.require_positive({"sliding_window"});
  const std::int64_t engram_width = v.require_positive({"engram_head_dim"});
  const std::int64_t hc = v.require_positive({"hc_mult"});
  const std::int64_t o_lora_rank = v.require_positive({"o_lora_rank"});
  if (v.has_error()) return;
  if (engram_layers->size() != engram_rows->size()) {
    v.fail("config.bad_field", "config.json fields " + v.path_of("engram_layer_ids") + " and " +
                                   v.path_of("engram_num_embeddings") + " must have one entry per Engram table");
    return;
  }
  const AttentionSpec a = deepseek_v4_attention(v, s);
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = a;
    layer.attn.window_tokens = window;
    const bool source = std::find(kv_sources->begin(), kv_sources->end(), i) != kv_sources->end();
    const auto idx = static_cast<std::size_t>(i);
    if (source && idx < ratios->size() && (*ratios)[idx] > 0) {
      // One compressed entry per compress_ratios[i] tokens plus the window,
      // with the indexer's key of index_head_dim (indexer.wk on these layers).
      layer.attn.kv_compress_ratio = (*ratios)[idx];
    } else {
      layer.attn.kind = AttentionKind::sliding;
      layer.attn.index_head_dim = 0;  // index keys are cached by the source layers only
    }
    layer.ffn = routed(v, s);
    arch.layers.push_back(layer);
  }
  for (std::size_t k = 0; k < engram_layers->size(); ++k) {
    const std::int64_t layer = (*engram_layers)[k];
    if (layer >= s.n_layers) {
      v.fail("config.bad_field", "config.json field " + v.path_of("engram_layer_ids") + " names layer " +
                                     std::to_string(layer) + ", past num_hidden_layers");
      return;
    }
    // engram.{q,k}_weight [4, 5120] (hc_mult x hidden) and engram.wkv [25600,
    // 6144], "[5 x hidden, hidden + o_lora_rank]" as the source writes it.
    arch.layers[static_cast<std::size_t>(layer)].side_tensors = {{SideKind::projection, s.hidden, hc},
                                                                 {SideKind::projection, s.hidden, hc},
                                                                 {SideKind::projection, s.hidden + o_lora_rank, 5 * s.hidden}};
    arch.lookup_tables.push_back({static_cast<int>(layer), (*engram_rows)[k], engram_width});
  }
  const std::size_t decoder_layers = arch.layers.size();
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
  for (std::size_t i = decoder_layers; i < arch.layers.size(); ++i) {
    // DSpark stages: 128 routed experts, top 3 (dspark_n_routed_experts, dspark_num_experts_per_tok).
    FfnSpec& f = arch.layers[i].ffn;
    f.n_experts = v.int_or({"dspark_n_routed_experts"}, f.n_experts);
    f.n_experts_used = std::min(f.n_experts, v.int_or({"dspark_num_experts_per_tok"}, f.n_experts_used));
    arch.layers[i].side_tensors.clear();
  }
  arch.warnings.push_back(
      "DeepSeek V4.1's hyper-connection, compressor and indexer weights (shapes not published) are not counted; "
      "its DSpark draft layers are sized as decoder layers of their own experts; layers that reuse a source "
      "layer's compressed KV are sized as holding their 128-token window only. The Engram tables are memory, "
      "not active parameters or per-token reads");
}

// Kimi Delta Attention as linear_attn_config gives it (Kimi Linear, K3 and
// GLM-5.3 Flash): sized as a gated delta-net layer of the same heads.
AttentionSpec kimi_delta_attention(const Json& linear_cfg, const CommonSizes& s) {
  AttentionSpec kda;
  kda.kind = AttentionKind::linear;
  const std::int64_t heads = std::clamp<std::int64_t>(json_int_or(linear_cfg, "num_heads", s.n_heads), 1, 1 << 16);
  const std::int64_t dim = std::clamp<std::int64_t>(json_int_or(linear_cfg, "head_dim", 128), 1, 1 << 16);
  kda.linear_k_heads = kda.linear_v_heads = heads;
  kda.linear_k_dim = kda.linear_v_dim = dim;
  kda.conv_kernel = std::clamp<std::int64_t>(json_int_or(linear_cfg, "short_conv_kernel_size", 4), 1, 64);
  return kda;
}

// GLM-5.3 Flash (glm5_next): Kimi Delta Attention layers with DeepSeek sparse
// attention layers between (NoPE latent attention: qk_rope_head_dim 0, and an
// indexer), as layer_types lists them; dense FFNs first, then shared + routed
// experts; hyper-connection streams.
void read_glm5_next(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const Json* types = v.json_field({"layer_types"});
  const Json* linear_cfg = v.json_field({"linear_attn_config"});
  if (types == nullptr || !types->is_array() || linear_cfg == nullptr || !linear_cfg->is_object()) {
    v.fail("config.missing_field", "config.json lacks the field " +
                                       v.path_of(types == nullptr ? "layer_types" : "linear_attn_config") +
                                       " that says which layers use linear attention and how wide they are");
    return;
  }
  // qk_rope_head_dim 0 or absent: NoPE latent attention (mla_use_nope).
  const AttentionSpec dsa = latent_attention(v, s, {0, std::nullopt, std::nullopt});
  const AttentionSpec kda = kimi_delta_attention(*linear_cfg, s);
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = layer_attention_kind(v, i, arch.model_type) == AttentionKind::linear ? kda : dsa;
    layer.ffn = layer_is_moe(v, i, s.n_layers) ? routed(v, s) : dense_ffn(s.intermediate);
    arch.layers.push_back(layer);
  }
  if (static_cast<std::int64_t>(types->size()) != s.n_layers)
    arch.warnings.push_back("layer_types has " + std::to_string(types->size()) + " entries but num_hidden_layers says " +
                            std::to_string(s.n_layers) + "; layers past the list use sparse attention");
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
  arch.mtp_in_gguf = true;  // llama.cpp's glm5-next GGUFs keep the MTP head (as GLM-4.5's do)
  arch.warnings.push_back(
      "GLM-5.3 Flash's Kimi Delta Attention layers are sized as gated delta-net layers of the same heads; its "
      "hyper-connection weights are small and not counted");
}

// Kimi Linear / K3: Kimi Delta Attention (linear) layers with MLA layers between,
// latent routed experts.
void read_kimi_linear(ConfigView& v, const CommonSizes& s, Architecture& arch) {
  MoeFfn routed;  // the same in every MoE layer: read once
  const Json* linear_cfg = v.json_field({"linear_attn_config"});
  if (linear_cfg == nullptr || !linear_cfg->is_object()) {
    v.fail("config.missing_field", "config.json lacks the field " + v.path_of("linear_attn_config") +
                                       " that says which layers use linear attention");
    return;
  }
  auto is_listed = [&](const char* key, std::int64_t layer_1based) {
    auto it = linear_cfg->find(key);
    if (it == linear_cfg->end() || !it->is_array()) return false;
    for (const auto& x : *it)
      if (x.is_number_integer() && x.get<std::int64_t>() == layer_1based) return true;
    return false;
  };
  const AttentionSpec mla = latent_attention(v, s, {64, 128, 128});
  const AttentionSpec kda = kimi_delta_attention(*linear_cfg, s);
  for (std::int64_t i = 0; i < s.n_layers; ++i) {
    LayerSpec layer;
    layer.attn = is_listed("kda_layers", i + 1) ? kda : mla;
    if (layer_is_moe(v, i, s.n_layers)) {
      layer.ffn = routed(v, s);
      layer.ffn.expert_latent = v.int_or({"routed_expert_hidden_size"}, 0);
      if (layer.ffn.expert_latent == s.hidden) layer.ffn.expert_latent = 0;
      if (auto shared = v.int_field({"num_shared_experts"}))
        layer.ffn.shared_intermediate = *shared * layer.ffn.expert_intermediate;
    } else {
      layer.ffn = dense_ffn(s.intermediate);
    }
    arch.layers.push_back(layer);
  }
  add_mtp_layers(v, arch, v.int_or({"num_nextn_predict_layers"}, 0));
  arch.warnings.push_back("Kimi Delta Attention is sized as a gated delta-net layer of the same heads");
}

struct FamilyEntry {
  const char* model_type;
  FamilyReader reader;
};

const std::array<FamilyEntry, 66>& family_table() {
  static const std::array<FamilyEntry, 66> table = {{
      {"deepseek_v4", read_deepseek_v4},    {"kimi_linear", read_kimi_linear},
      {"deepseek_v41", read_deepseek_v41},  {"deepseek_v41_text", read_deepseek_v41},
      {"qwen4_exp", read_qwen4_exp},        {"qwen4_exp_text", read_qwen4_exp},
      {"kimi_k3", read_kimi_linear},        {"glm5_next", read_glm5_next},
      {"glm5_next_text", read_glm5_next},
      {"llama", read_transformer},          {"mistral", read_transformer},
      {"ministral", read_transformer},      {"ministral3", read_transformer},
      {"mistral3", read_transformer},       {"qwen2", read_transformer},
      {"qwen3", read_transformer},          {"smollm3", read_transformer},
      {"gemma", read_transformer},          {"gemma2", read_transformer},
      {"gemma3", read_transformer},         {"gemma3_text", read_transformer},
      {"gemma4", read_transformer},         {"gemma4_text", read_transformer},
      {"gemma4_unified", read_transformer}, {"gemma4_unified_text", read_transformer},
      {"phi3", read_transformer},           {"cohere", read_transformer},
      {"cohere2", read_transformer},        {"glm4", read_transformer},
      {"granite", read_transformer},        {"olmo2", read_transformer},
      {"minicpm", read_transformer},        {"mixtral", read_transformer},
      {"qwen2_moe", read_transformer},      {"qwen3_moe", read_transformer},
      {"glm4_moe", read_transformer},       {"gpt_oss", read_transformer},
      {"llama4", read_transformer},         {"llama4_text", read_transformer},
      {"ernie4_5_moe", read_transformer},   {"ernie4_5", read_transformer},
      {"hunyuan", read_transformer},        {"hunyuan_v1_moe", read_transformer},
      {"minimax", read_transformer},        {"minimax_m2", read_transformer},
      {"minimax_m3", read_transformer},     {"step3p7", read_transformer},
      {"step3p5", read_transformer},        {"deepseek_v2", read_latent_attention_moe},
      {"deepseek_v3", read_latent_attention_moe}, {"deepseek_v32", read_latent_attention_moe},
      {"kimi_k2", read_latent_attention_moe},     {"glm4_moe_lite", read_latent_attention_moe},
      {"glm_moe_dsa", read_latent_attention_moe}, {"qwen3_next", read_qwen_hybrid},
      {"qwen3_5", read_qwen_hybrid},        {"qwen3_5_text", read_qwen_hybrid},
      {"qwen3_5_moe", read_qwen_hybrid},    {"qwen3_5_moe_text", read_qwen_hybrid},
      {"nemotron_h", read_nemotron_hybrid}, {"nemotron-nas", read_nemotron_nas},
      {"mimo_v2_flash", read_mimo},         {"falcon", read_falcon},
      {"RefinedWeb", read_falcon},          {"RefinedWebModel", read_falcon},
      {"exaone", read_transformer},
  }};
  return table;
}

const FamilyEntry* find_family(const std::string& model_type) {
  for (const FamilyEntry& entry : family_table())
    if (model_type == entry.model_type) return &entry;
  return nullptr;
}

}  // namespace

bool is_known_model_type(std::string_view model_type) {
  for (const FamilyEntry& entry : family_table())
    if (model_type == entry.model_type) return true;
  return false;
}

Result<Architecture> read_hf_config(const Json& config) {
  if (!config.is_object()) return Error{"config.not_object", "config.json must hold a JSON object"};
  ConfigView v(config);
  Architecture arch;
  arch.model_type = read_model_type(config);

  const Json& defaults = class_defaults(arch.model_type);
  if (!defaults.empty()) v.set_class_defaults(&defaults);

  CommonSizes s;
  s.hidden = v.require_positive({"hidden_size", "d_model", "n_embd", "dim"});
  if (const auto pattern_layers = hybrid_pattern_length(v); pattern_layers > 0 && !v.int_field({"num_hidden_layers"}))
    s.n_layers = pattern_layers;  // Nemotron-H copies that list layers only in the pattern
  else
    s.n_layers = v.require_positive({"num_hidden_layers", "n_layer", "n_layers", "num_layers"});
  s.n_heads = v.require_positive({"num_attention_heads", "n_head", "n_heads", "num_heads"});
  arch.vocab_size = v.require_positive({"vocab_size", "padded_vocab_size"});
  if (v.has_error()) return v.error();
  s.n_kv_heads = v.int_or({"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"}, s.n_heads);
  s.head_dim = v.int_or({"head_dim", "attention_head_dim", "head_dim_derived"}, 0);
  if (s.head_dim <= 0) s.head_dim = s.hidden / s.n_heads;
  s.intermediate = v.int_or({"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim"}, 0);
  if (s.intermediate <= 0) {
    if (arch.model_type == "falcon" || arch.model_type.empty()) {
      s.intermediate = 4 * s.hidden;  // Falcon/GPT-style MLP
    } else if (read_expert_count(v) > 1) {
      // All-MoE models (Qwen3.5 MoE, DeepSeek V4) need no dense width.
      s.intermediate = v.int_or({"moe_intermediate_size"}, 0);
    } else if (arch.model_type != "nemotron-nas") {
      s.intermediate = v.require_positive({"intermediate_size"});
      if (v.has_error()) return v.error();
    }
  }
  s.window = v.int_or({"sliding_window", "sliding_window_size", "attention_window"}, 0);
  if (s.n_kv_heads <= 0 || s.n_kv_heads > s.n_heads)
    return Error{"config.bad_field", "config.json field " + v.path_of("num_key_value_heads") +
                                         " must be between 1 and num_attention_heads"};
  // Grouped-query attention shares each key/value head among a whole group of
  // query heads: a count that does not divide cannot be built.
  if (s.n_heads % s.n_kv_heads != 0)
    return Error{"config.bad_field", "config.json field " + v.path_of("num_attention_heads") + " (" +
                                         std::to_string(s.n_heads) + ") must be a multiple of " +
                                         v.path_of("num_key_value_heads") + " (" + std::to_string(s.n_kv_heads) + ")"};

  const auto tied = v.bool_field({"tie_word_embeddings", "tie_embeddings"});
  arch.tied_embeddings = tied.value_or(false);
  arch.hidden_size = s.hidden;
  arch.max_context_tokens = v.int_or({"max_position_embeddings", "max_sequence_length", "seq_length",
                                      "n_positions", "model_max_length"}, 0);
  read_native_format(v, arch);

  const FamilyEntry* family = find_family(arch.model_type);
  if (family == nullptr) {
    arch.warnings.push_back("model_type '" + arch.model_type.substr(0, 64) +
                            "' is not one llm-sizer knows; it was sized as a dense transformer "
                            "from the standard fields");
    read_transformer(v, s, arch);
  } else {
    family->reader(v, s, arch);
  }
  if (v.has_error()) return v.error();
  if (arch.model_type == "minicpm" || arch.model_type == "hunyuan" || arch.model_type == "cohere" ||
      arch.model_type == "cohere2") {
    arch.tied_embeddings = tied.value_or(true);  // these families default to tied heads
  }
  if (arch.layers.empty()) return Error{"config.bad_field", "config.json describes a model with no layers"};
  if (auto problem = check_architecture(arch)) return *problem;
  read_vision_config(config, arch);
  return arch;
}

Result<Architecture> read_hf_config_text(std::string_view text) {
  const Json parsed = parse_json(text);
  if (parsed.is_discarded()) {
    // Say where, as an editor counts: the error is found where it was typed.
    const auto place = json_error_place(text);
    return Error{"config.not_json", place ? "config.json is not valid JSON at line " + std::to_string(place->line) +
                                                ", column " + std::to_string(place->column)
                                          : std::string("config.json is not valid JSON")};
  }
  return read_hf_config(parsed);
}

}  // namespace llmsizer
