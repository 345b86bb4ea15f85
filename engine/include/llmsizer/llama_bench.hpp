// llama-bench results as people paste them: the markdown table it prints by
// default, or its `-o json` / `-o jsonl` records. Text in, rows out; every
// error names the line (or JSON record) at fault. No I/O: the CLI reads the
// file, the page the text area.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer {

// One test of one model, with llama-bench's defaults where the markdown table
// leaves a column out (it prints only the parameters that differ from them).
struct BenchRow {
  std::string where;         // "line 7" (markdown, JSONL) or "record 3" (a JSON array)
  std::string model_type;    // llama_model_desc: "llama 8B Q4_K - Medium", "qwen3moe 30B.A3B Q4_K - Medium"
  std::int64_t model_size_bytes = 0;  // the tensors' bytes; the table rounds it to 0.01 GiB (or MiB)
  std::int64_t model_params = 0;      // the table rounds it to 0.01 B (or M)
  std::string backends;      // "CUDA", "Metal,BLAS", "Vulkan", "CPU", ...
  int n_gpu_layers = 99;
  int n_cpu_moe = 0;
  int n_batch = 2048;
  int n_ubatch = 512;
  int flash_attn = -1;       // -1: auto (current builds' default), 0 off, 1 on
  std::string type_k = "f16";
  std::string type_v = "f16";
  bool no_kv_offload = false;  // nkvo 1: the KV cache stayed in system RAM
  std::string tensor_split;  // "" when not set
  std::string split_mode = "layer";
  int n_prompt = 0;          // tokens of the prompt test (pp), 0 for tg
  int n_gen = 0;             // tokens generated (tg), 0 for pp
  int n_depth = 0;           // tokens already in the cache when the test starts
  double tokens_per_s = 0.0; // mean over the repetitions
  std::string gpu_info;      // JSON only: "NVIDIA GeForce RTX 4090"
  std::string cpu_info;
  std::string build;         // "8e672efe (1616)" or the JSON's build_commit
  std::string test_name() const;  // "pp512", "tg128", "pp512+tg128", "tg128 @ d4096"
};

struct BenchResults {
  std::vector<BenchRow> rows;
  // GPUs the text names beside the table (ggml_cuda_init's "Device 0: NVIDIA
  // GeForce RTX 4090, ...", ggml_vulkan's "0 = AMD Radeon RX 7900 XTX (...)",
  // Metal's "GPU name: Apple M2 Ultra"), one per device, in order.
  std::vector<std::string> devices_named;
  // Each one's index in its start-up list ("Device 1", "1 = ..."), -1 where
  // the line gives none: a list starts again at 0 for each run pasted.
  std::vector<int> device_indices;
};

// Rows of the text, at most kMaxBenchRows; the text at most kMaxBenchTextBytes.
// Error ids: "bench.empty" (no table or records), "bench.bad_row" (the message
// names the line), "bench.too_large".
inline constexpr std::size_t kMaxBenchTextBytes = std::size_t{4} << 20;
inline constexpr std::size_t kMaxBenchRows = 1000;
Result<BenchResults> parse_llama_bench(std::string_view text);

// llama.cpp's file-type name at the end of model_type ("Q4_K - Medium",
// "IQ3_S mix - 3.66 bpw", "MXFP4 MoE") as the quantization's name here
// ("Q4_K_M", "IQ3_M", "MXFP4_MOE"); "" when it names none.
std::string quant_name_from_model_type(std::string_view model_type);
// The architecture at the start of model_type ("qwen3moe").
std::string arch_from_model_type(std::string_view model_type);
// llama.cpp's file-type name alone ("Q4_K - Medium") as the quantization's name.
std::string quant_name_from_file_type(std::string_view file_type);

// The GPU a line of a backend's start-up log names (ggml_cuda_init's "Device 0:
// NVIDIA GeForce RTX 4090, ...", ggml_vulkan's "0 = AMD Radeon RX 7900 XTX
// (...) | ...", Metal's "GPU name: Apple M2 Ultra"), or "".
std::string gpu_named_in_line(std::string_view line);
// That GPU's index in the backend's list (the 1 of "Device 1:" or "1 = "), -1 where the line gives none.
int gpu_index_in_line(std::string_view line);

}  // namespace llmsizer
