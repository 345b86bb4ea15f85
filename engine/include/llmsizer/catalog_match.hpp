// What a llama.cpp log or llama-bench table names, found in the catalog: the
// GPU a driver's name is ("NVIDIA A100-SXM4-80GB"), the model a parameter count
// and architecture are ("qwen3moe", 30.53 B). Shared by the calibration and
// the load-log check.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/catalog.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

// The catalog devices a GPU's name in a log matches ("NVIDIA GeForce RTX 4090",
// "NVIDIA A100-SXM4-80GB"): every word of the device's name but the brand's
// and its memory size is in it; the most specific names win (several: the
// same chip at several memory sizes, or a name too vague to tell).
std::vector<const Device*> devices_named(const Catalog& catalog, std::string_view stated);

// The catalog model llama.cpp reports as having `model_params` parameters
// (counting or not its MTP layers, which converters keep or drop): one of the
// architecture `arch_name` ("qwen3moe") within 3%, else another within 1%; of
// several, the nearest count; null when none.
const CatalogModel* catalog_model_with_params(const Sizer& sizer, std::int64_t model_params, std::string_view arch_name);

// Letters and digits only, lower case: "Qwen3-MoE" -> "qwen3moe".
std::string lower_alnum(std::string_view s);

}  // namespace llmsizer
