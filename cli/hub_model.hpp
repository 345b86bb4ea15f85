// A model on the Hugging Face Hub by its name, read in place: the repo's file
// list, then its config.json, the chosen GGUF file's header (every part of a
// split set) or its safetensors headers, by range requests. Nothing is
// downloaded beyond the headers.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hub_client.hpp"
#include "model_files.hpp"

namespace llmsizer::cli {

// "owner/repo", "owner/repo:QUANT", or a huggingface.co link to the repo or
// one of its files (blob/resolve/tree URLs).
struct HubName {
  std::string repo;   // owner/repo
  std::string quant;  // "" unless given (":Q4_K_M") or named by a linked file
  std::string file;   // a linked file's path in the repo, "" when none
};

// Error "hub.bad_name" for anything else (the characters the Hub allows only).
Result<HubName> parse_hub_name(const std::string& text);

// What was read: a model with measured weights (GGUF or safetensors), or a
// config alone (the repo holds no weights in a format read here).
struct HubModel {
  std::optional<FileModel> files;  // measured
  std::string config_text;         // config-only repos
  std::string label;               // repo[:QUANT]
  std::vector<std::string> quants_available;  // a GGUF repo's quantizations
};

Result<HubModel> load_hub_model(const HubClient& hub, const HubName& name);

}  // namespace llmsizer::cli
