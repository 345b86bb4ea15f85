#include "llmsizer/json.hpp"

#include "decimal_to_double.hpp"
#include "llmsizer/name_index.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

// nlohmann's shortest round-trip double formatting (Grisu2), alone: the same
// digits as before the engine had its own JSON type.
#include <nlohmann/detail/conversions/to_chars.hpp>
#include <nlohmann/detail/macro_unscope.hpp>

namespace llmsizer {

Json::Json(const Json& other) : kind_(other.kind_), v_(other.v_) {
  switch (kind_) {
    case Kind::string: v_.s = new std::string(*other.v_.s); break;
    case Kind::array: v_.a = new array_t(*other.v_.a); break;
    case Kind::object: v_.o = new object_t(*other.v_.o); break;
    default: break;
  }
}

void Json::release() noexcept {
  switch (kind_) {
    case Kind::string: delete v_.s; break;
    case Kind::array: delete v_.a; break;
    case Kind::object: delete v_.o; break;
    default: break;
  }
}

std::int64_t Json::as_int64() const noexcept {
  switch (kind_) {
    case Kind::integer: return v_.i;
    case Kind::unsigned_integer:
      return v_.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(v_.u);
    case Kind::number:
      // Saturated: a cast of a double outside int64's range is undefined.
      if (!(v_.d == v_.d)) return 0;
      if (v_.d >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
      if (v_.d <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
      return static_cast<std::int64_t>(v_.d);
    case Kind::boolean: return v_.b ? 1 : 0;
    default: return 0;
  }
}

double Json::as_double() const noexcept {
  switch (kind_) {
    case Kind::integer: return static_cast<double>(v_.i);
    case Kind::unsigned_integer: return static_cast<double>(v_.u);
    case Kind::number: return v_.d;
    case Kind::boolean: return v_.b ? 1.0 : 0.0;
    default: return 0.0;
  }
}

std::size_t Json::size() const noexcept {
  switch (kind_) {
    case Kind::null: return 0;
    case Kind::array: return v_.a->size();
    case Kind::object: return v_.o->size();
    default: return 1;
  }
}

Json::iterator Json::find(std::string_view key) {
  if (kind_ == Kind::object)
    for (std::size_t i = 0; i < v_.o->size(); ++i)
      if ((*v_.o)[i].first == key) return iterator(this, i);
  return end();
}

Json::const_iterator Json::find(std::string_view key) const {
  if (kind_ == Kind::object)
    for (std::size_t i = 0; i < v_.o->size(); ++i)
      if ((*v_.o)[i].first == key) return const_iterator(this, i);
  return end();
}

std::size_t Json::erase(std::string_view key) {
  if (kind_ != Kind::object) return 0;
  for (auto it = v_.o->begin(); it != v_.o->end(); ++it)
    if (it->first == key) {
      v_.o->erase(it);
      return 1;
    }
  return 0;
}

Json& Json::operator[](std::string_view key) {
  object_t& entries = *mutable_ptr<object_t>();
  for (auto& [name, value] : entries)
    if (name == key) return value;
  return entries.emplace_back(std::string(key), Json()).second;
}

const Json& Json::operator[](std::string_view key) const {
  static const Json none;
  auto it = find(key);
  return it != end() ? *it : none;
}

bool operator==(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      const bool a_neg = a.kind_ == Json::Kind::integer && a.v_.i < 0;
      const bool b_neg = b.kind_ == Json::Kind::integer && b.v_.i < 0;
      return a_neg == b_neg && a.v_.u == b.v_.u;  // same sign: the same two's-complement bits
    }
    return a.as_double() == b.as_double();
  }
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Json::Kind::null: return true;
    case Json::Kind::boolean: return a.v_.b == b.v_.b;
    case Json::Kind::string: return *a.v_.s == *b.v_.s;
    case Json::Kind::array: return *a.v_.a == *b.v_.a;
    case Json::Kind::object: return *a.v_.o == *b.v_.o;
    default: return false;
  }
}

// ---------------------------------------------------------------------------
// Parsing: recursive descent over RFC 8259, with nlohmann's results (integers
// that fit int64 or uint64 stay integers, others are read as strtod would, and one
// that overflows a double is an error; a repeated key keeps its first place
// and its last value).

