// The shape of a model as the engine sees it: global sizes plus one LayerSpec per
// decoder layer. Every model (catalog entry, dropped config.json, GGUF header)
// is turned into this one structure; everything downstream reads only this.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/vision.hpp"

namespace llmsizer {

enum class AttentionKind {
  full,     // causal attention over the whole context
  sliding,  // keeps only the last window_tokens (Gemma 2/3, gpt-oss, Mistral v0.1)
  chunked,  // attends within chunks of window_tokens (Llama 4 local layers)
  linear,   // gated delta-net style linear attention: fixed state per sequence
  mamba2,   // Mamba2 SSM: fixed conv + ssm state per sequence
  none      // no token mixer in this layer (Nemotron-H MLP-only layers)
};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::full;
  std::int64_t n_heads = 0;
  std::int64_t n_kv_heads = 0;
  std::int64_t head_dim_k = 0;  // q and k width per head
  std::int64_t head_dim_v = 0;  // v width per head (differs in MLA, MiMo)
  std::int64_t window_tokens = 0;  // sliding / chunked layers only
  std::int64_t kv_compress_ratio = 0;  // DeepSeek V4: one cached entry per this many tokens
  std::int64_t o_lora_rank = 0;        // low-rank grouped output projection (DeepSeek V4)
  std::int64_t o_groups = 1;
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;
  bool sinks = false;        // per-head attention sink logits (gpt-oss)
  bool output_gate = false;  // q projection doubled for a sigmoid output gate (Qwen3-Next/3.5)
  bool k_eq_v = false;       // no v projection, K doubles as V (Gemma 4 full layers)
  bool fused_qkv = false;    // one attn_qkv tensor in GGUF (Falcon, Phi-3)

  // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, GLM-5).
  bool mla = false;
  std::int64_t q_lora_rank = 0;  // 0: q projected directly from hidden
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_dim = 0;
  std::int64_t qk_nope_dim = 0;

  // Sparse-attention indexer (DeepSeek V3.2 / GLM-5 DSA): small extra projections
  // and a per-token key cache of index_head_dim.
  std::int64_t index_n_heads = 0;
  std::int64_t index_head_dim = 0;
  // Qwen3.8's sparse attention (QSA) indexer: its q (index_n_heads x
  // index_head_dim) and one key of index_head_dim are projected from hidden,
  // each with an RMSNorm, and llama.cpp caches the raw keys cell for cell
  // (DSA's indexer reads q from the q latent and is cached by vLLM/SGLang only).
  bool qsa_indexer = false;

  // Linear attention (gated delta net) sizes.
  std::int64_t linear_k_heads = 0;
  std::int64_t linear_v_heads = 0;
  std::int64_t linear_k_dim = 0;
  std::int64_t linear_v_dim = 0;
  std::int64_t conv_kernel = 0;  // shared with mamba2
  // Further state a sequence carries through this layer, in F32 elements
  // (Qwen3.8's PLE conv history, 9 x 10240, kept beside its PLE layer's state).
  std::int64_t carried_f32_elements = 0;

  // Mamba2 sizes.
  std::int64_t ssm_heads = 0;
  std::int64_t ssm_head_dim = 0;
  std::int64_t ssm_state = 0;
  std::int64_t ssm_groups = 0;
};

enum class FfnKind { dense, moe, none };

struct FfnSpec {
  FfnKind kind = FfnKind::dense;
  bool gated = true;  // gate+up+down (SwiGLU/GeGLU) vs up+down (relu2, gelu)
  bool bias = false;
  std::int64_t intermediate = 0;  // dense layers

  std::int64_t n_experts = 0;
  std::int64_t n_experts_used = 0;
  std::int64_t expert_intermediate = 0;
  std::int64_t n_shared_experts = 0;
  std::int64_t shared_intermediate = 0;  // total width of the shared experts
  bool router_bias = false;         // e_score_correction_bias or router bias
  bool shared_expert_gate = false;  // Qwen2-MoE / Qwen3-Next sigmoid gate on the shared expert
  bool expert_bias = false;         // biases on each expert's projections (gpt-oss)
  std::int64_t parallel_dense_intermediate = 0;  // dense MLP beside the experts (Gemma 4 MoE)
  std::int64_t expert_latent = 0;  // latent MoE: experts work in this width, with shared
                                   // hidden<->latent projections (Nemotron 3, Kimi K3)
};

// A weight one layer has beside its token mixer and FFN (Qwen3.8's PLE block,
// DeepSeek V4.1's Engram projections): in -> out features, read for every token.
enum class SideKind { projection, norm, conv };
struct SideTensor {
  SideKind kind = SideKind::projection;
  std::int64_t in = 0;
  std::int64_t out = 1;
};

