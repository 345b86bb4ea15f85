// The engine's one JSON type. Object keys keep the order they were written in
// (the order of the CLI's and the page's JSON), and the WebAssembly build carries
// one instantiation of nlohmann's template instead of two.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

namespace llmsizer {
using Json = nlohmann::ordered_json;

// The value, or null where there is none (a figure that needs a device, a price...).
template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
}  // namespace llmsizer
