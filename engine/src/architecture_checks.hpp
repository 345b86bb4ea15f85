// Last line of defence after a config (or GGUF header) is read: every layer has
// dimensions the later arithmetic can use, and the model is of a size that fits
// 64-bit byte counts with room to spare.
#pragma once
#include <optional>

#include "llmsizer/architecture.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// Error id "config.bad_field" naming the layer and the value at fault.
std::optional<Error> check_architecture(const Architecture& arch);

}  // namespace llmsizer
