// Mixed cards: llama.cpp's layer split over GPUs that differ (two RTX 3090s and
// an RTX 3060). llama.cpp gives each card a contiguous run of layers in
// proportion to its free memory (--tensor-split, by default the free memory it
// finds) and runs the cards one after another; tensor parallel engines (vLLM,
// SGLang, TensorRT-LLM) split every matrix evenly and need equal cards.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/catalog.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

// Sets the scenario's cards: equal ids become gpu_count equal cards of one
// device (the path every other estimate takes); unequal ones keep the list,
// with device the first card. Error "scenario.bad_value" for an empty list.
std::optional<Error> set_cards(Scenario& scenario, std::vector<Device> cards);

// The catalog devices of a comma-separated list of ids, one per card
// ("rtx-3090,rtx-3090,rtx-3060-12gb"). Error "request.unknown_gpu" naming the
// id that is not in the catalog.
Result<std::vector<Device>> find_cards(const Catalog& catalog, const std::string& ids);

// Whether the scenario lists unequal cards (Scenario::cards non-empty).
inline bool has_mixed_cards(const Scenario& s) { return !s.cards.empty(); }

// One clear error when mixed cards cannot run as asked: an engine other than
// llama.cpp or Ollama ("tensor parallel needs equal cards"), a unified-memory
// device in the list, or a list that disagrees with gpu_count.
std::optional<Error> check_mixed_cards(const Scenario& scenario);

// llama.cpp's assignment of layers to cards (llama-model.cpp, load_tensors):
// with cumulative shares c_j of the cards' free bytes, GPU layer r of
// `gpu_layers` goes to the first card j with c_j > r / (gpu_layers + 1), the
// "+ 1" being the output layer, which so lands on the last card. Returns one
// [first, last) range per card, offset by `first_layer` (the layers before it
// run from RAM). A card whose share is too small for a layer gets an empty range.
std::vector<std::pair<int, int>> layer_split_by_free_memory(const std::vector<double>& free_bytes, int first_layer,
                                                            int gpu_layers);

// Sum of the cards' purchase prices; nullopt unless every card has one.
std::optional<double> cards_price_usd(const Scenario& scenario);
// Sum of the cards' TDPs; 0 unless every card states one.
double cards_tdp_w(const Scenario& scenario);

// Decode and prefill over mixed cards (speed_mixed_cards.cpp): each card reads
// its own layers at its own bandwidth, one card after another, so a step is
// the sum of the cards' times plus the hand-off at each boundary; prefill
// pipelines micro-batches through the cards and runs at the slowest stage.
// Null without a bandwidth figure on every card.
std::optional<SpeedEstimate> estimate_mixed_card_speed(const Architecture& arch, const Scenario& scenario,
                                                       const Estimate& memory_estimate);

// "rtx-3090,rtx-3090,rtx-3060-12gb": the cards' ids as the request's gpu key
// and the page's URL hash hold them.
std::string card_ids(const Scenario& scenario);

}  // namespace llmsizer
