#include "text_file.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace llmsizer::cli {

Result<std::string> read_text_file(const std::string& path, std::int64_t max_bytes, const char* why_smaller) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return Error{"cli.file", "cannot open '" + path.substr(0, 200) + "'"};
  if (!S_ISREG(info.st_mode)) return Error{"cli.file", "'" + path.substr(0, 200) + "' is not a regular file"};
  if (info.st_size > max_bytes)
    return Error{"cli.file", "'" + path.substr(0, 200) + "' is larger than " + std::to_string(max_bytes >> 20) +
                                 " MiB; " + why_smaller};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cli.file", "cannot open '" + path.substr(0, 200) + "'"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace llmsizer::cli
