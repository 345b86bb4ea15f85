// Units and conversions used across the engine. Bytes and parameter counts are
// 64-bit integers; rates are doubles whose name carries the unit.
#pragma once
#include <cstdint>

namespace llmsizer {

inline constexpr std::uint64_t kKiB = 1ull << 10;
inline constexpr std::uint64_t kMiB = 1ull << 20;
inline constexpr std::uint64_t kGiB = 1ull << 30;
inline constexpr double kGB = 1e9;  // decimal gigabyte, for bandwidth and labels

// An average month (a Julian year over twelve), for monthly rent and power.
inline constexpr double kDaysPerMonth = 365.25 / 12.0;

inline constexpr std::uint64_t mib_to_bytes(std::uint64_t mib) { return mib * kMiB; }

}  // namespace llmsizer
