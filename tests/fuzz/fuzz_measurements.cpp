// libFuzzer target: pasted measurements (issue 34), llama-bench output and
// llama.cpp load logs, through their readers and, for what they read, the
// names and test labels the calibration derives from the rows.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llmsizer/llama_bench.hpp"
#include "llmsizer/load_log.hpp"

using namespace llmsizer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto bench = parse_llama_bench(text)) {
    for (const BenchRow& row : bench.value().rows) {
      (void)row.test_name();
      (void)quant_name_from_model_type(row.model_type);
      (void)arch_from_model_type(row.model_type);
    }
  }
  if (auto log = parse_load_log(text)) (void)quant_name_from_file_type(log.value().file_type);
  return 0;
}
