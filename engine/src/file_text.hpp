// Text taken from a model file (names, keys, architecture strings) is hostile:
// before it goes into an error or a warning it is cut short and reduced to
// printable ASCII, so that messages stay one line and valid UTF-8 for JSON.
// Sizes a file claims are bounded alike by both readers (GGUF, safetensors).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmsizer {

// No tensor and no data section above 1 PiB: a thousand times the largest model,
// and small enough that sums of bytes and elements stay far inside 64 bits.
inline constexpr std::int64_t kMaxTensorDataBytes = std::int64_t{1} << 50;

inline std::string printable(std::string_view text, std::size_t max_chars = 64) {
  std::string out;
  const std::size_t n = text.size() < max_chars ? text.size() : max_chars;
  out.reserve(n + 3);
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    out += (c >= 0x20 && c <= 0x7e) ? c : '?';
  }
  if (text.size() > max_chars) out += "...";
  return out;
}

}  // namespace llmsizer
