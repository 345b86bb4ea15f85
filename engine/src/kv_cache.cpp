#include "llmsizer/kv_cache.hpp"

#include <algorithm>
#include <array>

namespace llmsizer {
namespace {

std::int64_t pad_to(std::int64_t n, std::int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// Recurrent state per sequence. llama.cpp keeps both states in F32; vLLM and
// SGLang keep the conv state in the model dtype and the SSM state in F32
// (mamba_ssm_cache_dtype float32 in Nemotron/Qwen3.5 configs).
std::int64_t state_bytes_per_sequence(const AttentionSpec& a, InferenceEngine engine) {
  const std::int64_t conv_elem = engine_is_llama_cpp_based(engine) ? 4 : 2;
  const std::int64_t kernel_history = std::max<std::int64_t>(0, a.conv_kernel - 1);
  if (a.kind == AttentionKind::mamba2) {
    const std::int64_t d_inner = a.ssm_heads * a.ssm_head_dim;
    const std::int64_t conv = kernel_history * (d_inner + 2 * a.ssm_groups * a.ssm_state);
    const std::int64_t ssm = d_inner * a.ssm_state;
    return conv * conv_elem + ssm * 4;
  }
  if (a.kind == AttentionKind::linear) {
    const std::int64_t key_dim = a.linear_k_heads * a.linear_k_dim;
    const std::int64_t value_dim = a.linear_v_heads * a.linear_v_dim;
    const std::int64_t conv = kernel_history * (2 * key_dim + value_dim);
    const std::int64_t ssm = a.linear_v_heads * a.linear_k_dim * a.linear_v_dim;
    return conv * conv_elem + ssm * 4 + a.carried_f32_elements * 4;
  }
  return 0;
}

}  // namespace

// ggml block sizes: q8_0 34 bytes / 32, q4_0 18/32, q4_1 20/32, q5_0 22/32,
// q5_1 24/32. Indexed by KvType.
constexpr std::array<KvElementSize, kKvTypeCount> kElementSizes{{
    {2, 1}, {2, 1}, {1, 1}, {34, 32}, {18, 32}, {20, 32}, {22, 32}, {24, 32}}};

KvElementSize kv_element_size(KvType type) {
  const auto i = static_cast<std::size_t>(type);
  return i < kElementSizes.size() ? kElementSizes[i] : KvElementSize{2, 1};
}

KvBreakdown compute_kv_cache(const Architecture& arch, const KvRequest& request) {
  KvBreakdown kv;
  const std::int64_t ctx = std::max<std::int64_t>(1, request.context_tokens);
  const std::int64_t seqs = std::max<std::int64_t>(1, request.sequences);
  const KvElementSize elem = kv_element_size(request.type);
  const bool llama = engine_is_llama_cpp_based(request.engine);

  // Token slots of a full-attention layer. llama.cpp: one unified cache of
  // n_ctx = ctx * slots cells, padded to 256. Paged engines (vLLM, SGLang,
  // TensorRT-LLM) hold each sequence in 16-token blocks. MLX grows its cache in
  // steps of 256 tokens.
  std::int64_t full_cells = 0;
  if (llama) full_cells = pad_to(ctx * seqs, 256);
  else if (request.engine == InferenceEngine::mlx) full_cells = pad_to(ctx, 256) * seqs;
  else full_cells = pad_to(ctx, 16) * seqs;
  kv.cells = full_cells;

  kv.layer_bytes.assign(arch.layers.size(), 0);
  std::int64_t last_entries = -1;
  std::int64_t last_bytes = 0;
  std::array<std::int64_t, kKvTypeCount> last_bytes_as{};
  for (std::size_t i = 0; i < arch.layers.size(); ++i) {
    const LayerSpec& layer = arch.layers[i];
    if (layer.is_mtp) continue;  // MTP layers are not run unless speculative decoding is on
    const AttentionSpec& a = layer.attn;
    std::int64_t bytes = 0;
    switch (a.kind) {
      case AttentionKind::linear:
      case AttentionKind::mamba2:
        bytes = state_bytes_per_sequence(a, request.engine) * seqs;
        kv.state_bytes += bytes;
        for (std::int64_t& total : kv.total_bytes_as) total += bytes;
        break;
      case AttentionKind::none: break;
      case AttentionKind::full:
      case AttentionKind::sliding:
      case AttentionKind::chunked: {
        // Elements per token: MLA keeps the compressed latent plus the rope key
        // (V is read from the same latent); GQA keeps K and V per KV head.
        std::int64_t elements = 0;
        if (a.mla) elements = a.kv_lora_rank + a.qk_rope_dim;
        else elements = a.n_kv_heads * (a.head_dim_k + (a.k_eq_v ? 0 : a.head_dim_v));
        std::int64_t cells = full_cells;
        if (a.kv_compress_ratio > 0) {
          // One entry per kv_compress_ratio tokens, plus the uncompressed recent window.
          const std::int64_t compressed = (ctx + a.kv_compress_ratio - 1) / a.kv_compress_ratio;
          cells = std::min(full_cells, (compressed + a.window_tokens) * seqs);
        }
        const bool windowed = a.kind != AttentionKind::full && a.window_tokens > 0;
        if (windowed && !(llama && request.swa_full)) {
          if (llama) {
            // llama_kv_cache_iswa: min(n_ctx, pad(n_swa * n_seq + n_ubatch, 256))
            // in one unified stream, else pad(n_swa + n_ubatch, 256) for each
            // sequence's stream (gpt-oss-20b, -np 8, -ub 256: "SWA KV cache,
            // size = 512 cells ... 8/8 seqs", 96 MiB).
            cells = std::min(full_cells, request.unified ? pad_to(a.window_tokens * seqs + request.ubatch_tokens, 256)
                                                         : pad_to(a.window_tokens + request.ubatch_tokens, 256) * seqs);
            if (cells < full_cells) kv.swa_cells = std::max(kv.swa_cells, cells);
          } else {
            cells = std::min(full_cells, pad_to(std::min(ctx, a.window_tokens + 16), 16) * seqs);
          }
        }
        // Each layer rounds on its own (as each is its own tensor); layers
        // alike (most models: all of them) reuse the previous layer's sizes
        // instead of dividing again for every KV type.
        const std::int64_t entries = elements * cells;
        if (entries != last_entries) {
          last_entries = entries;
          last_bytes = entries * elem.num / elem.den;
          for (std::size_t t = 0; t < kKvTypeCount; ++t)
            last_bytes_as[t] = entries * kElementSizes[t].num / kElementSizes[t].den;
        }
        bytes = last_bytes;
        for (std::size_t t = 0; t < kKvTypeCount; ++t) kv.total_bytes_as[t] += last_bytes_as[t];
        kv.attention_bytes += bytes;
        if (a.kind == AttentionKind::full) kv.bytes_per_token += elements * elem.num / elem.den;
        // DSA indexer keys (DeepSeek V3.2, GLM-5): fp8 plus an fp32 scale per token
        // in vLLM and SGLang, which run the sparse attention.
        if (a.index_head_dim > 0 && !llama) {
          const std::int64_t index_bytes = (a.index_head_dim + 4) * cells;
          bytes += index_bytes;
          kv.attention_bytes += index_bytes;
          for (std::int64_t& total : kv.total_bytes_as) total += index_bytes;
        } else if (a.qsa_indexer && llama) {
          // llama.cpp's qwen4exp keeps the raw indexer keys (index_head_dim per
          // token), its indexer cache tracking the attention cache cell for cell;
          // counted in the cache's type (f16: quantized KV aborts on qwen4exp).
          const std::int64_t index_entries = a.index_head_dim * cells;
          bytes += index_entries * elem.num / elem.den;
          kv.attention_bytes += index_entries * elem.num / elem.den;
          for (std::size_t t = 0; t < kKvTypeCount; ++t)
            kv.total_bytes_as[t] += index_entries * kElementSizes[t].num / kElementSizes[t].den;
        }
        break;
      }
    }
    kv.layer_bytes[i] = bytes;
    kv.total_bytes += bytes;
  }
  return kv;
}

std::int64_t kv_bytes_as(const KvBreakdown& kv, KvType type) {
  return kv.total_bytes_as[static_cast<std::size_t>(type)];
}

}  // namespace llmsizer
