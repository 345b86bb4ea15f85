// The embedded catalog parses and resolves ids; bad catalog text is refused.
#include "llmsizer/catalog.hpp"

#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;

TEST_CASE("embedded catalog has the models and devices of the reference", "[catalog]") {
  const Catalog& c = test::catalog();
  CHECK(c.models.size() >= 90);
  CHECK(c.devices.size() >= 60);
  REQUIRE(c.find_model("glm-4.5") != nullptr);
  REQUIRE(c.find_device("h100-sxm") != nullptr);
  // H100 80GB: marketed 80 GB of HBM is 80 GiB; nvidia-smi shows 81559 MiB
  // (DESIGN.md, Units).
  const Device* h100 = c.find_device("h100-sxm");
  CHECK(h100->memory_bytes == 80LL * static_cast<std::int64_t>(kGiB));
  CHECK(h100->driver_memory_bytes == 81559LL * static_cast<std::int64_t>(kMiB));
  CHECK(c.find_model("no-such-model") == nullptr);
}

TEST_CASE("superseded ids resolve as aliases", "[catalog]") {
  // models_more.json: llama-3.3-70b-instruct supersedes llama-3.3-70b.
  const CatalogModel* m = test::catalog().find_model("llama-3.3-70b");
  REQUIRE(m != nullptr);
  CHECK(m->id == "llama-3.3-70b-instruct");
}

TEST_CASE("malformed catalog text is an error with its path", "[catalog][errors]") {
  CHECK(parse_catalog("{", R"({"devices": []})").error().id == "catalog.not_json");
  auto bad = parse_catalog(R"({"models": [{"id": 3}]})", R"({"devices": []})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "/models/0/id must be a string");
  auto no_memory = parse_catalog(R"({"models": []})", R"({"devices": [{"id": "x"}]})");
  CHECK(no_memory.error().message == "/devices/0/memory_gb_marketed must be a positive number");
}