namespace {

constexpr int kMaxDepth = 512;

// The UTF-8 sequence at p, by Unicode's table 3-7: `length`, the bytes its
// lead byte announces (0: not a lead byte), and `valid`, how many of them,
// from the first and within the `left` bytes there are, are well-formed. The
// sequence is well-formed when valid == length. The reader refuses the rest;
// the writer replaces them.
struct Utf8Prefix {
  std::size_t length;
  std::size_t valid;
};
Utf8Prefix utf8_prefix(const unsigned char* p, std::size_t left) {
  const unsigned char c = p[0];
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;   // no overlong forms
    if (c == 0xED) high = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;   // no overlong forms
    if (c == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  }
  if (length == 0) return {0, 0};
  std::size_t valid = 1;
  while (valid < length && valid < left) {
    const unsigned char next = p[valid];
    if (valid == 1 ? next < low || next > high : next < 0x80 || next > 0xBF) break;
    ++valid;
  }
  return {length, valid};
}

class Parser {
 public:
  explicit Parser(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool document(Json& out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool literal(const char* word, std::size_t length) {
    if (static_cast<std::size_t>(end_ - p_) < length || std::memcmp(p_, word, length) != 0) return false;
    p_ += length;
    return true;
  }

  bool value(Json& out, int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return object(out, depth + 1);
      case '[': return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = Json(std::move(s));
        return true;
      }
      case 't':
        out = Json(true);
        return literal("true", 4);
      case 'f':
        out = Json(false);
        return literal("false", 5);
      case 'n':
        out = Json();
        return literal("null", 4);
      default: return number(out);
    }
  }

  bool object(Json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '{'
    Json::object_t entries;
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      out = Json(std::move(entries));
      return true;
    }
    for (;;) {
      skip_space();
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_space();
      entries.emplace_back(std::move(key), Json());
      if (!value(entries.back().second, depth)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != '}') return false;
      ++p_;
      merge_repeated_keys(entries);
      out = Json(std::move(entries));
      return true;
    }
  }

  // A repeated key keeps its first place and takes its last value. A small
  // object is scanned; a large one (a pasted config.json may hold 100,000
  // keys) is sorted, so that this costs n log n, not n squared.
  static void merge_repeated_keys(Json::object_t& entries) {
    const std::size_t n = entries.size();
    char small[16] = {};
    std::vector<char> large(n > 16 ? n : 0, 0);
    char* repeated = n > 16 ? large.data() : small;
    bool any = false;
    if (n <= 16) {
      for (std::size_t i = 1; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (!repeated[j] && entries[j].first == entries[i].first) {
            entries[j].second = std::move(entries[i].second);
            repeated[i] = 1;
            any = true;
            break;
          }
    } else {
      std::vector<std::uint32_t> order(n);
      for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
      stable_sort_indices(
          order,
          [](const void* context, std::uint32_t a, std::uint32_t b) {
            const auto& e = *static_cast<const Json::object_t*>(context);
            return e[a].first < e[b].first;
          },
          &entries);
      for (std::size_t run = 0; run < n;) {
        std::size_t end = run + 1;
        while (end < n && entries[order[end]].first == entries[order[run]].first) ++end;
        if (end - run > 1) {
          entries[order[run]].second = std::move(entries[order[end - 1]].second);
          for (std::size_t k = run + 1; k < end; ++k) repeated[order[k]] = 1;
          any = true;
        }
        run = end;
      }
    }
    if (!any) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!repeated[i]) {
        if (kept != i) entries[kept] = std::move(entries[i]);
        ++kept;
      }
    entries.resize(kept);
  }

  bool array(Json& out, int depth) {
    if (depth > kMaxDepth) return false;
    ++p_;  // '['
    Json::array_t items;
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      out = Json(std::move(items));
      return true;
    }
    for (;;) {
      skip_space();
      items.emplace_back();
      if (!value(items.back(), depth)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != ']') return false;
      ++p_;
      out = Json(std::move(items));
      return true;
    }
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool hex4(std::uint32_t& out) {
    if (end_ - p_ < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit(p_[i]);
      if (d < 0) return false;
      out = out * 16 + static_cast<std::uint32_t>(d);
    }
    p_ += 4;
    return true;
  }
  static void append_utf8(std::string& s, std::uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  // The length of the well-formed UTF-8 sequence at p_, or 0.
  std::size_t utf8_length() const {
    const Utf8Prefix u = utf8_prefix(reinterpret_cast<const unsigned char*>(p_), static_cast<std::size_t>(end_ - p_));
    return u.length != 0 && u.valid == u.length ? u.length : 0;
  }

  bool string(std::string& out) {
    ++p_;  // '"'
    for (;;) {
      // The run of plain characters, copied at once.
      const char* run = p_;
      while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20 &&
             static_cast<unsigned char>(*p_) < 0x80)
        ++p_;
      out.append(run, static_cast<std::size_t>(p_ - run));
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return false;  // control characters must be escaped
      if (c >= 0x80) {
        const std::size_t n = utf8_length();
        if (n == 0) return false;
        out.append(p_, n);
        p_ += n;
        continue;
      }
      ++p_;  // '\\'
      if (p_ == end_) return false;
      switch (*p_++) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a lone low surrogate
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t low;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: return false;
      }
    }
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  bool number(Json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !digit(*p_)) return false;
    if (*p_ == '0') ++p_;
    else
      while (p_ != end_ && digit(*p_)) ++p_;
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (integer) {
      // Digits accumulated with an overflow check; beyond 64 bits the number
      // is read as a double, as nlohmann did.
      std::uint64_t magnitude = 0;
      bool fits = true;
      for (const char* d = start + (negative ? 1 : 0); d != p_; ++d) {
        const auto digit_value = static_cast<std::uint64_t>(*d - '0');
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - digit_value) / 10) {
          fits = false;
          break;
        }
        magnitude = magnitude * 10 + digit_value;
      }
      if (fits && !negative) {
        out = Json(magnitude);
        return true;
      }
      constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
      if (fits && magnitude <= kMinMagnitude) {
        out = Json(magnitude == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                              : -static_cast<std::int64_t>(magnitude));
        return true;
      }
    }
    const double d = decimal_to_double(std::string_view(start, static_cast<std::size_t>(p_ - start)));
    if (!std::isfinite(d)) return false;  // 1e999: refused, as nlohmann did
    out = Json(d);
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

