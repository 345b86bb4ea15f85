// libFuzzer target: config.json text through read_hf_config_text to estimates.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/params.hpp"

using namespace llmsizer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto arch = read_hf_config_text(text);
  if (!arch) return 0;
  (void)count_params(arch.value());
  for (const char* quant : {"Q4_K_M", "native", "UD-Q2_K_XL"}) {
    for (const Scenario& s : fuzz::scenarios(quant_scheme_from_name(quant).value())) (void)estimate(arch.value(), s);
  }
  return 0;
}
