// GGUF header parsing: magic, version, metadata key/values, tensor infos.
// Layout and checks follow ggml's gguf.cpp (gguf_init_from_file_impl): every
// count, length and offset is checked against the bytes it would need before
// anything is allocated, so a header claiming 2^60 tensors costs nothing.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_set>

#include "file_text.hpp"
#include "llmsizer/gguf.hpp"

namespace llmsizer {
namespace {

constexpr std::uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr std::uint32_t kMaxDims = 4;          // GGML_MAX_DIMS
constexpr std::uint64_t kMaxNameBytes = 63;    // GGML_MAX_NAME - 1 (gguf.cpp refuses longer)
constexpr std::uint64_t kMaxKeyBytes = 65535;  // GGUF spec: keys are at most 2^16 - 1 bytes
constexpr std::uint64_t kNoLengthCap = ~std::uint64_t{0};  // values: only the header limit applies
// Smallest encodings, used to refuse counts that cannot fit in the header limit:
// a key/value is a key length, a type and a one-byte value; a tensor info a name
// length, n_dims, a type and an offset.
constexpr std::uint64_t kMinKeyValueBytes = 8 + 4 + 1;
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;
// Parsed structures are several times larger than their bytes: counts are held
// far above real files (about 50 keys; DeepSeek-V3 has about a thousand tensors,
// some 46,000 if its experts were not stacked) and far below what 64 MiB of header could claim.
constexpr std::uint64_t kMaxKeyValues = std::uint64_t{1} << 16;
constexpr std::uint64_t kMaxTensors = std::uint64_t{1} << 18;
constexpr std::uint64_t kMaxStoredIntegers = std::uint64_t{1} << 20;  // over all kept arrays

enum class Step { ok, need_more, failed };

// Scalar widths by GgufValueType; 0 for string and array.
std::uint64_t scalar_bytes(GgufValueType t) {
  switch (t) {
    case GgufValueType::u8: case GgufValueType::i8: case GgufValueType::boolean: return 1;
    case GgufValueType::u16: case GgufValueType::i16: return 2;
    case GgufValueType::u32: case GgufValueType::i32: case GgufValueType::f32: return 4;
    case GgufValueType::u64: case GgufValueType::i64: case GgufValueType::f64: return 8;
    case GgufValueType::string: case GgufValueType::array: return 0;
  }
  return 0;
}

bool is_integer_type(GgufValueType t) {
  return t != GgufValueType::f32 && t != GgufValueType::f64 && t != GgufValueType::string &&
         t != GgufValueType::array;
}

class Parser {
 public:
  Parser(std::string_view bytes, const GgufReadOptions& options) : bytes_(bytes), options_(options) {
    // The header cannot extend past the file or the limit, whichever is first.
    limit_ = static_cast<std::uint64_t>(std::max<std::int64_t>(0, options.max_header_bytes));
    if (options.file_bytes >= 0) limit_ = std::min(limit_, static_cast<std::uint64_t>(options.file_bytes));
  }

  Result<GgufHeaderRead> run();

