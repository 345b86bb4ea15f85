#include "llmsizer/speed.hpp"

#include <algorithm>

#include "llmsizer/speed_calibration.hpp"
#include "llmsizer/speed_work.hpp"

namespace llmsizer {
namespace {

// The device as one runtime sees it: rates after the fitted efficiencies.
struct EffectiveRates {
  SpeedBasis basis;
  double weight_bytes_per_s = 0.0;  // GPU memory, weight reads (dequantization included)
  double kv_bytes_per_s = 0.0;      // GPU memory, KV and state reads
  double ram_bytes_per_s = 0.0;     // system RAM read by the CPU
  double matrix_flops = 0.0;        // GEMMs: prefill and batched decode; 0 when unknown
  double link_bytes_per_s = 0.0;    // one direction of the GPU-to-GPU link
  double layer_overhead_s = 0.0;
};

// Dense throughput for the weights' type, as the runtime's kernels see it.
// Serving engines run FP8 GEMMs (FP4 counted at the FP8 rate) where the device
// has them. GeForce cards are listed at their FP32-accumulate tensor rate, half
// their FP16-accumulate and INT8 rate; llama.cpp's kernels accumulate in FP16
// or INT32 (its quantized MMQ path), so they see twice the listed figure.
double dense_flops(const Device& d, EngineFamily engine, WeightFamily weights) {
  // The CPU backend on a GPU's machine: the figures are the GPU's, not the CPU's.
  if (d.backend == Backend::cpu && d.kind != DeviceKind::cpu) return 0.0;
  const bool low_precision = weights == WeightFamily::fp8 || weights == WeightFamily::fp4;
  if (engine == EngineFamily::serving && low_precision && d.fp8_flops > 0.0) return d.fp8_flops;
  const bool geforce = d.vendor == "nvidia" && d.kind == DeviceKind::consumer;
  if (engine == EngineFamily::llama_cpp && geforce && d.backend != Backend::cpu) return 2.0 * d.fp16_flops;
  return d.fp16_flops;
}

// Unified memory (Apple, DGX Spark, Strix Halo): "offloaded" layers sit in the
// same memory and the CPU reads them at its share of the device's bandwidth.
bool shares_memory_with_cpu(const Device& d) {
  return d.unified_memory || d.kind == DeviceKind::unified || d.kind == DeviceKind::apu || d.kind == DeviceKind::cpu;
}

EffectiveRates effective_rates(const Scenario& s, EngineFamily engine, WeightFamily weights) {
  const Device& d = *s.device;
  const SpeedConstants& k = speed_constants();
  const BackendCalibration& hw = backend_calibration(d.backend, d.vendor);
  const RuntimeCalibration& rt = runtime_calibration(engine, d.backend, d.vendor);
  const WeightCalibration& w = weight_calibration(weights);
  // llama.cpp's kernels, tuned on consumer GPUs, reach less of a datacenter
  // part's HBM bandwidth and tensor throughput.
  const bool datacenter = engine == EngineFamily::llama_cpp && d.kind == DeviceKind::datacenter;
  const double ram_peak = shares_memory_with_cpu(d) ? d.bandwidth_bytes_per_s : s.ram_bandwidth_bytes_per_s;

  EffectiveRates r;
  r.basis.runtime = std::string(engine_family_name(engine)) + "/" + backend_name(rt.backend) +
                    (rt.vendor.empty() ? "" : "/" + std::string(rt.vendor));
  r.basis.weight_family = weight_family_name(weights);
  r.basis.peak_bandwidth_bytes_per_s = d.bandwidth_bytes_per_s;
  r.basis.peak_flops = dense_flops(d, engine, weights);
  r.basis.ram_bandwidth_bytes_per_s = ram_peak;
  r.basis.datacenter = datacenter;
  r.kv_bytes_per_s = d.bandwidth_bytes_per_s * hw.bandwidth_efficiency * (datacenter ? k.datacenter_bandwidth_factor : 1.0);
  r.weight_bytes_per_s = r.kv_bytes_per_s * w.bandwidth_factor;
  r.ram_bytes_per_s = ram_peak * k.ram_bandwidth_efficiency;
  r.matrix_flops = r.basis.peak_flops * rt.prefill_efficiency * (datacenter ? k.datacenter_prefill_factor : 1.0);
  // NVLink figures are both directions together; a ring all-reduce moves data
  // one way per link. Without NVLink the GPUs talk over PCIe.
  r.link_bytes_per_s = d.interconnect_bytes_per_s > 0.0 ? d.interconnect_bytes_per_s / 2.0 : k.pcie_bytes_per_s;
  r.basis.link_bytes_per_s = r.link_bytes_per_s;
  r.layer_overhead_s = rt.layer_overhead_s;
  return r;
}

double ratio(double numerator, double rate) { return rate > 0.0 && numerator > 0.0 ? numerator / rate : 0.0; }

// Seconds for a pass (see StepTime): weight-type factors scale the GEMM rate
// for prompts (dequantization inside the kernels), not for batched decode.
StepTime step_time(const StepWork& w, const EffectiveRates& r, double gemm_factor) {
  const SpeedConstants& k = speed_constants();
  StepTime t;
  t.weights_s = ratio(w.gpu_weight_bytes, r.weight_bytes_per_s);
  t.kv_s = ratio(w.gpu_kv_bytes, r.kv_bytes_per_s);
  t.ram_s = ratio(w.ram_bytes, r.ram_bytes_per_s);
  t.host_to_gpu_s = ratio(w.host_to_gpu_bytes, k.pcie_bytes_per_s);
  t.compute_s = ratio(w.flops, r.matrix_flops * gemm_factor);
  if (w.tensor_parallel > 1) {
    // Ring all-reduce: each GPU sends and receives 2 (TP - 1) / TP of the buffer.
    const double tp = static_cast<double>(w.tensor_parallel);
    const double moved = w.allreduce_bytes * 2.0 * (tp - 1.0) / tp;
    t.interconnect_s = static_cast<double>(w.allreduces) * (ratio(moved, r.link_bytes_per_s) + k.allreduce_latency_s);
  }
  if (w.layer_split_gpus > 1)
    t.interconnect_s += static_cast<double>((w.layer_split_gpus - 1) * w.passes) * k.layer_split_hop_s;
  t.overhead_s = static_cast<double>(w.layers) * static_cast<double>(w.passes) * r.layer_overhead_s;
  t.total_s = std::max(t.weights_s + t.kv_s, t.compute_s) + t.ram_s + t.host_to_gpu_s + t.interconnect_s +
              t.overhead_s;
  return t;
}

}  // namespace

std::optional<SpeedEstimate> estimate_speed(const Architecture& arch, const Scenario& s, const Estimate& e) {
  if (!s.device || s.device->bandwidth_bytes_per_s <= 0.0 || e.memory.per_gpu.empty()) return std::nullopt;
  const EngineFamily engine = engine_family(s.engine);
  const WeightFamily weights = weight_family(s.quant, arch.native_format);
  const EffectiveRates rates = effective_rates(s, engine, weights);

  SpeedEstimate sp;
  sp.basis = rates.basis;
  sp.decode_single_work = decode_step_work(arch, s, e, 1);
  sp.decode_single_time = step_time(sp.decode_single_work, rates, 1.0);
  if (s.sequences == 1) {  // the batch is that one sequence: the same step, not computed twice
    sp.decode_batch_work = sp.decode_single_work;
    sp.decode_batch_time = sp.decode_single_time;
  } else {
    sp.decode_batch_work = decode_step_work(arch, s, e, s.sequences);
    sp.decode_batch_time = step_time(sp.decode_batch_work, rates, 1.0);
  }
  if (sp.decode_single_time.total_s <= 0.0 || sp.decode_batch_time.total_s <= 0.0) return std::nullopt;
  sp.decode_tokens_per_s = 1.0 / sp.decode_single_time.total_s;
  sp.decode_tokens_per_s_total = static_cast<double>(s.sequences) / sp.decode_batch_time.total_s;

  if (!s.prefill_speed) return sp;
  sp.prefill_work = prefill_work(arch, s, e);
  if (rates.matrix_flops > 0.0) {
    sp.prefill_time = step_time(sp.prefill_work, rates, weight_calibration(weights).prefill_factor);
    sp.prefill_tokens_per_s = static_cast<double>(s.prompt_tokens) / sp.prefill_time.total_s;
    // Time to first token: the prompt's passes plus one decode step (sampling,
    // and the step that streams the first token out).
    sp.ttft_s = sp.prefill_time.total_s + sp.decode_single_time.total_s;
  }
  return sp;
}

}  // namespace llmsizer
