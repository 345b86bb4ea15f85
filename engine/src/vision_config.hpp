// Reads a multimodal config's vision section (vision_config and the top-level
// keys that go with it) into Architecture::vision, or says in
// Architecture::vision_error why it cannot be sized.
#pragma once
#include "llmsizer/architecture.hpp"
#include "llmsizer/json.hpp"

namespace llmsizer {

// arch.model_type and arch.hidden_size must already be read.
void read_vision_config(const Json& config, Architecture& arch);

}  // namespace llmsizer
