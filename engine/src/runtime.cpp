#include "llmsizer/runtime.hpp"

#include <algorithm>

#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

struct WidestLayer {
  std::int64_t ffn = 0;        // widest MLP activation (dense, or routed x used + shared)
  std::int64_t heads = 0;      // most query heads
  std::int64_t kv_elements = 0;  // widest K+V row per token
};

WidestLayer widest_layer(const Architecture& arch) {
  WidestLayer w;
  for (const LayerSpec& layer : arch.layers) {
    const FfnSpec& f = layer.ffn;
    const std::int64_t ffn = f.kind == FfnKind::moe
                                 ? f.expert_intermediate * f.n_experts_used + f.shared_intermediate
                                 : f.intermediate;
    w.ffn = std::max(w.ffn, ffn);
    w.heads = std::max(w.heads, layer.attn.n_heads);
    const AttentionSpec& a = layer.attn;
    const std::int64_t kv = a.mla ? a.kv_lora_rank + a.qk_rope_dim : a.n_kv_heads * (a.head_dim_k + a.head_dim_v);
    w.kv_elements = std::max(w.kv_elements, kv);
  }
  return w;
}

}  // namespace

std::int64_t serving_non_torch_bytes(int tensor_parallel, bool gpu_link) {
  // Non-torch memory in vLLM's log for Meta-Llama-3-8B on NVLinked H100s:
  // 1.79 GiB at TP=1, 3.58 GiB per GPU at TP=2 (NCCL buffers;
  // vllm-project/vllm#10511). Cards on PCIe log a fraction of it: two RTX
  // 4090s at TP=2, "non_torch_memory takes 0.25GiB" (vllm-project/vllm#13061);
  // 24 GB cards, 0.20GiB (vllm-project/vllm#14447). 3.58 GiB there had Llama
  // 3.3 70B AWQ on two 24 GB cards not fitting, a setup people run.
  const std::int64_t nvlink_tp1 = static_cast<std::int64_t>(1.79 * static_cast<double>(kGiB));
  if (!gpu_link) return static_cast<std::int64_t>(0.25 * static_cast<double>(kGiB));
  return tensor_parallel > 1 ? 2 * nvlink_tp1 : nvlink_tp1;
}

RuntimeBreakdown compute_runtime(const Architecture& arch, const RuntimeRequest& r) {
  RuntimeBreakdown out;
  const WidestLayer w = widest_layer(arch);
  const std::int64_t hidden = arch.hidden_size;
  switch (r.engine) {
    case InferenceEngine::llama_cpp:
    case InferenceEngine::ollama: {
      // llama.cpp compute buffer, f32 activations for one ubatch: the logits
      // (vocab x ubatch, on the device that holds the output), the widest MLP
      // and hidden rows; without flash attention the KQ score matrix
      // (ubatch x n_ctx x heads). Check: Llama-3.1-8B, n_ctx 131072, FA off:
      // 512*(131072*32 + 128256 + 14336 + 4096)*4 B = 8478.5 MiB vs 8480.01 logged.
      std::int64_t per_token = (w.ffn + hidden) * 4;
      std::int64_t logits = r.holds_output ? arch.vocab_size * 4 * r.ubatch_tokens : 0;
      if (r.output_rows > 0) {
        // One logits row per sequence (llama.cpp#23861): the MLP's gate, up
        // and product rows then set the peak. Check: gpt-oss-20b, -ub 256,
        // 8 sequences (build 10644): 256 x (3 x 11520 + 2880) x 4 B = 36.6 MiB
        // + 8 logits rows 6.1 MiB, beside 35.2 MiB logged less the copied
        // expert tensor.
        per_token = (3 * w.ffn + hidden) * 4;
        logits = r.holds_output ? arch.vocab_size * 4 * std::min(r.output_rows, r.ubatch_tokens) : 0;
      }
      // A token attends to its own stream's cells: kv_cells / streams.
      const std::int64_t streams = std::max<std::int64_t>(1, r.kv_streams);
      if (!r.flash_attention) per_token += r.kv_cells / streams * w.heads * 4;
      out.compute_bytes = r.ubatch_tokens * per_token + logits;
      // Op offload: a prompt's product with a weight kept in RAM runs on the
      // GPU from a copy in this buffer (ggml's offload_op, batches of 32 tokens
      // and more). gpt-oss-20b MXFP4 with --n-cpu-moe 20: one 2880 x 2880 x 32
      // expert tensor, 134.5 MiB, of the 169.67 MiB logged.
      if (r.ubatch_tokens >= 32) out.compute_bytes += r.ram_tensor_bytes;
      // The host compute buffer: the graph's inputs that stay in host memory
      // with the token embedding, one ubatch of embedded rows (f32) and the
      // KQ mask (f32, a row of all cells per token). Every load log we keep
      // prints it as ubatch x (hidden + n_ctx) x 4 B + 0.01 MiB: Qwen3-14B,
      // n_ctx 2048: 512 x (5120 + 2048) x 4 = 14.0 MiB (14.01 logged, ROCm);
      // Qwen3-Coder-30B-A3B, 65536: 512 x (2048 + 65536) x 4 = 132.0 (132.01,
      // CUDA); GLM-Z1-32B, 32768: 76.0 (76.01); Qwen3-30B-A3B, 4096: 12.0 (12).
      // A sliding-window cache has a mask of its own: gpt-oss-20b, n_ctx
      // 131072, -ub 2048: 2048 x (2880 + 131072 + 2304 window cells) x 4 B =
      // 1064.4 MiB (1064.59 logged, Metal).
      out.host_compute_bytes = r.ubatch_tokens * hidden * 4 + r.ubatch_tokens * (r.kv_cells + r.swa_cells) / streams * 4;
      // Flash attention on a quantized cache needs an F16 copy of one layer's K
      // view. Fitted on the one log we have: Mistral-Small-22B, 49152 ctx, q8_0:
      // 192 MiB logged; logits 64 + MLP 44 + K copy 96 gives 204 MiB.
      if (r.flash_attention && r.kv_type != KvType::f16 && r.kv_type != KvType::bf16)
        out.compute_bytes += r.kv_cells * (w.kv_elements / 2) * 2;
      break;
    }
    case InferenceEngine::vllm:
    case InferenceEngine::sglang:
    case InferenceEngine::tensorrt_llm: {
      // Activation peak of a profiling run of max_num_batched_tokens in bf16,
      // split by tensor parallel. Fitted on vLLM's log for Meta-Llama-3-8B on an
      // H100 (1.26 GiB): 8192 x (4 x 14336 + 6 x 4096) x 2 B = 1.25 GiB.
      const int tp = std::max(1, r.tensor_parallel);
      out.compute_bytes = r.max_batched_tokens * (4 * w.ffn + 6 * hidden) * 2 / tp;
      out.non_torch_bytes = serving_non_torch_bytes(tp, r.gpu_link);
      // CUDA graphs: logged between 0.11 and 1.10 GiB. vLLM captures them after
      // sizing the KV pool, out of the memory left above the utilization
      // fraction, so they are reported but not charged against the pool.
      out.cuda_graph_bytes = static_cast<std::int64_t>(1.10 * static_cast<double>(kGiB));
      break;
    }
    case InferenceEngine::mlx: {
      // MLX evaluates lazily: one prefill chunk (512 tokens by default in
      // mlx-lm) of logits and MLP activations in float16.
      out.compute_bytes = 512 * (arch.vocab_size + w.ffn + hidden) * 2;
      break;
    }
  }
  out.total_bytes = out.compute_bytes + out.non_torch_bytes;
  return out;
}

}  // namespace llmsizer
