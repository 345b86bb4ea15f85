// Commands that start each engine with the settings of an estimate (llama.cpp
// llama-server, Ollama, vLLM, SGLang, MLX-LM): a command is given only when it
// runs as printed, with a name some source shows for that model and format
// (data/distribution.json); otherwise a one-line note says why not.
#pragma once
#include <string>
#include <vector>

#include "llmsizer/distribution.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

struct LaunchCommand {
  std::string engine;  // "llama.cpp", "ollama", "vllm", "sglang", "mlx"
  // Commands to run in order, each one pasted on its own (Ollama: the server,
  // which stays in the foreground, then the client from a second shell);
  // continuation lines joined with " \\\n  ". Empty: none runs this scenario.
  std::vector<std::string> steps;
  std::string note;  // why there is no command, or what to check ("" when nothing)
};

// With the distribution names compiled into the build.
std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& scenario, const Estimate& estimate);
std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& scenario, const Estimate& estimate,
                                           const DistributionIndex& names);

// Whether the scenario's own engine has a command that starts it (a
// suggestion's Startable): for vLLM, SGLang and TensorRT-LLM, which serve
// published checkpoints, false where the command is only a note (no
// checkpoint of the quantization known and none made as the engine loads, a
// format it does not load, a device its build does not list). llama.cpp,
// Ollama and MLX make their files on the user's machine (convert_hf_to_gguf
// and llama-quantize, mlx_lm.convert): true. A model without a catalog entry
// (a config.json) names no checkpoints, so nothing rules one out: true.
bool engine_starts(const SizedModel& model, const Scenario& scenario, const Estimate& estimate);

// A model read from a Hub repo (hub_files.hpp): the commands name that repo,
// llama-server -hf REPO:TAG for a GGUF set of `gguf_parts` files, vllm serve
// REPO for a checkpoint (native_dtype as its config states it, lowercase).
// A checkpoint's published format as HubModelSource::native_dtype spells it.
std::string native_dtype_name(NativeFormat format);

struct HubModelSource {
  std::string repo;
  std::string gguf_tag;  // "" for a checkpoint
  int gguf_parts = 0;
  std::string native_dtype;
};
std::vector<LaunchCommand> hub_launch_commands(const HubModelSource& source, const SizedModel& model,
                                               const Scenario& scenario, const Estimate& estimate);

}  // namespace llmsizer
