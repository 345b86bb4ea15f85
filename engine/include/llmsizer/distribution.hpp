// Where each catalog model is published in the forms the engines load: GGUF
// repositories with their quantization tags, Ollama tags, MLX repositories,
// the repo people serve and checkpoint-format repos (data/distribution.json,
// written by scripts/catalog/distribution.py; the build embeds the compact
// copy, data/embedded/distribution.json). The launch commands read it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llmsizer/result.hpp"

namespace llmsizer {

struct GgufRepo {
  std::string repo;
  std::vector<std::string> quants;  // tags a source shows; empty: the repo is known, its tags were not sourced
  // Quantizations a source shows as files in parts (name-00001-of-0000N.gguf),
  // with the number of parts; 1 where a source shows a single file.
  std::vector<std::pair<std::string, int>> parts;

  // The parts a source shows for this tag, 0 when none says.
  int parts_of(std::string_view quant) const;
};

struct OllamaTag {
  std::string tag;
  std::string quant;     // "" when no source states it
  bool cloud = false;    // runs on Ollama's servers only
  std::string moved_to;  // the tag now points at this newer release ("" when it does not)
  double listed_gb = 0.0;  // the size ollama.com lists for it, decimal GB as shown (0: not sourced)
};

struct MlxRepo {
  std::string repo;
  int bits = 0;
  std::string format;  // "affine" (MLX-LM's group quantization), "bf16", "nvfp4", "mxfp4", "mxfp8", "mixed"
};

struct ModelDistribution {
  std::string id;
  std::vector<GgufRepo> gguf;
  std::vector<OllamaTag> ollama;
  std::vector<MlxRepo> mlx;
  std::string serve_repo;  // the instruct repo people serve where the catalog's hf_repo is a base model
  std::vector<std::pair<std::string, std::string>> checkpoints;  // format ("BF16", "FP8", "NVFP4", "MXFP4", "AWQ", "GPTQ") -> repo
  // Checkpoints whose FP8 scales cover square blocks of weights: repo -> block width.
  std::vector<std::pair<std::string, std::int64_t>> weight_blocks;

  // The repo of that checkpoint format, or null.
  const std::string* checkpoint(std::string_view format) const;
  // The FP8 block width of that repo's weights, 0 when none is known.
  std::int64_t weight_block(std::string_view repo) const;
};

struct DistributionIndex {
  std::vector<ModelDistribution> models;

  const ModelDistribution* find(std::string_view model_id) const;
};

// Error ids: "distribution.not_json", "distribution.bad_entry" (with the JSON path).
Result<DistributionIndex> parse_distribution(std::string_view json);
// The copy compiled into the build.
Result<DistributionIndex> embedded_distribution();

}  // namespace llmsizer
