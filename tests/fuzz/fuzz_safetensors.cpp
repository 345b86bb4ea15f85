// libFuzzer target: safetensors headers and index files, measured on a catalog
// architecture and estimated.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/safetensors.hpp"

using namespace llmsizer;

namespace {

const Architecture& architecture() {
  static const Architecture arch = [] {
    auto a = read_hf_config(model_config(*fuzz::catalog().find_model("qwen3-30b-a3b")).value());
    if (!a) std::abort();
    return a.value();
  }();
  return arch;
}

void estimate_all(const ModelWeights& w) {
  for (const Scenario& s : fuzz::scenarios(quant_scheme_from_name("native").value())) (void)estimate(architecture(), s, w);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  SafetensorsReadOptions options;
  options.max_header_bytes = 1 << 20;
  auto prefix = read_safetensors_header(bytes, options);
  if (prefix && !prefix.value().complete) fuzz::require(prefix.value().bytes_needed > static_cast<std::int64_t>(size));
  options.file_bytes = static_cast<std::int64_t>(size);
  auto whole = read_safetensors_header(bytes, options);
  if (whole) fuzz::require(whole.value().complete);
  if (prefix && prefix.value().complete) {
    auto w = safetensors_weights(architecture(), {prefix.value().file}, warnings);
    if (w) {
      fuzz::require(w.value().weights.tensor_bytes == prefix.value().file.tensor_bytes);
      estimate_all(w.value());
    }
  }
  // The same bytes as an index file.
  auto index = read_safetensors_index(bytes);
  if (index) {
    auto w = safetensors_index_weights(architecture(), index.value(), warnings);
    if (w) {
      fuzz::require(w.value().weights.total_bytes == index.value().total_size);
      estimate_all(w.value());
    }
  }
  return 0;
}
