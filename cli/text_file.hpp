// Small text files the CLI reads whole (config.json, llama-bench output, load
// logs, a calibration), each bounded so a wrong path cannot read gigabytes.
#pragma once
#include <cstdint>
#include <string>

#include "llmsizer/result.hpp"

namespace llmsizer::cli {

// The file's text, or the error naming it; above max_bytes, "'PATH' is larger
// than N MiB; " + why_smaller ("a config.json is a few KB").
Result<std::string> read_text_file(const std::string& path, std::int64_t max_bytes, const char* why_smaller);

}  // namespace llmsizer::cli
