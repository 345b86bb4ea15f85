// Formats engine results for the terminal: the JSON contract of DESIGN.md and a
// small human-readable table (GiB and GB labelled).
#pragma once
#include <string>

#include "llmsizer/json.hpp"

#include "llmsizer/catalog.hpp"
#include "llmsizer/estimate.hpp"

namespace llmsizer::cli {

Json params_json(const ParamCounts& params);
Json estimate_json(const Estimate& estimate, const Scenario& scenario, const std::string& model_label);
std::string params_table(const ParamCounts& params);
std::string estimate_table(const Estimate& estimate, const Scenario& scenario, const std::string& model_label);
Json list_json(const Catalog& catalog, const std::string& what);
std::string list_table(const Catalog& catalog, const std::string& what);

}  // namespace llmsizer::cli