struct LayerSpec {
  AttentionSpec attn;
  FfnSpec ffn;
  int n_hidden_norms = 2;  // RMS/LayerNorm vectors of width hidden in this layer
  bool norm_bias = false;  // LayerNorm with bias (Falcon, Cohere)
  bool is_mtp = false;     // multi-token-prediction layer: in the checkpoint, not run by default
  std::vector<SideTensor> side_tensors;
};

// A hashed n-gram embedding table (Qwen3.8's PLE n-gram table, DeepSeek V4.1's
// Engram): rows x width weights in memory, of which a token looks up a few
// dozen rows; nothing is multiplied by the table itself.
struct LookupTable {
  int layer = -1;  // the decoder layer that reads it
  std::int64_t rows = 0;
  std::int64_t width = 0;
};

// How the tensors are stored in the original checkpoint.
enum class NativeFormat {
  bf16,
  fp16,
  fp32,
  fp8_block,      // e4m3 weights, one fp32 scale per 128x128 block
  mxfp4_experts,  // gpt-oss: routed experts MXFP4, the rest bf16
  nvfp4,          // NVIDIA FP4: 16-element blocks with fp8 scales
  fp4_experts_fp8,// DeepSeek V4: routed experts FP4, the rest FP8 block
  int4,           // W4A16 (AWQ, GPTQ, compressed-tensors): every linear layer but the head INT4, scaled per group
  int4_experts    // the same for the routed experts only, the rest bf16 (Kimi K2 Thinking, K2.5)
};

// RoPE scaling a model's publisher documents past its config's maximum
// context: YaRN by `factor` over the tokens it was pretrained on (Qwen3: 4 x
// 32,768 = 131,072). The catalog sources it; the launch commands apply it.
struct ContextExtension {
  double factor = 1.0;
  std::int64_t original_context_tokens = 0;
  std::int64_t max_context_tokens = 0;
  double rope_theta = 0.0;
};

struct Architecture {
  std::string model_type;
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  bool tied_embeddings = false;
  std::vector<LayerSpec> layers;  // decoder layers, then MTP layers (is_mtp)
  std::int64_t max_context_tokens = 0;
  std::optional<ContextExtension> context_extension;  // YaRN past max_context_tokens (catalog)
  NativeFormat native_format = NativeFormat::bf16;
  // INT4 formats: bits per quantized weight, its group's scale (and zero point) included.
  double native_int4_bits = 0.0;
  // Block-scaled FP8 (quantization_config.weight_block_size): the block's width, 0 otherwise.
  std::int64_t fp8_weight_block = 0;
  bool mtp_in_gguf = false;  // llama.cpp's converter keeps MTP tensors (GLM-4.5) or drops them
  bool falcon_style = false; // llama.cpp's quantizer treats Falcon specially
  std::int64_t extra_params = 0;  // parameters outside the layer model (e.g. per-layer embeddings)
  std::vector<LookupTable> lookup_tables;
  // Hyper-connections as Qwen3.8 has them: the residual is hc_streams copies of
  // hidden, mixed down to hc_lowrank and back before each attention and FFN
  // block, and by a final mixer that stands in for the output norm.
  std::int64_t hc_streams = 0;
  std::int64_t hc_lowrank = 0;
  std::vector<std::string> warnings;
  // The config's vision section, when it has one that can be sized; a section
  // that cannot (a field missing, a tower not modelled) leaves vision empty and
  // says why in vision_error. Neither: the model has no vision encoder.
  std::optional<VisionEncoder> vision;
  std::string vision_error;

  int decoder_layer_count() const {
    int n = 0;
    for (const auto& layer : layers) n += layer.is_mtp ? 0 : 1;
    return n;
  }
  bool is_moe() const {
    for (const auto& layer : layers)
      if (layer.ffn.kind == FfnKind::moe) return true;
    return false;
  }
  // A hybrid model: layers whose token mixer is recurrent (Gated DeltaNet or
  // Kimi's linear attention, Mamba2) beside attention layers.
  bool is_hybrid() const {
    for (const auto& layer : layers)
      if (layer.attn.kind == AttentionKind::linear || layer.attn.kind == AttentionKind::mamba2) return true;
    return false;
  }
  std::int64_t max_experts() const {
    std::int64_t n = 0;
    for (const auto& layer : layers) n = layer.ffn.n_experts > n ? layer.ffn.n_experts : n;
    return n;
  }
};

}  // namespace llmsizer
