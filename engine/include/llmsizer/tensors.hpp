// The tensor list of a model, named by role the way llama.cpp's GGUF names them,
// so that the quantizer's per-tensor rules (quantization.hpp) can be replayed.
#pragma once
#include <cstdint>
#include <vector>

#include "llmsizer/architecture.hpp"

namespace llmsizer {

enum class TensorRole {
  token_embd,
  output,
  output_norm,
  per_layer_embd,  // extra embedding tables looked up per token, kept like token_embd (Gemma 3n's
                   // per-layer embeddings, Qwen3.8's n-gram table, DeepSeek V4.1's Engram): a token
                   // reads a few rows, so they are neither active parameters nor read per step
  norm,            // any *_norm.weight or bias vector: stays F32
  attn_q,
  attn_k,
  attn_v,
  attn_qkv,  // fused qkv (Falcon, Phi-3)
  attn_output,
  attn_q_a,   // MLA
  attn_q_b,
  attn_kv_a,
  attn_kv_b,
  attn_sinks,
  attn_gate,  // output gate / misc small projections quantized with the default type
  indexer,    // DSA indexer projections
  linear_qkvz,  // linear-attention in/out projections (ssm-like)
  linear_out,
  ssm_in,
  ssm_out,
  ssm_conv1d,  // small 2D conv weights: never quantized
  ssm_small,   // A, D, dt bias: F32 vectors
  ffn_gate,
  ffn_up,
  ffn_down,
  ffn_gate_inp,  // router: never quantized
  ffn_gate_exps,
  ffn_up_exps,
  ffn_down_exps,
  ffn_gate_shexp,
  ffn_up_shexp,
  ffn_down_shexp,
  ffn_shexp_gate,  // shared-expert sigmoid gate vector: kept like the router
  ffn_expert_bias, // per-expert bias vectors (gpt-oss): F32
  // Projections beside the token mixer and the FFN (hyper-connection mixers, the
  // PLE and Engram key/value projections): read for every token and quantized
  // with the default type. Their own role, not attn_gate, because they are not
  // the token mixer that attention data parallel keeps whole on every GPU.
  side_proj,
};

struct TensorInfo {
  TensorRole role;
  int layer;                 // -1 for global tensors
  std::int64_t row_elements; // ne[0]: the input width, what block sizes must divide
  std::int64_t rows;         // ne[1] * ne[2] (all experts together)
  std::int64_t n_experts;    // ne[2] for stacked expert tensors, else 1
  bool is_mtp;               // belongs to a multi-token-prediction layer

  std::int64_t elements() const { return row_elements * rows; }
  bool is_routed_expert() const {
    return role == TensorRole::ffn_gate_exps || role == TensorRole::ffn_up_exps ||
           role == TensorRole::ffn_down_exps;
  }
  // The token mixer's projections (attention, linear attention, SSM, the DSA
  // indexer): what attention data parallel keeps whole on every GPU.
  bool is_mixer() const {
    switch (role) {
      case TensorRole::attn_q: case TensorRole::attn_k: case TensorRole::attn_v: case TensorRole::attn_qkv:
      case TensorRole::attn_output: case TensorRole::attn_q_a: case TensorRole::attn_q_b: case TensorRole::attn_kv_a:
      case TensorRole::attn_kv_b: case TensorRole::attn_sinks: case TensorRole::attn_gate: case TensorRole::indexer:
      case TensorRole::linear_qkvz: case TensorRole::linear_out: case TensorRole::ssm_in: case TensorRole::ssm_out:
      case TensorRole::ssm_conv1d: case TensorRole::ssm_small:
        return true;
      default:
        return false;
    }
  }
  // Kept whole on every tensor-parallel GPU by vLLM and SGLang: MLA's low-rank
  // down-projections (q_a, kv_a: 'disable_tp=True' / ReplicatedLinear in vLLM's
  // deepseek_v2.py), the sparse-attention indexer ('no tensor parallel, just
  // replicated') and the MoE router. Each GPU stores and reads them in full.
  bool is_tp_replicated() const {
    return role == TensorRole::attn_q_a || role == TensorRole::attn_kv_a || role == TensorRole::indexer ||
           role == TensorRole::ffn_gate_inp;
  }
  // Weights of which a token reads only the experts routed to.
  bool is_per_expert() const { return is_routed_expert() || role == TensorRole::ffn_expert_bias; }
};

// Every weight tensor of the model, in layer order, MTP layers last.
std::vector<TensorInfo> list_tensors(const Architecture& arch);

// True for tensors that llama-quantize never quantizes (1D vectors, routers,
// conv weights): they keep the converter's F32.
bool tensor_stays_f32(TensorRole role);

}  // namespace llmsizer
