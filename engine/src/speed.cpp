#include "llmsizer/speed.hpp"

#include <algorithm>
#include <cmath>

#include "llmsizer/speed_calibration.hpp"
#include "llmsizer/speed_work.hpp"
#include "speed_rates.hpp"
#include "speed_served.hpp"

namespace llmsizer {
namespace {

// Dense throughput for the weights' type, as the runtime's kernels see it.
// Serving engines run FP8 GEMMs (FP4 counted at the FP8 rate) where the device
// has them. GeForce cards are listed at their FP32-accumulate tensor rate, half
// their FP16-accumulate and INT8 rate; llama.cpp's kernels accumulate in FP16
// or INT32 (its quantized MMQ path), so they see twice the listed figure.
// Where the vendor states only a vector FP32 rate (Apple GPUs, DGX Spark, some
// GeForce, Radeon and Arc cards), the backend row's vector_fp32_factor turns it
// into the rate the prompt kernels see: 1 on Metal, whose F16 runs at the FP32
// rate; fitted on measured prompt speeds of such devices elsewhere.
void set_dense_flops(SpeedBasis& b, const Device& d, EngineFamily engine, WeightFamily weights, bool fp4,
                     const BackendCalibration& hw) {
  // The CPU backend on a GPU's machine: the figures are the GPU's, not the CPU's.
  if (d.backend == Backend::cpu && d.kind != DeviceKind::cpu) return;
  // llama.cpp has no fast CPU GEMM for i-quants: an IQ3_S prompt ran at a sixth
  // of Q4_0's on the same CPU (docs/accuracy.md), far from what the fitted
  // efficiency gives. No throughput figure rather than one six times too high.
  if (d.kind == DeviceKind::cpu && weights == WeightFamily::iquant) return;
  const bool low_precision = weights == WeightFamily::fp8 || weights == WeightFamily::fp4;
  if (engine == EngineFamily::serving && fp4 && d.fp4_flops > 0.0) {
    // NVFP4 / MXFP4 checkpoints served natively multiply FP4 by FP4 on the
    // parts that have FP4 matrix units (Blackwell, MI355X): twice FP8's rate.
    b.flops_basis = "fp4";
    b.peak_flops = d.fp4_flops;
  } else if (engine == EngineFamily::serving && low_precision && d.fp8_flops > 0.0) {
    b.flops_basis = "fp8";
    b.peak_flops = d.fp8_flops;
  } else if (d.fp16_flops > 0.0) {
    const bool geforce = d.vendor == "nvidia" && d.kind == DeviceKind::consumer;
    b.flops_basis = "fp16";
    b.peak_flops = engine == EngineFamily::llama_cpp && geforce ? 2.0 * d.fp16_flops : d.fp16_flops;
  } else if (d.fp32_flops > 0.0) {
    b.flops_basis = "fp32_vector";
    b.vector_fp32_flops = d.fp32_flops;
    b.peak_flops = d.fp32_flops * hw.vector_fp32_factor;
  }
}

// The catalog's name for the figure a flops basis comes from.
const char* flops_field(const std::string& flops_basis) {
  if (flops_basis == "fp4") return "fp4_tflops";
  if (flops_basis == "fp8") return "fp8_tflops";
  if (flops_basis == "fp16") return "fp16_tflops";
  if (flops_basis == "fp32_vector") return "fp32_tflops";
  return "";
}

// Which of the figures the speeds rest on are catalog estimates.
std::vector<std::string> estimated_inputs(const Device& d, const SpeedBasis& b) {
  std::vector<std::string> out;
  if (d.is_estimated("bandwidth_gb_per_s")) out.push_back("bandwidth_gb_per_s");
  const std::string flops = flops_field(b.flops_basis);
  if (!flops.empty() && d.is_estimated(flops)) out.push_back(flops);
  return out;
}

}  // namespace

// llama.cpp's quantized GEMMs on CUDA and ROCm (MMQ) multiply INT8 on the
// matrix units; elsewhere quantized weights are dequantized into F16 tiles.
bool quantized_mma(const Device& d, EngineFamily engine) {
  return engine == EngineFamily::llama_cpp && (d.backend == Backend::cuda || d.backend == Backend::rocm);
}

namespace {

// Apple: decode slows as the working set nears the GPU's wired limit (the
// estimate's usable bytes): pages are evicted and faulted back in. 1 below
// the onset, rising linearly to 1 + slowdown at a full limit (and beyond).
double memory_pressure(const Device& d, const Estimate& e) {
  const SpeedConstants& k = speed_constants();
  if (d.vendor != "apple" || !e.memory.utilization) return 1.0;
  const double fill = *e.memory.utilization;
  if (fill <= k.pressure_onset_fill || k.pressure_onset_fill >= 1.0) return 1.0;
  return 1.0 + k.pressure_slowdown * (fill - k.pressure_onset_fill) / (1.0 - k.pressure_onset_fill);
}

}  // namespace

// Apple's Ultra parts are two Max dies joined by UltraFusion, whatever the
// catalog states; other parts say so in memory_dies (a custom device: --gpu-dies).
int memory_dies(const Device& d) {
  if (d.memory_dies > 1) return d.memory_dies;
  if (d.vendor == "apple" && d.name.find("Ultra") != std::string::npos) return 2;
  return 1;
}

// NVIDIA's GeForce cards have no peer-to-peer access to each other (the
// driver refuses it: NVIDIA/nccl#1127, sgl-project/sglang#531 for the 4090,
// efeslab/Nanoflow#22 for the 3090); a copy between two of them goes through
// host memory. Datacenter and workstation parts have it.
bool peer_access(const Device& d) { return !(d.vendor == "nvidia" && d.kind == DeviceKind::consumer); }

// The key of the calibration rows a device reads beside its backend: its
// vendor, or for a CPU machine without AVX-512 its instruction set (its own
// llama.cpp/cpu/avx2 row; AVX-512 and unknown CPUs read the llama.cpp/cpu row).
std::string_view calibration_vendor(const Device& d) {
  if (d.kind == DeviceKind::cpu && d.cpu_simd == "avx2") return "avx2";
  return d.vendor;
}

bool integrated_amd_gpu(const Device& d) {
  return d.vendor == "amd" && d.kind != DeviceKind::cpu && memory_class(d) == MemoryClass::lpddr;
}

bool intel_gpu_under_sycl_or_vulkan(const Device& d) {
  return d.vendor == "intel" && (d.backend == Backend::sycl || d.backend == Backend::vulkan);
}

// llama.cpp's routed-expert passes on Intel GPUs against the backend's own
// row (SYCL's, fitted on Arc Pro B60/B70 runs of 2026 builds; Vulkan's generic
// row): the geometric mean of measured over modelled time on the fit split of
// scripts/speed/sourced_intel_sycl.json, kept only where those rows agree on
// its direction. Vulkan prompts on an Arc Pro B70 (build 9739 and bosd's
// 2026-06 runs): Qwen3.6-35B-A3B UD-Q4_K_M and Q8_0 on two cards, gpt-oss-20b
// MXFP4 and Qwen3-30B-A3B Q4_K_M each take longer than the row gives, 1.42
// times on geometric mean. Their decode (1.00, 1.37, 0.63 times) and SYCL's
// decode and prompts (0.7 to 2.2 times: gpt-oss's MXFP4 slower, Qwen3-30B-A3B
// faster) scatter both ways around the row: no factor, the warning says so.
// A refit of the Intel rows moves the model's figures: re-derive (tests/
// test_speed.cpp "[intel]" checks the mean against these rows).
MoeTimeFactors intel_moe_time_factors(Backend backend) {
  if (backend == Backend::vulkan) return {1.0, 1.42};
  return {1.0, 1.0};
}

bool qwen3next_graph(const Architecture& arch) {
  return arch.model_type == "qwen3_next" || arch.model_type == "qwen3next";  // config.json / GGUF names
}

bool qwen35moe_graph(const Architecture& arch) {
  return arch.model_type == "qwen3_5_moe" || arch.model_type == "qwen3_5_moe_text" ||  // config.json
         arch.model_type == "qwen35moe";                                              // GGUF
}

// llama.cpp decodes Qwen3-Next (36 Gated DeltaNet and 12 attention layers,
// 512 small experts) slower than its bytes and layers give, on every backend
// measured; its dense Qwen3.5 cousins decode as modelled (Qwen3.5-9B BF16 on an
// RTX 5090: 82.5 tokens/s, ggml-org/llama.cpp#22587), so it is this graph's,
// not the recurrent layers'. Measured after llama.cpp#19375 (Qwen3-Next decode
// optimisations, merged) over the model's figures at this fit:
//   M2 Ultra, Metal, tg32 (#19375, the PR's column): Q4_0 50.39 (model 70.907),
//   Q4_K_M 46.43 (68.860), Q8_0 43.78 (59.743);
//   Radeon 8060S, Vulkan, Qwen3-Coder-Next UD-Q4_K_XL tg128, master of
//   2026-03 (#20334): 38.04 (53.534).
// Geometric mean of the ratios: (1.4072 x 1.4831 x 1.3646 x 1.4073)^(1/4) =
// 1.415. Builds before #19375 measured 25-35% slower still (its master
// column). A refit moves the model's figures: re-derive (tests/test_speed.cpp
// "[qwen3next]").
double qwen3next_decode_time_factor() {
  return std::pow(70.907 / 50.39 * (68.860 / 46.43) * (59.743 / 43.78) * (53.534 / 38.04), 0.25);
}

Backend calibration_backend(const Device& d) {
  // llama.cpp's SYCL rows are fitted on Arc Pro B60 and B70 runs: Battlemage
  // (Xe2) chips, BMG-G21 and BMG-G31 (the catalog's gpu_arch), as is the Arc
  // B580. No SYCL run of an older Intel GPU is mapped, and the one such setup
  // sourced, three Alchemist A770s (Qwen3.5-35B-A3B Q8_0, llama.cpp#22066:
  // 18.2 tok/s decode), ran at a third of what the B60/B70 rows give: other
  // Intel GPUs keep the Vulkan row, fitted on Arc runs, and the estimate says so.
  if (d.backend == Backend::sycl && d.vendor == "intel" && d.gpu_arch.rfind("bmg-", 0) != 0) return Backend::vulkan;
  return d.backend;
}

EffectiveRates effective_rates(const Architecture& arch, const Scenario& s, const Estimate& e, EngineFamily engine,
                               WeightFamily weights, bool fp4) {
  const Device& d = *s.device;
  const SpeedConstants& k = speed_constants();
  const BackendCalibration& hw = backend_calibration(calibration_backend(d), calibration_vendor(d));
  const RuntimeCalibration& rt = runtime_calibration(engine, calibration_backend(d), calibration_vendor(d));
  const WeightCalibration& w = weight_calibration(weights);
  // llama.cpp's kernels, tuned on GDDR cards, reach less of an HBM part's
  // bandwidth and tensor throughput (A100, H100, MI300X; not L40S or A40).
  const MemoryClass memory = memory_class(d);
  const bool hbm = engine == EngineFamily::llama_cpp && memory == MemoryClass::hbm;
  const double ram_peak = shares_memory_with_cpu(d) ? d.bandwidth_bytes_per_s : s.ram_bandwidth_bytes_per_s;

  EffectiveRates r;
  r.basis.runtime = std::string(engine_family_name(engine)) + "/" + backend_name(rt.backend) +
                    (rt.vendor.empty() ? "" : "/" + std::string(rt.vendor));
  r.basis.weight_family = weight_family_name(weights);
  r.basis.peak_bandwidth_bytes_per_s = d.bandwidth_bytes_per_s;
  set_dense_flops(r.basis, d, engine, weights, fp4, hw);
  r.basis.estimated_inputs = estimated_inputs(d, r.basis);
  r.basis.ram_bandwidth_bytes_per_s = ram_peak;
  r.basis.host_ram = !shares_memory_with_cpu(d);
  r.basis.memory_class = memory_class_name(memory);
  r.basis.memory_pressure = memory_pressure(d, e);
  r.basis.memory_dies = memory_dies(d);
  r.basis.peer_access = peer_access(d);
  r.pipeline_overlap = r.basis.peer_access ? 1.0 : k.pipeline_overlap_without_p2p;
  if (engine != EngineFamily::serving && s.engine != InferenceEngine::mlx && networked_machines(s) > 0) {
    r.basis.network_machines = networked_machines(s);
    r.basis.network_hop_s = k.network_hop_s;
  }
  // Memory on two dies (Apple Ultra): half of every read crosses the die-to-die
  // link, and the GPU reaches a smaller share of the summed bandwidth.
  const double dies_factor = r.basis.memory_dies > 1 ? k.multi_die_bandwidth_factor : 1.0;
  // llama.cpp on HBM reaches a share of what its kernels reach on GDDR; the
  // HIP kernels on AMD's HBM parts (CDNA) a share of their own.
  const double hbm_factor = d.backend == Backend::rocm ? k.hbm_bandwidth_factor_rocm : k.hbm_bandwidth_factor;
  r.kv_bytes_per_s = d.bandwidth_bytes_per_s * hw.bandwidth_efficiency * (hbm ? hbm_factor : 1.0) * dies_factor;
  r.weight_bytes_per_s = r.kv_bytes_per_s * w.bandwidth_factor;
  r.ram_bytes_per_s = ram_peak * k.ram_bandwidth_efficiency;
  // AMD's integrated GPUs (Strix Halo: LPDDR shared with the CPU, one power
  // budget for both) reach a smaller share of their listed FP16 rate in prompt
  // kernels than discrete Radeons on the same backend: a fitted share.
  const bool integrated = engine == EngineFamily::llama_cpp && integrated_amd_gpu(d);
  const double matrix_share = (hbm ? k.hbm_prefill_factor : 1.0) * (integrated ? k.integrated_prefill_factor : 1.0);
  r.matrix_flops = r.basis.peak_flops * rt.prefill_efficiency * matrix_share;
  if ((r.basis.flops_basis == "fp8" || r.basis.flops_basis == "fp4") && d.fp16_flops > 0.0)
    r.attention_flops = d.fp16_flops * rt.prefill_efficiency * matrix_share;
  // NVLink figures are both directions together; a ring all-reduce moves data
  // one way per link. Without NVLink the GPUs talk over PCIe.
  r.link_bytes_per_s = d.interconnect_bytes_per_s > 0.0 ? d.interconnect_bytes_per_s / 2.0 : k.pcie_bytes_per_s;
  r.basis.link_bytes_per_s = r.link_bytes_per_s;
  r.layer_overhead_s = rt.layer_overhead_s;
  r.allreduce_latency_s = k.allreduce_latency_s;
  if (engine == EngineFamily::llama_cpp) {
    // llama.cpp multiplies a prompt's routed experts with mul_mat_id: rows
    // gathered per expert, tiles of their own, a lower rate than the dense
    // GEMMs' at any fill (fitted on MoE prompt rows: gpt-oss, Qwen3-30B-A3B,
    // GLM-4.5-Air, DeepSeek-V3 across backends).
    r.expert_gemm_half_rows = k.expert_gemm_half_rows;
    r.expert_gemm_rate_factor = k.expert_gemm_rate_factor;
  }
  if (engine == EngineFamily::llama_cpp && intel_gpu_under_sycl_or_vulkan(d)) {
    const MoeTimeFactors f = intel_moe_time_factors(calibration_backend(d));
    r.moe_decode_time_factor = f.decode;
    r.moe_prompt_time_factor = f.prompt;
  }
  if (engine == EngineFamily::llama_cpp && qwen3next_graph(arch)) r.moe_decode_time_factor *= qwen3next_decode_time_factor();
  if (arch.is_moe()) {
    r.basis.moe_decode_time_factor = r.moe_decode_time_factor;
    r.basis.moe_prompt_time_factor = r.moe_prompt_time_factor;
  }
  if (s.machine_factors) {
    // A calibrated machine: its measurements scale the same three terms.
    const MachineFactors& m = *s.machine_factors;
    r.kv_bytes_per_s *= m.bandwidth_factor * m.kv_factor;
    r.weight_bytes_per_s *= m.bandwidth_factor;
    r.matrix_flops *= m.compute_factor;
    r.attention_flops *= m.compute_factor;
    r.layer_overhead_s *= m.overhead_factor;
    r.attention_scale = m.attention_factor;
    r.basis.machine_factors = m;
  }
  return r;
}

static double ratio(double numerator, double rate) { return rate > 0.0 && numerator > 0.0 ? numerator / rate : 0.0; }

// Seconds for a pass (see StepTime): weight-type factors scale the GEMM rate
// for prompts (dequantization inside the kernels), not for batched decode;
// memory pressure (Apple near its wired limit) slows decode's reads.
StepTime step_time(const StepWork& w, const EffectiveRates& r, double gemm_factor, double pressure) {
  const SpeedConstants& k = speed_constants();
  StepTime t;
  t.weights_s = ratio(w.gpu_weight_bytes, r.weight_bytes_per_s) * pressure;
  t.kv_s = ratio(w.gpu_kv_bytes, r.kv_bytes_per_s) * pressure;
  t.ram_s = ratio(w.ram_bytes, r.ram_bytes_per_s);
  t.host_to_gpu_s = ratio(w.host_to_gpu_bytes, k.pcie_bytes_per_s);
  // GEMMs of few token rows leave their tiles part empty: time x (1 + m0 / rows),
  // for the dense matrices (rows = the pass's tokens) and the routed experts
  // (rows = the tokens routed to each).
  // Attention's products run at their own (16-bit) rate where it differs.
  const bool own_attention_rate = r.attention_flops > 0.0;
  const double attention = own_attention_rate ? w.attention_flops : 0.0;
  double gemm_flops = w.flops - attention;
  if (w.gemm_rows > 0.0 && w.gemm_tile_rows > 0.0) {
    // A decode step's few rows, padded to whole tiles: the products of a
    // padded tile, not the prompt's fitted tile term.
    const auto padded = [&w](double rows) { return std::ceil(rows / w.gemm_tile_rows) * w.gemm_tile_rows / rows; };
    const double dense = w.flops - attention - w.expert_flops;
    gemm_flops = dense * padded(w.gemm_rows);
    if (w.expert_flops > 0.0 && w.expert_rows > 0.0) {
      const double share = r.expert_gemm_rate_factor > 0.0 ? r.expert_gemm_rate_factor : 1.0;
      gemm_flops += w.expert_flops * padded(std::max(w.expert_rows, 1.0)) / share;
    }
  } else if (w.gemm_rows > 0.0) {
    const double dense = w.flops - attention - w.expert_flops;
    gemm_flops = dense * (1.0 + k.gemm_half_rows / w.gemm_rows);
    if (w.expert_flops > 0.0 && w.expert_rows > 0.0) {
      const double half_rows = r.expert_gemm_half_rows > 0.0 ? r.expert_gemm_half_rows : k.gemm_half_rows;
      const double share = r.expert_gemm_rate_factor > 0.0 ? r.expert_gemm_rate_factor : 1.0;
      gemm_flops += w.expert_flops * (1.0 + half_rows / w.expert_rows) / share;
    }
  }
  t.compute_s = ratio(gemm_flops, r.matrix_flops * gemm_factor) +
                (own_attention_rate ? ratio(attention, r.attention_flops * gemm_factor) : 0.0);
  if (r.attention_scale != 1.0 && w.attention_flops > 0.0) {
    // A calibrated machine's attention runs at its own share of the rate:
    // the attention products come out of the GEMMs' time (with their tile
    // penalty where they were counted among them) and are timed apart.
    const double tiles = own_attention_rate || w.gemm_rows <= 0.0 ? 1.0 : 1.0 + k.gemm_half_rows / w.gemm_rows;
    const double rate = (own_attention_rate ? r.attention_flops : r.matrix_flops) * gemm_factor;
    const double gemm_only = gemm_flops - (own_attention_rate ? 0.0 : w.attention_flops * tiles);
    t.compute_s = ratio(gemm_only, r.matrix_flops * gemm_factor) +
                  ratio(w.attention_flops * tiles, rate * r.attention_scale);
  }
  if (w.tensor_parallel > 1) {
    // Ring all-reduce: each GPU sends and receives 2 (TP - 1) / TP of the buffer.
    const double tp = static_cast<double>(w.tensor_parallel);
    const double moved = w.allreduce_bytes * 2.0 * (tp - 1.0) / tp;
    t.interconnect_s = static_cast<double>(w.allreduces) * (ratio(moved, r.link_bytes_per_s) + r.allreduce_latency_s);
  }
  // Fixed cost per layer and pass; routed-expert layers launch more kernels.
  const double layers = static_cast<double>(w.layers) + (k.moe_layer_overhead_factor - 1.0) * static_cast<double>(w.moe_layers);
  t.overhead_s = static_cast<double>(w.passes) * (layers * r.layer_overhead_s + r.step_overhead_s);
  double gpu_s = std::max(t.weights_s + t.kv_s, t.compute_s) + t.overhead_s;
  if (w.moe_layers > 0) {
    // A measured slowdown of MoE passes (Intel GPUs): its parts in proportion.
    const double f = w.gemm_rows > 1.0 ? r.moe_prompt_time_factor : r.moe_decode_time_factor;
    t.weights_s *= f;
    t.kv_s *= f;
    t.compute_s *= f;
    t.overhead_s *= f;
    gpu_s *= f;
  }
  if (w.layer_split_gpus > 1) {
    // Layer split: at each boundary the next GPU waits for the previous one's
    // activations (a fixed synchronisation cost per pass: per token in
    // decode) and copies them over PCIe; between machines, llama.cpp's RPC
    // sends them (and the graph to run) over the network and waits for the
    // answer, at costs fitted on measured RPC runs.
    const double boundaries = static_cast<double>(w.layer_split_gpus - 1);
    const double hop_s = w.over_network ? k.network_hop_s : k.layer_split_hop_s;
    const double link_bytes_per_s = w.over_network ? k.network_bytes_per_s : k.pcie_bytes_per_s;
    t.interconnect_s += boundaries * (static_cast<double>(w.passes) * hop_s + ratio(w.boundary_bytes, link_bytes_per_s));
  }
  if (w.pipeline_stages > 1 && w.passes > 0) {
    // Pipelined micro-batches: each of a batch's M micro-batches spends
    // 1/G of a pass on each of the G GPUs, so a batch takes (M + G - 1) / G
    // passes instead of M; the pipeline fills and drains once per batch.
    const double g = static_cast<double>(w.pipeline_stages);
    const double m = static_cast<double>(w.passes);
    const double b = static_cast<double>(std::max(w.batches, 1));
    const double ideal = (m + b * (g - 1.0)) / (m * g);
    // GPUs without peer access realize only part of that overlap (4x RTX 4090
    // at pp8192 gain 1.1-1.2x where 2.3x is ideal): EffectiveRates::pipeline_overlap.
    const double pipelined = 1.0 - r.pipeline_overlap * (1.0 - ideal);
    const double saved = gpu_s * (1.0 - pipelined);
    // Shown as less overhead and compute in proportion, so the parts still add up.
    t.compute_s *= pipelined;
    t.weights_s *= pipelined;
    t.kv_s *= pipelined;
    t.overhead_s *= pipelined;
    gpu_s -= saved;
  }
  t.total_s = gpu_s + t.ram_s + t.host_to_gpu_s + t.interconnect_s;
  return t;
}

std::optional<SpeedEstimate> estimate_speed(const Architecture& arch, const Scenario& s, const Estimate& e) {
  if (!s.device || s.device->bandwidth_bytes_per_s <= 0.0 || e.memory.per_gpu.empty()) return std::nullopt;
  const EngineFamily engine = engine_family(s.engine);
  const WeightFamily weights = weight_family(s.quant, arch.native_format);
  const EffectiveRates rates = effective_rates(arch, s, e, engine, weights, fp4_products(s.quant, arch.native_format));
  // A serving engine's steps, alone as under load, are its serving row's
  // (speed.served): one sequence's figures are the curve's first point, not a
  // second model. Its host works for each running sequence every step.
  std::optional<ServingEngineStep> serving;
  if (engine == EngineFamily::serving) serving = serving_engine_step(arch, s, rates);
  const EffectiveRates& step_rates = serving ? serving->rates : rates;
  const auto timed = [&](const StepWork& work, double gemm, double pressure, std::int64_t sequences) {
    StepTime t = step_time(work, step_rates, gemm, pressure);
    if (serving) {
      const double host_s = serving->factors.sequence_overhead_s * static_cast<double>(sequences) *
                            static_cast<double>(std::max(work.passes, 1));
      t.overhead_s += host_s;
      t.total_s += host_s;
    }
    return t;
  };

  SpeedEstimate sp;
  sp.basis = rates.basis;
  if (serving) {
    sp.basis.runtime = serving->row;
    sp.basis.serving_factors = serving->factors;
    sp.basis.serving_rough_because = serving->rough_because;
    sp.basis.serving_ttft_rough_because = serving->ttft_rough_because;
  }
  sp.decode_single_work = decode_step_work(arch, s, e, 1);
  sp.decode_single_time = timed(sp.decode_single_work, 1.0, rates.basis.memory_pressure, 1);
  // The batch is what runs at once: every sequence, or what a paged engine's
  // KV pool admits (the rest queue).
  const std::int64_t batch = e.memory.max_concurrent_sequences
                                 ? std::clamp<std::int64_t>(*e.memory.max_concurrent_sequences, 1, s.sequences)
                                 : s.sequences;
  if (batch == 1) {  // the batch is that one sequence: the same step, not computed twice
    sp.decode_batch_work = sp.decode_single_work;
    sp.decode_batch_time = sp.decode_single_time;
  } else {
    sp.decode_batch_work = decode_step_work(arch, s, e, batch);
    sp.decode_batch_time = timed(sp.decode_batch_work, 1.0, rates.basis.memory_pressure, batch);
  }
  if (sp.decode_single_time.total_s <= 0.0 || sp.decode_batch_time.total_s <= 0.0) return std::nullopt;
  sp.decode_tokens_per_s = 1.0 / sp.decode_single_time.total_s;
  sp.decode_tokens_per_s_total = static_cast<double>(batch) / sp.decode_batch_time.total_s;
  // The batch's sequences advance together: each gets one token per step.
  sp.decode_tokens_per_s_per_sequence = 1.0 / sp.decode_batch_time.total_s;

  if (!s.prefill_speed) return sp;
  // Right after the prompt the cache holds the prompt: a shorter KV read than
  // at the full window (the same step when the prompt fills the window).
  set_decode_after_prompt(sp, arch, s, e, [&](const KvBreakdown& cache, std::int64_t cached, StepWork& work) {
    work = decode_step_work(arch, s, e, 1, cache, cached);
    return timed(work, 1.0, rates.basis.memory_pressure, 1);
  });
  sp.prefill_work = prefill_work(arch, s, e);
  if (rates.matrix_flops > 0.0) {
    const WeightCalibration& wc = weight_calibration(weights);
    const double gemm = quantized_mma(*s.device, engine) ? wc.prefill_factor_mma : wc.prefill_factor;
    sp.prefill_time = timed(sp.prefill_work, gemm, 1.0, 1);
    if (serving) {  // the prompt's passes run without the decode batches' CUDA graphs
      sp.basis.serving_prompt_pass_overhead_s = prompt_pass_overhead_s(serving->factors, sp.prefill_work.layers);
      const double passes_s =
          sp.basis.serving_prompt_pass_overhead_s * static_cast<double>(std::max(sp.prefill_work.passes, 1));
      sp.prefill_time.overhead_s += passes_s;
      sp.prefill_time.total_s += passes_s;
    }
    sp.prefill_tokens_per_s = static_cast<double>(s.prompt_tokens) / sp.prefill_time.total_s;
    // Time to first token: the prompt's passes plus one decode step with the
    // prompt in the cache (sampling, and the step that streams the first token
    // out); a serving engine first tokenizes and admits the request.
    sp.ttft_s = sp.prefill_time.total_s + sp.decode_after_prompt_time.total_s +
                (serving ? serving->factors.request_overhead_s : 0.0);
  }
  sp.served = estimate_served(arch, s, e, rates);
  return sp;
}

}  // namespace llmsizer
