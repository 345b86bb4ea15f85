#include "output.hpp"

#include "llmsizer/layer_split.hpp"
#include "llmsizer/json_contract.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "llmsizer/config_reader.hpp"
#include "llmsizer/speed_json.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer::cli {
namespace {

// "12.34 GiB (13.25 GB)": both units, always labelled.
std::string bytes_label(std::int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB (%.2f GB)", static_cast<double>(bytes) / static_cast<double>(kGiB),
                static_cast<double>(bytes) / kGB);
  return buf;
}

std::string billions(std::int64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f B", static_cast<double>(n) / 1e9);
  return buf;
}

}  // namespace

// The JSON contract lives in the engine (json_contract.hpp), shared with the
// WebAssembly module, so the CLI and the page print the same fields and figures.
Json params_json(const ParamCounts& p) { return params_to_json(p); }

Json estimate_json(const Estimate& e, const Scenario& s, const std::string& model_label,
                   const std::vector<Suggestion>& suggestions, bool speed_if_no_fit, const SizedModel& model) {
  return estimate_to_json(e, s, model_label, {}, suggestions, speed_if_no_fit, &model);
}

std::string params_table(const ParamCounts& p) {
  std::ostringstream out;
  out << "parameters  total " << billions(p.total) << "   active " << billions(p.active) << "   embedding "
      << billions(p.embedding);
  if (p.mtp > 0) out << "   MTP layers " << billions(p.mtp);
  if (p.lookup > 0) out << "   lookup tables " << billions(p.lookup) << " (in total, not active)";
  out << "\n";
  return out.str();
}

// A suggestion as the flags that apply it (the estimate's list, and what
// `command` starts when the scenario as set does not fit).
std::string change_flags(const Suggestion& x) {
  std::string what;
  if (x.change.offload) {
    char t[96];
    std::snprintf(t, sizeof t, "--offload %.4g --offload-mode %s (%d layers, %.1f GiB RAM)", *x.change.offload,
                  x.change.offload_mode.value_or("auto").c_str(), x.offloaded_layers,
                  static_cast<double>(x.ram_required_bytes) / static_cast<double>(kGiB));
    what = t;
  }
  // A smaller quantization with part of it in RAM is one suggestion: both flags.
  if (x.change.quant) what = "--quant " + *x.change.quant + (what.empty() ? "" : " " + what);
  if (x.change.kv) what = "--kv-type " + *x.change.kv;
  if (x.change.gpu_limit_mib) what = "--gpu-limit-mib " + std::to_string(*x.change.gpu_limit_mib) + " (sudo sysctl iogpu.wired_limit_mb=" + std::to_string(*x.change.gpu_limit_mib) + ")";
  if (!x.change.layer_split.empty())
    what = (what.empty() ? "" : what + " ") + "--layer-split " + layer_split_text(x.change.layer_split) +
           (x.change.offload ? "" : " (llama.cpp --tensor-split)");
  if (x.change.gpus) what = "--gpus " + std::to_string(*x.change.gpus);
  // A context with a raised GPU limit, or with a smaller quantization, is one suggestion: both flags.
  if (x.change.ctx)
    what = (x.change.gpu_limit_mib || x.change.quant ? what + " " : "") + "--ctx " + std::to_string(*x.change.ctx);
  return what;
}

std::string fit_suggestion_lines(const std::vector<Suggestion>& suggestions) {
  std::string out;
  const bool only_together =
      suggestions.size() == 1 && suggestions[0].change.quant && (suggestions[0].change.offload || suggestions[0].change.ctx);
  if (suggestions.empty() || only_together)
    out += std::string("  nothing within one change (layer split, GPU limit, KV type, quantization, offload, context, devices)") +
           (only_together ? "; two together:" : "") + "\n";
  for (const Suggestion& x : suggestions) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-62s %5.1f%% of usable, %.1f tokens/s\n", change_flags(x).c_str(),
                  x.utilization * 100.0, x.decode_tokens_per_s);
    out += line;
  }
  return out;
}

