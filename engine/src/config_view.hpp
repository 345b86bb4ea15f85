// Typed, path-aware access to the fields of a config.json. Multimodal configs keep
// the language model under text_config: fields are looked up there first, then at
// the top level, and errors name the path where the field was expected.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "llmsizer/json.hpp"

#include "llmsizer/result.hpp"

namespace llmsizer {

// Reads obj[key] as T when obj is an object holding that key with a value of
// T's JSON kind; anything else gives the fallback. Never throws.
bool json_bool_or(const Json& obj, const char* key, bool fallback);
std::int64_t json_int_or(const Json& obj, const char* key, std::int64_t fallback);
double json_number_or(const Json& obj, const char* key, double fallback);
std::string json_string_or(const Json& obj, const char* key, const std::string& fallback);
const Json& json_object_or_empty(const Json& obj, const char* key);

class ConfigView {
 public:
  explicit ConfigView(const Json& root);

  // transformers' config-class defaults: a field absent from config.json takes
  // its class default, so these are the model's real values, not guesses.
  void set_class_defaults(const Json* defaults);

  // First present, non-null field among names, as an integer (whole floats accepted).
  std::optional<std::int64_t> int_field(std::initializer_list<const char*> names) const;
  std::optional<double> number_field(std::initializer_list<const char*> names) const;
  std::optional<bool> bool_field(std::initializer_list<const char*> names) const;
  std::optional<std::string> string_field(std::initializer_list<const char*> names) const;
  const Json* json_field(std::initializer_list<const char*> names) const;

  std::int64_t int_or(std::initializer_list<const char*> names, std::int64_t fallback) const {
    return int_field(names).value_or(fallback);
  }
  bool bool_or(std::initializer_list<const char*> names, bool fallback) const {
    return bool_field(names).value_or(fallback);
  }
  // Records the first missing or malformed required field; see error().
  std::int64_t require_positive(std::initializer_list<const char*> names);

  bool has_error() const { return error_.has_value(); }
  const Error& error() const { return *error_; }
  void fail(std::string id, std::string message);
  std::string path_of(const char* name) const;

 private:
  const Json* find(const char* name) const;
  void fail_const(std::string id, std::string message) const;

  void index(const Json& object, bool with_nulls);

  const Json& root_;
  const Json* text_;  // text_config / llm_config when present
  // Every field name to its value, the first source winning: text_config's
  // non-null fields, then the top level's, then the class defaults. The
  // readers ask for hundreds of spellings and the objects keep their keys in
  // file order (a linear search each).
  std::unordered_map<std::string_view, const Json*> fields_;
  mutable std::optional<Error> error_;  // first problem found, also by const readers
};

}  // namespace llmsizer
