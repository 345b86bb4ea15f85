// A model on the Hugging Face Hub by its name, read in place: the repo's file
// list, then (as the engine's hub_files plan says) its config.json, the chosen
// GGUF file's header (every part of a split set) or its safetensors headers,
// by range requests. Nothing is downloaded beyond the headers.
#pragma once
#include <optional>
#include <string>

#include "hub_client.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/hub_files.hpp"
#include "model_files.hpp"

namespace llmsizer::cli {

// What was read: a model with measured weights (GGUF or safetensors), or a
// config alone (the repo holds no weights in a format read here).
struct HubModel {
  std::optional<FileModel> files;  // measured
  std::string config_text;         // config-only repos
  std::string label;               // repo[:QUANT]
  HubModelSource source;           // what the launch commands name
};

Result<HubModel> load_hub_model(const HubClient& hub, const HubName& name);

}  // namespace llmsizer::cli
