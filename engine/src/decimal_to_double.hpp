// The double nearest a decimal number, ties to even: what strtod returns, for
// the JSON reader, without strtod. The C library's strtod computes in 128-bit
// soft floating point in WebAssembly: about 12 KB of the page's module's code
// (5.3 KB gzipped) and slow on every number of the catalog. Most numbers take an exact fast path; the rest
// are settled by exact integer comparisons with the midpoints between doubles.
#pragma once
#include <string_view>

namespace llmsizer {

// `token` follows JSON's number grammar (the reader has checked it). Beyond
// the largest double the result is +-infinity, below half the smallest +-0.
double decimal_to_double(std::string_view token);

}  // namespace llmsizer
