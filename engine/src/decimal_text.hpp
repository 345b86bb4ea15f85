// A number as std::to_string(double) writes it ("%f": six decimals), without
// printf: printf and the 128-bit soft float it formats with were 4.5 KB of the
// page's gzipped WebAssembly (scripts/bench/sizes.mjs), for the two strings
// that used them (a request limit in an error message, vLLM's
// --gpu-memory-utilization).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "llmsizer/json.hpp"

namespace llmsizer {

// Six decimals, rounded from the exact binary value as printf does:
// "0.875000", "-3.000000", "0.007812" (1/128, an exact tie: the even digit),
// "7.262941" (7.2629405 is a little above the half). Beyond 9e15 (or NaN,
// infinity) it writes the shortest round-trip form instead ("1e+16").
inline std::string six_decimals(double value) {
  const double magnitude = std::fabs(value);
  if (!(magnitude < 9e15)) return Json(value).dump();
  double whole = std::floor(magnitude);
  const double fraction_part = magnitude - whole;  // exact
  const double product = fraction_part * 1e6;
  double micro = std::nearbyint(product);  // ties to even
  // The product is rounded; when it lands on a half, the exact product's
  // error (fma, exact for a product) says which side printf's exact value is on.
  if (product - std::floor(product) == 0.5) {
    const double error = std::fma(fraction_part, 1e6, -product);
    if (error > 0) micro = std::floor(product) + 1;
    if (error < 0) micro = std::floor(product);
  }
  if (micro >= 1e6) {
    whole += 1;
    micro -= 1e6;
  }
  std::string fraction = std::to_string(static_cast<std::int64_t>(micro));
  fraction.insert(0, 6 - fraction.size(), '0');
  return (std::signbit(value) ? "-" : "") + std::to_string(static_cast<std::int64_t>(whole)) + "." + fraction;
}

}  // namespace llmsizer
