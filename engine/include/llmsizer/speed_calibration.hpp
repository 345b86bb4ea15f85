// Constants of the speed model, fitted on public measurements. The values live
// in data/speed_calibration.json (with how and on what they were fitted);
// scripts/speed/fit.py writes that file and engine/src/speed_calibration_data.cpp,
// which compiles the same numbers in (the engine does no I/O).
#pragma once
#include <cstddef>
#include <string_view>

#include "llmsizer/device.hpp"
#include "llmsizer/engines.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/speed_types.hpp"

namespace llmsizer {

// Engines sharing kernels and scheduling: llama.cpp and Ollama; vLLM, SGLang and
// TensorRT-LLM (CUDA graphs, paged attention, fused GEMMs); MLX.
enum class EngineFamily { llama_cpp, serving, mlx };

// Weight formats whose kernels cost differently per byte read.
enum class WeightFamily {
  float16,  // F16/BF16/F32 tensors
  legacy,   // Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and MLX's affine 4/8-bit: one scale (and bias) per group
  kquant,   // Q2_K..Q6_K mixes (and the bartowski/unsloth mixes built on them)
  iquant,   // IQ* and TQ* codebook types
  mxfp4,    // gpt-oss experts in MXFP4 (GGUF)
  fp8,      // FP8 checkpoints (block or per-tensor scales)
  fp4,      // NVFP4 / MXFP4 checkpoints served natively
  int4      // AWQ, GPTQ, NF4
};

// How well a backend's decode kernels stream weights from memory. Shared by the
// engines running on it: bandwidth is the hardware's; what differs per engine
// is the fixed cost per layer (RuntimeCalibration).
struct BackendCalibration {
  Backend backend;
  std::string_view vendor;     // "" for any vendor; a row for one vendor overrides it
  double bandwidth_efficiency;  // share of peak memory bandwidth decode reads reach
  double vector_fp32_factor;    // a device whose vendor states only its vector FP32 rate: the
                                // dense throughput prompt kernels see, in multiples of that rate
                                // (matrix units); prefill_efficiency applies on top. Metal's is 1:
                                // its efficiency is fitted against Apple's FP32 figures
  int fitted_records;           // measurements behind the row; 0: borrowed (see the JSON)
};

struct RuntimeCalibration {
  EngineFamily engine;
  Backend backend;
  std::string_view vendor;    // "" for any vendor
  double layer_overhead_s;    // per layer and forward pass: launches, synchronisation, sampling
  double prefill_efficiency;  // share of dense matrix throughput prompt processing (and
                              // compute-bound batched decode) reaches
  int fitted_records;
};

struct WeightCalibration {
  WeightFamily family;
  double bandwidth_factor;  // multiplies bandwidth_efficiency for weight reads (dequantization)
  double prefill_factor;      // multiplies prefill_efficiency where weights are dequantized to F16
                              // tiles (Metal, Vulkan, SYCL, CPU)
  double prefill_factor_mma;  // ... and on CUDA/ROCm, whose quantized GEMMs (MMQ) run on INT8
                              // matrix units at the dense rate's double
  int fitted_records;
};

// Constants outside the per-backend rows.
struct SpeedConstants {
  double ram_bandwidth_efficiency;  // share of RAM bandwidth the CPU reaches on offloaded weights
  double hbm_bandwidth_factor;      // llama.cpp on HBM parts (A100, H100, MI300X): share of the
                                    // bandwidth its kernels reach beside GDDR cards'
  double hbm_prefill_factor;        // ... and of the tensor throughput
  double pcie_bytes_per_s;          // host-to-GPU copies, and all-reduces without NVLink
  double allreduce_latency_s;       // one small all-reduce across the GPUs
  double layer_split_hop_s;         // per token and GPU boundary under layer split: hand-off and sync
  double pressure_onset_fill;       // Apple: share of the wired limit above which decode slows
  double pressure_slowdown;         // extra decode time at a full wired limit (1: twice as long)
  double moe_layer_overhead_factor;  // a routed-expert layer's fixed cost, in dense layers'
  double gemm_half_rows;            // a GEMM of this many token rows runs at half its large-batch
                                    // rate (tiles part empty): time x (1 + this / rows)
  double multi_die_bandwidth_factor;  // a GPU reading memory attached to two dies (Apple Ultra:
                                      // two Max dies over UltraFusion): share of one die's efficiency
  double hbm_bandwidth_factor_rocm;  // llama.cpp's HIP kernels on AMD's HBM parts (MI100, MI210,
                                     // MI300X): hbm_bandwidth_factor's counterpart for ROCm
  double integrated_prefill_factor;  // llama.cpp on AMD's integrated GPUs (Strix Halo): share of
                                     // the prompt rate the backend rows give a discrete card
  double expert_gemm_half_rows;      // llama.cpp's routed-expert GEMMs (mul_mat_id): gemm_half_rows'
                                     // counterpart, over the token rows each expert gets
  double expert_gemm_rate_factor;    // ... and their share of the dense GEMM rate at full tiles
  double network_hop_s;              // llama.cpp's RPC between machines: per pass and machine boundary
  double network_bytes_per_s;        // ... and the rate activations cross it at
  double pipeline_overlap_without_p2p;  // llama.cpp's layer split over GPUs without peer access
                                        // (GeForce): the share of pipeline parallelism's ideal
                                        // saving (micro-batches on all GPUs at once) they realize
};

// A serving engine's scheduler under load (speed.served), beside the
// single-stream rows above: what its batched steps reach and what each step and
// each request cost on top. Fitted per engine, backend and weight format on
// measured serving runs (scripts/speed/fit_served.py; the "served" section of
// data/speed_calibration.json).

struct ServedCalibration {
  InferenceEngine engine;
  Backend backend;
  // The kernels the row is for: a weight format (weight_family_name: "mxfp4",
  // "fp4"), an attention kind ("mla"), or "" for the engine's others.
  std::string_view weights;
  ServedFactors factors;
  int fitted_records;        // measurements behind the row; 0: borrowed
  int typical_error_pct;     // median |error| of throughput on those runs, whole %; -1: not fitted
  int ttft_typical_error_pct;  // median |error| of the time to first token on those runs; -1: none measured
  std::string_view basis;    // where an unfitted row's values come from ("" when fitted)
  // Where a fitted row's TTFT-only costs come from when its runs measured no
  // time to first token ("" when they did): the same engine's row that did.
  std::string_view ttft_basis;
};

// Memory families whose achievable bandwidth differs for the same runtime.
enum class MemoryClass { gddr, hbm, lpddr, ddr };  // ddr: a CPU-only machine's DIMMs
MemoryClass memory_class(const Device& device);
const char* memory_class_name(MemoryClass c);

EngineFamily engine_family(InferenceEngine engine);
WeightFamily weight_family(const QuantScheme& quant, NativeFormat native_format);
// Weights whose matrix products are FP4 by FP4 where the part can (NVFP4:
// activations quantized to FP4 too); gpt-oss's MXFP4 experts are read as
// weights only, their products at 16 or 8 bits.
bool fp4_products(const QuantScheme& quant, NativeFormat native_format);
// The serving rows' key for the weights: weight_family_name, with gpt-oss's
// MXFP4 experts ("mxfp4") apart from NVFP4 checkpoints ("fp4").
std::string_view served_weights_key(const QuantScheme& quant, NativeFormat native_format);
const char* engine_family_name(EngineFamily family);
const char* weight_family_name(WeightFamily family);

// Rows for a backend (and vendor); backends without measurements fall back to
// a stated neighbour (sycl -> vulkan, cann/musa/other -> cuda, ...).
const BackendCalibration& backend_calibration(Backend backend, std::string_view vendor);
const RuntimeCalibration& runtime_calibration(EngineFamily engine, Backend backend, std::string_view vendor);
const WeightCalibration& weight_calibration(WeightFamily family);
const SpeedConstants& speed_constants();
// The row for a serving engine (vLLM, SGLang, TensorRT-LLM; llama.cpp's server
// with parallel slots) on a backend and weight format: the most specific row,
// else the engine's row on the nearest backend (stated in its basis).
const ServedCalibration& served_calibration(InferenceEngine engine, Backend backend, std::string_view weights);

// The compiled tables, for the test that compares them with the JSON.
struct CalibrationTables {
  const BackendCalibration* backends;
  std::size_t backend_count;
  const RuntimeCalibration* runtimes;
  std::size_t runtime_count;
  const WeightCalibration* weights;
  std::size_t weight_count;
  const SpeedConstants* constants;
  const ServedCalibration* served;
  std::size_t served_count;
};
CalibrationTables calibration_tables();

}  // namespace llmsizer
