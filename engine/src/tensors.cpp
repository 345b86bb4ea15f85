#include "llmsizer/tensors.hpp"

namespace llmsizer {
namespace {

class TensorListBuilder {
 public:
  explicit TensorListBuilder(std::vector<TensorInfo>& out) : out_(out) {}

  void at_layer(int layer, bool is_mtp) {
    layer_ = layer;
    is_mtp_ = is_mtp;
  }
  // A matrix that maps `in` features to `out` features: ne0 = in, ne1 = out.
  void matrix(TensorRole role, std::int64_t in, std::int64_t out) {
    if (in > 0 && out > 0) out_.push_back({role, layer_, in, out, 1, is_mtp_});
  }
  void experts(TensorRole role, std::int64_t in, std::int64_t out, std::int64_t n) {
    if (in > 0 && out > 0 && n > 0) out_.push_back({role, layer_, in, out * n, n, is_mtp_});
  }
  void vector(std::int64_t n, TensorRole role = TensorRole::norm) {
    if (n > 0) out_.push_back({role, layer_, n, 1, 1, is_mtp_});
  }

 private:
  std::vector<TensorInfo>& out_;
  int layer_ = -1;
  bool is_mtp_ = false;
};

void add_standard_attention(TensorListBuilder& b, const AttentionSpec& a, std::int64_t hidden) {
  const std::int64_t q_out = a.n_heads * a.head_dim_k * (a.output_gate ? 2 : 1);
  const std::int64_t k_out = a.n_kv_heads * a.head_dim_k;
  const std::int64_t v_out = a.k_eq_v ? 0 : a.n_kv_heads * a.head_dim_v;
  if (a.fused_qkv) {
    b.matrix(TensorRole::attn_qkv, hidden, q_out + k_out + v_out);
  } else {
    if (a.q_lora_rank > 0) {  // low-rank query (DeepSeek V4)
      b.matrix(TensorRole::attn_q_a, hidden, a.q_lora_rank);
      b.vector(a.q_lora_rank);
      b.matrix(TensorRole::attn_q_b, a.q_lora_rank, q_out);
    } else {
      b.matrix(TensorRole::attn_q, hidden, q_out);
    }
    b.matrix(TensorRole::attn_k, hidden, k_out);
    b.matrix(TensorRole::attn_v, hidden, v_out);
  }
  if (a.qkv_bias) b.vector(q_out + k_out + v_out);
  if (a.o_lora_rank > 0) {
    // Grouped low-rank output: heads -> o_lora_rank per group, then groups -> hidden.
    b.matrix(TensorRole::attn_output, a.n_heads * a.head_dim_v, a.o_lora_rank);
    b.matrix(TensorRole::attn_output, a.o_lora_rank * a.o_groups, hidden);
  } else {
    b.matrix(TensorRole::attn_output, a.n_heads * a.head_dim_v, hidden);
  }
  if (a.o_bias) b.vector(hidden);
  if (a.qk_norm) {
    b.vector(a.head_dim_k);
    b.vector(a.head_dim_k);
  }
  if (a.sinks) b.vector(a.n_heads, TensorRole::attn_sinks);
  if (a.qsa_indexer) {
    // Qwen3.8 (llama.cpp qwen4exp): indexer.q_proj [512, 2560], indexer.k_proj
    // [128, 2560], indexer.{q,k}_norm [128].
    b.matrix(TensorRole::indexer, hidden, a.index_n_heads * a.index_head_dim);
    b.matrix(TensorRole::indexer, hidden, a.index_head_dim);
    b.vector(a.index_head_dim);
    b.vector(a.index_head_dim);
  }
}

void add_latent_attention(TensorListBuilder& b, const AttentionSpec& a, std::int64_t hidden) {
  const std::int64_t q_head = a.qk_nope_dim + a.qk_rope_dim;
  if (a.q_lora_rank > 0) {
    b.matrix(TensorRole::attn_q_a, hidden, a.q_lora_rank);
    b.vector(a.q_lora_rank);
    b.matrix(TensorRole::attn_q_b, a.q_lora_rank, a.n_heads * q_head);
  } else {
    b.matrix(TensorRole::attn_q, hidden, a.n_heads * q_head);
  }
  b.matrix(TensorRole::attn_kv_a, hidden, a.kv_lora_rank + a.qk_rope_dim);
  b.vector(a.kv_lora_rank);
  b.matrix(TensorRole::attn_kv_b, a.kv_lora_rank, a.n_heads * (a.qk_nope_dim + a.head_dim_v));
  b.matrix(TensorRole::attn_output, a.n_heads * a.head_dim_v, hidden);
  if (a.index_n_heads > 0) {
    const std::int64_t q_in = a.q_lora_rank > 0 ? a.q_lora_rank : hidden;
    b.matrix(TensorRole::indexer, q_in, a.index_n_heads * a.index_head_dim);
    b.matrix(TensorRole::indexer, hidden, a.index_head_dim);
    b.vector(2 * a.index_head_dim);  // indexer k LayerNorm weight and bias
    b.matrix(TensorRole::indexer, hidden, a.index_n_heads);
  }
}

void add_linear_attention(TensorListBuilder& b, const AttentionSpec& a, std::int64_t hidden) {
  const std::int64_t key_dim = a.linear_k_heads * a.linear_k_dim;
  const std::int64_t value_dim = a.linear_v_heads * a.linear_v_dim;
  // q, k, v and the output gate z, then the beta and alpha gates per value head.
  b.matrix(TensorRole::linear_qkvz, hidden, 2 * key_dim + 2 * value_dim);
  b.matrix(TensorRole::linear_qkvz, hidden, 2 * a.linear_v_heads);
  b.matrix(TensorRole::ssm_conv1d, a.conv_kernel, 2 * key_dim + value_dim);
  b.vector(a.linear_v_heads, TensorRole::ssm_small);  // dt bias
  b.vector(a.linear_v_heads, TensorRole::ssm_small);  // A_log
  b.vector(a.linear_v_dim);                           // gated RMSNorm
  b.matrix(TensorRole::linear_out, value_dim, hidden);
}

void add_mamba2(TensorListBuilder& b, const AttentionSpec& a, std::int64_t hidden) {
  const std::int64_t d_inner = a.ssm_heads * a.ssm_head_dim;
  const std::int64_t bc = 2 * a.ssm_groups * a.ssm_state;
  b.matrix(TensorRole::ssm_in, hidden, 2 * d_inner + bc + a.ssm_heads);
  b.matrix(TensorRole::ssm_conv1d, a.conv_kernel, d_inner + bc);
  b.vector(d_inner + bc, TensorRole::ssm_small);  // conv bias
  b.vector(a.ssm_heads, TensorRole::ssm_small);   // dt bias
  b.vector(a.ssm_heads, TensorRole::ssm_small);   // A
  b.vector(a.ssm_heads, TensorRole::ssm_small);   // D
  b.vector(d_inner);                              // gated norm
  b.matrix(TensorRole::ssm_out, d_inner, hidden);
}

void add_dense_ffn(TensorListBuilder& b, const FfnSpec& f, std::int64_t hidden,
                   std::int64_t intermediate) {
  if (f.gated) b.matrix(TensorRole::ffn_gate, hidden, intermediate);
  b.matrix(TensorRole::ffn_up, hidden, intermediate);
  b.matrix(TensorRole::ffn_down, intermediate, hidden);
  if (f.bias) {
    b.vector(intermediate * (f.gated ? 2 : 1));
    b.vector(hidden);
  }
}

void add_moe_ffn(TensorListBuilder& b, const FfnSpec& f, std::int64_t hidden) {
  b.matrix(TensorRole::ffn_gate_inp, hidden, f.n_experts);
  if (f.router_bias) b.vector(f.n_experts, TensorRole::ffn_gate_inp);
  const std::int64_t e_inter = f.expert_intermediate;
  const std::int64_t width = f.expert_latent > 0 ? f.expert_latent : hidden;
  if (f.expert_latent > 0) {
    b.matrix(TensorRole::attn_gate, hidden, f.expert_latent);  // into the latent
    b.matrix(TensorRole::attn_gate, f.expert_latent, hidden);  // back to hidden
  }
  if (f.gated) b.experts(TensorRole::ffn_gate_exps, width, e_inter, f.n_experts);
  b.experts(TensorRole::ffn_up_exps, width, e_inter, f.n_experts);
  b.experts(TensorRole::ffn_down_exps, e_inter, width, f.n_experts);
  if (f.expert_bias) {
    // Per-expert biases travel with their experts (gpt-oss): only the routed ones are read.
    b.experts(TensorRole::ffn_expert_bias, e_inter * (f.gated ? 2 : 1), 1, f.n_experts);
    b.experts(TensorRole::ffn_expert_bias, width, 1, f.n_experts);
  }
  if (f.n_shared_experts > 0 && f.shared_intermediate > 0) {
    if (f.gated) b.matrix(TensorRole::ffn_gate_shexp, hidden, f.shared_intermediate);
    b.matrix(TensorRole::ffn_up_shexp, hidden, f.shared_intermediate);
    b.matrix(TensorRole::ffn_down_shexp, f.shared_intermediate, hidden);
    if (f.shared_expert_gate) b.matrix(TensorRole::ffn_shexp_gate, hidden, 1);
  }
  if (f.parallel_dense_intermediate > 0) add_dense_ffn(b, f, hidden, f.parallel_dense_intermediate);
}

// One hyper-connection mixer (Qwen3.8: hc_{attn,ffn}_{norm,down,up,inject}, and
// without inject the final one): a norm over the hc_streams x hidden residual,
// a low-rank down and up projection of it, and the weights that inject the
// block's output into each stream.
void add_hyper_connection(TensorListBuilder& b, const Architecture& arch, TensorRole norm_role, bool inject) {
  const std::int64_t wide = arch.hc_streams * arch.hidden_size;
  b.vector(wide, norm_role);
  b.matrix(TensorRole::side_proj, wide, arch.hc_lowrank);
  b.matrix(TensorRole::side_proj, arch.hc_lowrank, wide);
  if (inject) b.matrix(TensorRole::side_proj, wide, arch.hc_streams);
}

void add_side_tensors(TensorListBuilder& b, const std::vector<SideTensor>& side) {
  for (const SideTensor& t : side) {
    switch (t.kind) {
      case SideKind::projection: b.matrix(TensorRole::side_proj, t.in, t.out); break;
      case SideKind::norm: b.vector(t.in * t.out); break;
      case SideKind::conv: b.matrix(TensorRole::ssm_conv1d, t.in, t.out); break;
    }
  }
}

}  // namespace

bool tensor_stays_f32(TensorRole role) {
  switch (role) {
    case TensorRole::norm:
    case TensorRole::output_norm:
    case TensorRole::attn_sinks:
    case TensorRole::ssm_conv1d:
    case TensorRole::ssm_small:
    case TensorRole::ffn_gate_inp:
    case TensorRole::ffn_shexp_gate:
    case TensorRole::ffn_expert_bias:
      return true;
    default:
      return false;
  }
}

std::vector<TensorInfo> list_tensors(const Architecture& arch) {
  std::vector<TensorInfo> out;
  out.reserve(arch.layers.size() * 24 + 4 + arch.lookup_tables.size());
  TensorListBuilder b(out);
  const std::int64_t hidden = arch.hidden_size;

  b.matrix(TensorRole::token_embd, hidden, arch.vocab_size);
  // Lookup tables sit with the token embedding (layer -1): like it, a token
  // reads only its rows, so no layer's per-step weight reads include them.
  for (const LookupTable& table : arch.lookup_tables) b.matrix(TensorRole::per_layer_embd, table.width, table.rows);
  const bool hyper = arch.hc_streams > 0 && arch.hc_lowrank > 0;
  for (std::size_t i = 0; i < arch.layers.size(); ++i) {
    const LayerSpec& layer = arch.layers[i];
    b.at_layer(static_cast<int>(i), layer.is_mtp);
    for (int n = 0; n < layer.n_hidden_norms; ++n) b.vector(hidden * (layer.norm_bias ? 2 : 1));
    if (hyper) {
      add_hyper_connection(b, arch, TensorRole::norm, true);  // before the token mixer
      add_hyper_connection(b, arch, TensorRole::norm, true);  // before the FFN
    }
    add_side_tensors(b, layer.side_tensors);
    const AttentionSpec& a = layer.attn;
    switch (a.kind) {
      case AttentionKind::full:
      case AttentionKind::sliding:
      case AttentionKind::chunked:
        if (a.mla) add_latent_attention(b, a, hidden);
        else add_standard_attention(b, a, hidden);
        break;
      case AttentionKind::linear: add_linear_attention(b, a, hidden); break;
      case AttentionKind::mamba2: add_mamba2(b, a, hidden); break;
      case AttentionKind::none: break;
    }
    switch (layer.ffn.kind) {
      case FfnKind::dense: add_dense_ffn(b, layer.ffn, hidden, layer.ffn.intermediate); break;
      case FfnKind::moe: add_moe_ffn(b, layer.ffn, hidden); break;
      case FfnKind::none: break;
    }
    if (layer.is_mtp) {
      // eh_proj joins the embedding and the previous hidden state; enorm, hnorm and
      // the shared head norm.
      b.matrix(TensorRole::attn_gate, 2 * hidden, hidden);
      for (int n = 0; n < 3; ++n) b.vector(hidden);
    }
  }
  b.at_layer(-1, false);
  if (hyper) add_hyper_connection(b, arch, TensorRole::output_norm, false);  // the final mixer is the output norm
  else b.vector(hidden, TensorRole::output_norm);
  if (!arch.tied_embeddings) b.matrix(TensorRole::output, hidden, arch.vocab_size);
  return out;
}

}  // namespace llmsizer
