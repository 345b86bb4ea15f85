// Prints data/embedded/model_facts.json: every catalog model's facts as the
// engine reads them from its config, ignoring the facts the build embedded.
// scripts/catalog/model_facts.sh writes the file; test_catalog checks it.
#include <cstdio>
#include <string>

#include "llmsizer/catalog.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/sizer.hpp"

int main() {
  auto catalog = llmsizer::embedded_catalog(llmsizer::EmbeddedFacts::ignore);
  if (!catalog) {
    std::fprintf(stderr, "model_facts: %s\n", catalog.error().message.c_str());
    return 1;
  }
  const llmsizer::Sizer sizer(std::move(catalog).value());
  const llmsizer::Json facts = llmsizer::model_facts_to_json(sizer);
  // One model per line, so a change reads as a one-line diff.
  std::string out = "{\"schema_version\": " + facts["schema_version"].dump() +
                    ", \"generated_by\": " + facts["generated_by"].dump() + ", \"models\": [\n";
  const auto& models = facts["models"];
  for (std::size_t i = 0; i < models.size(); ++i)
    out += models[i].dump() + (i + 1 < models.size() ? ",\n" : "\n");
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}
