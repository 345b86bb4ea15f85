// Decode, prefill and TTFT from the memory estimate and the device; cost per
// million tokens from a rental price or owned hardware.
#pragma once
#include <optional>

#include "llmsizer/estimate.hpp"

namespace llmsizer {

// Null without a device (or a device with no bandwidth figure).
std::optional<SpeedEstimate> estimate_speed(const Architecture& arch, const Scenario& scenario,
                                            const Estimate& memory_estimate);

CostEstimate estimate_cost(const Scenario& scenario, const Estimate& estimate);

}  // namespace llmsizer