std::string estimate_table(const Estimate& e, const Scenario& s, const std::string& model_label,
                           const std::vector<Suggestion>& suggestions) {
  std::ostringstream out;
  const MemoryEstimate& m = e.memory;
  out << model_label << " at " << s.quant.name << ", " << s.context_tokens << " tokens x " << s.sequences
      << " sequence(s), KV " << kv_type_name(s.kv_type) << ", " << engine_name(s.engine);
  if (!s.cards.empty()) {  // mixed cards, in --tensor-split order
    out << ",";
    for (std::size_t i = 0; i < s.cards.size(); ++i) out << (i ? " + " : " ") << s.cards[i].name;
  } else if (s.device) {
    out << ", " << s.gpu_count << " x " << s.device->name;
  }
  out << "\n" << params_table(e.params);
  char line[512];  // room for the longest row (the unified-memory one runs past 160)
  auto row = [&](const char* label, std::int64_t bytes) {
    std::snprintf(line, sizeof line, "  %-22s %s\n", label, bytes_label(bytes).c_str());
    out << line;
  };
  out << "memory\n";
  if (m.file_bytes) {
    row("weights (tensors)", m.weights_bytes);
    row("file size", *m.file_bytes);
  } else {
    row("weights (file)", m.weights_bytes);
  }
  row("KV cache", m.kv_cache_bytes);
  row("runtime buffers", m.runtime_bytes);
  if (m.projector_bytes > 0) row("vision (mmproj, F16)", m.projector_bytes);
  if (s.draft) row("draft model", m.draft_weights_bytes + m.draft_kv_cache_bytes + m.draft_runtime_bytes);
  if (m.offload_bytes > 0) row("in system RAM", m.offload_bytes);
  if (m.unified_pool) {
    std::snprintf(line, sizeof line, "  %-22s %s shared by GPU and CPU, %s kept for the OS; GPU limit %s (%s)\n",
                  "unified memory", bytes_label(m.shared_pool_bytes).c_str(), bytes_label(m.os_reserve_bytes).c_str(),
                  bytes_label(m.gpu_limit_bytes).c_str(), m.gpu_limit_basis);
    out << line;
  }
  if (!m.ram_fits) {
    std::snprintf(line, sizeof line, "  %-22s %s, more than the %s %s\n", "RAM needed",
                  bytes_label(m.ram_required_bytes).c_str(), bytes_label(m.system_ram_bytes).c_str(),
                  m.unified_pool ? "the OS and the GPU's share leave" : "given (--ram-gib)");
    out << line;
  }
  // A CPU-only machine's memory is its RAM: say so where a GPU's would be.
  const bool cpu_only = s.device && s.device->kind == DeviceKind::cpu;
  row(cpu_only ? "required in RAM" : "required on GPU(s)", m.required_bytes);
  if (m.usable_bytes) {
    row(cpu_only ? "usable RAM" : "usable on GPU(s)", *m.usable_bytes);
    std::snprintf(line, sizeof line, "  %-22s %.1f%%  %s\n", "utilization", *m.utilization * 100.0,
                  *m.fits ? "FITS" : "DOES NOT FIT");
    out << line;
    if (m.fit_margin_bytes_per_gpu > 0) {
      std::snprintf(line, sizeof line, "  %-22s %s free per GPU (llama.cpp --fit-target), outside usable\n",
                    "kept free", bytes_label(m.fit_margin_bytes_per_gpu).c_str());
      out << line;
    }
  }
  if (!s.cards.empty()) {  // mixed cards: each card's layers and fit
    for (std::size_t i = 0; i < m.per_gpu.size() && i < s.cards.size(); ++i) {
      const GpuShare& g = m.per_gpu[i];
      // Layers [first, last) shown inclusive, as the page does: 0-32, then 33-65.
      std::snprintf(line, sizeof line, "  card %zu %-15s layers %d-%d, %s of %s %s\n", i, s.cards[i].id.c_str(),
                    g.first_layer, std::max(g.first_layer, g.last_layer - 1), bytes_label(g.required_bytes).c_str(),
                    bytes_label(g.usable_bytes).c_str(), g.fits ? "fits" : "DOES NOT FIT");
      out << line;
    }
  }
  if (m.limit && !*m.fits) {
    const MemoryLimit& l = *m.limit;
    const std::string where = l.where == "gpu" ? "GPU " + std::to_string(l.gpu_index + 1) + " of " + std::to_string(m.per_gpu.size())
                              : l.where == "ram" ? std::string("system RAM")
                                                 : std::string("unified memory (GPU + CPU)");
    std::snprintf(line, sizeof line, "  %-22s %s needs %s of %s (%.1f%%)\n", "limit", where.c_str(),
                  bytes_label(l.required_bytes).c_str(), bytes_label(l.available_bytes).c_str(), l.utilization * 100.0);
    out << line;
  }
  if (m.kv_pool_tokens) {
    std::snprintf(line, sizeof line, "  %-22s %lld tokens\n", "engine KV pool holds", static_cast<long long>(*m.kv_pool_tokens));
    out << line;
  }
  if (m.max_concurrent_sequences) {
    std::snprintf(line, sizeof line, "  %-22s %lld of %lld sequences at once (the pool holds %lld at full window)\n",
                  "running together", static_cast<long long>(m.concurrent_sequences), static_cast<long long>(s.sequences),
                  static_cast<long long>(*m.max_concurrent_sequences));
    out << line;
  }
  if (!runs(e)) out << "no speed or cost: it does not fit. What would make it fit, each re-estimated:\n" << fit_suggestion_lines(suggestions);
  if (e.speed && runs(e)) {
    const SpeedEstimate& sp = *e.speed;
    if (const auto& own = sp.basis.machine_factors) {
      std::snprintf(line, sizeof line,
                    "speed (%s, calibrated on your %d measurements: bandwidth x%.3f, compute x%.3f, fixed cost per layer "
                    "x%.3f, attention x%.3f, KV reads x%.3f)\n",
                    sp.basis.runtime.c_str(), own->rows, own->bandwidth_factor, own->compute_factor, own->overhead_factor,
                    own->attention_factor, own->kv_factor);
      out << line;
    } else if (const auto& serving = sp.basis.serving_factors) {
      // A serving engine alone: its serving row's step at one in flight.
      std::snprintf(line, sizeof line,
                    "speed (%s, the serving row at one request in flight, fitted on measured serving runs: "
                    "docs/accuracy.md; the first token includes %.0f ms per request and %.0f ms per prompt pass)\n",
                    sp.basis.runtime.c_str(), serving->request_overhead_s * 1000.0,
                    sp.basis.serving_prompt_pass_overhead_s * 1000.0);
      out << line;
      if (!sp.basis.serving_rough_because.empty())
        out << "  rough estimate: " << sp.basis.serving_rough_because << "\n";
      else if (!sp.basis.serving_ttft_rough_because.empty())
        out << "  time to first token rougher: " << sp.basis.serving_ttft_rough_because << "\n";
    } else {
      out << "speed (" << sp.basis.runtime << ", fitted on measurements: docs/accuracy.md)\n";
    }
    if (sp.basis.network_machines > 1) {
      std::snprintf(line, sizeof line,
                    "  over %d machines (llama.cpp's RPC): %.1f ms per token at each machine boundary, measured with "
                    "gpt-oss-120b on 1-4 Strix Halo machines\n",
                    sp.basis.network_machines, sp.basis.network_hop_s * 1000.0);
      out << line;
    }
    if (sp.prefill_work.pipeline_stages > 1 && !sp.basis.peer_access)
      out << "  GeForce cards have no peer access to each other: a prompt gains little from pipelining across them "
             "(four RTX 4090s: 1.1-1.2x where 2.3x is ideal)\n";
    std::snprintf(line, sizeof line, "  %-22s %.1f tokens/s at %lld cached tokens\n", "decode, one sequence",
                  sp.decode_tokens_per_s, static_cast<long long>(s.context_tokens));
    out << line;
    if (sp.speculative) {
      const SpeculativeEstimate& x = *sp.speculative;
      std::snprintf(line, sizeof line, "  %-22s %.1f to %.1f tokens/s with %s drafting %d (acceptance %.1f to %.1f)\n",
                    "decode, speculative", x.decode_tokens_per_s_low, x.decode_tokens_per_s_high, x.draft.c_str(),
                    x.drafted_tokens, x.acceptance_low, x.acceptance_high);
      out << line;
    }
    // A second line only where the prompt leaves the window part empty.
    if (sp.decode_tokens_per_s_after_prompt > 0.0 && s.prompt_tokens < s.context_tokens) {
      std::snprintf(line, sizeof line, "  %-22s %.1f tokens/s at %lld cached tokens (right after the prompt)\n",
                    "decode, after prompt", sp.decode_tokens_per_s_after_prompt,
                    static_cast<long long>(sp.after_prompt_cached_tokens));
      out << line;
    }
    if (s.sequences > 1) {
      std::snprintf(line, sizeof line, "  %-22s %.1f tokens/s for %lld sequences\n", "decode, whole batch",
                    sp.decode_tokens_per_s_total, static_cast<long long>(s.sequences));
      out << line;
    }
    if (sp.prefill_tokens_per_s > 0.0) {
      std::snprintf(line, sizeof line, "  %-22s %.0f tokens/s; time to first token %.2f s for %lld tokens\n",
                    "prefill", sp.prefill_tokens_per_s, sp.ttft_s, static_cast<long long>(s.prompt_tokens));
      if (sp.basis.flops_basis == "fp32_vector" && sp.basis.peak_flops != sp.basis.vector_fp32_flops) {
        out << line;
        std::snprintf(line, sizeof line, "  %-22s from the FP32 rate %.1f TFLOPS x %.2f (fitted; no FP16 rate stated)\n",
                      "", sp.basis.vector_fp32_flops / 1e12, sp.basis.peak_flops / sp.basis.vector_fp32_flops);
      }
    } else {
      std::snprintf(line, sizeof line, "  %-22s unknown (no dense throughput figure for the device)\n", "prefill");
    }
    out << line;
  }
  const CostEstimate c = runs(e) ? e.cost : CostEstimate{};
  if (c.usd_per_hour || c.power_usd_per_month) out << "cost (" << (c.basis.empty() ? "power only" : c.basis) << ")\n";
  if (c.usd_per_million_tokens) {
    std::snprintf(line, sizeof line, "  %-22s %.3f USD one stream, %.3f USD whole batch (%.3f USD/h)\n",
                  "per million tokens", *c.usd_per_million_tokens,
                  c.usd_per_million_tokens_batch.value_or(*c.usd_per_million_tokens), *c.usd_per_hour);
    out << line;
  }
  if (c.basis == "owned" && c.purchase_usd) {
    std::snprintf(line, sizeof line, "  %-22s %.0f USD: ", "purchase", *c.purchase_usd);
    out << line << c.purchase_note << "\n";
  }
  if (c.power_usd_per_month) {
    std::snprintf(line, sizeof line, "  %-22s %.2f USD at TDP\n", "power per month", *c.power_usd_per_month);
    out << line;
  }
  if (c.break_even_months) {
    std::snprintf(line, sizeof line, "  %-22s %.1f months (buying at %.0f USD vs renting)\n", "break-even",
                  *c.break_even_months, c.purchase_usd.value_or(0.0));
    out << line;
  }
  for (const auto& w : e.warnings) out << "warning: " << w << "\n";
  return out.str();
}

