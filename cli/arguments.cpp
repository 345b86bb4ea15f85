#include "arguments.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

namespace llmsizer::cli {
namespace {

Error bad(const std::string& message) { return Error{"cli.bad_argument", message}; }

std::optional<long long> parse_integer(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_number(const std::string& text) {
  if (text.empty() || text.size() > 32) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

const char* usage_text() {
  return "usage:\n"
         "  llm-sizer estimate (--model ID | --config config.json | --gguf FILE [PARTS...] |\n"
         "                      --safetensors FILE [--config config.json] |\n"
         "                      --hf OWNER/REPO[:QUANT] (a Hub repo or link, read in place; HF_TOKEN for\n"
         "                       gated repos) [--hub-url https://huggingface.co])\n"
         "                     [--quant Q4_K_M] [--ctx 8192]\n"
         "                     [--batch 1] [--kv-type f16|bf16|fp8|q8_0|q4_0|q4_1|q5_0|q5_1]\n"
         "                     [--engine llama.cpp|ollama|vllm|sglang|mlx|tensorrt-llm]\n"
         "                     [--gpu ID | --gpu-memory-gib X --gpu-bandwidth-gbs X --gpu-tflops X\n"
         "                      --gpu-vendor nvidia|amd|apple|intel|cpu [--gpu-dies 1|2]] [--gpus N]\n"
         "                     (mixed cards: --gpu once per card, --gpu rtx-3090 --gpu rtx-3060-12gb)\n"
         "                     [--offload FRACTION] [--offload-mode auto|layers|experts]\n"
         "                     [--prompt 4096] [--output-tokens O (served under load: speed.served)] [--no-flash-attn] [--vision] [--draft MODEL_ID|mtp [--draft-tokens 4]]\n"
         "                     [--attention-dp (vLLM/SGLang/TensorRT-LLM on N GPUs: each attends to its own sequences)]\n"
         "                     [--backend cuda|rocm|metal|vulkan|sycl|cpu]\n"
         "                     [--ram-gib 64] [--ram-bandwidth-gbs 89.6] [--ubatch 512]\n"
         "                     [--gpu-limit-mib N (a Mac: the iogpu.wired_limit_mb set; unified memory only)]\n"
         "                     [--layer-split 41,39 (llama.cpp over equal cards: layers per GPU)]\n"
         "                     [--hourly-price USD | --purchase-price USD]\n"
         "                     [--years 3] [--hours-per-day 24] [--electricity 0.15] [--json]\n"
         "  llm-sizer params   (--model ID | --config config.json | --gguf FILE [PARTS...] |\n"
         "                      --safetensors FILE [--config config.json] | --hf OWNER/REPO[:QUANT]) [--json]\n"
         "  llm-sizer list     models|gpus|ram|quants|engines [--json]\n"
         "  llm-sizer recommend --model ID [--quant Q] [--ctx N] [--batch N] [--engine E] [--kv-type T]\n"
         "                     [--users N --tokens-per-s X] [--hours-per-day 24] [--electricity 0.15] [--json]\n"
         "  llm-sizer fit      --gpu ID [--gpus N] [--ram-gib X] [--ctx N] [--engine E]\n"
         "                     [--rank quality|speed|context] [--use coding|reasoning|chat|vision]\n"
         "                     [--tokens-per-s 10 (usable speed: quality ranks faster models first)] [--json]\n"
         "  llm-sizer finetune --model ID --method full|lora|qlora [--seq 2048] [--micro-batch 1] [--gpus N]\n"
         "                     [--rank 16] [--targets all|attention|q,k,v,o,gate,up,down]\n"
         "                     [--optimizer adamw|adamw8bit] [--checkpointing | --no-checkpointing]\n"
         "                     (QLoRA checkpoints unless --no-checkpointing, as PEFT sets it up) [--zero 0|1|2|3]\n"
         "                     [--no-flash-attn] [--json]\n"
         "  llm-sizer command  (the flags of estimate) [--copies N (that many copies side by side, each on\n"
         "                      --gpus GPUs with --batch users; a planner's layout for many users)] [--json]\n"
         "  llm-sizer calibrate --llama-bench FILE (its table, -o json or -o jsonl output)\n"
         "                     [--gpu ID (default: the GPU the output names)] [--gpus N] [--json]\n"
         "                     (then --calibration FILE, the --json answer, on estimate, command and serve:\n"
         "                      every speed for the machine the rows were measured on)\n"
         "  llm-sizer check-log FILE (what llama-server or llama-cli print while loading a model)\n"
         "                     [--model ID] [--quant Q] [--gpu ID] [--gpus N] (default: what the log says) [--json]\n"
         "  llm-sizer serve    (the flags of estimate) [--prompt 1024] [--output-tokens 1024]\n"
         "                     [--concurrency 1,2,4,... (default: a sweep to saturation)]\n"
         "                     [--target-tokens-per-s-per-user X] [--hourly-price USD] [--json]\n";
}

Result<Command> parse_arguments(const std::vector<std::string>& args) {
  Command c;
  if (args.empty()) return c;
  const std::string& verb = args[0];
  if (verb == "estimate") c.verb = Verb::estimate;
  else if (verb == "params") c.verb = Verb::params;
  else if (verb == "list") c.verb = Verb::list;
  else if (verb == "recommend") c.verb = Verb::recommend;
  else if (verb == "fit") c.verb = Verb::fit;
  else if (verb == "finetune") c.verb = Verb::finetune;
  else if (verb == "command") c.verb = Verb::command;
  else if (verb == "serve") c.verb = Verb::serve;
  else if (verb == "calibrate") c.verb = Verb::calibrate;
  else if (verb == "check-log") c.verb = Verb::check_log;
  else if (verb == "help" || verb == "--help" || verb == "-h") return c;
  else return bad("unknown command '" + verb.substr(0, 40) + "'; expected estimate, params, list, recommend, fit, finetune, command, serve, calibrate or check-log");

  using Setter = std::function<std::optional<Error>(const std::string&)>;
  auto text = [](std::optional<std::string>& field) -> Setter {
    return [&field](const std::string& v) -> std::optional<Error> {
      field = v;
      return std::nullopt;
    };
  };
  auto integer = [](std::optional<long long>& field, const char* flag) -> Setter {
    return [&field, flag](const std::string& v) -> std::optional<Error> {
      const auto parsed = parse_integer(v);
      if (!parsed) return bad(std::string(flag) + " needs a whole number, got '" + v.substr(0, 40) + "'");
      field = parsed;
      return std::nullopt;
    };
  };
  auto number = [](std::optional<double>& field, const char* flag) -> Setter {
    return [&field, flag](const std::string& v) -> std::optional<Error> {
      const auto parsed = parse_number(v);
      if (!parsed) return bad(std::string(flag) + " needs a number, got '" + v.substr(0, 40) + "'");
      field = parsed;
      return std::nullopt;
    };
  };
  const std::map<std::string, Setter> with_value = {
      {"--model", text(c.model_id)},
      {"--config", text(c.config_path)},
      {"--safetensors", text(c.safetensors_path)},
      {"--hf", text(c.hf_name)},
      {"--hub-url", text(c.hub_url)},
      {"--quant", text(c.quant)},
      {"--ctx", integer(c.ctx, "--ctx")},
      {"--batch", integer(c.batch, "--batch")},
      {"--kv-type", text(c.kv_type)},
      {"--engine", text(c.engine)},
      {"--gpu-memory-gib", number(c.gpu_memory_gib, "--gpu-memory-gib")},
      {"--gpu-bandwidth-gbs", number(c.gpu_bandwidth_gbs, "--gpu-bandwidth-gbs")},
      {"--gpu-tflops", number(c.gpu_tflops, "--gpu-tflops")},
      {"--gpu-vendor", text(c.gpu_vendor)},
      {"--gpu-dies", integer(c.gpu_dies, "--gpu-dies")},
      {"--gpus", integer(c.gpus, "--gpus")},
      {"--copies", integer(c.copies, "--copies")},
      {"--offload", number(c.offload, "--offload")},
      {"--offload-mode", text(c.offload_mode)},
      {"--prompt", integer(c.prompt, "--prompt")},
      {"--output-tokens", integer(c.output_tokens, "--output-tokens")},
      {"--backend", text(c.backend)},
      {"--ram-bandwidth-gbs", number(c.ram_bandwidth_gbs, "--ram-bandwidth-gbs")},
      {"--ubatch", integer(c.ubatch, "--ubatch")},
      {"--draft", text(c.draft)},
      {"--draft-tokens", integer(c.draft_tokens, "--draft-tokens")},
      {"--hourly-price", number(c.hourly_price_usd, "--hourly-price")},
      {"--purchase-price", number(c.purchase_price_usd, "--purchase-price")},
      {"--years", number(c.amortization_years, "--years")},
      {"--hours-per-day", number(c.hours_per_day, "--hours-per-day")},
      {"--electricity", number(c.electricity_usd_per_kwh, "--electricity")},
      {"--ram-gib", number(c.ram_gib, "--ram-gib")},
      {"--gpu-limit-mib", number(c.gpu_limit_mib, "--gpu-limit-mib")},
      {"--layer-split", text(c.layer_split)},
      {"--max-gpus", integer(c.max_gpus, "--max-gpus")},
      {"--method", text(c.method)},
      {"--seq", integer(c.seq, "--seq")},
      {"--micro-batch", integer(c.micro_batch, "--micro-batch")},
      // fit ranks its answers by name (quality, speed, context); finetune's is the LoRA rank.
      {"--rank", c.verb == Verb::fit ? text(c.fit_rank) : integer(c.rank, "--rank")},
      {"--use", text(c.use)},
      {"--optimizer", text(c.optimizer)},
      {"--zero", integer(c.zero, "--zero")},
      {"--targets", text(c.lora_targets)},
      {"--users", integer(c.users, "--users")},
      {"--tokens-per-s", number(c.tokens_per_s, "--tokens-per-s")},
      {"--concurrency", text(c.concurrency)},
      {"--target-tokens-per-s-per-user", number(c.target_tokens_per_s_per_user, "--target-tokens-per-s-per-user")},
      {"--llama-bench", text(c.llama_bench_path)},
      {"--calibration", text(c.calibration_path)},
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--json") {
      c.json = true;
      continue;
    }
    if (arg == "--no-checkpointing") {
      c.no_checkpointing = true;
      continue;
    }
    if (arg == "--checkpointing") {
      c.checkpointing = true;
      continue;
    }
    if (arg == "--speed-even-if-no-fit") {
      c.speed_if_no_fit = true;
      continue;
    }
    if (arg == "--vision") {
      c.vision = true;
      continue;
    }
    if (arg == "--no-flash-attn") {
      c.no_flash_attention = true;
      continue;
    }
    if (arg == "--attention-dp") {
      c.attention_dp = true;
      continue;
    }
    if (arg == "--gpu") {  // repeatable, one per card: the ids join into "a,b,c" (mixed cards)
      if (i + 1 >= args.size()) return bad("--gpu needs a value");
      const std::string& id = args[++i];
      c.gpu_id = c.gpu_id ? *c.gpu_id + "," + id : id;
      continue;
    }
    if (arg == "--gguf") {  // --gguf FILE [MORE PARTS...]: the parts of a split set follow
      if (i + 1 >= args.size()) return bad("--gguf needs a value");
      if (c.gguf_path) c.gguf_more_paths.push_back(args[++i]);  // --gguf A --gguf B: parts too
      else c.gguf_path = args[++i];
      while (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') c.gguf_more_paths.push_back(args[++i]);
      continue;
    }
    auto it = with_value.find(arg);
    if (it != with_value.end()) {
      if (i + 1 >= args.size()) return bad(arg + " needs a value");
      if (auto error = it->second(args[++i])) return *error;
      continue;
    }
    if (c.verb == Verb::check_log && !c.log_path && !arg.empty() && arg[0] != '-') {
      c.log_path = arg;
      continue;
    }
    if (c.verb == Verb::list && !c.list_what && !arg.empty() && arg[0] != '-') {
      c.list_what = arg;
      continue;
    }
    return bad("unknown option '" + arg.substr(0, 40) + "'");
  }
  if (c.verb == Verb::list) {
    if (!c.list_what) return bad("list needs what to list: models, gpus, ram, quants or engines");
    if (*c.list_what != "models" && *c.list_what != "gpus" && *c.list_what != "ram" && *c.list_what != "quants" &&
        *c.list_what != "engines")
      return bad("cannot list '" + c.list_what->substr(0, 40) + "'; expected models, gpus, ram, quants or engines");
    return c;
  }
  if (c.verb == Verb::calibrate) {  // measurements in, the machine's factors out: each row names its model
    if (!c.llama_bench_path) return bad("calibrate needs --llama-bench FILE");
    if (c.model_id || c.config_path || c.gguf_path || c.safetensors_path || c.hf_name)
      return bad("calibrate takes no model: each llama-bench row names its own");
    return c;
  }
  if (c.verb == Verb::check_log) {  // a log in; the model is what it says unless given
    if (!c.log_path) return bad("check-log needs the log's file: llm-sizer check-log FILE");
    if (c.gguf_path || c.safetensors_path || c.hf_name) return bad("check-log takes --model ID or --config FILE");
    return c;
  }
  if (c.verb == Verb::fit) {  // hardware in, models out: no model source
    if (!c.gpu_id) return bad("fit needs --gpu ID");
    return c;
  }
  // --config may go with --safetensors: the checkpoint's architecture.
  const int sources = (c.model_id ? 1 : 0) + (c.config_path && !c.safetensors_path ? 1 : 0) + (c.gguf_path ? 1 : 0) +
                      (c.safetensors_path ? 1 : 0) + (c.hf_name ? 1 : 0);
  if (sources != 1)
    return bad("give exactly one of --model ID, --hf OWNER/REPO[:QUANT], --config FILE, --gguf FILE or --safetensors FILE "
               "(with --config)");
  if (c.hub_url && !c.hf_name) return bad("--hub-url goes with --hf");
  // Copies change what starts them, not one copy's figures.
  if (c.copies && c.verb != Verb::command)
    return bad("--copies goes with llm-sizer command (the commands that start copies side by side)");
  if (c.copies && (*c.copies < 1 || *c.copies > 64)) return bad("--copies must be between 1 and 64");
  const bool custom = c.gpu_memory_gib || c.gpu_bandwidth_gbs || c.gpu_tflops || c.gpu_vendor || c.gpu_dies;
  if (custom && c.gpu_id) return bad("give either --gpu ID or the --gpu-* flags of a custom device, not both");
  if (custom && !c.gpu_memory_gib) return bad("a custom device needs --gpu-memory-gib");
  return c;
}

}  // namespace llmsizer::cli
