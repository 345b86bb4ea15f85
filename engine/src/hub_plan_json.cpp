// hub_plan_response: the Hub file plan as JSON for the page (hub_files.hpp).
#include "llmsizer/hub_files.hpp"
#include "llmsizer/json.hpp"
#include "request_json.hpp"

namespace llmsizer {

std::string hub_plan_response(std::string_view request_json) {
  auto parsed = parse_request(request_json);
  if (!parsed) return error_response(parsed.error());
  const Json& request = parsed.value();
  if (!request.contains("name") || !request["name"].is_string())
    return error_response(Error{"request.bad_value", "name must be a Hub repo's name, as owner/repo"});
  auto name = parse_hub_name(request["name"].get<std::string>());
  if (!name) return error_response(name.error());
  Json out;
  out["ok"] = true;
  out["repo"] = name.value().repo;
  out["tree_path"] = hub_tree_path(name.value().repo);
  if (!request.contains("tree")) return dump_json(out);
  if (!request["tree"].is_string()) return error_response(Error{"request.bad_value", "tree must be the Hub's answer as text"});
  auto files = read_hub_tree(request["tree"].get<std::string>());
  if (!files) return error_response(Error{files.error().id, name.value().repo + ": " + files.error().message});
  auto plan = plan_hub_files(name.value(), files.value());
  // Several quantizations and none named: the list to choose from, not a failure.
  if (!plan && plan.error().id == "hub.choose_quant") {
    out["kind"] = "choose";
    out["label"] = name.value().repo;
    out["message"] = plan.error().message;
    out["quants"] = Json::array();
    for (const std::string& q : hub_gguf_quants(files.value())) out["quants"].push_back(q);
    return dump_json(out);
  }
  if (!plan) return error_response(plan.error());
  const HubPlan& p = plan.value();
  const std::string& repo = name.value().repo;
  out["kind"] = p.kind == HubKind::gguf ? "gguf" : p.kind == HubKind::safetensors ? "safetensors" : "config";
  out["label"] = p.label;
  out["quants"] = Json::array();
  for (const std::string& q : p.quants) out["quants"].push_back(q);
  out["headers"] = Json::array();
  for (const HubRepoFile& f : p.headers)
    out["headers"].push_back({{"path", f.path}, {"size", f.size}, {"file_path", hub_file_path(repo, f.path)}});
  out["index_path"] = p.index_path.empty() ? Json() : Json(hub_file_path(repo, p.index_path));
  out["config_path"] = p.config ? Json(hub_file_path(repo, "config.json")) : Json();
  return dump_json(out);
}

}  // namespace llmsizer
