// The engine's one JSON type. Object keys keep the order they were written in
// (the order of the CLI's and the page's JSON), and the WebAssembly build carries
// one instantiation of nlohmann's template instead of two.
#pragma once
#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

namespace llmsizer {
using Json = nlohmann::ordered_json;

// The value, or null where there is none (a figure that needs a device, a price...).
template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
// An object with room for `keys` entries. nlohmann's ordered objects are
// vectors of pair<const key, value>, which cannot be moved: each time one
// grows, every entry, nested objects included, is copied.
inline Json json_object(std::size_t keys) {
  Json j = Json::object();
  j.get_ref<Json::object_t&>().reserve(keys);
  return j;
}

// Moves `from`'s entries into object `to` after its own, in order (an answer's
// leading keys, then its body's); a key `to` has already is overwritten.
inline void move_entries(Json& to, Json& from) {
  to.get_ref<Json::object_t&>().reserve(to.size() + from.size());
  for (auto& [key, value] : from.get_ref<Json::object_t&>()) to[key] = std::move(value);
}
}  // namespace llmsizer
