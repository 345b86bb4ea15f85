// Command-line parsing for llm-sizer: argv in, a Command or an Error out.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer::cli {

enum class Verb { estimate, params, list, help, recommend, fit, finetune, command, serve, calibrate, check_log };

struct Command {
  Verb verb = Verb::help;
  bool json = false;
  // Model source: exactly one of these.
  std::optional<std::string> model_id;
  std::optional<std::string> config_path;
  std::optional<std::string> gguf_path;
  std::vector<std::string> gguf_more_paths;     // further parts of a split set
  std::optional<std::string> safetensors_path;  // a .safetensors file or model.safetensors.index.json
  std::optional<std::string> hf_name;           // a Hub repo: owner/repo[:QUANT] or a huggingface.co link
  std::optional<std::string> hub_url;           // a Hub mirror (default https://huggingface.co)
  std::optional<std::string> list_what;  // models|gpus|ram|quants|engines
  std::optional<std::string> quant;
  std::optional<long long> ctx;
  std::optional<long long> batch;
  std::optional<std::string> kv_type;
  std::optional<std::string> engine;
  std::optional<std::string> gpu_id;  // one id, or "a,b,c": --gpu given once per card (mixed cards)
  std::optional<double> gpu_memory_gib;
  std::optional<double> gpu_bandwidth_gbs;
  std::optional<double> gpu_tflops;
  std::optional<std::string> gpu_vendor;
  std::optional<long long> gpu_dies;  // custom device: dies its memory is attached to (Apple Ultra: 2)
  std::optional<long long> gpus;
  std::optional<long long> copies;  // command: copies side by side (Scenario::copies)
  std::optional<double> offload;
  std::optional<std::string> offload_mode;
  std::optional<long long> prompt;
  std::optional<long long> output_tokens;  // served figures: output tokens per request
  bool no_flash_attention = false;
  bool attention_dp = false;
  std::optional<std::string> draft;      // speculative decoding: a catalog model id, or "mtp"
  std::optional<long long> draft_tokens;  // tokens drafted per step
  bool vision = false;  // images in: the vision encoder and projector (mmproj) and one image's tokens
  // Speed and cost inputs.
  std::optional<std::string> backend;  // runtime backend on the device: cuda, rocm, metal, vulkan, sycl, cpu
  std::optional<double> ram_bandwidth_gbs;
  std::optional<long long> ubatch;  // prompt tokens per pass (llama.cpp -ub)
  std::optional<double> hourly_price_usd;
  std::optional<double> purchase_price_usd;
  std::optional<double> amortization_years;
  std::optional<double> hours_per_day;
  std::optional<double> electricity_usd_per_kwh;
  // Planner inputs (planner_commands.hpp).
  std::optional<std::string> layer_split;  // llama.cpp over equal cards: layers per GPU, "41,39"
  std::optional<double> gpu_limit_mib;      // unified memory: the GPU limit set (macOS iogpu.wired_limit_mb)
  std::optional<double> ram_gib;            // system RAM for offloaded layers or experts (estimate, fit)
  std::optional<long long> max_gpus;        // recommend: devices per machine (default: practical counts)
  bool speed_if_no_fit = false;             // estimate: speed and cost even where it does not fit
  std::optional<std::string> method;        // finetune: full | lora | qlora
  std::optional<long long> seq;             // finetune: sequence length
  std::optional<long long> micro_batch;     // finetune
  std::optional<long long> rank;            // finetune: LoRA rank
  std::optional<std::string> fit_rank;      // fit: quality | speed | context
  std::optional<std::string> use;           // fit: coding | reasoning | chat | vision
  std::optional<std::string> optimizer;     // finetune: adamw | adamw8bit
  std::optional<long long> zero;            // finetune: ZeRO stage
  bool checkpointing = false;               // finetune: full activation recomputation
  bool no_checkpointing = false;            // finetune: none (QLoRA's default is on)
  std::optional<std::string> lora_targets;  // finetune: all | attention | q,k,v,...
  std::optional<long long> users;           // recommend: concurrent streams for the target
  std::optional<double> tokens_per_s;       // recommend: target decode speed per user
  std::optional<std::string> concurrency;   // serve: "1,2,4,8" (empty: a sweep)
  std::optional<double> target_tokens_per_s_per_user;  // serve: the speed each user needs
  std::optional<std::string> llama_bench_path;  // calibrate: llama-bench output (table, -o json or jsonl)
  std::optional<std::string> calibration_path;  // estimate, serve, ...: `calibrate --json` output
  std::optional<std::string> log_path;          // check-log: a llama.cpp load log
};

Result<Command> parse_arguments(const std::vector<std::string>& args);
const char* usage_text();

}  // namespace llmsizer::cli
