// The lines llama.cpp prints when it loads a model (llama-server, llama-cli,
// llama-bench -v): its settings, the model it read, and the buffers it
// allocated on each device, read from pasted text in any of the formats
// llama.cpp has printed since 2023 (llm_load_tensors / load_tensors,
// llama_kv_cache_init / llama_kv_cache_unified / llama_kv_cache, KV self size,
// llama_new_context_with_model / llama_context, llama_memory_breakdown_print).
// No I/O: text in.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer {

// One buffer as the log states it, in bytes (the log's MiB with 2 decimals).
struct LogBuffer {
  std::string device;  // "CUDA0", "ROCm1", "Metal", "Vulkan0", "CPU", "CPU_Mapped", "CUDA_Host", "Host"
  std::string kind;    // "model", "kv", "compute"
  std::int64_t bytes = 0;
  std::string where;   // "line 83"
};

struct LoadLog {
  std::vector<LogBuffer> buffers;
  // "KV self size" / "llama_kv_cache: size": summed over the caches a model
  // has (sliding-window layers get one of their own, llama_kv_cache_iswa).
  std::optional<std::int64_t> kv_total_bytes;
  std::optional<std::int64_t> n_ctx;
  std::optional<std::int64_t> n_seq_max;
  std::optional<std::int64_t> n_batch;
  std::optional<std::int64_t> n_ubatch;
  std::optional<int> flash_attn;               // 0 off, 1 on ("enabled"/"auto" read as 1)
  std::optional<bool> kv_unified;              // "kv_unified = true": one cache stream for all sequences
  std::optional<int> build_number;             // "build: 7342 (2fbe3b7bb)": what the buffers were sized by
  std::string type_k;                          // "f16", "q8_0", ... ("" when not stated)
  std::string type_v;
  // From a command line in the text, where the log's own lines leave them out:
  // the layers whose experts an -ot override keeps on the CPU
  // ("blk\.14\.ffn_(up|down|gate)_exps=CPU"), and -c / --ctx-size.
  std::optional<int> expert_layers_on_cpu;
  std::optional<std::int64_t> command_ctx;
  std::optional<int> offloaded_layers;         // "offloaded 33/33 layers to GPU"
  std::optional<int> offloadable_layers;
  std::string file_type;                       // "Q4_K - Medium"
  std::string arch;                            // "llama"
  std::int64_t model_params = 0;               // "model params = 8.03 B"
  std::vector<std::string> devices_named;      // as in llama_bench.hpp
  // llama_memory_breakdown_print's per-device rows (model, context, compute),
  // which replace the buffers where a log has only them.
  bool from_breakdown = false;
};

// Error ids: "log.empty" (no buffer line found), "log.too_large".
inline constexpr std::size_t kMaxLogTextBytes = std::size_t{8} << 20;
Result<LoadLog> parse_load_log(std::string_view text);

}  // namespace llmsizer
