// One model from the headers of its GGUF files: the parts of a split set put
// together (gguf-split writes split.no / split.count / split.tensors.count in
// every part and the model's metadata in part 0), then the architecture and the
// exact weights.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <unordered_set>

#include "file_text.hpp"
#include "gguf_internal.hpp"

namespace llmsizer {
namespace {

using namespace gguf_detail;

constexpr std::int64_t kMaxSplits = 9999;  // gguf-split names parts -NNNNN-of-NNNNN
// Each part is below 2^51 bytes (the reader's limits); the set as a whole is held
// to 4 PiB so that sums of bytes, and of elements, stay far inside 64 bits.
constexpr std::int64_t kMaxSetBytes = std::int64_t{1} << 52;

struct SplitInfo {
  std::int64_t number = 0;  // split.no, from 0
  std::int64_t count = 1;   // split.count
};

SplitInfo split_info(const GgufFile& f) {
  SplitInfo s;
  const GgufValue* no = f.find("split.no");
  const GgufValue* count = f.find("split.count");
  if (no != nullptr && no->is_integer()) s.number = no->integer;
  if (count != nullptr && count->is_integer()) s.count = count->integer;
  return s;
}

// general.file_type (enum llama_ftype in llama.h) to the file type's name.
struct FileTypeName {
  std::int64_t id;
  const char* name;
};
constexpr std::array<FileTypeName, 33> kFileTypes = {{
    {0, "F32"},     {1, "F16"},      {2, "Q4_0"},    {3, "Q4_1"},    {7, "Q8_0"},    {8, "Q5_0"},
    {9, "Q5_1"},    {10, "Q2_K"},    {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"},
    {15, "Q4_K_M"}, {16, "Q5_K_S"},  {17, "Q5_K_M"}, {18, "Q6_K"},   {19, "IQ2_XXS"}, {20, "IQ2_XS"},
    {21, "Q2_K_S"}, {22, "IQ3_XS"},  {23, "IQ3_XXS"}, {24, "IQ1_S"}, {25, "IQ4_NL"}, {26, "IQ3_S"},
    {27, "IQ3_M"},  {28, "IQ2_S"},   {29, "IQ2_M"},  {30, "IQ4_XS"}, {31, "IQ1_M"},  {32, "BF16"},
    {36, "TQ1_0"},  {37, "TQ2_0"},   {38, "MXFP4_MOE"},
}};

QuantScheme file_quant(const GgufFile& meta) {
  QuantScheme scheme;
  scheme.name = "GGUF";
  scheme.kind = SchemeKind::gguf;
  const GgufValue* ft = meta.find("general.file_type");
  if (ft == nullptr || !ft->is_integer()) return scheme;
  const std::int64_t id = ft->integer & ~std::int64_t{1024};  // LLAMA_FTYPE_GUESSED flag
  for (const FileTypeName& t : kFileTypes) {
    if (t.id != id) continue;
    auto named = quant_scheme_from_name(t.name);
    if (named) return named.value();
  }
  return scheme;
}

std::string text_of(const GgufFile& meta, const char* key) {
  const GgufValue* v = meta.find(key);
  return v != nullptr && v->type == GgufValueType::string ? v->text.substr(0, 256) : std::string();
}

// Orders the parts, or says what is wrong with the set.
Result<std::vector<const GgufFile*>> order_parts(const std::vector<GgufFile>& files) {
  if (files.empty()) return Error{"gguf.split", "no GGUF file was given"};
  const SplitInfo first = split_info(files.front());
  const std::int64_t count = first.count;
  if (count < 1 || count > kMaxSplits) return Error{"gguf.split", "split.count is " + std::to_string(count)};
  std::vector<const GgufFile*> parts(static_cast<std::size_t>(count), nullptr);
  for (const GgufFile& f : files) {
    const SplitInfo s = split_info(f);
    if (s.count != count)
      return Error{"gguf.split", "the files come from different split sets (split.count " + std::to_string(count) +
                                     " and " + std::to_string(s.count) + ")"};
    if (s.number < 0 || s.number >= count)
      return Error{"gguf.split", "split.no " + std::to_string(s.number) + " is outside a set of " + std::to_string(count)};
    const auto slot = static_cast<std::size_t>(s.number);
    if (parts[slot] != nullptr)
      return Error{"gguf.split", "part " + std::to_string(s.number + 1) + " of " + std::to_string(count) + " was given twice"};
    parts[slot] = &f;
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (parts[i] == nullptr)
      return Error{"gguf.split", "part " + std::to_string(i + 1) + " of " + std::to_string(count) +
                                     " is missing: a split GGUF is read from all its parts"};
  return parts;
}

}  // namespace

Result<GgufModel> gguf_model(const std::vector<GgufFile>& files) {
  auto ordered = order_parts(files);
  if (!ordered) return ordered.error();
  const std::vector<const GgufFile*>& parts = ordered.value();
  const GgufFile& meta = *parts.front();

  std::int64_t n_tensors = 0;
  std::int64_t file_bytes = 0;
  std::unordered_set<std::string_view> names;
  for (const GgufFile* part : parts) {
    n_tensors += static_cast<std::int64_t>(part->tensors.size());
    file_bytes += part->file_bytes();
    if (file_bytes > kMaxSetBytes) return Error{"gguf.too_large", "the files of this model hold more than 4 PiB"};
    for (const GgufTensorInfo& t : part->tensors)
      if (!names.insert(t.name).second)
        return Error{"gguf.duplicate", "tensor '" + printable(t.name) + "' is in two parts of the split set"};
  }
  if (parts.size() > 1) {
    const GgufValue* declared = meta.find("split.tensors.count");
    if (declared != nullptr && declared->is_integer() && declared->integer != n_tensors)
      return Error{"gguf.split", "split.tensors.count says " + std::to_string(declared->integer) + " tensors but the parts hold " +
                                     std::to_string(n_tensors)};
  }

  const TensorIndex index = index_tensors(parts);
  auto arch = build_architecture(meta, index);
  if (!arch) return arch.error();
  GgufModel model;
  model.arch = std::move(arch).value();
  model.weights = measure_weights(model.arch, index, file_bytes, model.kind_bytes, model.arch.warnings);
  model.quant = file_quant(meta);
  model.name = text_of(meta, "general.name");
  model.architecture = model.arch.model_type;
  model.split_count = static_cast<int>(parts.size());

  std::map<std::string, GgufTypeBytes> by_type;
  for (const NamedTensor& t : index.all) {
    GgufTypeBytes& entry = by_type[std::string(traits(t.info->type).name)];
    entry.type = traits(t.info->type).name;
    entry.tensors += 1;
    entry.bytes += t.info->bytes;
  }
  for (auto& [type, entry] : by_type) model.type_bytes.push_back(entry);
  std::stable_sort(model.type_bytes.begin(), model.type_bytes.end(),
                   [](const GgufTypeBytes& a, const GgufTypeBytes& b) { return a.bytes > b.bytes; });
  return model;
}

Result<GgufModelRead> read_gguf_model(const std::vector<GgufPart>& parts, std::int64_t max_header_bytes) {
  GgufModelRead out;
  std::vector<GgufFile> files;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    GgufReadOptions options;
    options.max_header_bytes = max_header_bytes;
    options.file_bytes = parts[i].file_bytes;
    auto r = read_gguf_header(parts[i].bytes, options);
    const std::string who = parts[i].name.empty() ? "file " + std::to_string(i + 1) : printable(parts[i].name, 120);
    if (!r) return Error{r.error().id, who + ": " + r.error().message};
    out.bytes_needed.push_back(r.value().complete ? 0 : r.value().bytes_needed);
    if (r.value().complete) files.push_back(std::move(r).value().file);
  }
  if (files.size() < parts.size()) return out;
  auto model = gguf_model(files);
  if (!model) return model.error();
  out.complete = true;
  out.model = std::move(model).value();
  return out;
}

}  // namespace llmsizer
