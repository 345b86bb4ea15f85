// Safetensors header and index parsing, with the checks of the safetensors
// library (safetensors/src/tensor.rs, Metadata::validate): a bounded header
// length, a JSON object, dtype x shape equal to each tensor's byte range, and
// ranges that tile the data section from 0 without gaps or overlaps.
//
// The JSON is read with a SAX pass that keeps only what is needed (no document
// tree), with bounded nesting and array lengths: a hostile header of 100 MB
// costs about its own size in memory, not ten times more.
#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>

// nlohmann's SAX reader: a header of 100,000 tensors is checked as it streams,
// without building the tree llmsizer::Json (the same library) would hold.
#include <nlohmann/json.hpp>

#include "file_text.hpp"
#include "llmsizer/safetensors.hpp"

namespace llmsizer {
namespace {

using SaxJson = nlohmann::json;

constexpr std::size_t kMaxShapeRank = 16;          // torch allows 64; real weights have at most 5
constexpr std::size_t kMaxMetadataEntries = 1024;  // real files: "format": "pt" and a few more
constexpr std::size_t kMaxShards = 65536;          // real indexes: at most a few hundred

struct DtypeBits {
  const char* name;
  std::int64_t bits;
};
// safetensors Dtype and its bitsize.
constexpr DtypeBits kDtypes[] = {
    {"BOOL", 8},    {"U8", 8},       {"I8", 8},      {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8},
    {"I16", 16},    {"U16", 16},     {"F16", 16},    {"BF16", 16},   {"I32", 32},    {"U32", 32},
    {"F32", 32},    {"F64", 64},     {"I64", 64},    {"U64", 64},    {"C64", 64},    {"F4", 4},
    {"F6_E2M3", 6}, {"F6_E3M2", 6},
};

std::int64_t dtype_bits(const std::string& dtype) {
  for (const DtypeBits& d : kDtypes)
    if (dtype == d.name) return d.bits;
  return 0;
}

// A JSON number as a size: non-negative, whole, at most max; -1 otherwise.
struct Size {
  std::int64_t value = -1;
};

// One tensor entry as the JSON gave it, before its checks.
struct RawEntry {
  std::string name;
  std::optional<std::string> dtype;
  std::optional<std::vector<Size>> shape;
  std::optional<std::vector<Size>> offsets;
  std::string fault;  // set when a field has the wrong JSON type
};

Error bad_header(const std::string& tensor, const std::string& what) {
  return Error{"safetensors.bad_header", "tensor '" + printable(tensor) + "' " + what};
}

Result<SafetensorsTensor> check_entry(const RawEntry& e) {
  SafetensorsTensor t;
  t.name = e.name;
  if (!e.fault.empty()) return bad_header(e.name, e.fault);
  if (!e.dtype) return bad_header(e.name, "has no dtype string");
  if (!e.shape) return bad_header(e.name, "has no shape array");
  if (!e.offsets || e.offsets->size() != 2) return bad_header(e.name, "has no data_offsets pair");
  t.dtype = *e.dtype;
  const std::int64_t bits = dtype_bits(t.dtype);
  if (bits == 0)
    return Error{"safetensors.bad_dtype", "tensor '" + printable(e.name) + "' has dtype '" + printable(t.dtype) +
                                              "', which safetensors does not define"};
  std::int64_t elements = 1;
  for (const Size& d : *e.shape) {
    if (d.value < 0) return bad_header(e.name, "has a shape entry that is not a size");
    if (__builtin_mul_overflow(elements, d.value, &elements) || elements > kMaxTensorDataBytes * 8)
      return Error{"safetensors.too_large", "tensor '" + printable(e.name) + "' has more elements than any model"};
    t.shape.push_back(d.value);
  }
  t.begin = (*e.offsets)[0].value;
  t.end = (*e.offsets)[1].value;
  if (t.begin < 0 || t.end < 0 || t.end < t.begin || t.end > kMaxTensorDataBytes)
    return Error{"safetensors.bad_offsets", "tensor '" + printable(e.name) + "' has data_offsets outside 0..1 PiB or reversed"};
  // Sub-byte dtypes (F4, F6) must fill whole bytes, as the library requires.
  const std::int64_t total_bits = elements * bits;
  if (total_bits % 8 != 0 || total_bits / 8 != t.bytes())
    return Error{"safetensors.bad_offsets", "tensor '" + printable(e.name) + "' holds " + std::to_string(t.bytes()) +
                                                " bytes but " + t.dtype + " x its shape needs " +
                                                std::to_string(total_bits / 8)};
  return t;
}

// SAX events common to both readers: numbers as sizes, failures recorded.
class Handler : public nlohmann::json_sax<SaxJson> {
 public:
  bool binary(binary_t&) override { return fail("safetensors.not_json", "binary values are not JSON"); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return fail("safetensors.not_json", not_json_);
  }
  const std::optional<Error>& error() const { return error_; }

