// Plain records of the speed model: the work of one decode step (or of a whole
// prompt) and the time each part of it takes. Kept apart from speed.hpp so that
// estimate.hpp can hold them without including the model's functions.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace llmsizer {

// One machine's own factors, fitted on what was measured on it (a pasted
// llama-bench result, machine_calibration.hpp): they multiply the rates the
// fitted rows give for its device and backend. 1: the model as fitted on
// everyone's measurements.
struct MachineFactors {
  double bandwidth_factor = 1.0;  // weight and KV reads from the device's memory
  double compute_factor = 1.0;    // matrix throughput (prompt processing, batched decode)
  double overhead_factor = 1.0;   // the fixed cost per layer and pass
  double attention_factor = 1.0;  // the attention products' rate (queries by the cache), which
                                  // prompt time at depth follows; kernels apart from the GEMMs'
  double kv_factor = 1.0;         // the KV cache's read rate beside the weights' (decode at depth)
  int rows = 0;                   // measurements the factors were fitted on
};

// A serving engine's constants under load (speed_calibration.hpp's
// ServedCalibration; a request may set its own).
struct ServedFactors {
  double bandwidth_factor = 1.0;      // multiplies the weight and KV read rates in a served step
  double compute_factor = 1.0;        // multiplies the matrix throughput in a served step
  double step_overhead_s = 0.0;       // per scheduler step: scheduling, sampling, launch gaps
  double allreduce_latency_factor = 1.0;  // multiplies allreduce_latency_s (the engines' own all-reduce kernels)
  double request_overhead_s = 0.0;    // per request before its first token: tokenizing, admission, HTTP
  // Per running sequence and scheduler step: the host's own work for each
  // request (scheduling, its block table, sampling, detokenizing) that the
  // GPU waits for; it grows a step with the batch where the roofline does not.
  double sequence_overhead_s = 0.0;
  // Per layer of each pass that takes prompt tokens: such a forward runs
  // without the CUDA graphs the engine captured for decode batches (each
  // layer's launches and host work), and the decoding requests wait for it.
  double prompt_pass_layer_overhead_s = 0.0;
};

// What the times were computed from: the fitted runtime row, the weight format
// family, and the device's peak figures before efficiencies.
struct SpeedBasis {
  std::string runtime;        // "llama.cpp/cuda", "llama.cpp/vulkan/nvidia", "mlx/metal", ...
  std::string weight_family;  // "kquant", "legacy", "float16", "fp8", ...
  double peak_bandwidth_bytes_per_s = 0.0;
  double peak_flops = 0.0;    // dense throughput for the weights' type; 0 when unknown
  std::string flops_basis;    // the figure peak_flops comes from: "fp16" (dense tensor rate), "fp4",
                              // "fp8", "fp32_vector" (x vector_fp32_factor) or "" (none)
  double vector_fp32_flops = 0.0;  // the device's stated FP32 rate, where flops_basis is fp32_vector
  double link_bytes_per_s = 0.0;
  double ram_bandwidth_bytes_per_s = 0.0;
  // Offloaded bytes are read from a host RAM of their own (a discrete card's
  // machine), at the scenario's RAM bandwidth; false where the device's own
  // memory is that RAM (unified memory, a CPU-only machine).
  bool host_ram = true;
  std::string memory_class;   // "hbm", "gddr" or "lpddr": which achievable-bandwidth factors apply
  double memory_pressure = 1.0;  // decode slowdown near Apple's wired limit (1: none)
  int memory_dies = 1;           // dies the memory is read across (Apple Ultra: 2)
  bool peer_access = true;       // GPUs copy to each other directly (not GeForce: staged through the host)
  // llama.cpp's layer split over whole machines (its RPC): how many, and the
  // wait at each machine boundary per pass (0 and 0 within one host).
  int network_machines = 0;
  double network_hop_s = 0.0;
  // MoE passes take this many times the modelled time: measured slowdowns
  // (llama.cpp on Intel GPUs; Qwen3-Next's graph in decode), 1 elsewhere.
  double moe_decode_time_factor = 1.0;
  double moe_prompt_time_factor = 1.0;
  // The device figures above that are catalog estimates, not vendor or measured
  // figures ("bandwidth_gb_per_s", "fp16_tflops", ...): the speeds inherit their doubt.
  std::vector<std::string> estimated_inputs;
  // The machine's own factors (Scenario::machine_factors) where the speeds are
  // calibrated on its measurements; empty otherwise.
  std::optional<MachineFactors> machine_factors;
  // A serving engine's row factors (speed.served's): its steps alone take them
  // too, so one sequence alone is the serving curve's first point.
  std::optional<ServedFactors> serving_factors;
  std::string serving_rough_because;  // why that row's figures are rough here (speed.served's reason); empty when not
  std::string serving_ttft_rough_because;  // why its time to first token is rougher than the rest; empty when not
  double serving_prompt_pass_overhead_s = 0.0;  // that row's fixed cost of one prompt pass of this model (every layer)
};

// What one forward pass has to move and compute, on its critical path: layer
// split GPUs run one after another, so their bytes add up; tensor-parallel GPUs
// run side by side, so only one GPU's share counts.
struct StepWork {
  double gpu_weight_bytes = 0.0;   // weights read from GPU memory
  double gpu_kv_bytes = 0.0;       // KV cache read, recurrent state read and written
  double ram_bytes = 0.0;          // weights and KV the CPU reads from system RAM (offload)
  double host_to_gpu_bytes = 0.0;  // prefill: offloaded weights llama.cpp copies to the GPU
  double flops = 0.0;              // matrix products and attention on the GPU(s)
  double expert_flops = 0.0;       // prefill: the routed experts' share of flops
  double attention_flops = 0.0;    // the attention products' share of flops (scores and values over the cache)
  double gemm_rows = 0.0;          // prefill: tokens each dense weight matrix multiplies per pass
  double expert_rows = 0.0;        // prefill: expected tokens per routed expert per pass (chunk x k / n)
  // Decode steps of the serving engines: the row tile their GEMM kernels pad a
  // few tokens to (0: the prompt's fitted tile term above applies instead).
  double gemm_tile_rows = 0.0;
  int layers = 0;                  // decoder layers run per pass
  int moe_layers = 0;              // of which routed-expert layers (more kernels: router, top-k, gathers)
  int passes = 1;                  // prefill: micro-batches; weights are read once per pass
  int tensor_parallel = 1;         // GPUs splitting every layer
  int layer_split_gpus = 1;        // GPUs running their layers one after another
  int pipeline_stages = 1;         // prefill under llama.cpp's layer split: GPUs micro-batches flow through
  double boundary_bytes = 0.0;     // layer split: activations handed across each GPU boundary
  // The layer split runs over whole machines (several Macs or Strix Halo
  // machines, llama.cpp's RPC): each boundary is a network round trip.
  bool over_network = false;
  int batches = 1;                 // prefill: llama_decode calls (-b tokens each); the pipeline drains after each
  int allreduces = 0;              // tensor parallel: one per mixer and per FFN, per pass
  double allreduce_bytes = 0.0;    // size of each all-reduce
};

// Seconds per part. GPU memory traffic (weights, KV) and GPU compute overlap:
// the pass takes the longer of the two (a roofline). RAM reads, host copies,
// interconnect and the fixed per-layer overhead come on top.
struct StepTime {
  double weights_s = 0.0;
  double kv_s = 0.0;
  double ram_s = 0.0;
  double host_to_gpu_s = 0.0;
  double compute_s = 0.0;
  double interconnect_s = 0.0;
  double overhead_s = 0.0;
  double total_s = 0.0;
};

}  // namespace llmsizer