// Models and devices as the page lists them (json_contract's catalog_to_json:
// counts, badges, usable memory); quantizations and engines as plain names.
Json list_json(const Catalog& catalog, const std::string& what) {
  if (what == "models" || what == "gpus" || what == "ram") {
    Json all = catalog_to_json(Sizer(catalog));
    return std::move(all[what == "models" ? "models" : what == "gpus" ? "devices" : "ram_profiles"]);
  }
  Json out = Json::array();
  if (what == "quants") {
    for (const auto& q : quant_scheme_names()) out.push_back(q);
  } else {
    for (const char* e : {"llama.cpp", "ollama", "vllm", "sglang", "mlx", "tensorrt-llm"}) out.push_back(e);
  }
  return out;
}

std::string list_table(const Catalog& catalog, const std::string& what) {
  std::ostringstream out;
  if (what == "models") {
    for (const auto& m : catalog.models) out << m.id << "\t" << m.name << "\n";
  } else if (what == "gpus") {
    for (const auto& d : catalog.devices) out << d.id << "\t" << d.name << "\t" << bytes_label(d.memory_bytes) << "\n";
  } else if (what == "ram") {
    // The --ram-bandwidth-gbs figure of each kind of host RAM.
    for (const auto& p : catalog.ram_profiles)
      out << p.id << "\t" << p.name << "\t" << p.bandwidth_bytes_per_s / 1e9 << " GB/s"
          << (p.platform.empty() ? "" : "\t" + p.platform) << "\n";
  } else {
    for (const auto& item : list_json(catalog, what)) out << item.get<std::string>() << "\n";
  }
  return out.str();
}

}  // namespace llmsizer::cli
