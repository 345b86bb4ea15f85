// Served figures under load (speed.served): the scheduler steps of a serving
// engine with continuous batching and chunked prefill. See speed_served.cpp.
#pragma once
#include <optional>

#include "speed_rates.hpp"

namespace llmsizer {

// Null without output tokens (Scenario::output_tokens), a throughput figure
// for the prompts' chunks, or a device.
std::optional<ServedEstimate> estimate_served(const Architecture& arch, const Scenario& s, const Estimate& e,
                                              const EffectiveRates& rates);

}  // namespace llmsizer
