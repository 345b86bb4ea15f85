#include "llmsizer/speed_json.hpp"

namespace llmsizer {
namespace {

Json positive_or_null(double v) { return v > 0.0 ? Json(v) : Json(nullptr); }

Json step_json(const StepWork& w, const StepTime& t) {
  Json work = json_object(18);
  work["weight_bytes"] = w.gpu_weight_bytes;
  work["kv_bytes"] = w.gpu_kv_bytes;
  work["ram_bytes"] = w.ram_bytes;
  work["host_to_gpu_bytes"] = w.host_to_gpu_bytes;
  work["flops"] = w.flops;
  work["expert_flops"] = w.expert_flops;
  work["attention_flops"] = w.attention_flops;
  work["gemm_rows"] = w.gemm_rows;
  work["expert_rows"] = w.expert_rows;
  work["layers"] = w.layers;
  work["moe_layers"] = w.moe_layers;
  work["passes"] = w.passes;
  work["tensor_parallel"] = w.tensor_parallel;
  work["layer_split_gpus"] = w.layer_split_gpus;
  work["allreduces"] = w.allreduces;
  work["allreduce_bytes"] = w.allreduce_bytes;
  work["pipeline_stages"] = w.pipeline_stages;
  work["batches"] = w.batches;
  work["boundary_bytes"] = w.boundary_bytes;
  work["over_network"] = w.over_network;
  Json time = json_object(8);
  time["weights_s"] = t.weights_s;
  time["kv_s"] = t.kv_s;
  time["ram_s"] = t.ram_s;
  time["host_to_gpu_s"] = t.host_to_gpu_s;
  time["compute_s"] = t.compute_s;
  time["interconnect_s"] = t.interconnect_s;
  time["overhead_s"] = t.overhead_s;
  time["total_s"] = t.total_s;
  Json j = json_object(2);
  j["work"] = std::move(work);
  j["time"] = std::move(time);
  return j;
}

}  // namespace

Json served_factors_to_json(const ServedFactors& f) {
  Json j = json_object(6);
  j["bandwidth_factor"] = f.bandwidth_factor;
  j["compute_factor"] = f.compute_factor;
  j["step_overhead_s"] = f.step_overhead_s;
  j["allreduce_latency_factor"] = f.allreduce_latency_factor;
  j["request_overhead_s"] = f.request_overhead_s;
  j["sequence_overhead_s"] = f.sequence_overhead_s;
  j["prompt_pass_layer_overhead_s"] = f.prompt_pass_layer_overhead_s;
  return j;
}

Json machine_factors_to_json(const MachineFactors& f) {
  Json j = json_object(6);
  j["bandwidth_factor"] = f.bandwidth_factor;
  j["compute_factor"] = f.compute_factor;
  j["overhead_factor"] = f.overhead_factor;
  j["attention_factor"] = f.attention_factor;
  j["kv_factor"] = f.kv_factor;
  j["rows"] = f.rows;
  return j;
}

Json speed_to_json(const std::optional<SpeedEstimate>& speed) {
  Json j = json_object(13);
  j["decode_tokens_per_s"] = speed ? Json(speed->decode_tokens_per_s) : Json(nullptr);
  j["decode_tokens_per_s_total"] = speed ? Json(speed->decode_tokens_per_s_total) : Json(nullptr);
  j["decode_tokens_per_s_per_sequence"] = speed ? Json(speed->decode_tokens_per_s_per_sequence) : Json(nullptr);
  j["decode_tokens_per_s_after_prompt"] =
      speed ? positive_or_null(speed->decode_tokens_per_s_after_prompt) : Json(nullptr);
  j["after_prompt_cached_tokens"] =
      speed && speed->decode_tokens_per_s_after_prompt > 0.0 ? Json(speed->after_prompt_cached_tokens) : Json(nullptr);
  j["prefill_tokens_per_s"] = speed ? positive_or_null(speed->prefill_tokens_per_s) : Json(nullptr);
  j["ttft_s"] = speed ? positive_or_null(speed->ttft_s) : Json(nullptr);
  if (speed) {
    const SpeedBasis& b = speed->basis;
    Json basis = json_object(16);
    basis["runtime"] = b.runtime;
    basis["weight_family"] = b.weight_family;
    basis["peak_bandwidth_bytes_per_s"] = b.peak_bandwidth_bytes_per_s;
    basis["peak_flops"] = positive_or_null(b.peak_flops);
    basis["flops_basis"] = b.flops_basis.empty() ? Json(nullptr) : Json(b.flops_basis);
    basis["vector_fp32_flops"] = positive_or_null(b.vector_fp32_flops);
    basis["link_bytes_per_s"] = b.link_bytes_per_s;
    basis["ram_bandwidth_bytes_per_s"] = b.ram_bandwidth_bytes_per_s;
    basis["host_ram"] = b.host_ram;
    basis["memory_class"] = b.memory_class;
    basis["memory_pressure"] = b.memory_pressure;
    basis["memory_dies"] = b.memory_dies;
    basis["peer_access"] = b.peer_access;
    basis["network_machines"] = b.network_machines;
    basis["network_hop_s"] = b.network_hop_s;
    basis["moe_decode_time_factor"] = b.moe_decode_time_factor;
    basis["moe_prompt_time_factor"] = b.moe_prompt_time_factor;
    Json estimated = Json::array();
    for (const std::string& f : b.estimated_inputs) estimated.push_back(f);
    basis["estimated_inputs"] = std::move(estimated);
    basis["machine_calibration"] = b.machine_factors ? machine_factors_to_json(*b.machine_factors) : Json(nullptr);
    basis["serving_factors"] = b.serving_factors ? served_factors_to_json(*b.serving_factors) : Json(nullptr);
    basis["serving_rough_because"] = b.serving_rough_because.empty() ? Json(nullptr) : Json(b.serving_rough_because);
    basis["serving_ttft_rough_because"] =
        b.serving_ttft_rough_because.empty() ? Json(nullptr) : Json(b.serving_ttft_rough_because);
    basis["serving_prompt_pass_overhead_s"] = b.serving_prompt_pass_overhead_s;
    j["basis"] = std::move(basis);
    Json breakdown = json_object(4);
    breakdown["decode"] = step_json(speed->decode_single_work, speed->decode_single_time);
    breakdown["decode_batch"] = step_json(speed->decode_batch_work, speed->decode_batch_time);
    breakdown["decode_after_prompt"] = step_json(speed->decode_after_prompt_work, speed->decode_after_prompt_time);
    breakdown["prefill"] = step_json(speed->prefill_work, speed->prefill_time);
    j["breakdown"] = std::move(breakdown);
    j["served"] = speed->served ? served_to_json(*speed->served, true) : Json(nullptr);
  } else {
    j["basis"] = nullptr;
    j["breakdown"] = nullptr;
    j["served"] = nullptr;
  }
  return j;
}

Json served_to_json(const ServedEstimate& v, bool with_steps) {
  Json j = json_object(20);
  j["concurrency"] = v.concurrency;
  j["admitted_concurrency"] = v.admitted_concurrency;
  j["decoding_concurrency"] = v.decoding_concurrency;
  j["max_concurrency"] = optional_json(v.max_concurrency);
  j["input_tokens"] = v.input_tokens;
  j["output_tokens"] = v.output_tokens;
  j["chunk_tokens"] = v.chunk_tokens;
  j["prefill_step_share"] = v.prefill_step_share;
  j["prefill_bound"] = v.prefill_bound;
  j["tokens_per_s_per_user"] = v.tokens_per_s_per_user;
  j["output_tokens_per_s"] = v.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = v.output_tokens_per_s_per_gpu;
  j["tpot_s"] = v.tpot_s;
  j["ttft_s"] = v.ttft_s;
  j["queue_s"] = v.queue_s;
  j["request_overhead_s"] = v.request_overhead_s;
  // What the figures stand on: the serving row and how many measured runs fitted it.
  Json basis = json_object(10);
  basis["row"] = v.calibration_row;
  basis["fitted_records"] = v.calibration_records;
  basis["typical_error_pct"] = v.calibration_typical_error_pct >= 0 ? Json(v.calibration_typical_error_pct) : Json(nullptr);
  basis["rough"] = v.calibration_rough;
  basis["rough_because"] = v.calibration_rough ? Json(v.calibration_rough_because) : Json(nullptr);
  basis["ttft_typical_error_pct"] =
      v.calibration_ttft_typical_error_pct >= 0 ? Json(v.calibration_ttft_typical_error_pct) : Json(nullptr);
  basis["ttft_rough_because"] = v.ttft_rough_because.empty() ? Json(nullptr) : Json(v.ttft_rough_because);
  basis["note"] = v.calibration_basis.empty() ? Json(nullptr) : Json(v.calibration_basis);
  basis["from_request"] = v.calibration_override;
  basis["factors"] = served_factors_to_json(v.factors);
  j["basis"] = std::move(basis);
  if (!with_steps) return j;
  Json steps = json_object(2);
  steps["decode"] = step_json(v.decode_step_work, v.decode_step_time);
  steps["with_prompt_chunk"] = step_json(v.mixed_step_work, v.mixed_step_time);
  j["steps"] = std::move(steps);
  return j;
}

Json cost_to_json(const CostEstimate& c) {
  Json j = json_object(11);
  j["usd_per_million_tokens"] = optional_json(c.usd_per_million_tokens);
  j["usd_per_million_tokens_batch"] = optional_json(c.usd_per_million_tokens_batch);
  j["usd_per_million_output_tokens"] = optional_json(c.usd_per_million_output_tokens);
  j["usd_per_hour"] = optional_json(c.usd_per_hour);
  j["power_usd_per_month"] = optional_json(c.power_usd_per_month);
  j["break_even_months"] = optional_json(c.break_even_months);
  j["purchase_usd"] = optional_json(c.purchase_usd);
  j["basis"] = c.basis.empty() ? Json(nullptr) : Json(c.basis);
  j["purchase_low_confidence"] = c.purchase_low_confidence;
  j["purchase_basis"] = c.purchase_basis.empty() ? Json(nullptr) : Json(c.purchase_basis);
  j["purchase_note"] = c.purchase_note.empty() ? Json(nullptr) : Json(c.purchase_note);
  return j;
}

}  // namespace llmsizer
