// Models read from local files for --gguf and --safetensors: only the headers
// are read from disk (growing chunks until the engine's reader is satisfied),
// never the tensor data.
#pragma once
#include <string>

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

// --gguf FILE [PARTS...] (a lone part of a split set brings its siblings), or
// --safetensors FILE|INDEX with --config or the config.json beside it.
// Error ids: "cli.file", and those of the engine's GGUF, safetensors and config readers.
Result<FileModel> load_model_files(const Command& c);

}  // namespace llmsizer::cli
