// Safetensors checkpoints measured from their headers: an 8-byte little-endian
// length, then a JSON object of tensor name -> {dtype, shape, data_offsets}. As
// with GGUF, the caller supplies the bytes (the page a Blob.slice, growing until
// read_safetensors_header is complete; the CLI a chunk from disk), and for a
// sharded checkpoint the headers of all shards, or only model.safetensors.index.json.
// The architecture comes from the checkpoint's config.json (read_hf_config).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;  // "BF16", "F8_E4M3", "U8", ...
  std::vector<std::int64_t> shape;
  std::int64_t begin = 0;  // data_offsets, from the start of the data section
  std::int64_t end = 0;
  std::int64_t bytes() const { return end - begin; }
};

struct SafetensorsFile {
  std::int64_t header_bytes = 0;  // 8 + the JSON's length
  std::int64_t tensor_bytes = 0;  // the data section: the tensors, back to back
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__"
  std::int64_t file_bytes() const { return header_bytes + tensor_bytes; }
};

struct SafetensorsReadOptions {
  std::int64_t max_header_bytes = 100'000'000;  // the safetensors library's own limit
  std::int64_t file_bytes = -1;                 // the file's size when known
};

struct SafetensorsHeaderRead {
  bool complete = false;
  std::int64_t bytes_needed = 0;  // when !complete: read this many bytes from the start and call again
  SafetensorsFile file;
};

// Error ids: "safetensors.too_large" (header length over the limit), "safetensors.not_json",
// "safetensors.bad_header" (an entry without dtype, shape or data_offsets as the
// format has them), "safetensors.bad_dtype", "safetensors.bad_offsets" (bytes that
// disagree with dtype x shape, gaps or overlaps), "safetensors.truncated".
Result<SafetensorsHeaderRead> read_safetensors_header(std::string_view bytes, const SafetensorsReadOptions& options = {});

struct SafetensorsIndex {
  std::int64_t total_size = -1;     // metadata.total_size: bytes of all tensors; -1 when absent
  std::int64_t tensor_count = 0;    // entries of weight_map
  std::vector<std::string> shards;  // the files weight_map names, sorted, each once
};

// model.safetensors.index.json. Error ids: "safetensors.not_json", "safetensors.bad_index"
// (no weight_map, a shard name that is a path rather than a file name).
Result<SafetensorsIndex> read_safetensors_index(std::string_view text);

// Exact bytes from the headers of every shard, per layer and kind, laid on the
// architecture read from config.json; parameters are the architecture's. Layers
// are found by name (model.layers.N., h.N., blocks.N.); routed experts by an
// "experts" name segment; vision and audio towers sit with the output head.
// Error id "safetensors.bad_header" when no tensor is found.
Result<ModelWeights> safetensors_weights(const Architecture& arch, const std::vector<SafetensorsFile>& shards,
                                         std::vector<std::string>& warnings);

// From the index alone: the exact total (metadata.total_size), spread over the
// layers as the architecture's tensors in their native format are. Error id
// "safetensors.bad_index" when the index has no total_size.
Result<ModelWeights> safetensors_index_weights(const Architecture& arch, const SafetensorsIndex& index,
                                               std::vector<std::string>& warnings);

}  // namespace llmsizer
