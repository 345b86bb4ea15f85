// The engine's one JSON type. Object keys keep the order they were written in
// (the order of the CLI's and the page's JSON), and the WebAssembly build carries
// one instantiation of nlohmann's template instead of two.
#pragma once
#include <nlohmann/json.hpp>

namespace llmsizer {
using Json = nlohmann::ordered_json;
}  // namespace llmsizer
