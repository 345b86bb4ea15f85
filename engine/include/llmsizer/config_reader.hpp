// Turns a Hugging Face config.json into an Architecture. One path for every
// model: catalog entries, configs dropped on the page and the CLI's --config.
#pragma once
#include <string_view>

#include "llmsizer/json.hpp"

#include "llmsizer/architecture.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// Error ids: "config.not_json", "config.not_object", "config.missing_field",
// "config.bad_field" (message names the JSON path, e.g. /text_config/hidden_size).
Result<Architecture> read_hf_config(const Json& config);
Result<Architecture> read_hf_config_text(std::string_view text);

// model_type values with a dedicated reader (others are read as dense with a warning).
bool is_known_model_type(std::string_view model_type);

}  // namespace llmsizer
