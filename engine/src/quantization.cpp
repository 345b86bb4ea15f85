#include "llmsizer/quantization.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace llmsizer {
namespace {

using F = LlamaFtype;
using T = GgmlType;

struct FtypeEntry {
  const char* name;
  F ftype;
  T default_type;  // llama-quantize's default_type for the file type
};

// Source: llama.cpp src/llama-quant.cpp, llama_model_quantize_impl (default_type switch).
constexpr std::array<FtypeEntry, 33> kFtypes = {{
    {"F32", F::ALL_F32, T::F32},     {"F16", F::F16, T::F16},         {"BF16", F::BF16, T::BF16},
    {"Q8_0", F::Q8_0, T::Q8_0},      {"Q6_K", F::Q6_K, T::Q6_K},      {"Q5_K_M", F::Q5_K_M, T::Q5_K},
    {"Q5_K_S", F::Q5_K_S, T::Q5_K},  {"Q5_0", F::Q5_0, T::Q5_0},      {"Q5_1", F::Q5_1, T::Q5_1},
    {"Q4_K_M", F::Q4_K_M, T::Q4_K},  {"Q4_K_S", F::Q4_K_S, T::Q4_K},  {"Q4_0", F::Q4_0, T::Q4_0},
    {"Q4_1", F::Q4_1, T::Q4_1},      {"Q3_K_L", F::Q3_K_L, T::Q3_K},  {"Q3_K_M", F::Q3_K_M, T::Q3_K},
    {"Q3_K_S", F::Q3_K_S, T::Q3_K},  {"Q2_K", F::Q2_K, T::Q2_K},      {"Q2_K_S", F::Q2_K_S, T::Q2_K},
    {"IQ4_XS", F::IQ4_XS, T::IQ4_XS}, {"IQ4_NL", F::IQ4_NL, T::IQ4_NL}, {"IQ3_M", F::IQ3_M, T::IQ3_S},
    {"IQ3_S", F::IQ3_S, T::IQ3_S},   {"IQ3_XS", F::IQ3_XS, T::IQ3_S}, {"IQ3_XXS", F::IQ3_XXS, T::IQ3_XXS},
    {"IQ2_M", F::IQ2_M, T::IQ2_S},   {"IQ2_S", F::IQ2_S, T::IQ2_XS},  {"IQ2_XS", F::IQ2_XS, T::IQ2_XS},
    {"IQ2_XXS", F::IQ2_XXS, T::IQ2_XXS}, {"IQ1_M", F::IQ1_M, T::IQ1_M}, {"IQ1_S", F::IQ1_S, T::IQ1_S},
    {"TQ1_0", F::TQ1_0, T::TQ1_0},   {"TQ2_0", F::TQ2_0, T::TQ2_0},   {"MXFP4_MOE", F::MXFP4_MOE, T::MXFP4},
}};

const FtypeEntry& entry_of(F ftype) {
  for (const auto& e : kFtypes)
    if (e.ftype == ftype) return e;
  return kFtypes[1];
}

struct NamedScheme {
  const char* name;
  SchemeKind kind;
};
constexpr std::array<NamedScheme, 12> kNativeSchemes = {{
    {"native", SchemeKind::native},         {"BF16-native", SchemeKind::bf16},
    {"FP16-native", SchemeKind::fp16},      {"FP8", SchemeKind::fp8_block},
    {"MXFP4", SchemeKind::mxfp4},   {"NVFP4", SchemeKind::nvfp4},
    {"AWQ", SchemeKind::awq_int4},          {"GPTQ-INT4", SchemeKind::gptq_int4},
    {"NF4", SchemeKind::nf4},               {"MLX-4bit", SchemeKind::mlx_4bit},
    {"MLX-8bit", SchemeKind::mlx_8bit},     {"GPTQ", SchemeKind::gptq_int4},
}};

std::string upper(std::string_view s) {
  std::string out(s.substr(0, 64));
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_iq_low(F f) {  // the IQ1/IQ2 file types share one branch in llama-quant.cpp
  return f == F::IQ2_XXS || f == F::IQ2_XS || f == F::IQ1_S || f == F::IQ2_S || f == F::IQ2_M ||
         f == F::IQ1_M;
}

bool is_quantized(T t) { return t != T::F32 && t != T::F16 && t != T::BF16; }

// What llama-quantize knows about the model (quantize_state_impl + hparams).
struct QuantContext {
  F ftype;
  bool has_imatrix;  // IQ types need one; bartowski/unsloth publish with one
  bool has_output;
  bool falcon;
  bool is_70b;  // LLM_TYPE_70B: the Llama-2/3 70B shape (80 layers, 8192 hidden)
  std::int64_t n_gqa;
  std::int64_t n_expert;
  int n_layer;
  int n_attention_wv;
};

bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// Replays llama_tensor_get_type (llama.cpp src/llama-quant.cpp) for one tensor.
T choose_type(const QuantContext& q, const TensorInfo& t, T new_type, int& i_attention_wv) {
  const F f = q.ftype;
  const bool output_like =
      t.role == TensorRole::output || (!q.has_output && t.role == TensorRole::token_embd);
  const int i_layer = t.layer < 0 ? 0 : t.layer;
  const int n_layer = q.n_layer;

  if (output_like) {
    const std::int64_t qk_k = traits(new_type).block_elements;
    if (f == F::MXFP4_MOE) new_type = T::Q8_0;
    else if (q.falcon || t.row_elements % qk_k != 0) new_type = T::Q8_0;
    else if (f == F::IQ2_XXS || f == F::IQ2_XS || f == F::IQ3_XXS || f == F::IQ1_S || f == F::IQ2_S ||
             f == F::IQ2_M || f == F::IQ1_M)
      new_type = T::Q5_K;
    else if (new_type != T::Q8_0) new_type = T::Q6_K;
  } else if (f == F::MXFP4_MOE) {
    new_type = t.n_experts > 1 ? T::MXFP4 : T::Q8_0;
  } else if (t.role == TensorRole::token_embd || t.role == TensorRole::per_layer_embd) {
    if (f == F::IQ2_XXS || f == F::IQ2_XS || f == F::IQ1_S || f == F::IQ1_M) new_type = T::Q2_K;
    else if (f == F::IQ2_S || f == F::IQ2_M) new_type = T::IQ3_S;
    else if (f == F::IQ3_XXS) new_type = T::IQ3_S;
    else if (f == F::TQ1_0 || f == F::TQ2_0) new_type = T::Q4_K;
  } else if (is_iq_low(f)) {
    const bool iq2_sm = f == F::IQ2_S || f == F::IQ2_M;
    if (t.role == TensorRole::attn_v) {
      if (q.n_gqa >= 4 || q.n_expert >= 4) new_type = T::Q4_K;
      else new_type = iq2_sm ? T::IQ3_S : T::Q2_K;
      ++i_attention_wv;
    } else if (q.n_expert == 8 && t.role == TensorRole::attn_k) {
      new_type = T::Q4_K;
    } else if (t.role == TensorRole::ffn_down || t.role == TensorRole::ffn_down_exps ||
               t.role == TensorRole::ffn_down_shexp) {
      if (i_layer < n_layer / 8) new_type = iq2_sm ? T::IQ3_S : T::Q2_K;
    } else if (t.role == TensorRole::attn_output) {
      if (q.n_expert == 8) new_type = T::Q5_K;
      else if (f == F::IQ1_S || f == F::IQ1_M) new_type = T::IQ2_XXS;
      else if (iq2_sm) new_type = T::IQ3_S;
    }
  } else if (t.role == TensorRole::attn_v) {
    if (f == F::Q2_K) new_type = q.n_gqa >= 4 ? T::Q4_K : T::Q3_K;
    else if (f == F::Q2_K_S && q.n_gqa >= 4) new_type = T::Q4_K;
    else if (f == F::IQ3_XXS) new_type = q.n_gqa >= 4 ? T::Q4_K : !q.has_imatrix ? T::IQ3_S : T::IQ3_XXS;
    else if ((f == F::IQ3_XS || f == F::IQ3_S) && q.n_gqa >= 4) new_type = T::Q4_K;
    else if (f == F::IQ3_M) new_type = T::Q4_K;
    else if (f == F::Q3_K_M) new_type = i_attention_wv < 2 ? T::Q5_K : T::Q4_K;
    else if (f == F::Q3_K_L) new_type = T::Q5_K;
    else if ((f == F::IQ4_NL || f == F::IQ4_XS) && q.n_gqa >= 4) new_type = T::Q5_K;
    else if ((f == F::Q4_K_M || f == F::Q5_K_M) && use_more_bits(i_attention_wv, q.n_attention_wv))
      new_type = T::Q6_K;
    else if (f == F::Q4_K_S && i_attention_wv < 4) new_type = T::Q5_K;
    if (q.is_70b && (new_type == T::Q3_K || new_type == T::Q4_K)) new_type = T::Q5_K;
    if (q.n_expert == 8) new_type = T::Q8_0;
    ++i_attention_wv;
  } else if (t.role == TensorRole::attn_k) {
    if (q.n_expert == 8) new_type = T::Q8_0;
    else if (f == F::IQ3_XS) new_type = T::IQ3_XXS;
    else if (f == F::IQ3_XXS) new_type = T::IQ2_S;
  } else if (t.role == TensorRole::attn_q) {
    if (f == F::IQ3_XS) new_type = T::IQ3_XXS;
    else if (f == F::IQ3_XXS) new_type = T::IQ2_S;
  } else if (t.role == TensorRole::ffn_down || t.role == TensorRole::ffn_down_exps ||
             t.role == TensorRole::ffn_down_shexp) {
    if (f == F::Q2_K) new_type = T::Q3_K;
    else if (f == F::Q2_K_S) {
      if (i_layer < n_layer / 8) new_type = T::Q4_K;
    } else if (f == F::IQ3_XXS && !q.has_imatrix) {
      new_type = i_layer < n_layer / 8 ? T::Q4_K : T::Q3_K;
    } else if (f == F::Q3_K_M) {
      new_type = i_layer < n_layer / 16                          ? T::Q5_K
                 : !q.falcon || use_more_bits(i_layer, n_layer) ? T::Q4_K
                                                                 : T::Q3_K;
    } else if (f == F::IQ3_M && (i_layer < n_layer / 8 || (q.n_expert == 8 && use_more_bits(i_layer, n_layer)))) {
      new_type = T::Q4_K;
    } else if (f == F::Q3_K_L) {
      new_type = q.falcon ? T::Q4_K : T::Q5_K;
    } else if (f == F::Q4_K_M) {
      if (q.falcon) {
        new_type = i_layer < n_layer / 16 ? T::Q6_K : use_more_bits(i_layer, n_layer) ? T::Q5_K : T::Q4_K;
      } else if (use_more_bits(i_layer, n_layer)) {
        new_type = T::Q6_K;
      }
    } else if (i_layer < n_layer / 8 && (f == F::IQ4_NL || f == F::IQ4_XS) && !q.has_imatrix) {
      new_type = T::Q5_K;
    } else if (f == F::Q5_K_M && use_more_bits(i_layer, n_layer)) {
      new_type = T::Q6_K;
    } else if (f == F::Q4_K_S && !q.falcon && i_layer < n_layer / 8) {
      new_type = T::Q5_K;
    } else if ((f == F::Q4_0 || f == F::Q5_0) && q.has_imatrix && i_layer < n_layer / 8) {
      new_type = f == F::Q4_0 ? T::Q4_1 : T::Q5_1;
    }
  } else if (t.role == TensorRole::attn_output) {
    if (!q.falcon) {
      if (q.n_expert == 8) {
        if (f == F::Q2_K || f == F::IQ3_XS || f == F::IQ3_XXS || f == F::Q3_K_S || f == F::Q3_K_M ||
            f == F::IQ4_NL || f == F::Q4_K_S || f == F::Q4_K_M || f == F::IQ3_S || f == F::IQ3_M ||
            f == F::IQ4_XS)
          new_type = T::Q5_K;
      } else {
        if (f == F::Q2_K) new_type = T::Q3_K;
        else if (f == F::IQ3_XXS) new_type = T::IQ3_S;
        else if (f == F::Q3_K_M) new_type = T::Q4_K;
        else if (f == F::Q3_K_L) new_type = T::Q5_K;
        else if (f == F::IQ3_M) new_type = T::Q4_K;
      }
    } else if (f == F::Q3_K_L) {
      new_type = T::Q4_K;
    }
  } else if (t.role == TensorRole::attn_qkv) {
    if (f == F::Q3_K_M || f == F::Q3_K_L || f == F::IQ3_M) new_type = T::Q4_K;
    else if (f == F::Q4_K_M) new_type = T::Q5_K;
    else if (f == F::Q5_K_M) new_type = T::Q6_K;
    ++i_attention_wv;
  } else if (t.role == TensorRole::ffn_gate || t.role == TensorRole::ffn_gate_exps ||
             t.role == TensorRole::ffn_gate_shexp || t.role == TensorRole::ffn_up ||
             t.role == TensorRole::ffn_up_exps || t.role == TensorRole::ffn_up_shexp) {
    if (f == F::IQ3_XS && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) new_type = T::IQ3_XXS;
  }
  return new_type;
}

// Rows whose width is not a multiple of the block fall back (llama-quant.cpp,
// convert_incompatible_tensor).
T fallback_if_incompatible(T type, std::int64_t row_elements) {
  if (row_elements % traits(type).block_elements == 0) return type;
  T fallback = T::F16;
  switch (type) {
    case T::TQ1_0: case T::TQ2_0: fallback = T::Q4_0; break;
    case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ3_XXS: case T::IQ3_S:
    case T::IQ1_S: case T::IQ1_M: case T::Q2_K: case T::Q3_K: case T::IQ4_XS:
      fallback = T::IQ4_NL; break;
    case T::Q4_K: fallback = T::Q5_0; break;
    case T::Q5_K: fallback = T::Q5_1; break;
    case T::Q6_K: fallback = T::Q8_0; break;
    default: fallback = T::F16; break;
  }
  if (row_elements % traits(fallback).block_elements != 0) fallback = T::F16;
  return fallback;
}

// One step up the ladder, used by the dynamic-mix approximation for ffn_down.
T one_step_up(T t) {
  switch (t) {
    case T::IQ1_S: case T::IQ1_M: return T::IQ2_XXS;
    case T::IQ2_XXS: return T::IQ2_XS;
    case T::IQ2_XS: case T::IQ2_S: return T::IQ3_XXS;
    case T::IQ3_XXS: case T::IQ3_S: return T::Q4_K;
    case T::Q2_K: return T::Q3_K;
    case T::Q3_K: return T::Q4_K;
    case T::Q4_K: return T::Q5_K;
    case T::Q5_K: return T::Q6_K;
    default: return T::Q8_0;
  }
}

}  // namespace

Result<QuantScheme> quant_scheme_from_name(std::string_view name) {
  const std::string key = upper(name);
  QuantScheme scheme;
  for (const auto& e : kFtypes) {
    if (key == e.name) {
      scheme.name = e.name;
      scheme.ftype = e.ftype;
      scheme.kind = SchemeKind::gguf;
      return scheme;
    }
  }
  if (key == "Q4_K" || key == "Q5_K" || key == "Q3_K") {  // llama-quantize aliases for *_M
    return quant_scheme_from_name(key + "_M");
  }
  for (const auto& n : kNativeSchemes) {
    if (key == upper(n.name)) {
      scheme.name = n.name;
      scheme.kind = n.kind;
      return scheme;
    }
  }
  // bartowski "_L" (and "_XL"): the file type with Q8_0 embedding and output;
  // unsloth "UD-<type>[_XL]": dynamic mixes. K-quant bases without a size
  // letter (Q4_K, Q5_K, Q3_K) mean their _M variant, as in llama-quantize.
  auto base_ftype = [](std::string base) -> std::optional<F> {
    if (base == "Q3_K" || base == "Q4_K" || base == "Q5_K") base += "_M";
    for (const auto& e : kFtypes)
      if (base == e.name) return e.ftype;
    return std::nullopt;
  };
  auto strip_suffix = [](std::string& text, const std::string& suffix) {
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      text.resize(text.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (key.rfind("UD-", 0) == 0) {
    std::string base = key.substr(3);
    strip_suffix(base, "_XL");
    if (auto f = base_ftype(base)) {
      scheme.name = key;
      scheme.ftype = *f;
      scheme.kind = SchemeKind::gguf_dynamic;
      scheme.approximate = true;
      return scheme;
    }
  } else {
    std::string base = key;
    if (strip_suffix(base, "_XL") || strip_suffix(base, "_L")) {
      if (base == "Q3_K") base = "Q3_K_L";  // bartowski Q3_K_XL: Q3_K_L with Q8_0 edges
      if (auto f = base_ftype(base)) {
        scheme.name = key;
        scheme.ftype = *f;
        scheme.kind = SchemeKind::gguf_q8_edges;
        scheme.approximate = true;
        return scheme;
      }
    }
  }
  std::string accepted;
  for (const auto& n : quant_scheme_names()) accepted += (accepted.empty() ? "" : ", ") + n;
  return Error{"quant.unknown", "unknown quantization '" + std::string(name.substr(0, 40)) +
                                    "'; accepted: " + accepted};
}

std::vector<std::string> quant_scheme_names() {
  std::vector<std::string> names;
  for (const auto& e : kFtypes) names.emplace_back(e.name);
  for (const char* mix : {"Q4_K_L", "Q5_K_L", "Q6_K_L", "Q3_K_XL", "Q2_K_L", "UD-Q4_K_XL", "UD-Q3_K_XL",
                          "UD-Q2_K_XL", "UD-Q5_K_XL", "UD-Q6_K_XL", "UD-IQ1_S", "UD-IQ1_M", "UD-IQ2_XXS",
                          "UD-IQ2_M", "UD-IQ3_XXS"})
    names.emplace_back(mix);
  for (const auto& n : kNativeSchemes)
    if (std::string(n.name) != "GPTQ") names.emplace_back(n.name);
  return names;
}

std::vector<GgmlType> gguf_tensor_types(const Architecture& arch, const std::vector<TensorInfo>& tensors,
                                        const QuantScheme& scheme) {
  const FtypeEntry& entry = entry_of(scheme.ftype);
  QuantContext q{};
  q.ftype = scheme.ftype;
  // IQ1-IQ3 cannot be made without an importance matrix; the IQ4 rows of
  // llama.cpp's size table were made without one.
  q.has_imatrix = scheme.ftype >= F::IQ3_M && scheme.ftype <= F::IQ1_S;
  q.has_output = !arch.tied_embeddings;
  q.falcon = arch.falcon_style;
  q.n_layer = 0;
  for (const auto& layer : arch.layers) q.n_layer += (!layer.is_mtp || arch.mtp_in_gguf) ? 1 : 0;
  q.n_expert = arch.max_experts();
  const AttentionSpec* first_attention = nullptr;
  for (const auto& layer : arch.layers)
    if (layer.attn.n_kv_heads > 0 && !layer.attn.mla) {
      first_attention = &layer.attn;
      break;
    }
  q.n_gqa = first_attention ? first_attention->n_heads / first_attention->n_kv_heads : 1;
  q.is_70b = (arch.model_type == "llama") && q.n_layer == 80 && arch.hidden_size == 8192;
  q.n_attention_wv = 0;
  for (const auto& t : tensors)
    if (t.role == TensorRole::attn_v || t.role == TensorRole::attn_qkv || t.role == TensorRole::attn_kv_b)
      ++q.n_attention_wv;

  std::vector<GgmlType> types;
  types.reserve(tensors.size());
  int i_attention_wv = 0;
  // convert_hf_to_gguf.py repacks gpt-oss's MXFP4 experts as they are (its
  // GptOssModel); other checkpoints convert from 16-bit weights.
  const bool gpt_oss = arch.native_format == NativeFormat::mxfp4_experts && arch.model_type == "gpt_oss";
  for (const TensorInfo& t : tensors) {
    T type = entry.default_type;
    if (tensor_stays_f32(t.role)) {
      types.push_back(T::F32);
      continue;
    }
    if (gpt_oss && t.is_routed_expert() && scheme.ftype != F::ALL_F32) {
      types.push_back(T::MXFP4);  // the converter writes MXFP4 experts; quantize keeps them
      continue;
    }
    if (is_quantized(entry.default_type)) {
      type = choose_type(q, t, type, i_attention_wv);
      if (scheme.kind == SchemeKind::gguf_q8_edges &&
          (t.role == TensorRole::token_embd || t.role == TensorRole::output)) {
        type = T::Q8_0;
      } else if (scheme.kind == SchemeKind::gguf_dynamic) {
        // Unsloth's dynamic quants keep the small, sensitive tensors high and the
        // routed experts at the named type (ffn_down one step up); dense models
        // follow llama.cpp's own mix with 8-bit embeddings and output kept at Q6_K.
        // Below 3 bits ffn_down_exps goes one step up; from 3 bits on the experts
        // stay at the named type (UD-Q4_K_XL of MiniMax-M2.1 is 131 GB against
        // 138 GB for llama.cpp's Q4_K_M, which bumps half of ffn_down to Q6_K).
        const T base = entry.default_type;
        const bool below_3_bits = base == T::IQ1_S || base == T::IQ1_M || base == T::IQ2_XXS ||
                                  base == T::IQ2_XS || base == T::IQ2_S || base == T::Q2_K;
        if (t.is_routed_expert()) {
          type = t.role == TensorRole::ffn_down_exps && below_3_bits ? one_step_up(base) : base;
        } else if (q.n_expert > 1) {
          type = t.role == TensorRole::output ? T::Q6_K : below_3_bits ? T::Q4_K : T::Q8_0;
        }
      }
    }
    types.push_back(fallback_if_incompatible(type, t.row_elements));
  }
  return types;
}

}  // namespace llmsizer
