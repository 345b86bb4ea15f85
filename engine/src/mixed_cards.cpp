#include "llmsizer/mixed_cards.hpp"

#include <algorithm>

#include "llmsizer/catalog_similar.hpp"

namespace llmsizer {

std::optional<Error> set_cards(Scenario& s, std::vector<Device> cards) {
  if (cards.empty()) return Error{"scenario.bad_value", "give at least one GPU"};
  const bool equal = std::all_of(cards.begin(), cards.end(), [&](const Device& d) { return d.id == cards.front().id; });
  s.device = cards.front();
  s.gpu_count = static_cast<int>(cards.size());
  if (equal) s.cards.clear();
  else s.cards = std::move(cards);
  return std::nullopt;
}

Result<std::vector<Device>> find_cards(const Catalog& catalog, const std::string& ids) {
  std::vector<Device> cards;
  std::size_t start = 0;
  while (start <= ids.size()) {
    const std::size_t comma = std::min(ids.find(',', start), ids.size());
    const std::string id = ids.substr(start, comma - start);
    const Device* d = catalog.find_device(id);
    if (d == nullptr)
      return Error{"request.unknown_gpu", "unknown GPU '" + id.substr(0, 80) + "' in the list '" + ids.substr(0, 120) + "'" +
                                              did_you_mean(similar_device_ids(catalog, id))};
    cards.push_back(*d);
    start = comma + 1;
  }
  return cards;
}

std::optional<Error> check_mixed_cards(const Scenario& s) {
  if (!has_mixed_cards(s)) return std::nullopt;
  auto bad = [](const std::string& what) { return Error{"scenario.bad_value", what}; };
  if (static_cast<int>(s.cards.size()) != s.gpu_count || !s.device)
    return bad("the GPU count (" + std::to_string(s.gpu_count) + ") disagrees with the " +
               std::to_string(s.cards.size()) + " cards listed");
  if (!engine_is_llama_cpp_based(s.engine))
    return bad(std::string(engine_name(s.engine)) +
               (s.engine == InferenceEngine::mlx
                    ? " runs on one Mac, not on mixed cards"
                    : " splits every layer across the GPUs (tensor parallel), which needs equal cards; mixed cards "
                      "run under llama.cpp or Ollama (layer split)"));
  for (const Device& d : s.cards) {
    if (d.unified_memory || d.kind == DeviceKind::unified || d.kind == DeviceKind::apu || d.kind == DeviceKind::cpu)
      return bad(d.id + " is not a discrete card (unified memory or CPU); mixed cards are discrete GPUs");
    if (d.memory_bytes <= 0 || d.memory_bytes > (std::int64_t{1} << 50))
      return bad("device memory of " + d.id + " must be positive and at most 1 PiB");
  }
  return std::nullopt;
}

std::vector<std::pair<int, int>> layer_split_by_free_memory(const std::vector<double>& free_bytes, int first_layer,
                                                            int gpu_layers) {
  const std::size_t n = free_bytes.size();
  std::vector<std::pair<int, int>> ranges(n, {first_layer, first_layer});
  if (n == 0) return ranges;
  // Cumulative shares, as llama.cpp normalises its splits (a card with no
  // free memory gets a zero share; all zero: equal shares).
  std::vector<double> cumulative(n, 0.0);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += std::max(0.0, free_bytes[i]);
    cumulative[i] = sum;
  }
  for (std::size_t i = 0; i < n; ++i)
    cumulative[i] = sum > 0.0 ? cumulative[i] / sum : static_cast<double>(i + 1) / static_cast<double>(n);
  const double act_layers = static_cast<double>(gpu_layers) + 1.0;
  std::size_t card = 0;
  for (int r = 0; r < gpu_layers; ++r) {
    const double at = static_cast<double>(r) / act_layers;
    const auto j = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), at) - cumulative.begin());
    card = std::min(j, n - 1);
    ranges[card].second = first_layer + r + 1;
  }
  // Contiguous ranges: a card starts where the one before it ended.
  int start = first_layer;
  for (auto& range : ranges) {
    range.first = start;
    range.second = std::max(range.second, start);
    start = range.second;
  }
  return ranges;
}

std::optional<double> cards_price_usd(const Scenario& s) {
  double sum = 0.0;
  for (const Device& d : s.cards) {
    if (!d.price_usd || !(*d.price_usd > 0.0)) return std::nullopt;
    sum += *d.price_usd;
  }
  return sum;
}

double cards_tdp_w(const Scenario& s) {
  double sum = 0.0;
  for (const Device& d : s.cards) {
    if (!(d.tdp_w > 0.0)) return 0.0;
    sum += d.tdp_w;
  }
  return sum;
}

std::string card_ids(const Scenario& s) {
  std::string out;
  if (s.cards.empty()) {
    if (!s.device) return out;
    for (int i = 0; i < s.gpu_count; ++i) out += (i ? "," : "") + s.device->id;
    return out;
  }
  for (std::size_t i = 0; i < s.cards.size(); ++i) out += (i ? "," : "") + s.cards[i].id;
  return out;
}

}  // namespace llmsizer
