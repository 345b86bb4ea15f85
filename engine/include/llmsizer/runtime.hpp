// Engine buffers beside weights and KV: compute/activation buffers, CUDA graphs,
// non-torch allocations. Each term comes from its inputs, not an overhead %.
#pragma once
#include <cstdint>

#include "llmsizer/architecture.hpp"
#include "llmsizer/kv_cache.hpp"

namespace llmsizer {

struct RuntimeRequest {
  InferenceEngine engine = InferenceEngine::llama_cpp;
  bool flash_attention = true;      // llama.cpp -fa (auto picks it on supported GPUs)
  std::int64_t kv_cells = 0;        // full-attention cells held (from the KV breakdown)
  std::int64_t swa_cells = 0;       // sliding-window cells where llama.cpp keeps a smaller cache (a mask of their own)
  std::int64_t kv_streams = 1;      // llama.cpp's cache streams (one per sequence unless unified): each
                                    // stream's tokens see only its own cells in the mask and KQ scores
  std::int64_t ubatch_tokens = 512;
  KvType kv_type = KvType::f16;
  int tensor_parallel = 1;
  bool gpu_link = false;            // the GPUs are joined by NVLink / Infinity Fabric (NCCL's buffers there)
  bool holds_output = true;         // this device computes the logits (last in a layer split)
  // llama.cpp: the logits rows its worst-case graph reserves. llama-server
  // reserves one per sequence since ggml-org/llama.cpp#23861 (merged
  // 2026-05-29); earlier builds, and 0 here, one per token of the micro-batch.
  std::int64_t output_rows = 0;
  // llama.cpp: the largest weight tensor kept in system RAM (routed experts
  // with -ot/--n-cpu-moe), which the GPU backend copies into its compute
  // buffer to run a prompt's matrix product there (op offload, batches of 32+).
  std::int64_t ram_tensor_bytes = 0;
  std::int64_t max_batched_tokens = 8192;  // vLLM --max-num-batched-tokens default (V1)
};

// vLLM's (and the other serving engines') memory outside PyTorch on each GPU:
// NCCL's buffers and the like, larger on NVLinked GPUs (runtime.cpp).
std::int64_t serving_non_torch_bytes(int tensor_parallel, bool gpu_link);

struct RuntimeBreakdown {
  std::int64_t compute_bytes = 0;     // llama.cpp compute buffer / vLLM activation peak
  std::int64_t host_compute_bytes = 0;  // llama.cpp's host compute buffer (CUDA_Host, ROCm_Host, CPU
                                        // beside Metal): in system RAM, not on the device
  std::int64_t non_torch_bytes = 0;   // vLLM/SGLang: NCCL and allocator overhead outside torch
  std::int64_t cuda_graph_bytes = 0;  // captured CUDA graphs
  std::int64_t total_bytes = 0;       // charged to the device: compute + non-torch
                                      // (CUDA graphs live above the utilization fraction)
};

RuntimeBreakdown compute_runtime(const Architecture& arch, const RuntimeRequest& request);

}  // namespace llmsizer