 protected:
  explicit Handler(std::string not_json) : not_json_(std::move(not_json)) {}
  bool fail(const char* id, std::string message) {
    if (!error_) error_ = Error{id, std::move(message)};
    return false;
  }
  static Size size_of(std::int64_t v) { return Size{v >= 0 && v <= kMaxTensorDataBytes * 8 ? v : -1}; }
  static Size size_of(std::uint64_t v) {
    return Size{v <= static_cast<std::uint64_t>(kMaxTensorDataBytes) * 8 ? static_cast<std::int64_t>(v) : -1};
  }
  static Size size_of(double v) {
    if (!(v >= 0.0 && v <= static_cast<double>(kMaxTensorDataBytes) * 8)) return Size{};  // NaN too
    const auto whole = static_cast<std::int64_t>(v);
    return Size{static_cast<double>(whole) == v ? whole : -1};
  }
  int depth_ = 0;

 private:
  std::string not_json_;
  std::optional<Error> error_;
};

// The header: { name: {dtype, shape, data_offsets}, ..., "__metadata__": {k: v} }.
class HeaderHandler : public Handler {
 public:
  explicit HeaderHandler(SafetensorsFile& file) : Handler("the safetensors header is not valid JSON"), file_(file) {}

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2) {
      if (!in_metadata_) {
        entry_ = RawEntry{};
        entry_.name = key_;
      }
      return true;
    }
    return reject_nesting();
  }
  bool end_object() override {
    --depth_;
    if (depth_ == 1 && !in_metadata_) {
      auto t = check_entry(entry_);
      if (!t) return fail(t.error().id.c_str(), t.error().message);
      file_.tensors.push_back(std::move(t).value());
    }
    if (depth_ == 1) in_metadata_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ != 3 || in_metadata_) return depth_ == 1 ? fail("safetensors.not_json", "the safetensors header is not a JSON object")
                                                         : reject_nesting();
    if (field_ == "shape") entry_.shape.emplace();
    else if (field_ == "data_offsets") entry_.offsets.emplace();
    else entry_.fault = "has an array in field '" + printable(field_) + "'";
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      if (!names_.insert(k).second) return fail("safetensors.bad_header", "tensor '" + printable(k) + "' appears twice");
      key_ = k;
      in_metadata_ = k == "__metadata__";
    } else {
      field_ = k;
      metadata_key_ = k;
    }
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 2 && in_metadata_) {
      if (file_.metadata.size() < kMaxMetadataEntries) file_.metadata.emplace_back(metadata_key_, v);
      return true;
    }
    if (depth_ == 2 && field_ == "dtype") {
      entry_.dtype = v;
      return true;
    }
    return other_scalar();
  }
  bool null() override { return other_scalar(); }
  bool boolean(bool) override { return other_scalar(); }
  bool number_integer(number_integer_t v) override { return number(size_of(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(size_of(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(size_of(v)); }

 private:
  bool number(Size s) {
    if (depth_ == 3 && !in_metadata_) {
      std::vector<Size>* list = field_ == "shape" ? entry_.shape ? &*entry_.shape : nullptr
                                : field_ == "data_offsets" && entry_.offsets ? &*entry_.offsets : nullptr;
      if (list == nullptr) return true;
      if (list->size() >= kMaxShapeRank) return fail("safetensors.bad_header", "tensor '" + printable(entry_.name) +
                                                                                   "' has more than 16 dimensions or offsets");
      list->push_back(s);
      return true;
    }
    return other_scalar();
  }
  // Other scalars: ignored in an entry's unknown fields, wrong everywhere else.
  bool other_scalar() {
    if (depth_ == 2 && in_metadata_) return fail("safetensors.bad_header", "__metadata__ holds a value that is not a string");
    if (depth_ == 2) {
      if (field_ == "dtype" || field_ == "shape" || field_ == "data_offsets") entry_.fault = "has a wrong type for " + field_;
      return true;
    }
    if (depth_ == 3) {  // non-numbers in shape or data_offsets
      if (field_ == "shape" || field_ == "data_offsets") entry_.fault = "has a " + field_ + " entry that is not a size";
      return true;
    }
    return scalar_outside();
  }
  bool scalar_outside() {
    if (depth_ == 1)
      return fail("safetensors.bad_header",
                  in_metadata_ ? "__metadata__ is not an object" : "tensor '" + printable(key_) + "' is not an object");
    return fail("safetensors.not_json", "the safetensors header is not a JSON object");
  }
  bool reject_nesting() {
    return fail("safetensors.bad_header", "the header nests deeper than a safetensors header does (at '" +
                                              printable(depth_ >= 2 ? field_ : key_) + "')");
  }

  SafetensorsFile& file_;
  RawEntry entry_;
  std::unordered_set<std::string> names_;
  std::string key_;           // current top-level key
  std::string field_;         // current key inside an entry
  std::string metadata_key_;  // current key inside __metadata__
  bool in_metadata_ = false;
};

// The index: {"metadata": {"total_size": N, ...}, "weight_map": {name: file}, ...}.
class IndexHandler : public Handler {
 public:
  explicit IndexHandler(SafetensorsIndex& index) : Handler("the safetensors index is not valid JSON"), index_(index) {}

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && top_ == "weight_map") saw_map_ = true;
    if (depth_ == 3 && top_ == "weight_map")
      return fail("safetensors.bad_index", "weight_map maps '" + printable(inner_) + "' to no file name");
    return depth_ <= 8 || fail("safetensors.bad_index", "the index nests deeper than an index does");
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 1) return fail("safetensors.not_json", "the safetensors index is not a JSON object");
    if (depth_ == 2 && top_ == "weight_map") return fail("safetensors.bad_index", "weight_map is not an object");
    if (depth_ == 3 && top_ == "weight_map")
      return fail("safetensors.bad_index", "weight_map maps '" + printable(inner_) + "' to no file name");
    return depth_ <= 8 || fail("safetensors.bad_index", "the index nests deeper than an index does");
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) top_ = k;
    if (depth_ == 2) inner_ = k;
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 2 && top_ == "weight_map") {
      // Shards sit beside the index: a path would point elsewhere.
      if (v.empty() || v.size() > 255 || v.find('/') != std::string::npos || v.find('\\') != std::string::npos ||
          v == "." || v == "..")
        return fail("safetensors.bad_index", "weight_map names '" + printable(v) + "', which is not a file name");
      shards_.insert(v);
      if (shards_.size() > kMaxShards) return fail("safetensors.bad_index", "weight_map names more than 65536 files");
      ++index_.tensor_count;
      return true;
    }
    return other();
  }
  bool null() override { return other(); }
  bool boolean(bool) override { return other(); }
  bool number_integer(number_integer_t v) override { return total(size_of(v)); }
  bool number_unsigned(number_unsigned_t v) override { return total(size_of(v)); }
  bool number_float(number_float_t v, const string_t&) override { return total(size_of(v)); }

  bool finish() {
    if (!saw_map_) return fail("safetensors.bad_index", "the safetensors index has no weight_map object");
    index_.shards.assign(shards_.begin(), shards_.end());
    return true;
  }

 private:
  bool total(Size s) {
    if (depth_ == 2 && top_ == "metadata" && inner_ == "total_size") {
      if (s.value < 0 || s.value > kMaxTensorDataBytes) return fail("safetensors.bad_index", "metadata.total_size is not a byte count");
      index_.total_size = s.value;
      return true;
    }
    return other();
  }
  bool other() {
    if (depth_ == 0) return fail("safetensors.not_json", "the safetensors index is not a JSON object");
    if (depth_ == 2 && top_ == "weight_map")
      return fail("safetensors.bad_index", "weight_map maps '" + printable(inner_) + "' to no file name");
    if (depth_ == 2 && top_ == "metadata" && inner_ == "total_size")
      return fail("safetensors.bad_index", "metadata.total_size is not a byte count");
    if (depth_ == 1 && top_ == "weight_map") return fail("safetensors.bad_index", "weight_map is not an object");
    return true;  // other fields of the index are not ours to judge
  }

  SafetensorsIndex& index_;
  std::set<std::string> shards_;
  std::string top_;
  std::string inner_;
  bool saw_map_ = false;
};

}  // namespace

