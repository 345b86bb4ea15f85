#include "model_files.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <vector>

#include "llmsizer/config_reader.hpp"
#include "llmsizer/gguf.hpp"
#include "llmsizer/safetensors.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer::cli {
namespace {

constexpr std::int64_t kFirstChunkBytes = static_cast<std::int64_t>(kMiB);
constexpr std::int64_t kMaxHeaderBytes = 64 * static_cast<std::int64_t>(kMiB);
constexpr std::int64_t kMaxJsonBytes = 16 * static_cast<std::int64_t>(kMiB);

// Paths go into messages and the JSON label: keep them short and valid UTF-8.
std::string shown(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size() && out.size() < 200;) {
    const auto c = static_cast<unsigned char>(path[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len > 0 && i + len <= path.size() && c >= 0x20;
    for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(path[i + k]) & 0xc0) == 0x80;
    if (valid) {
      out.append(path, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

Error file_error(const std::string& path, const std::string& what) {
  return Error{"cli.file", "'" + shown(path) + "' " + what};
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The size of a regular file.
Result<std::int64_t> regular_file_size(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return file_error(path, "cannot be opened");
  if (!S_ISREG(info.st_mode)) return file_error(path, "is not a regular file");
  return static_cast<std::int64_t>(info.st_size);
}

Result<std::string> read_json_file(const std::string& path) {
  auto size = regular_file_size(path);
  if (!size) return size.error();
  if (size.value() > kMaxJsonBytes) return file_error(path, "is larger than 16 MiB; a JSON file here is a few KB");
  std::ifstream in(path, std::ios::binary);
  if (!in) return file_error(path, "cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

Result<ByteSource> local_file(const std::string& path) {
  auto size = regular_file_size(path);
  if (!size) return size.error();
  ByteSource source;
  source.name = shown(base_name(path));
  source.size = size.value();
  source.read = [path](std::int64_t offset, std::int64_t length) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return file_error(path, "cannot be opened");
    in.seekg(offset);
    std::string bytes(static_cast<std::size_t>(length), '\0');
    in.read(&bytes[0], length);
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
  };
  return source;
}

namespace {

// Reads the first bytes of a source, more each time the reader asks, until it
// is satisfied: Read(bytes, size) -> Result<R> with .complete and .bytes_needed.
// Each round fetches only the bytes it lacks (a range request for a remote file).
template <typename R, typename Read>
Result<R> read_header(const ByteSource& source, Read read) {
  std::string bytes;
  std::int64_t want = std::min(kFirstChunkBytes, source.size);
  for (;;) {
    const auto have = static_cast<std::int64_t>(bytes.size());
    if (want > have) {
      auto more = source.read(have, want - have);
      if (!more) return more.error();
      bytes += more.value();
    }
    auto r = read(bytes, source.size);
    if (!r) return Error{r.error().id, source.name + ": " + r.error().message};
    if (r.value().complete) return r;
    const std::int64_t next = std::min(std::max(r.value().bytes_needed, 2 * static_cast<std::int64_t>(bytes.size())),
                                       std::min(source.size, kMaxHeaderBytes));
    if (next <= static_cast<std::int64_t>(bytes.size()))  // the reader's limits stop this first
      return Error{"cli.file", "'" + source.name + "' has a header the reader could not finish"};
    want = next;
  }
}

Result<GgufFile> read_gguf_file(const ByteSource& source) {
  auto r = read_header<GgufHeaderRead>(source, [](const std::string& bytes, std::int64_t file_bytes) {
    GgufReadOptions options;
    options.max_header_bytes = kMaxHeaderBytes;
    options.file_bytes = file_bytes;
    return read_gguf_header(bytes, options);
  });
  if (!r) return r.error();
  return std::move(r).value().file;
}

Result<SafetensorsFile> read_safetensors_file(const ByteSource& source) {
  auto r = read_header<SafetensorsHeaderRead>(source, [](const std::string& bytes, std::int64_t file_bytes) {
    SafetensorsReadOptions options;
    options.file_bytes = file_bytes;
    return read_safetensors_header(bytes, options);
  });
  if (!r) return r.error();
  return std::move(r).value().file;
}

// gguf-split names parts NAME-00001-of-00003.gguf: a lone part brings the others.
std::vector<std::string> split_siblings(const std::string& path) {
  const std::string tail = "-00000-of-00000.gguf";
  if (path.size() < tail.size()) return {path};
  const std::size_t at = path.size() - tail.size();
  auto digits = [&](std::size_t from) {
    for (std::size_t i = from; i < from + 5; ++i)
      if (path[i] < '0' || path[i] > '9') return false;
    return true;
  };
  if (path[at] != '-' || !digits(at + 1) || path.compare(at + 6, 4, "-of-") != 0 || !digits(at + 10) ||
      path.compare(at + 15, 5, ".gguf") != 0)
    return {path};
  const int count = std::stoi(path.substr(at + 10, 5));
  if (count < 1) return {path};
  std::vector<std::string> parts;
  for (int k = 1; k <= count; ++k) {
    char number[16];
    std::snprintf(number, sizeof number, "%05d", k);
    parts.push_back(path.substr(0, at + 1) + number + path.substr(at + 6));
  }
  return parts;
}

Result<FileModel> load_gguf(const Command& c) {
  std::vector<std::string> paths = {*c.gguf_path};
  paths.insert(paths.end(), c.gguf_more_paths.begin(), c.gguf_more_paths.end());
  if (paths.size() == 1) paths = split_siblings(paths.front());
  std::vector<ByteSource> parts;
  for (const std::string& path : paths) {
    auto part = local_file(path);
    if (!part) return part.error();
    parts.push_back(std::move(part).value());
  }
  return gguf_model_from(parts, shown(base_name(*c.gguf_path)));
}

Result<FileModel> load_safetensors(const Command& c) {
  const std::string& path = *c.safetensors_path;
  const std::string config_path = c.config_path.value_or(directory_of(path) + "config.json");
  struct stat info {};
  if (!c.config_path && stat(config_path.c_str(), &info) != 0)
    return file_error(path, "has no config.json beside it; give the checkpoint's config with --config");
  auto config = read_json_file(config_path);
  if (!config) return config.error();
  CheckpointFiles files;
  files.config_text = config.value();
  files.config_name = shown(config_path);
  files.label = shown(base_name(path));
  const bool is_index = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (!is_index) {
    auto shard = local_file(path);
    if (!shard) return shard.error();
    files.shards.push_back(std::move(shard).value());
    return safetensors_model_from(files);
  }
  auto text = read_json_file(path);
  if (!text) return text.error();
  files.index_text = text.value();
  files.index_name = shown(path);
  auto index = read_safetensors_index(text.value());
  if (!index) return Error{index.error().id, shown(path) + ": " + index.error().message};
  // Only the index at hand (a shard missing): its exact total, spread over the layers.
  for (const std::string& shard : index.value().shards)
    if (stat((directory_of(path) + shard).c_str(), &info) != 0) return safetensors_model_from(files);
  for (const std::string& shard : index.value().shards) {
    auto source = local_file(directory_of(path) + shard);
    if (!source) return source.error();
    files.shards.push_back(std::move(source).value());
  }
  return safetensors_model_from(files);
}

}  // namespace

Result<FileModel> gguf_model_from(const std::vector<ByteSource>& parts, const std::string& label) {
  std::vector<GgufFile> files;
  for (const ByteSource& part : parts) {
    auto file = read_gguf_file(part);
    if (!file) return file.error();
    files.push_back(std::move(file).value());
  }
  auto model = gguf_model(files);
  if (!model) return Error{model.error().id, label + ": " + model.error().message};
  FileModel out;
  out.arch = std::move(model.value().arch);
  out.weights = std::move(model.value().weights);
  out.quant = model.value().quant;
  out.label = label;
  return out;
}

Result<FileModel> safetensors_model_from(const CheckpointFiles& files) {
  auto arch = read_hf_config_text(files.config_text);
  if (!arch) return Error{arch.error().id, files.config_name + ": " + arch.error().message};
  FileModel out;
  out.arch = std::move(arch).value();
  out.quant = quant_scheme_from_name("native").value();
  out.label = files.label;
  if (files.shards.empty()) {
    if (!files.index_text) return Error{"cli.file", files.label + ": no safetensors shard or index to read"};
    auto index = read_safetensors_index(*files.index_text);
    if (!index) return Error{index.error().id, files.index_name + ": " + index.error().message};
    auto weights = safetensors_index_weights(out.arch, index.value(), out.arch.warnings);
    if (!weights) return Error{weights.error().id, files.index_name + ": " + weights.error().message};
    out.weights = std::move(weights).value();
    return out;
  }
  std::vector<SafetensorsFile> shards;
  for (const ByteSource& shard : files.shards) {
    auto file = read_safetensors_file(shard);
    if (!file) return file.error();
    shards.push_back(std::move(file).value());
  }
  auto weights = safetensors_weights(out.arch, shards, out.arch.warnings);
  if (!weights) return Error{weights.error().id, files.label + ": " + weights.error().message};
  out.weights = std::move(weights).value();
  return out;
}

Result<FileModel> load_model_files(const Command& c) {
  if (c.gguf_path) return load_gguf(c);
  return load_safetensors(c);
}

}  // namespace llmsizer::cli
