#include "llmsizer/ggml_types.hpp"

#include <array>

namespace llmsizer {
namespace {

// Order matches the enum. Source: ggml src/ggml.c type_traits (blck_size,
// type_size) and ggml-common.h static_asserts, as transcribed in
// ../shared/reference/quant_types.json.
constexpr std::array<GgmlTypeTraits, 26> kTraits = {{
    {"F32", 1, 4},       {"F16", 1, 2},       {"BF16", 1, 2},     {"Q8_0", 32, 34},
    {"Q4_0", 32, 18},    {"Q4_1", 32, 20},    {"Q5_0", 32, 22},   {"Q5_1", 32, 24},
    {"Q2_K", 256, 84},   {"Q3_K", 256, 110},  {"Q4_K", 256, 144}, {"Q5_K", 256, 176},
    {"Q6_K", 256, 210},  {"IQ1_S", 256, 50},  {"IQ1_M", 256, 56}, {"IQ2_XXS", 256, 66},
    {"IQ2_XS", 256, 74}, {"IQ2_S", 256, 82},  {"IQ3_XXS", 256, 98}, {"IQ3_S", 256, 110},
    {"IQ4_NL", 32, 18},  {"IQ4_XS", 256, 136}, {"TQ1_0", 256, 54}, {"TQ2_0", 256, 66},
    {"MXFP4", 32, 17},   {"F8_E4M3", 1, 1},
}};

}  // namespace

const GgmlTypeTraits& traits(GgmlType type) { return kTraits[static_cast<std::size_t>(type)]; }

std::optional<GgmlType> ggml_type_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kTraits.size(); ++i)
    if (kTraits[i].name == name) return static_cast<GgmlType>(i);
  return std::nullopt;
}

}  // namespace llmsizer
