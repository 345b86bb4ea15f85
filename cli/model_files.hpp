// Models read from local files for --gguf and --safetensors: only the headers
// are read from disk (growing chunks until the engine's reader is satisfied),
// never the tensor data.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmsizer/architecture.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer::cli {

struct FileModel {
  Architecture arch;
  ModelWeights weights;  // exact, from the files' tensors
  QuantScheme quant;     // the files' format: the GGUF file type, or native
  std::string label;     // the file's name
};

// A file whose headers are read: its name (for messages), its size, and a
// reader of a byte range (a local file, or a remote one by range requests).
struct ByteSource {
  std::string name;
  std::int64_t size = 0;
  std::function<Result<std::string>(std::int64_t offset, std::int64_t length)> read;
};

// A local regular file ("cli.file" when it is missing or not a file).
Result<ByteSource> local_file(const std::string& path);

// A GGUF model from its parts (one file, or every part of a split set).
Result<FileModel> gguf_model_from(const std::vector<ByteSource>& parts, const std::string& label);

// A safetensors checkpoint: its config.json, and its shards, or only its index
// (model.safetensors.index.json: the exact total, spread over the layers).
struct CheckpointFiles {
  std::string config_text, config_name;
  std::optional<std::string> index_text;
  std::string index_name;
  std::vector<ByteSource> shards;
  std::string label;
};
Result<FileModel> safetensors_model_from(const CheckpointFiles& files);

// --gguf FILE [PARTS...] (a lone part of a split set brings its siblings), or
// --safetensors FILE|INDEX with --config or the config.json beside it.
// Error ids: "cli.file", and those of the engine's GGUF, safetensors and config readers.
Result<FileModel> load_model_files(const Command& c);

}  // namespace llmsizer::cli
