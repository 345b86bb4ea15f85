#include "config_view.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace llmsizer {

ConfigView::ConfigView(const Json& root) : root_(root), text_(nullptr) {
  for (const char* key : {"text_config", "llm_config", "language_config"}) {
    auto it = root.find(key);
    if (it != root.end() && it->is_object()) {
      text_ = &*it;
      break;
    }
  }
  if (text_ != nullptr) index(*text_, false);
  if (root.is_object()) index(root, false);
}

void ConfigView::index(const Json& object, bool with_nulls) {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (with_nulls || !it->is_null()) fields_.emplace(it.key(), &*it);  // the first source wins
}

void ConfigView::set_class_defaults(const Json* defaults) {
  if (defaults != nullptr && defaults->is_object()) index(*defaults, true);
}

const Json* ConfigView::find(const char* name) const {
  const auto found = fields_.find(name);
  return found == fields_.end() ? nullptr : found->second;
}

std::string ConfigView::path_of(const char* name) const {
  if (text_ != nullptr) {
    for (const char* key : {"text_config", "llm_config", "language_config"}) {
      auto it = root_.find(key);
      if (it != root_.end() && &*it == text_) return std::string("/") + key + "/" + name;
    }
  }
  return std::string("/") + name;
}

namespace {
// Integers beyond this are not model dimensions; refusing them keeps every later
// product of dimensions inside 64 bits.
constexpr std::int64_t kMaxConfigInteger = std::int64_t{1} << 31;
}  // namespace

bool json_bool_or(const Json& obj, const char* key, bool fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::int64_t json_int_or(const Json& obj, const char* key, std::int64_t fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return fallback;
  const double d = it->get<double>();
  if (!std::isfinite(d) || std::fabs(d) > static_cast<double>(kMaxConfigInteger)) return fallback;
  return static_cast<std::int64_t>(d);
}

double json_number_or(const Json& obj, const char* key, double fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return fallback;
  const double d = it->get<double>();
  return std::isfinite(d) ? d : fallback;
}

std::string json_string_or(const Json& obj, const char* key, const std::string& fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

const Json& json_object_or_empty(const Json& obj, const char* key) {
  static const Json empty = Json::object();
  if (!obj.is_object()) return empty;
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : empty;
}

void ConfigView::fail_const(std::string id, std::string message) const {
  if (!error_) error_ = Error{std::move(id), std::move(message)};
}

std::optional<std::int64_t> ConfigView::int_field(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    const Json* v = find(name);
    if (v == nullptr) continue;
    if (v->is_number()) {
      const double magnitude = std::fabs(v->get<double>());
      if (!(magnitude <= static_cast<double>(kMaxConfigInteger))) {
        fail_const("config.bad_field", "config.json field " + path_of(name) + " is out of range");
        return std::nullopt;
      }
    }
    if (v->is_number_integer()) return v->get<std::int64_t>();
    if (v->is_number_float()) {
      const double d = v->get<double>();
      // Only whole, sane values count as integers; anything else is malformed.
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
        return static_cast<std::int64_t>(d);
    }
    if (const auto inner = v->find("value"); inner != v->end()) {
      // Reference copies summarise uniform per-layer lists as {"value": v, "length": n}.
      if (inner->is_number_integer() && std::fabs(inner->get<double>()) <= static_cast<double>(kMaxConfigInteger))
        return inner->get<std::int64_t>();
    }
    if (v->is_array() && !v->empty() && (*v)[0].is_number_integer() &&
        std::fabs((*v)[0].get<double>()) <= static_cast<double>(kMaxConfigInteger)) {
      return (*v)[0].get<std::int64_t>();  // per-layer list: first layer's value
    }
  }
  return std::nullopt;
}

std::optional<double> ConfigView::number_field(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    const Json* v = find(name);
    if (v != nullptr && v->is_number()) return v->get<double>();
  }
  return std::nullopt;
}

std::optional<bool> ConfigView::bool_field(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    const Json* v = find(name);
    if (v != nullptr && v->is_boolean()) return v->get<bool>();
  }
  return std::nullopt;
}

std::optional<std::string> ConfigView::string_field(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    const Json* v = find(name);
    if (v != nullptr && v->is_string()) return v->get<std::string>();
  }
  return std::nullopt;
}

const Json* ConfigView::json_field(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    if (const Json* v = find(name)) return v;
  }
  return nullptr;
}

void ConfigView::fail(std::string id, std::string message) { fail_const(std::move(id), std::move(message)); }

std::int64_t ConfigView::require_positive(std::initializer_list<const char*> names) {
  // Bounds keep later products (layers x heads x dims x tokens) inside 64 bits.
  constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
  for (const char* name : names) {
    const Json* v = find(name);
    if (v == nullptr) continue;
    const auto value = int_field({name});
    if (!value || *value <= 0 || *value > kMaxDimension) {
      fail("config.bad_field", "config.json field " + path_of(name) +
                                   " must be a positive integer of at most 16777216, got " +
                                   dump_json(*v).substr(0, 40));
      return 1;
    }
    return *value;
  }
  fail("config.missing_field", "config.json lacks the field " + path_of(*names.begin()) +
                                   " needed to size this model");
  return 1;
}

}  // namespace llmsizer
