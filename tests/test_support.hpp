// Helpers shared by the engine tests: catalog lookups and golden files.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "llmsizer/catalog.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer::test {

inline const Catalog& catalog() {
  static const Catalog c = [] {
    auto parsed = embedded_catalog();
    if (!parsed) FAIL("embedded catalog does not parse: " << parsed.error().message);
    return parsed.value();
  }();
  return c;
}

// The architecture of a catalog model; fails the test when it does not read.
inline Architecture catalog_arch(const std::string& id) {
  const CatalogModel* m = catalog().find_model(id);
  if (m == nullptr) FAIL("catalog has no model " << id);
  auto arch = read_catalog_architecture(*m);
  if (!arch) FAIL(id << ": " << arch.error().message);
  return arch.value();
}

// The config as text through the engine's reader, as a config.json is read.
inline Architecture arch_from(const nlohmann::json& config) {
  auto arch = read_hf_config_text(config.dump());
  if (!arch) FAIL(arch.error().message);
  return arch.value();
}

inline nlohmann::json golden(const std::string& name) {
  std::ifstream in(std::string(LLMSIZER_GOLDEN_DIR) + "/" + name);
  if (!in) FAIL("missing golden file " << name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return nlohmann::json::parse(buffer.str());
}

// A file of tests/fixtures (public outputs kept with their sources), whole.
inline std::string fixture_text(const std::string& path) {
  std::ifstream in(std::string(LLMSIZER_FIXTURES_DIR) + "/" + path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One Sizer over the embedded catalog for a test file's cases.
inline const Sizer& sizer() {
  static const Sizer s(catalog());
  return s;
}

inline Device device_of(const std::string& id) {
  const Device* d = catalog().find_device(id);
  if (d == nullptr) FAIL("catalog has no device " << id);
  return *d;
}

}  // namespace llmsizer::test
