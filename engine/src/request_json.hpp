// Reading JSON requests, shared by the responses of json_contract.cpp and
// planner_responses.cpp: a field reader that names the bad field, the
// estimate keys resolved against the catalog, and the error answer.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "llmsizer/json.hpp"
#include "llmsizer/result.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

inline Error bad_key(const std::string& key, const std::string& what) {
  return Error{"request.bad_value", "request field '" + key + "' " + what};
}

// The limits of the request's keys, shared by the JSON and the plain-fields readers.
struct Limit {
  const char* key;
  double low;
  double high;
};
constexpr Limit kContextLimit{"ctx", 1, 16777216};
constexpr Limit kBatchLimit{"batch", 1, 4096};
constexpr Limit kGpusLimit{"gpus", 1, 1024};
constexpr Limit kCopiesLimit{"copies", 1, 64};
constexpr Limit kOffloadLimit{"offload", 0.0, 1.0};
constexpr Limit kPromptLimit{"prompt", 1, 16777216};
constexpr Limit kOutputLimit{"output_tokens", 0, 16777216};
constexpr Limit kRamLimit{"ram_gib", 0.0, 1048576.0};
constexpr std::size_t kModelLength = 200, kConfigLength = 1u << 20, kQuantLength = 64, kKvLength = 16,
                      kEngineLength = 32, kGpuLength = 2000;  // gpu: a list of cards too

// Checks a value once read; records the first problem in `error`.
struct ValueChecker {
  std::optional<Error> error;

  void text(const char* key, const std::string& value, std::string& out, std::size_t max_length) {
    if (error) return;
    if (value.size() > max_length) return fail(key, "is longer than " + std::to_string(max_length) + " characters");
    out = value;
  }
  void number(const char* key, double d, double& out, double low, double high) {
    if (error) return;
    if (!std::isfinite(d) || d < low || d > high)
      return fail(key, "must be between " + trim(low) + " and " + trim(high));
    out = d;
  }
  template <typename Int>
  void integer(const Limit& limit, double d, Int& out) {
    double checked = static_cast<double>(out);
    number(limit.key, d, checked, limit.low, limit.high);
    if (error) return;
    if (checked != std::floor(checked)) return fail(limit.key, "must be a whole number");
    out = static_cast<Int>(checked);
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

// Reads an optional field; records a typed error in `error` when it is present but wrong.
struct FieldReader {
  const Json& object;
  ValueChecker check;

  // The field's value; nullptr when it is absent or null (or `object` is no object).
  const Json* find(const char* key) const {
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
  }
  void text(const char* key, std::string& out, std::size_t max_length) {
    const Json* v = find(key);
    if (v == nullptr || check.error) return;
    if (!v->is_string()) return check.fail(key, "must be a string");
    check.text(key, *v->get_ptr<const std::string*>(), out, max_length);
  }
  void number(const char* key, double& out, double low, double high) {
    const Json* v = find(key);
    if (v == nullptr || check.error) return;
    if (!v->is_number()) return check.fail(key, "must be a number");
    check.number(key, v->get<double>(), out, low, high);
  }
  template <typename Int>
  void integer(const Limit& limit, Int& out) {
    const Json* v = find(limit.key);
    if (v == nullptr || check.error) return;
    if (!v->is_number()) return check.fail(limit.key, "must be a number");
    check.integer(limit, v->get<double>(), out);
  }
  void boolean(const char* key, bool& out) {
    const Json* v = find(key);
    if (v == nullptr || check.error) return;
    if (!v->is_boolean()) return check.fail(key, "must be true or false");
    out = v->get<bool>();
  }
};

struct ResolvedRequest {
  SizedModel model;
  Scenario scenario;
  bool speed_if_no_fit = false;
  bool suggestions = true;
};

// The estimate keys of request_from_json, resolved by the Sizer. Error ids:
// "request.not_json" and those of request_from_json, model_for and scenario_for.
Result<ResolvedRequest> resolve_request(const Sizer& sizer, std::string_view request_json);
Result<ResolvedRequest> resolve_request(const Sizer& sizer, const Json& parsed);

// The request text as a JSON object, or "request.not_json".
Result<Json> parse_request(std::string_view request_json);

// {"ok": false, "error": {"id", "message"}}.
std::string error_response(const Error& e);

}  // namespace llmsizer
