// Your own measurements: `llm-sizer calibrate --llama-bench FILE` (this
// machine's speed factors from its llama-bench rows, read back by the other
// commands' --calibration FILE) and `llm-sizer check-log FILE` (a load log's
// buffers beside the estimate).
#pragma once
#include <string>

#include "arguments.hpp"
#include "text_file.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer::cli {

// `calibrate --json`'s answer (its "factors") or the factors object alone.
Result<MachineCalibrationKey> read_calibration_file(const std::string& path);

int run_calibrate(const Command& c, const Sizer& sizer);

// `llm-sizer check-log FILE`: the log's buffers beside the estimate; `request`
// holds the flags given (model, quant, gpu...).
int run_check_log(const Command& c, const Sizer& sizer, const SizerRequest& request);

}  // namespace llmsizer::cli
