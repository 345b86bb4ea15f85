// Commands that start each engine with the settings of an estimate, using only
// flags those engines have (llama.cpp llama-server, vLLM, SGLang, Ollama, MLX-LM).
#pragma once
#include <string>
#include <vector>

#include "llmsizer/estimate.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

struct LaunchCommand {
  std::string engine;   // "llama.cpp", "vllm", "sglang", "ollama", "mlx"
  std::string command;  // shell text, continuation lines joined with " \\\n  "
};

std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& scenario, const Estimate& estimate);

}  // namespace llmsizer
