// Reading JSON requests, shared by the responses of json_contract.cpp and
// planner_responses.cpp: a field reader that names the bad field, the
// estimate keys resolved against the catalog, and the error answer.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llmsizer/result.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

inline Error bad_key(const std::string& key, const std::string& what) {
  return Error{"request.bad_value", "request field '" + key + "' " + what};
}

// Reads an optional field; records a typed error in `error` when it is present but wrong.
struct FieldReader {
  const nlohmann::json& object;
  std::optional<Error> error;

  const nlohmann::json* find(const char* key) {
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }
  void text(const char* key, std::string& out, std::size_t max_length) {
    const nlohmann::json* v = find(key);
    if (v == nullptr || error) return;
    if (!v->is_string()) return fail(key, "must be a string");
    const auto& s = v->get_ref<const std::string&>();
    if (s.size() > max_length) return fail(key, "is longer than " + std::to_string(max_length) + " characters");
    out = s;
  }
  void number(const char* key, double& out, double low, double high) {
    const nlohmann::json* v = find(key);
    if (v == nullptr || error) return;
    if (!v->is_number()) return fail(key, "must be a number");
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < low || d > high)
      return fail(key, "must be between " + trim(low) + " and " + trim(high));
    out = d;
  }
  template <typename Int>
  void integer(const char* key, Int& out, double low, double high) {
    double d = static_cast<double>(out);
    number(key, d, low, high);
    if (error) return;
    if (d != std::floor(d)) return fail(key, "must be a whole number");
    out = static_cast<Int>(d);
  }
  void boolean(const char* key, bool& out) {
    const nlohmann::json* v = find(key);
    if (v == nullptr || error) return;
    if (!v->is_boolean()) return fail(key, "must be true or false");
    out = v->get<bool>();
  }
  void fail(const char* key, const std::string& what) {
    if (!error) error = bad_key(key, what);
  }
  static std::string trim(double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
};

struct ResolvedRequest {
  SizedModel model;
  Scenario scenario;
};

// The estimate keys of request_from_json, resolved by the Sizer. Error ids:
// "request.not_json" and those of request_from_json, model_for and scenario_for.
Result<ResolvedRequest> resolve_request(const Sizer& sizer, std::string_view request_json);
Result<ResolvedRequest> resolve_request(const Sizer& sizer, const nlohmann::json& parsed);

// The request text as a JSON object, or "request.not_json".
Result<nlohmann::json> parse_request(std::string_view request_json);

// {"ok": false, "error": {"id", "message"}}.
std::string error_response(const Error& e);

}  // namespace llmsizer
