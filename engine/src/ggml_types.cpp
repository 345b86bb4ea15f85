#include "llmsizer/ggml_types.hpp"

#include <array>

namespace llmsizer {
namespace {

// Order matches the enum. Source: ggml src/ggml.c type_traits (blck_size,
// type_size) and ggml-common.h static_asserts, as transcribed in
// ../shared/reference/quant_types.json.
constexpr std::array<GgmlTypeTraits, 36> kTraits = {{
    {"F32", 1, 4},       {"F16", 1, 2},       {"BF16", 1, 2},     {"Q8_0", 32, 34},
    {"Q4_0", 32, 18},    {"Q4_1", 32, 20},    {"Q5_0", 32, 22},   {"Q5_1", 32, 24},
    {"Q2_K", 256, 84},   {"Q3_K", 256, 110},  {"Q4_K", 256, 144}, {"Q5_K", 256, 176},
    {"Q6_K", 256, 210},  {"IQ1_S", 256, 50},  {"IQ1_M", 256, 56}, {"IQ2_XXS", 256, 66},
    {"IQ2_XS", 256, 74}, {"IQ2_S", 256, 82},  {"IQ3_XXS", 256, 98}, {"IQ3_S", 256, 110},
    {"IQ4_NL", 32, 18},  {"IQ4_XS", 256, 136}, {"TQ1_0", 256, 54}, {"TQ2_0", 256, 66},
    {"MXFP4", 32, 17},   {"F8_E4M3", 1, 1},
    {"Q8_1", 32, 36},    {"Q8_K", 256, 292},  {"I8", 1, 1},       {"I16", 1, 2},
    {"I32", 1, 4},       {"I64", 1, 8},       {"F64", 1, 8},      {"NVFP4", 64, 36},
    {"Q1_0", 128, 18},   {"Q2_0", 64, 18},
}};

struct IdEntry {
  std::uint32_t ggml_id;  // enum ggml_type in ggml.h
  GgmlType type;
};
// Source: quant_types.json ggml_type_id (ggml include/ggml.h enum ggml_type).
constexpr std::array<IdEntry, 35> kIds = {{
    {0, GgmlType::F32},      {1, GgmlType::F16},      {2, GgmlType::Q4_0},    {3, GgmlType::Q4_1},
    {6, GgmlType::Q5_0},     {7, GgmlType::Q5_1},     {8, GgmlType::Q8_0},    {9, GgmlType::Q8_1},
    {10, GgmlType::Q2_K},    {11, GgmlType::Q3_K},    {12, GgmlType::Q4_K},   {13, GgmlType::Q5_K},
    {14, GgmlType::Q6_K},    {15, GgmlType::Q8_K},    {16, GgmlType::IQ2_XXS}, {17, GgmlType::IQ2_XS},
    {18, GgmlType::IQ3_XXS}, {19, GgmlType::IQ1_S},   {20, GgmlType::IQ4_NL}, {21, GgmlType::IQ3_S},
    {22, GgmlType::IQ2_S},   {23, GgmlType::IQ4_XS},  {24, GgmlType::I8},     {25, GgmlType::I16},
    {26, GgmlType::I32},     {27, GgmlType::I64},     {28, GgmlType::F64},    {29, GgmlType::IQ1_M},
    {30, GgmlType::BF16},    {34, GgmlType::TQ1_0},   {35, GgmlType::TQ2_0},  {39, GgmlType::MXFP4},
    {40, GgmlType::NVFP4},   {41, GgmlType::Q1_0},    {42, GgmlType::Q2_0},
}};

}  // namespace

const GgmlTypeTraits& traits(GgmlType type) { return kTraits[static_cast<std::size_t>(type)]; }

std::optional<GgmlType> ggml_type_from_id(std::uint32_t ggml_id) {
  for (const IdEntry& e : kIds)
    if (e.ggml_id == ggml_id) return e.type;
  return std::nullopt;
}

std::optional<GgmlType> ggml_type_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kTraits.size(); ++i)
    if (kTraits[i].name == name) return static_cast<GgmlType>(i);
  return std::nullopt;
}

}  // namespace llmsizer
