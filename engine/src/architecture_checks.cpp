#include "architecture_checks.hpp"

#include <string>

namespace llmsizer {
namespace {

// 100 trillion parameters and a billion KV elements per token are far beyond any
// model; below them bytes x tokens x sequences stays well inside 64 bits.
constexpr double kMaxParameters = 1e14;
constexpr double kMaxKvElementsPerToken = 1e9;

Error bad(std::size_t layer, const std::string& what) {
  return Error{"config.bad_field", "layer " + std::to_string(layer) + ": " + what};
}

}  // namespace

std::optional<Error> check_architecture(const Architecture& arch) {
  const double hidden = static_cast<double>(arch.hidden_size);
  double params = 2.0 * hidden * static_cast<double>(arch.vocab_size);
  double kv_per_token = 0.0;
  for (std::size_t i = 0; i < arch.layers.size(); ++i) {
    const LayerSpec& layer = arch.layers[i];
    const AttentionSpec& a = layer.attn;
    const bool attention = a.kind == AttentionKind::full || a.kind == AttentionKind::sliding ||
                           a.kind == AttentionKind::chunked;
    if (attention) {
      if (a.n_heads < 1) return bad(i, "attention needs at least one head");
      if (!a.mla && (a.n_kv_heads < 1 || a.head_dim_k < 1 || (a.head_dim_v < 1 && !a.k_eq_v)))
        return bad(i, "attention needs KV heads and head dimensions of at least 1");
      if (a.mla && (a.kv_lora_rank < 1 || a.qk_rope_dim < 0 || a.qk_nope_dim < 0 || a.head_dim_v < 1))
        return bad(i, "latent attention needs a positive kv_lora_rank and v_head_dim");
      if (a.window_tokens < 0 || a.kv_compress_ratio < 0) return bad(i, "window and compression must not be negative");
      const double heads = static_cast<double>(a.n_heads);
      const double dims = static_cast<double>(a.head_dim_k + a.head_dim_v + a.qk_nope_dim + a.qk_rope_dim);
      params += 4.0 * hidden * heads * dims + static_cast<double>(a.q_lora_rank + a.kv_lora_rank) * (hidden + heads * dims);
      kv_per_token += a.mla ? static_cast<double>(a.kv_lora_rank + a.qk_rope_dim)
                            : static_cast<double>(a.n_kv_heads) * static_cast<double>(a.head_dim_k + a.head_dim_v);
    } else if (a.kind == AttentionKind::linear) {
      if (a.linear_k_heads < 1 || a.linear_v_heads < 1 || a.linear_k_dim < 1 || a.linear_v_dim < 1 || a.conv_kernel < 0)
        return bad(i, "linear attention needs positive head counts and dimensions");
      params += 4.0 * hidden * static_cast<double>(a.linear_v_heads * a.linear_v_dim + a.linear_k_heads * a.linear_k_dim);
    } else if (a.kind == AttentionKind::mamba2) {
      if (a.ssm_heads < 1 || a.ssm_head_dim < 1 || a.ssm_state < 1 || a.ssm_groups < 1 || a.conv_kernel < 0)
        return bad(i, "Mamba2 needs positive heads, head size, state size and groups");
      params += 3.0 * hidden * static_cast<double>(a.ssm_heads * a.ssm_head_dim + a.ssm_groups * a.ssm_state);
    }
    for (const SideTensor& t : layer.side_tensors) {
      if (t.in < 1 || t.out < 1) return bad(i, "a side projection needs positive widths");
      params += static_cast<double>(t.in) * static_cast<double>(t.out);
    }
    const FfnSpec& f = layer.ffn;
    if (f.kind == FfnKind::dense && f.intermediate < 1) return bad(i, "the MLP needs a positive intermediate size");
    if (f.kind == FfnKind::moe) {
      if (f.n_experts < 1 || f.n_experts_used < 1 || f.n_experts_used > f.n_experts || f.expert_intermediate < 1)
        return bad(i, "experts need a positive count, a routed count within it and a positive width");
      if (f.n_shared_experts < 0 || f.shared_intermediate < 0 || f.expert_latent < 0)
        return bad(i, "shared experts must not be negative");
      params += 3.0 * (hidden + static_cast<double>(f.expert_latent)) *
                (static_cast<double>(f.n_experts) * static_cast<double>(f.expert_intermediate) +
                 static_cast<double>(f.shared_intermediate + f.parallel_dense_intermediate));
    } else {
      params += 3.0 * hidden * static_cast<double>(f.intermediate);
    }
  }
  for (const LookupTable& t : arch.lookup_tables) {
    if (t.rows < 1 || t.width < 1) return Error{"config.bad_field", "a lookup table needs positive rows and width"};
    params += static_cast<double>(t.rows) * static_cast<double>(t.width);
  }
  if (arch.hc_streams < 0 || arch.hc_lowrank < 0)
    return Error{"config.bad_field", "hyper-connection streams and rank must not be negative"};
  params += 3.0 * static_cast<double>(arch.layers.size()) * hidden * static_cast<double>(arch.hc_streams) *
            static_cast<double>(arch.hc_lowrank + arch.hc_streams + 1);
  if (!(params <= kMaxParameters))
    return Error{"config.bad_field", "config.json describes more than 100 trillion parameters"};
  if (!(kv_per_token <= kMaxKvElementsPerToken))
    return Error{"config.bad_field", "config.json describes more than a billion KV elements per token"};
  return std::nullopt;
}

}  // namespace llmsizer
