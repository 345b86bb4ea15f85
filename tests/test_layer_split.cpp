// The layer split people set by hand (--tensor-split) and the search that
// suggests one: llama.cpp's own assignment rule, replayed here independently,
// must give every GPU exactly the layers the estimate placed there.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "llmsizer/layer_split.hpp"

using namespace llmsizer;

namespace {

// llama.cpp (src/llama-model.cpp, load_tensors): split points are the running
// sums of the --tensor-split values over their total; slot il of act slots
// goes to std::upper_bound(splits, float(il) / act) - splits.begin().
std::vector<int> llama_cpp_slots(const std::vector<int>& weights, int act) {
  std::vector<float> splits;
  float sum = 0.0f;
  for (int w : weights) splits.push_back(sum += static_cast<float>(w));
  for (float& s : splits) s /= sum;
  std::vector<int> counts(weights.size(), 0);
  for (int il = 0; il < act; ++il) {
    const auto gpu = std::upper_bound(splits.begin(), splits.end(), static_cast<float>(il) / static_cast<float>(act)) -
                     splits.begin();
    ++counts[static_cast<std::size_t>(gpu)];
  }
  return counts;
}

}  // namespace

TEST_CASE("tensor-split weights reproduce every layer count exactly", "[layer_split]") {
  // Llama 3.3 70B on two cards: 80 layers and the output slot. 41 and 40 slots:
  // weights 81 and 81, split point 0.5; slot 40 (40/81 = 0.494) is GPU 0's,
  // slot 41 (0.506) GPU 1's.
  CHECK(tensor_split_weights({41, 40}) == std::vector<int>{81, 81});
  CHECK(llama_cpp_slots({81, 81}, 81) == std::vector<int>{41, 40});
  // Every split of 33 to 129 slots over 2 to 4 GPUs, each at least one slot.
  for (int gpus = 2; gpus <= 4; ++gpus)
    for (int act = 33; act <= 129; act += 8)
      for (int first = 1; first <= act - gpus + 1; first += 3) {
        std::vector<int> slots(static_cast<std::size_t>(gpus), 1);
        slots[0] = first;
        int left = act - first - (gpus - 1);
        for (std::size_t g = 1; g < slots.size() && left > 0; ++g) {
          const int add = g + 1 == slots.size() ? left : left / 2;
          slots[g] += add;
          left -= add;
        }
        if (left != 0) continue;
        INFO("slots " << layer_split_text(slots));
        CHECK(llama_cpp_slots(tensor_split_weights(slots), act) == slots);
      }
}

TEST_CASE("a layer split is read from text and refused when malformed", "[layer_split]") {
  auto ok = parse_layer_split("41,39");
  REQUIRE(ok);
  CHECK(ok.value() == std::vector<int>{41, 39});
  CHECK(layer_split_text(ok.value()) == "41,39");
  for (const char* bad : {"", "41,", ",39", "41;39", "0,80", "-1,81", "4x", "41,39,", "999999999999"}) {
    INFO(bad);
    auto r = parse_layer_split(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().id == "request.bad_value");
  }
}
