// libFuzzer target: GGUF headers, from the bytes to a full estimate.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "llmsizer/gguf.hpp"

using namespace llmsizer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  GgufReadOptions options;
  options.max_header_bytes = 1 << 20;
  // As a prefix of a longer file (the reader may ask for more) ...
  auto prefix = read_gguf_header(bytes, options);
  if (prefix && !prefix.value().complete) fuzz::require(prefix.value().bytes_needed > static_cast<std::int64_t>(size));
  // ... and as the whole file.
  options.file_bytes = static_cast<std::int64_t>(size);
  auto whole = read_gguf_header(bytes, options);
  if (whole) fuzz::require(whole.value().complete);
  if (!prefix || !prefix.value().complete) return 0;

  const GgufFile& file = prefix.value().file;
  auto model = gguf_model({file});
  if (!model) return 0;
  const GgufModel& m = model.value();
  const GgufKindBytes& k = m.kind_bytes;
  fuzz::require(k.token_embd + k.output + k.attention + k.ffn + k.routed_experts + k.norms + k.other ==
                m.weights.weights.tensor_bytes);
  fuzz::require(m.weights.weights.layer_bytes.size() == m.arch.layers.size());
  for (const Scenario& s : fuzz::scenarios(m.quant)) {
    (void)estimate(m.arch, s, m.weights);
    (void)estimate(m.arch, s);  // the same architecture at its file type, computed
  }
  // The file twice is a split set with a part given twice (or a duplicate).
  fuzz::require(!gguf_model({file, file}));
  return 0;
}
