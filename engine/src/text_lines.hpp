// Pasted text line by line ('\n'; a '\r' before it dropped), each line with
// its 1-based number, for the readers of pasted measurements to name the
// line at fault.
#pragma once
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace llmsizer {

// s without the spaces, tabs and carriage returns around it.
inline std::string_view trim_space(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}

  // The next line into `line`; false past the last one.
  bool next(std::string_view& line) {
    if (pos_ > text_.size()) return false;
    const auto nl = text_.find('\n', pos_);
    line = text_.substr(pos_, nl == std::string_view::npos ? std::string_view::npos : nl - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() + 1 : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number_;
    return true;
  }
  std::string where() const { return "line " + std::to_string(number_); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

}  // namespace llmsizer