Result<SafetensorsHeaderRead> read_safetensors_header(std::string_view bytes, const SafetensorsReadOptions& options) {
  SafetensorsHeaderRead out;
  auto truncated = [&](std::int64_t needed) -> std::optional<Error> {
    if (options.file_bytes >= 0 && needed > options.file_bytes)
      return Error{"safetensors.truncated", "the file ends at byte " + std::to_string(options.file_bytes) +
                                                ", inside its header"};
    return std::nullopt;
  };
  if (bytes.size() < 8) {
    if (auto e = truncated(8)) return *e;
    out.bytes_needed = 8;
    return out;
  }
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (length > static_cast<std::uint64_t>(std::max<std::int64_t>(0, options.max_header_bytes)))
    return Error{"safetensors.too_large", "the safetensors header claims " + std::to_string(length) +
                                              " bytes, above the limit of " + std::to_string(options.max_header_bytes)};
  const auto needed = static_cast<std::int64_t>(8 + length);
  if (auto e = truncated(needed)) return *e;
  if (static_cast<std::int64_t>(bytes.size()) < needed) {
    out.bytes_needed = needed;
    return out;
  }
  const std::string_view text = bytes.substr(8, static_cast<std::size_t>(length));
  if (text.empty() || text.front() != '{')
    return Error{"safetensors.not_json", "not a safetensors file: the header does not start with '{'"};

  SafetensorsFile& file = out.file;
  file.header_bytes = needed;
  HeaderHandler handler(file);
  if (!SaxJson::sax_parse(text.begin(), text.end(), &handler)) {
    if (handler.error()) return *handler.error();
    return Error{"safetensors.not_json", "the safetensors header is not valid JSON"};
  }
  // The ranges must tile [0, end) in order of their start.
  std::vector<const SafetensorsTensor*> by_offset;
  for (const auto& t : file.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::int64_t expected = 0;
  for (const SafetensorsTensor* t : by_offset) {
    if (t->begin != expected)
      return Error{"safetensors.bad_offsets", "tensor '" + printable(t->name) + "' starts at " + std::to_string(t->begin) +
                                                  " where " + std::to_string(expected) + " was expected (a gap or an overlap)"};
    expected = t->end;
  }
  file.tensor_bytes = expected;
  if (options.file_bytes >= 0 && file.file_bytes() > options.file_bytes)
    return Error{"safetensors.truncated", "the file is " + std::to_string(options.file_bytes) + " bytes but its tensors end at byte " +
                                              std::to_string(file.file_bytes()) + " (an incomplete download?)"};
  out.complete = true;
  out.bytes_needed = needed;
  return out;
}

Result<SafetensorsIndex> read_safetensors_index(std::string_view text) {
  SafetensorsIndex out;
  IndexHandler handler(out);
  if (!SaxJson::sax_parse(text.begin(), text.end(), &handler) || !handler.finish()) {
    if (handler.error()) return *handler.error();
    return Error{"safetensors.not_json", "the safetensors index is not valid JSON"};
  }
  return out;
}

}  // namespace llmsizer
