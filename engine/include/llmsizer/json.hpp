// The engine's JSON: nlohmann::ordered_json, whose objects keep the order their
// keys were written in (the order of the CLI's and the page's answers is part
// of the contract). A name for call sites, not a wrapper.
//
// The wasm build has no exceptions (JSON_NOEXCEPTION: a throw aborts), so the
// engine never asks nlohmann for anything that throws: it parses with
// parse(text, nullptr, false) and checks is_discarded(), checks a value's type
// before get<>() or get_ref<>(), looks keys up with find()/contains() (const
// operator[] on a missing key is undefined), and dumps with dump_json(), which
// writes invalid UTF-8 (a GGUF file's name, say) as U+FFFD instead of throwing.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace llmsizer {

using Json = nlohmann::ordered_json;

// `text` parsed, or a value that is_discarded() when it is not one JSON document.
inline Json parse_json(std::string_view text) { return Json::parse(text.begin(), text.end(), nullptr, false); }

// Where a text that is not JSON goes wrong, as a person finds it in an editor:
// 1-based line and column of the character nlohmann's parser stopped at.
struct JsonErrorPlace {
  std::size_t line = 0;
  std::size_t column = 0;
};

namespace detail {
// A SAX reader that keeps nothing but the parser's error position (sax_parse
// reports it without exceptions, which the wasm build does not have).
struct ErrorPlaceSax : nlohmann::json_sax<Json> {
  std::optional<std::size_t> position;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t at, const std::string&, const nlohmann::detail::exception&) override {
    position = at;
    return false;
  }
};
}  // namespace detail

// Empty when `text` is one JSON document.
inline std::optional<JsonErrorPlace> json_error_place(std::string_view text) {
  detail::ErrorPlaceSax sax;
  Json::sax_parse(text.begin(), text.end(), &sax);
  if (!sax.position) return std::nullopt;
  // The position counts characters read; the one that failed is the last of them.
  const std::size_t end = std::min(text.size(), *sax.position > 0 ? *sax.position - 1 : 0);
  JsonErrorPlace place{1, 1};
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++place.line;
      place.column = 1;
    } else {
      ++place.column;
    }
  }
  return place;
}

// Compact with indent < 0; otherwise one entry per line, `indent` spaces a level.
inline std::string dump_json(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// The value, or null where there is none (a figure that needs a device, a price...).
template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// An empty object with room for `keys` entries.
inline Json json_object(std::size_t keys) {
  Json j = Json::object();
  j.get_ptr<Json::object_t*>()->reserve(keys);
  return j;
}

// Moves `from`'s entries into object `to` after its own, in order (an answer's
// leading keys, then its body's); a key `to` has already is overwritten.
inline void move_entries(Json& to, Json& from) {
  if (!from.is_object()) return;
  if (!to.is_object()) to = Json::object();
  to.get_ptr<Json::object_t*>()->reserve(to.size() + from.size());
  for (auto& [key, value] : *from.get_ptr<Json::object_t*>()) to[key] = std::move(value);
}

}  // namespace llmsizer
