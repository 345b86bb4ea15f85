// GGUF files (v2 and v3, little-endian) read from their headers alone. The engine
// does no file I/O: the caller hands it the first bytes of a file (the page a
// Blob.slice of a local file, the CLI a chunk read from disk). When the bytes end
// before the header does, the reader says how many it needs so far and the caller
// reads more and calls again; a header is a few MB even for a file of hundreds of GB.
//
// The page, for the files of a model (one file, or every part of a split set):
//   1. for each file: bytes = await file.slice(0, n).arrayBuffer()   (n = 1 MiB to start)
//   2. r = read_gguf_model([{name, bytes, file_bytes: file.size}, ...])
//      error -> show r.error().message; !r.complete -> for each part with
//      r.bytes_needed[i] > 0, n_i = max(r.bytes_needed[i], 2 n_i), go to 1
//   3. estimate(r.model.arch, scenario with quant = r.model.quant, r.model.weights)
// (read_gguf_header per file then gguf_model is the same in two steps.) Strings
// from the file (general.name, the architecture) are untrusted: show them with
// textContent only.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/ggml_types.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// gguf_type in ggml's gguf.h.
enum class GgufValueType : std::uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7,
  string = 8, array = 9, u64 = 10, i64 = 11, f64 = 12
};

// Integer arrays up to this many elements are kept (per-layer values such as
// head_count_kv); longer ones (token types, scores) and every string array (the
// vocabulary, BPE merges) are skipped and only counted.
inline constexpr std::uint64_t kGgufMaxStoredArray = 65536;

struct GgufValue {
  GgufValueType type = GgufValueType::u8;
  GgufValueType element_type = GgufValueType::u8;  // arrays only
  std::uint64_t array_count = 0;                    // arrays: elements in the file
  std::int64_t integer = 0;  // integer and bool scalars (u64 above INT64_MAX saturates)
  double number = 0.0;       // float scalars; integers converted too
  std::string text;          // string scalars
  std::vector<std::int64_t> integers;  // integer and bool arrays of at most kGgufMaxStoredArray
                                       // (and 2^20 integers in all per file)

  bool is_integer() const;  // any integer or bool scalar
  bool is_number() const;   // integer, bool or float scalar
  bool is_integer_array() const { return type == GgufValueType::array && integers.size() == array_count && array_count > 0; }
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

struct GgufTensorInfo {
  std::string name;
  std::uint32_t ggml_type_id = 0;
  GgmlType type = GgmlType::F32;
  std::uint32_t n_dims = 0;
  std::array<std::int64_t, 4> dims{{1, 1, 1, 1}};  // ne[0..3]; ne[0] is the row width
  std::uint64_t offset = 0;  // from the start of the data section
  std::int64_t bytes = 0;    // exact: ne[0] / block x block bytes x ne[1] x ne[2] x ne[3]
  std::int64_t elements() const { return dims[0] * dims[1] * dims[2] * dims[3]; }
};

struct GgufFile {
  std::uint32_t version = 0;
  std::uint64_t alignment = 32;  // general.alignment
  std::vector<GgufKeyValue> metadata;
  std::vector<GgufTensorInfo> tensors;
  std::int64_t header_bytes = 0;  // magic through the last tensor info
  std::int64_t data_offset = 0;   // header padded to the alignment: where tensor data starts
  std::int64_t data_bytes = 0;    // data section: every tensor padded to the alignment
  std::int64_t tensor_bytes = 0;  // the tensors alone
  std::int64_t file_bytes() const { return data_offset + data_bytes; }  // what the file on disk holds

  const GgufValue* find(std::string_view key) const;
};

struct GgufReadOptions {
  // Headers above this are refused (a tokenizer of 256k tokens with merges is
  // under 16 MiB); the page never reads more than this from a file.
  std::int64_t max_header_bytes = std::int64_t{64} << 20;
  // The file's size when the caller knows it (Blob.size, stat): a header that
  // runs past it is truncated (a hard error), and so are tensors that do.
  std::int64_t file_bytes = -1;
};

struct GgufHeaderRead {
  bool complete = false;
  // When !complete: the header needs at least this many bytes from the start of
  // the file (a lower bound; the reader may ask again for more).
  std::int64_t bytes_needed = 0;
  GgufFile file;  // when complete
};

// Error ids: "gguf.bad_magic", "gguf.bad_version" (v1, v4+, big-endian),
// "gguf.too_large" (a count, length or size beyond the limits), "gguf.bad_type"
// (unknown value or tensor type, nested arrays), "gguf.bad_value" (alignment),
// "gguf.duplicate" (key or tensor name twice), "gguf.bad_shape" (dimensions),
// "gguf.bad_offset" (tensor data not where llama.cpp requires it), "gguf.truncated"
// (the file ends inside its header or its tensors).
Result<GgufHeaderRead> read_gguf_header(std::string_view bytes, const GgufReadOptions& options = {});

// Exact bytes of one model's tensors, by kind (from the tensor names). Every
// tensor is in exactly one kind; the kinds sum to tensor_bytes.
struct GgufKindBytes {
  std::int64_t token_embd = 0;      // token_embd (and per-layer token embeddings)
  std::int64_t output = 0;          // output head, output_norm and other global tensors
  std::int64_t attention = 0;       // attn_* and recurrent mixers (ssm_*), norms excluded
  std::int64_t ffn = 0;             // dense MLP, shared experts and the router
  std::int64_t routed_experts = 0;  // *_exps tensors and their biases
  std::int64_t norms = 0;           // per-layer *_norm vectors
  std::int64_t other = 0;           // per-layer tensors of no kind above
};

struct GgufTypeBytes {
  std::string type;  // ggml type name, e.g. "Q4_K"
  std::int64_t tensors = 0;
  std::int64_t bytes = 0;
};

// A model from the headers of its files.
struct GgufModel {
  Architecture arch;     // from the metadata and the tensor shapes
  ModelWeights weights;  // bytes and parameters counted from the tensors
  QuantScheme quant;     // general.file_type (e.g. "Q4_K_M"), or "GGUF" without one
  std::string name;      // general.name (untrusted)
  std::string architecture;  // general.architecture (untrusted)
  GgufKindBytes kind_bytes;
  std::vector<GgufTypeBytes> type_bytes;  // by ggml type, largest first
  int split_count = 1;
};

// One file, or all the parts of a split set in any order (split.no, split.count;
// the metadata comes from part 0). weights.weights.total_bytes is the size of the
// files on disk: tensors, headers and alignment padding.
// Error ids: "gguf.split" (parts missing, twice, or of different sets),
// "gguf.duplicate" (a tensor in two parts), "gguf.too_large" (over 4 PiB in all),
// "gguf.missing_key", "gguf.bad_value" (metadata out of range, or an architecture
// the later arithmetic could not hold).
Result<GgufModel> gguf_model(const std::vector<GgufFile>& files);

// Both steps for every part at once, for callers that keep the bytes read so far
// per file (the page's binding): either the model, or how many bytes each part
// still needs. Errors name the part (name, or its position).
struct GgufPart {
  std::string name;              // shown in errors (the file's name; untrusted)
  std::string_view bytes;        // the file's first bytes, as many as read so far
  std::int64_t file_bytes = -1;  // the file's size (Blob.size), -1 when unknown
};
struct GgufModelRead {
  bool complete = false;
  std::vector<std::int64_t> bytes_needed;  // per part: 0 once its header is complete
  GgufModel model;                         // when complete
};
Result<GgufModelRead> read_gguf_model(const std::vector<GgufPart>& parts, std::int64_t max_header_bytes = std::int64_t{64} << 20);

}  // namespace llmsizer
