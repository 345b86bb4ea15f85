// Formats engine results for the terminal: the JSON contract of DESIGN.md and a
// small human-readable table (GiB and GB labelled).
#pragma once
#include <string>

#include "llmsizer/json.hpp"  // llmsizer::Json is nlohmann::ordered_json

#include "llmsizer/catalog.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/suggestions.hpp"

namespace llmsizer::cli {

Json params_json(const ParamCounts& params);
// Where it does not fit: no speed or cost (unless speed_if_no_fit) and the suggestions.
Json estimate_json(const Estimate& estimate, const Scenario& scenario, const std::string& model_label,
                   const std::vector<Suggestion>& suggestions, bool speed_if_no_fit, const SizedModel& model);
std::string params_table(const ParamCounts& params);
std::string change_flags(const Suggestion& suggestion);
// The lines under "What would make it fit": each suggestion's flags, its use of
// the usable memory and its decode speed.
std::string fit_suggestion_lines(const std::vector<Suggestion>& suggestions);
std::string estimate_table(const Estimate& estimate, const Scenario& scenario, const std::string& model_label,
                           const std::vector<Suggestion>& suggestions);
Json list_json(const Catalog& catalog, const std::string& what);
std::string list_table(const Catalog& catalog, const std::string& what);

}  // namespace llmsizer::cli