 private:
  // Makes sure n more bytes are at hand: need_more when the span ends first,
  // an error when the header would pass the file's end or the size limit.
  // Invariant: pos_ <= limit_, as every advance is checked here first.
  Step want(std::uint64_t n) {
    if (n > limit_ - pos_) return beyond_limit(n, "the header");
    if (pos_ + n > bytes_.size()) {
      needed_ = pos_ + n;
      return Step::need_more;
    }
    return Step::ok;
  }
  Step fail(const char* id, std::string message) {
    error_ = Error{id, std::move(message)};
    return Step::failed;
  }
  // n more bytes (what they are for in `what`) do not fit below the limit:
  // the file ends first (truncated) or the header would pass max_header_bytes.
  Step beyond_limit(std::uint64_t n, const std::string& what) {
    const auto max_header = static_cast<std::uint64_t>(std::max<std::int64_t>(0, options_.max_header_bytes));
    const bool under_max = pos_ <= max_header && n <= max_header - pos_;
    if (options_.file_bytes >= 0 && under_max)
      return fail("gguf.truncated", "the file ends at byte " + std::to_string(options_.file_bytes) +
                                        ", inside its GGUF header (" + what + ")");
    return fail("gguf.too_large", what + " would take the GGUF header past the limit of " +
                                      std::to_string(options_.max_header_bytes) + " bytes");
  }
  // Bytes of count items of at least min_bytes each, saturating.
  static std::uint64_t at_least(std::uint64_t count, std::uint64_t min_bytes) {
    return count > ~std::uint64_t{0} / min_bytes ? ~std::uint64_t{0} : count * min_bytes;
  }
  template <typename T>
  T take() {  // callers have checked want(sizeof(T))
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  Step read_u32(std::uint32_t& out) {
    if (Step s = want(4); s != Step::ok) return s;
    out = take<std::uint32_t>();
    return Step::ok;
  }
  Step read_u64(std::uint64_t& out) {
    if (Step s = want(8); s != Step::ok) return s;
    out = take<std::uint64_t>();
    return Step::ok;
  }
  // A string: u64 length then bytes; out == nullptr skips it without a copy.
  Step read_string(std::string* out, std::uint64_t max_length, const char* what) {
    std::uint64_t length = 0;
    if (Step s = read_u64(length); s != Step::ok) return s;
    if (length > max_length)
      return fail("gguf.too_large", std::string(what) + " of " + std::to_string(length) + " bytes is over the limit of " +
                                        std::to_string(max_length));
    if (Step s = want(length); s != Step::ok) return s;
    if (out != nullptr) out->assign(bytes_.data() + pos_, static_cast<std::size_t>(length));
    pos_ += length;
    return Step::ok;
  }
  Step read_value(GgufValueType type, GgufValue& out, bool keep);
  Step read_scalar(GgufValueType type, std::int64_t& integer, double& number);
  Step read_array(GgufValue& out);
  Step read_key_value(GgufFile& file, std::unordered_set<std::string>& keys);
  Step read_tensor_info(GgufFile& file, std::unordered_set<std::string>& names);
  Step finish(GgufFile& file);

  std::string_view bytes_;
  GgufReadOptions options_;
  std::uint64_t limit_ = 0;
  std::uint64_t pos_ = 0;
  std::uint64_t needed_ = 0;
  std::uint64_t stored_integers_ = 0;
  Error error_;
};

Step Parser::read_scalar(GgufValueType type, std::int64_t& integer, double& number) {
  const std::uint64_t width = scalar_bytes(type);
  if (Step s = want(width); s != Step::ok) return s;
  switch (type) {
    case GgufValueType::u8: integer = take<std::uint8_t>(); break;
    case GgufValueType::i8: integer = take<std::int8_t>(); break;
    case GgufValueType::boolean: integer = take<std::uint8_t>() != 0 ? 1 : 0; break;
    case GgufValueType::u16: integer = take<std::uint16_t>(); break;
    case GgufValueType::i16: integer = take<std::int16_t>(); break;
    case GgufValueType::u32: integer = take<std::uint32_t>(); break;
    case GgufValueType::i32: integer = take<std::int32_t>(); break;
    case GgufValueType::i64: integer = take<std::int64_t>(); break;
    case GgufValueType::u64: {
      const std::uint64_t v = take<std::uint64_t>();
      const auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      integer = static_cast<std::int64_t>(v > max ? max : v);
      break;
    }
    case GgufValueType::f32: number = static_cast<double>(take<float>()); return Step::ok;
    case GgufValueType::f64: number = take<double>(); return Step::ok;
    case GgufValueType::string: case GgufValueType::array: return Step::ok;
  }
  number = static_cast<double>(integer);
  return Step::ok;
}

Step Parser::read_array(GgufValue& out) {
  std::uint32_t raw_type = 0;
  if (Step s = read_u32(raw_type); s != Step::ok) return s;
  if (raw_type > static_cast<std::uint32_t>(GgufValueType::f64))
    return fail("gguf.bad_type", "array element type " + std::to_string(raw_type) + " is not a GGUF type");
  const auto element = static_cast<GgufValueType>(raw_type);
  if (element == GgufValueType::array) return fail("gguf.bad_type", "arrays of arrays are not supported by GGUF readers");
  std::uint64_t count = 0;
  if (Step s = read_u64(count); s != Step::ok) return s;
  out.element_type = element;
  out.array_count = count;
  // Every element takes at least its width (8 bytes of length for strings):
  // a count that cannot fit below the limit is refused before any loop.
  const std::uint64_t min_element = element == GgufValueType::string ? 8 : scalar_bytes(element);
  if (count > (limit_ - pos_) / min_element)
    return beyond_limit(at_least(count, min_element), "an array of " + std::to_string(count) + " elements");
  if (element == GgufValueType::string) {
    for (std::uint64_t i = 0; i < count; ++i)
      if (Step s = read_string(nullptr, kNoLengthCap, "a string in an array"); s != Step::ok) return s;
    return Step::ok;
  }
  const std::uint64_t bytes = count * min_element;
  if (!is_integer_type(element) || count > kGgufMaxStoredArray || stored_integers_ + count > kMaxStoredIntegers) {
    if (Step s = want(bytes); s != Step::ok) return s;
    pos_ += bytes;
    return Step::ok;
  }
  if (Step s = want(bytes); s != Step::ok) return s;
  stored_integers_ += count;
  out.integers.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    std::int64_t integer = 0;
    double number = 0.0;
    read_scalar(element, integer, number);  // bytes checked above
    out.integers.push_back(integer);
  }
  return Step::ok;
}

Step Parser::read_value(GgufValueType type, GgufValue& out, bool keep) {
  out.type = type;
  if (type == GgufValueType::string) return read_string(keep ? &out.text : nullptr, kNoLengthCap, "a string value");
  if (type == GgufValueType::array) return read_array(out);
  return read_scalar(type, out.integer, out.number);
}

Step Parser::read_key_value(GgufFile& file, std::unordered_set<std::string>& keys) {
  GgufKeyValue kv;
  if (Step s = read_string(&kv.key, kMaxKeyBytes, "a metadata key"); s != Step::ok) return s;
  if (!keys.insert(kv.key).second) return fail("gguf.duplicate", "metadata key '" + printable(kv.key) + "' appears twice");
  std::uint32_t raw_type = 0;
  if (Step s = read_u32(raw_type); s != Step::ok) return s;
  if (raw_type > static_cast<std::uint32_t>(GgufValueType::f64))
    return fail("gguf.bad_type", "metadata key '" + printable(kv.key) + "' has type " + std::to_string(raw_type) +
                                     ", not a GGUF type");
  if (Step s = read_value(static_cast<GgufValueType>(raw_type), kv.value, true); s != Step::ok) return s;
  file.metadata.push_back(std::move(kv));
  return Step::ok;
}

Step Parser::read_tensor_info(GgufFile& file, std::unordered_set<std::string>& names) {
  GgufTensorInfo t;
  if (Step s = read_string(&t.name, kMaxNameBytes, "a tensor name"); s != Step::ok) return s;
  if (!names.insert(t.name).second) return fail("gguf.duplicate", "tensor '" + printable(t.name) + "' appears twice");
  if (Step s = read_u32(t.n_dims); s != Step::ok) return s;
  if (t.n_dims > kMaxDims)
    return fail("gguf.bad_shape", "tensor '" + printable(t.name) + "' has " + std::to_string(t.n_dims) +
                                      " dimensions; ggml allows at most 4");
  for (std::uint32_t d = 0; d < t.n_dims; ++d) {
    std::uint64_t ne = 0;
    if (Step s = read_u64(ne); s != Step::ok) return s;
    if (ne > static_cast<std::uint64_t>(kMaxTensorDataBytes) * 8)
      return fail("gguf.too_large", "tensor '" + printable(t.name) + "' has a dimension of " + std::to_string(ne));
    t.dims[d] = static_cast<std::int64_t>(ne);
  }
  if (Step s = read_u32(t.ggml_type_id); s != Step::ok) return s;
  const auto type = ggml_type_from_id(t.ggml_type_id);
  if (!type)
    return fail("gguf.bad_type", "tensor '" + printable(t.name) + "' has ggml type " + std::to_string(t.ggml_type_id) +
                                     ", which ggml does not define");
  t.type = *type;
  if (Step s = read_u64(t.offset); s != Step::ok) return s;

  // Elements and bytes, refusing anything above kMaxTensorDataBytes before it can
  // overflow: each dimension is below 2^53, so one checked product at a time.
  const GgmlTypeTraits& traits_of = traits(t.type);
  if (t.dims[0] % traits_of.block_elements != 0)
    return fail("gguf.bad_shape", "tensor '" + printable(t.name) + "' has rows of " + std::to_string(t.dims[0]) +
                                      " elements, not a multiple of the " + std::string(traits_of.name) +
                                      " block of " + std::to_string(traits_of.block_elements));
  std::int64_t elements = 1;
  std::int64_t bytes = t.dims[0] / traits_of.block_elements * traits_of.block_bytes;
  for (std::uint32_t d = 0; d < kMaxDims; ++d) {
    if (__builtin_mul_overflow(elements, t.dims[d], &elements) || elements > kMaxTensorDataBytes * 8)
      return fail("gguf.too_large", "tensor '" + printable(t.name) + "' has more elements than any model");
    if (d > 0 && (__builtin_mul_overflow(bytes, t.dims[d], &bytes) || bytes > kMaxTensorDataBytes))
      return fail("gguf.too_large", "tensor '" + printable(t.name) + "' is larger than 1 PiB");
  }
  if (bytes > kMaxTensorDataBytes) return fail("gguf.too_large", "tensor '" + printable(t.name) + "' is larger than 1 PiB");
  t.bytes = bytes;
  file.tensors.push_back(std::move(t));
  return Step::ok;
}

// Alignment, data offset, and the offsets llama.cpp requires: each tensor
// starts where the previous one ends, padded to the alignment.
Step Parser::finish(GgufFile& file) {
  if (const GgufValue* a = file.find("general.alignment")) {
    if (a->type != GgufValueType::u32 || a->integer <= 0 || (a->integer & (a->integer - 1)) != 0)
      return fail("gguf.bad_value", "general.alignment must be a u32 power of two, got " + std::to_string(a->integer));
    file.alignment = static_cast<std::uint64_t>(a->integer);
  }
  const auto align = static_cast<std::int64_t>(file.alignment);
  auto pad = [align](std::int64_t n) { return (n + align - 1) / align * align; };
  file.header_bytes = static_cast<std::int64_t>(pos_);
  file.data_offset = pad(file.header_bytes);
  std::int64_t expected = 0;
  for (const GgufTensorInfo& t : file.tensors) {
    if (t.offset != static_cast<std::uint64_t>(expected))
      return fail("gguf.bad_offset", "tensor '" + printable(t.name) + "' has offset " + std::to_string(t.offset) +
                                         "; llama.cpp expects " + std::to_string(expected));
    expected += pad(t.bytes);
    file.tensor_bytes += t.bytes;
    if (expected > kMaxTensorDataBytes) return fail("gguf.too_large", "the tensors of this file hold more than 1 PiB");
  }
  file.data_bytes = expected;
  if (options_.file_bytes >= 0 && file.file_bytes() > options_.file_bytes)
    return fail("gguf.truncated", "the file is " + std::to_string(options_.file_bytes) + " bytes but its tensors end at byte " +
                                      std::to_string(file.file_bytes()) + " (an incomplete download?)");
  return Step::ok;
}

Result<GgufHeaderRead> Parser::run() {
  GgufHeaderRead out;
  GgufFile& file = out.file;
  auto stop = [&](Step s) -> Result<GgufHeaderRead> {
    if (s == Step::failed) return error_;
    out.complete = false;
    out.bytes_needed = static_cast<std::int64_t>(needed_);
    out.file = GgufFile{};
    return out;
  };
  std::uint32_t magic = 0;
  if (Step s = read_u32(magic); s != Step::ok) return stop(s);
  if (magic != kMagic) return Error{"gguf.bad_magic", "not a GGUF file: it does not start with 'GGUF'"};
  if (Step s = read_u32(file.version); s != Step::ok) return stop(s);
  if ((file.version & 0xFFFFu) == 0)
    return Error{"gguf.bad_version", "this GGUF file is big-endian; only little-endian files are read"};
  if (file.version != 2 && file.version != 3)
    return Error{"gguf.bad_version", "GGUF version " + std::to_string(file.version) + " is not supported (2 and 3 are)"};
  std::uint64_t n_tensors = 0;
  std::uint64_t n_kv = 0;
  if (Step s = read_u64(n_tensors); s != Step::ok) return stop(s);
  if (Step s = read_u64(n_kv); s != Step::ok) return stop(s);
  if (n_tensors > kMaxTensors)
    return Error{"gguf.too_large", "the header claims " + std::to_string(n_tensors) + " tensors; at most " +
                                       std::to_string(kMaxTensors) + " are read"};
  if (n_kv > kMaxKeyValues)
    return Error{"gguf.too_large", "the header claims " + std::to_string(n_kv) + " metadata keys; at most " +
                                       std::to_string(kMaxKeyValues) + " are read"};
  // Counts that could not fit below the limit are refused before any loop.
  const std::uint64_t room = limit_ - pos_;
  if (n_tensors > room / kMinTensorInfoBytes)
    return stop(beyond_limit(at_least(n_tensors, kMinTensorInfoBytes), std::to_string(n_tensors) + " tensors"));
  if (n_kv > room / kMinKeyValueBytes)
    return stop(beyond_limit(at_least(n_kv, kMinKeyValueBytes), std::to_string(n_kv) + " metadata keys"));
  std::unordered_set<std::string> keys;
  for (std::uint64_t i = 0; i < n_kv; ++i)
    if (Step s = read_key_value(file, keys); s != Step::ok) return stop(s);
  std::unordered_set<std::string> names;
  for (std::uint64_t i = 0; i < n_tensors; ++i)
    if (Step s = read_tensor_info(file, names); s != Step::ok) return stop(s);
  if (Step s = finish(file); s != Step::ok) return stop(s);
  out.complete = true;
  out.bytes_needed = file.header_bytes;
  return out;
}

}  // namespace

bool GgufValue::is_integer() const { return type != GgufValueType::array && is_integer_type(type); }

bool GgufValue::is_number() const {
  return type != GgufValueType::array && type != GgufValueType::string;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const GgufKeyValue& kv : metadata)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

Result<GgufHeaderRead> read_gguf_header(std::string_view bytes, const GgufReadOptions& options) {
  return Parser(bytes, options).run();
}

}  // namespace llmsizer
