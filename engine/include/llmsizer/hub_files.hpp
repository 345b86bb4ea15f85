// Which files of a Hugging Face Hub repo to read for a model, and where they
// are: the name a user types (owner/repo[:QUANT] or a huggingface.co link),
// the repo's file list as the Hub's tree API gives it, and the plan (a GGUF
// set, safetensors shards with their index and config, or a config alone).
// Pure: the CLI (libcurl) and the page (fetch) do the requests.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer {

struct HubName {
  std::string repo;   // owner/repo
  std::string quant;  // "" unless given (":Q4_K_M")
  std::string file;   // a linked file or folder in the repo, "" when none
};

// Error "hub.bad_name" for anything else: only the characters the Hub allows.
Result<HubName> parse_hub_name(std::string_view text);

struct HubRepoFile {
  std::string path;
  std::int64_t size = 0;  // the file's bytes (an LFS file's real size)
};

// GET /api/models/{repo}/tree/main?recursive=true: its files (directories dropped).
Result<std::vector<HubRepoFile>> read_hub_tree(std::string_view json);

// The URL paths, below the Hub's base URL, of the file list and of a file.
std::string hub_tree_path(const std::string& repo);
std::string hub_file_path(const std::string& repo, const std::string& path);

// The quantization a GGUF path names (Q4_K_M, UD-Q4_K_XL, IQ2_XXS, BF16,
// MXFP4...), upper-cased; "" when none.
std::string gguf_quant_in_path(const std::string& path);

enum class HubKind { gguf, safetensors, config };

struct HubPlan {
  HubKind kind = HubKind::config;
  std::string label;                       // repo, or repo:QUANT for a GGUF set
  std::vector<HubRepoFile> headers;        // GGUF parts, or safetensors shards: headers to read
  std::string index_path;                  // model.safetensors.index.json, "" when none
  bool config = false;                     // config.json to fetch
  std::vector<std::string> quants;         // a GGUF repo's quantizations
};

// A GGUF repo's quantizations, as plan_hub_files labels its sets.
std::vector<std::string> hub_gguf_quants(const std::vector<HubRepoFile>& files);

// Errors: "hub.choose_quant" (several GGUF quantizations and none named: the
// message lists them), "hub.no_such_quant", "hub.no_weights".
Result<HubPlan> plan_hub_files(const HubName& name, const std::vector<HubRepoFile>& files);

// The page's door: {"name": "owner/repo[:QUANT]" or a link} gives {"ok", "repo",
// "tree_path"}; with "tree" (the file list the Hub answered, as JSON text)
// also {"kind": "gguf"|"safetensors"|"config", "label", "quants", "headers":
// [{"path", "size", "file_path"}], "index_path", "config_path"} (file paths
// below the Hub's base URL; null when none), or {"kind": "choose", "quants",
// "message"} for a GGUF repo of several quantizations none of which is named.
// Never throws.
std::string hub_plan_response(std::string_view request_json);

}  // namespace llmsizer
