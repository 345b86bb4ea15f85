// Catalog ids close to one that is not in the catalog, for the message that
// refuses it: "--gpu h100" names no device, h100-sxm, h100-pcie and h100-nvl do.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/catalog.hpp"

namespace llmsizer {

// Up to `most` ids of catalog models (devices) that an unknown id was likely
// meant for, closest first: the same letters and digits in another case or
// punctuation ("Llama-3.1-8B"); an id, name or alias that contains it ("h100",
// "4090", "qwen3-30b") or that it contains with a size or suffix added
// ("rtx-4090-24gb", "deepseek-r1-671b"); else one within a typo or two of an
// id ("llama-3-8b"). Empty when nothing is that close.
std::vector<std::string> similar_model_ids(const Catalog& catalog, std::string_view unknown, std::size_t most = 3);
std::vector<std::string> similar_device_ids(const Catalog& catalog, std::string_view unknown, std::size_t most = 3);

// " (did you mean a, b or c?)" for a refusal message; "" for no ids.
std::string did_you_mean(const std::vector<std::string>& ids);

}  // namespace llmsizer
