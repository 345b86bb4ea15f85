#include "llmsizer/catalog_match.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "llmsizer/params.hpp"

namespace llmsizer {
namespace {

// Parameters llama-bench counts (the GGUF's tensors) against the catalog
// model's: the table rounds to 0.01 B; the rest is what the converter keeps or drops.
constexpr double kParamsTolerance = 0.01;
// GLM-4.5-Air's GGUF: 110.47 B where the model and its MTP layer count 109.23 B
// (the MTP layer's own copy of the embedding and head, 2 x 0.62 B, counted too).
constexpr double kParamsToleranceSameArch = 0.03;

}  // namespace

std::string lower_alnum(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

namespace {

std::set<std::string> name_tokens(std::string_view s) {
  std::set<std::string> out;
  std::string token;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      token += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!token.empty()) {
      out.insert(token);
      token.clear();
    }
  }
  if (!token.empty()) out.insert(token);
  return out;
}

// Words of a catalog name that a driver's name may leave out: the memory
// size ("NVIDIA H200" for the H200 SXM 141GB, "NVIDIA GeForce RTX 3060" for
// its 12GB card) and the form factor ("NVIDIA H100 80GB HBM3" for the H100
// SXM5). Where the text states one of its own, it must be the device's.
bool memory_word(const std::string& t) {
  return t.size() > 2 && t.compare(t.size() - 2, 2, "gb") == 0 &&
         std::all_of(t.begin(), t.end() - 2, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}
bool form_word(const std::string& t) {
  static const std::set<std::string> forms = {"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "pcie", "oam"};
  return forms.count(t) > 0;
}

}  // namespace

std::vector<const Device*> devices_named(const Catalog& catalog, std::string_view stated) {
  static const std::set<std::string> brand = {"nvidia", "geforce", "amd", "radeon", "apple", "intel", "generation"};
  const std::set<std::string> have = name_tokens(stated);
  std::vector<const Device*> best;
  std::size_t best_score = 0;
  const bool text_memory = std::any_of(have.begin(), have.end(), memory_word);
  const bool text_form = std::any_of(have.begin(), have.end(), form_word);
  const bool text_laptop = have.count("laptop") > 0;
  // Every word of a name (brands aside) in the text, but a memory size or
  // form factor the text does not state: as many words as match.
  const auto score_of = [&](const std::string& name) -> std::size_t {
    const std::set<std::string> words = name_tokens(name);
    // A laptop's GPU is not the desktop card of its number.
    if (text_laptop && !words.count("laptop")) return 0;
    std::size_t score = 0;
    for (const std::string& t : words) {
      if (brand.count(t)) continue;
      if (have.count(t)) {
        ++score;
      } else if (!((memory_word(t) && !text_memory) || (form_word(t) && !text_form))) {
        return 0;
      }
    }
    return score;
  };
  for (const Device& d : catalog.devices) {
    std::string name = d.name.substr(0, d.name.find('('));  // "(HGX/DGX)", "(30-core GPU)"
    name = name.substr(0, name.find(','));                    // "Apple M2 Ultra, 64 GB"
    std::size_t score = score_of(name);
    for (const std::string& reported : d.reported_names) score = std::max(score, score_of(reported));
    if (score == 0) continue;
    if (score > best_score) {
      best.clear();
      best_score = score;
    }
    if (score == best_score) best.push_back(&d);
  }
  return best;
}

const CatalogModel* catalog_model_with_params(const Sizer& sizer, std::int64_t model_params, std::string_view arch_name) {
  if (model_params <= 0) return nullptr;
  const std::string arch = lower_alnum(arch_name);
  const CatalogModel* best = nullptr;
  double best_gap = 1.0;
  bool best_arch = false;
  const auto& models = sizer.catalog().models;
  const double wanted = static_cast<double>(model_params);
  for (std::size_t i = 0; i < models.size(); ++i) {
    const ModelFacts facts = sizer.model_facts(i);
    if (!facts.sizable || facts.params_total <= 0) continue;
    if (std::fabs(static_cast<double>(facts.params_total) - wanted) / wanted > 0.2) continue;  // read only near counts
    const Result<Architecture>& a = sizer.catalog_architecture(i);
    if (!a) continue;
    const ParamCounts params = count_params(a.value());
    const double gap = std::min(std::fabs(static_cast<double>(params.total) - wanted),
                                std::fabs(static_cast<double>(params.total + params.mtp) - wanted)) / wanted;
    const std::string type = lower_alnum(a.value().model_type);
    const bool same_arch = !arch.empty() && !type.empty() && (type.rfind(arch, 0) == 0 || arch.rfind(type, 0) == 0);
    // The same architecture within kParamsToleranceSameArch (converters keep
    // an MTP layer's own embedding and head, or drop them); another one only
    // within kParamsTolerance.
    if (gap > (same_arch ? kParamsToleranceSameArch : kParamsTolerance)) continue;
    if (best == nullptr || (same_arch && !best_arch) || (same_arch == best_arch && gap < best_gap - 1e-6)) {
      best = &models[i];
      best_gap = gap;
      best_arch = same_arch;
    }
  }
  return best;
}

}  // namespace llmsizer
