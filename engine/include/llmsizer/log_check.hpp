// A pasted llama.cpp load log (load_log.hpp) beside the estimate for the same
// settings: the log's context, sequences, KV type, flash attention and
// offloaded layers, on the machine it names; each buffer it allocated against
// the estimate's figure for it, in MiB, with what a difference usually means.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/load_log.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

struct LogCheckLine {
  std::string item;      // "CUDA0 model buffer", "KV cache, all devices", "Host compute buffer"
  std::string where;     // the log's line
  double log_mib = 0.0;
  std::optional<double> estimate_mib;  // none where the estimate has no such figure
  double difference_pct = 0.0;         // (estimate - log) / log, where both exist
  bool differs = false;                // by more than kLogCheckTolerance
  std::string hint;                    // what such a difference usually means ("" when it agrees)
};

// Buffers within this share of the log's figure agree.
inline constexpr double kLogCheckTolerance = 0.02;

struct LogCheck {
  std::string model;     // the catalog model sized
  std::string quant;
  std::string device;
  int gpu_count = 1;
  std::int64_t context_tokens = 0;  // per sequence
  std::int64_t sequences = 1;
  std::string kv_type;
  bool flash_attention = false;
  double offload_fraction = 0.0;
  std::vector<LogCheckLine> lines;
  std::vector<std::string> warnings;
};

// base: the model (model or config; absent: the catalog model with the log's
// parameter count), quant (absent: the log's file type), the device (absent:
// the GPU the log names) and system RAM. Error ids: "log.no_model" (no model
// given and none with the log's parameters), "log.other_model" (the log's
// parameter count is not the given model's), "log.no_device", "log.no_quant",
// and the estimate's own.
Result<LogCheck> check_load_log(const Sizer& sizer, const LoadLog& log, const SizerRequest& base);

}  // namespace llmsizer