Json Json::parse(std::string_view text) {
  Json out;
  Parser parser(text);
  if (!parser.document(out)) return discarded();
  return out;
}

// ---------------------------------------------------------------------------
// Writing, as nlohmann's serializer with ensure_ascii off and invalid UTF-8
// replaced.

namespace {

void write_string(std::string& out, const std::string& s) {
  out += '"';
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // The run of characters written as they are, appended at once.
    std::size_t run = i;
    while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\') ++run;
    if (run != i) {
      out.append(s, i, run - i);
      i = run;
      continue;
    }
    const unsigned char c = u[i];
    if (c >= 0x80) {
      // A well-formed sequence is copied; a bad one becomes U+FFFD and its
      // offending byte, when not the first, starts the next sequence (the
      // behaviour of nlohmann's decoder).
      const Utf8Prefix seq = utf8_prefix(u + i, n - i);
      if (seq.length != 0 && seq.valid == seq.length) {
        out.append(s, i, seq.length);
        i += seq.length;
      } else {
        out += "\xEF\xBF\xBD";
        i += seq.valid == 0 ? 1 : seq.valid;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

void write_unsigned(std::string& out, std::uint64_t v, bool negative) {
  char digits[24];
  char* p = digits + sizeof digits;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (negative) *--p = '-';
  out.append(p, static_cast<std::size_t>(digits + sizeof digits - p));
}

void write_double(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buffer[64];
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, d);
  out.append(buffer, static_cast<std::size_t>(end - buffer));
}

void newline(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(depth), ' ');
}

}  // namespace

namespace {
void write_value(std::string& out, const Json& j, int indent, int depth);

void write_object(std::string& out, const Json::object_t& entries, int indent, int depth) {
  if (entries.empty()) {
    out += "{}";
    return;
  }
  out += '{';
  bool first = true;
  for (const auto& [key, value] : entries) {
    if (!first) out += ',';
    first = false;
    if (indent >= 0) newline(out, indent, depth + 1);
    write_string(out, key);
    out += indent >= 0 ? ": " : ":";
    write_value(out, value, indent, depth + 1);
  }
  if (indent >= 0) newline(out, indent, depth);
  out += '}';
}

void write_array(std::string& out, const Json::array_t& items, int indent, int depth) {
  if (items.empty()) {
    out += "[]";
    return;
  }
  out += '[';
  bool first = true;
  for (const Json& item : items) {
    if (!first) out += ',';
    first = false;
    if (indent >= 0) newline(out, indent, depth + 1);
    write_value(out, item, indent, depth + 1);
  }
  if (indent >= 0) newline(out, indent, depth);
  out += ']';
}

void write_value(std::string& out, const Json& j, int indent, int depth) {
  switch (j.kind()) {
    case Json::Kind::null: out += "null"; break;
    case Json::Kind::discarded: out += "<discarded>"; break;
    case Json::Kind::boolean: out += j.get<bool>() ? "true" : "false"; break;
    case Json::Kind::integer: {
      const auto v = j.get<std::int64_t>();
      write_unsigned(out, v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v), v < 0);
      break;
    }
    case Json::Kind::unsigned_integer: write_unsigned(out, j.get<std::uint64_t>(), false); break;
    case Json::Kind::number: write_double(out, j.get<double>()); break;
    case Json::Kind::string: write_string(out, j.get_ref<const std::string&>()); break;
    case Json::Kind::array: write_array(out, j.get_ref<const Json::array_t&>(), indent, depth); break;
    case Json::Kind::object: write_object(out, j.get_ref<const Json::object_t&>(), indent, depth); break;
  }
}
}  // namespace

std::string Json::dump(int indent, char, bool, error_handler_t) const {
  std::string out;
  write_value(out, *this, indent, 0);
  return out;
}

}  // namespace llmsizer
