// One machine's speed factors from what was measured on it: llama-bench rows
// (llama_bench.hpp) sized with the catalog, then the speed model's own three
// terms (achievable bandwidth, matrix throughput, fixed cost per layer) scaled
// by least squares on the logarithm of each row's tokens per second. The
// factors then travel in requests (Scenario::machine_factors) so that every
// speed is for that machine.
#pragma once
#include <string>
#include <vector>

#include "llmsizer/llama_bench.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

struct CalibratedRow {
  std::string where;       // the row's line ("line 7", "record 3")
  std::string test;        // "pp512", "tg128 @ d4096"
  std::string model_as_stated;  // llama-bench's model column
  std::string model;       // the catalog model it was sized as; "" when none matched
  std::string quant;       // "Q4_K_M"
  double measured_tokens_per_s = 0.0;
  double estimated_tokens_per_s = 0.0;   // the fitted model before calibration; 0 when left out
  double calibrated_tokens_per_s = 0.0;  // with the machine's factors; 0 when left out
  std::string left_out;    // why the row is not in the fit ("" when it is)
};

struct MachineCalibration {
  MachineFactors factors;
  std::string backend;     // the rows' backend: "cuda", "metal", ...
  std::string device;      // the catalog device id the rows were sized on
  int gpu_count = 1;
  // Which factors the rows determine: "bandwidth_factor" (tg rows),
  // "compute_factor" (pp rows), "overhead_factor" (tg rows of models of
  // different sizes). The others stay 1.
  std::vector<std::string> fitted;
  std::vector<CalibratedRow> rows;
  std::vector<std::string> warnings;
};

// `base` gives the machine: its device (gpu or custom_gpu, gpus) and host RAM;
// without a device, the GPU the pasted text names when it names one catalog
// device. Its model, quant and engine are ignored: each row is its own model,
// run by llama.cpp. Error ids: those of parse_llama_bench, "bench.mixed" (rows
// of several backends or GPUs), "bench.no_device", "bench.no_rows" (no row could
// be sized: the message says why for the first).
Result<MachineCalibration> calibrate_machine(const Sizer& sizer, const BenchResults& bench, const SizerRequest& base);

}  // namespace llmsizer
