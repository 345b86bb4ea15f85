#include "llmsizer/name_index.hpp"

namespace llmsizer {

void stable_sort_indices(std::vector<std::uint32_t>& order,
                         bool (*less)(const void* context, std::uint32_t a, std::uint32_t b), const void* context) {
  // Bottom-up merge sort: runs of 1, 2, 4... merged back and forth between
  // `order` and a buffer; on equal items the left run's comes first (stable).
  const std::size_t n = order.size();
  std::vector<std::uint32_t> buffer(n);
  std::vector<std::uint32_t>* from = &order;
  std::vector<std::uint32_t>* to = &buffer;
  for (std::size_t width = 1; width < n; width *= 2) {
    for (std::size_t left = 0; left < n; left += 2 * width) {
      const std::size_t middle = std::min(left + width, n), right = std::min(left + 2 * width, n);
      std::size_t i = left, j = middle, k = left;
      while (i < middle && j < right) (*to)[k++] = less(context, (*from)[j], (*from)[i]) ? (*from)[j++] : (*from)[i++];
      while (i < middle) (*to)[k++] = (*from)[i++];
      while (j < right) (*to)[k++] = (*from)[j++];
    }
    std::swap(from, to);
  }
  if (from != &order) order.swap(buffer);
}

}  // namespace llmsizer
