#include "llmsizer/speed.hpp"

#include <algorithm>

namespace llmsizer {
namespace {

// Bytes read per decoded token: the weights a token touches. Routed experts
// count only the share that is routed to.
double active_weight_bytes(const Architecture& arch, const WeightBreakdown& w, std::int64_t layer_begin,
                           std::int64_t layer_end) {
  double bytes = 0.0;
  for (std::int64_t i = layer_begin; i < layer_end; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const FfnSpec& f = arch.layers[idx].ffn;
    const double expert = static_cast<double>(w.layer_expert_bytes[idx]);
    const double used = f.n_experts > 0 ? static_cast<double>(f.n_experts_used) / static_cast<double>(f.n_experts) : 0.0;
    bytes += static_cast<double>(w.layer_bytes[idx]) - expert + expert * used;
  }
  return bytes;
}

}  // namespace

std::optional<SpeedEstimate> estimate_speed(const Architecture& arch, const Scenario& s, const Estimate& e) {
  if (!s.device || s.device->bandwidth_bytes_per_s <= 0.0) return std::nullopt;
  // A first roofline (bandwidth-bound decode, compute-bound prefill) with fixed
  // efficiencies; calibration per backend on measurements is issue 4's.
  const Device& d = *s.device;
  const int n_layers = arch.decoder_layer_count();
  const int n_gpus = static_cast<int>(e.memory.per_gpu.size());
  const bool tp = engine_uses_kv_pool(s.engine) && n_gpus > 1;
  const int cpu_layers = e.memory.offload_experts_only ? 0 : e.memory.offloaded_layers;
  const int cpu_expert_layers = e.memory.offload_experts_only ? e.memory.offloaded_layers : 0;

  SpeedEstimate sp;
  const double bw_eff = 0.7;              // share of peak bandwidth decode kernels reach
  const double flops_eff = 0.4;           // share of dense peak prefill reaches
  const double step_overhead_s = 0.0008;  // launches + sampling per step
  const double gpu_bw = d.bandwidth_bytes_per_s * bw_eff * (tp ? n_gpus : 1);
  const double ram_bw = s.ram_bandwidth_bytes_per_s * 0.7;
  const double active_all = active_weight_bytes(arch, e.weights, 0, n_layers) + static_cast<double>(e.weights.output_bytes);
  double ram_active = cpu_layers > 0 ? active_weight_bytes(arch, e.weights, 0, cpu_layers) : 0.0;
  for (int i = cpu_layers; i < cpu_expert_layers; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const FfnSpec& f = arch.layers[idx].ffn;
    if (f.n_experts > 0)
      ram_active += static_cast<double>(e.weights.layer_expert_bytes[idx]) * static_cast<double>(f.n_experts_used) /
                    static_cast<double>(f.n_experts);
  }
  const double gpu_active = std::max(0.0, active_all - ram_active);
  const double kv_per_seq = static_cast<double>(e.kv.total_bytes) / static_cast<double>(s.sequences);
  const double t_single = gpu_active / gpu_bw + ram_active / ram_bw + kv_per_seq / gpu_bw + step_overhead_s;
  sp.decode_tokens_per_s = 1.0 / t_single;
  const double flops_per_token = 2.0 * static_cast<double>(e.params.active);
  const double peak_flops = d.fp16_flops * flops_eff * (tp ? n_gpus : 1);
  const double t_batch_mem = gpu_active / gpu_bw + ram_active / ram_bw +
                             static_cast<double>(e.kv.total_bytes) / gpu_bw + step_overhead_s;
  const double t_batch_compute = peak_flops > 0.0 ? flops_per_token * static_cast<double>(s.sequences) / peak_flops : 0.0;
  sp.decode_tokens_per_s_total = static_cast<double>(s.sequences) / std::max(t_batch_mem, t_batch_compute);
  if (peak_flops > 0.0) {
    const double attention_flops =
        2.0 * static_cast<double>(n_layers) * static_cast<double>(arch.hidden_size) * static_cast<double>(s.prompt_tokens);
    const double t_prefill = static_cast<double>(s.prompt_tokens) * (flops_per_token + attention_flops) / peak_flops;
    sp.prefill_tokens_per_s = static_cast<double>(s.prompt_tokens) / t_prefill;
    sp.ttft_s = t_prefill + t_single;
  }
  return sp;
}

CostEstimate estimate_cost(const Scenario& s, const Estimate& e) {
  CostEstimate c;
  if (!e.speed || e.speed->decode_tokens_per_s <= 0.0) return c;
  if (s.hourly_price_usd && *s.hourly_price_usd > 0.0) c.usd_per_hour = *s.hourly_price_usd;
  if (!c.usd_per_hour) return c;
  // USD per million tokens = hourly price / (tokens per second x 3600) x 1e6.
  c.usd_per_million_tokens = *c.usd_per_hour / (e.speed->decode_tokens_per_s * 3600.0) * 1e6;
  if (e.speed->decode_tokens_per_s_total > 0.0)
    c.usd_per_million_tokens_batch = *c.usd_per_hour / (e.speed->decode_tokens_per_s_total * 3600.0) * 1e6;
  return c;
}

}  // namespace llmsizer
