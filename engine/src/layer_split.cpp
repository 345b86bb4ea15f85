#include "llmsizer/layer_split.hpp"

#include <charconv>

namespace llmsizer {

Result<std::vector<int>> parse_layer_split(const std::string& text) {
  std::vector<int> counts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, end - start);
    int value = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || value < 1 || value > 100000)
      return Error{"request.bad_value", "layer_split must be whole numbers of layers per GPU, such as 41,39; got '" +
                                            part.substr(0, 20) + "'"};
    counts.push_back(value);
    if (counts.size() > 1024) return Error{"request.bad_value", "layer_split lists more than 1024 GPUs"};
    start = end + 1;
  }
  return counts;
}

std::string layer_split_text(const std::vector<int>& layers_per_gpu) {
  std::string out;
  for (std::size_t i = 0; i < layers_per_gpu.size(); ++i) out += (i ? "," : "") + std::to_string(layers_per_gpu[i]);
  return out;
}

std::vector<int> tensor_split_weights(const std::vector<int>& slots_per_gpu) {
  std::vector<int> weights;
  const std::size_t n = slots_per_gpu.size();
  for (std::size_t g = 0; g < n; ++g) {
    int w = 2 * slots_per_gpu[g];
    if (n > 1 && g == 0) w -= 1;
    if (n > 1 && g + 1 == n) w += 1;
    weights.push_back(w);
  }
  return weights;
}

}  // namespace llmsizer
