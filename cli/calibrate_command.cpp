#include "calibrate_command.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "llmsizer/llama_bench.hpp"
#include "llmsizer/load_log.hpp"
#include "llmsizer/log_check.hpp"
#include "llmsizer/machine_calibration.hpp"

namespace llmsizer::cli {
namespace {

int fail(const Error& error) {
  std::cerr << "llm-sizer: " << error.message << "\n";
  return 2;
}

void print_table(const MachineCalibration& c, const Sizer& sizer, const std::string& bench_path) {
  const Device* d = sizer.catalog().find_device(c.device);
  const std::string device = d ? d->name : c.device;
  int used = 0;
  for (const CalibratedRow& r : c.rows) used += r.left_out.empty() ? 1 : 0;
  std::printf("calibrated on %d of %zu rows: %s%s, llama.cpp's %s backend\n", used, c.rows.size(),
              c.gpu_count > 1 ? (std::to_string(c.gpu_count) + " x ").c_str() : "", device.c_str(), c.backend.c_str());
  auto fitted = [&](const char* name) {
    for (const std::string& f : c.fitted)
      if (f == name) return true;
    return false;
  };
  auto factor = [&](const char* label, const char* name, double value) {
    std::printf("  %s x%.3f%s", label, value, fitted(name) ? "" : " (not fitted)");
  };
  factor("bandwidth", "bandwidth_factor", c.factors.bandwidth_factor);
  factor("compute", "compute_factor", c.factors.compute_factor);
  factor("fixed cost per layer", "overhead_factor", c.factors.overhead_factor);
  std::printf("\n");
  factor("attention", "attention_factor", c.factors.attention_factor);
  factor("KV cache reads", "kv_factor", c.factors.kv_factor);
  std::printf("\n");
  std::printf("\n%-10s %-16s %-28s %11s %11s %11s %9s\n", "where", "test", "sized as", "measured", "estimated",
              "calibrated", "residual");
  for (const CalibratedRow& r : c.rows) {
    const std::string as = r.model.empty() ? "-" : r.model + " " + r.quant;
    if (!r.left_out.empty()) {
      std::printf("%-10s %-16s %-28s %11.2f   left out: %s\n", r.where.c_str(), r.test.c_str(), as.c_str(),
                  r.measured_tokens_per_s, r.left_out.c_str());
      continue;
    }
    std::printf("%-10s %-16s %-28s %11.2f %11.2f %11.2f %+8.1f%%\n", r.where.c_str(), r.test.c_str(), as.c_str(),
                r.measured_tokens_per_s, r.estimated_tokens_per_s, r.calibrated_tokens_per_s,
                100.0 * (r.calibrated_tokens_per_s / r.measured_tokens_per_s - 1.0));
  }
  for (const std::string& w : c.warnings) std::printf("warning: %s\n", w.c_str());
  if (d == nullptr) {  // a custom device: its --gpu-* flags go with --calibration
    std::printf("\nUse it: save this with --json and give it as --calibration FILE with the same --gpu-* flags\n");
    return;
  }
  // The commands that use it, for the first model the rows were sized as.
  std::string model;
  for (const CalibratedRow& r : c.rows)
    if (model.empty() && r.left_out.empty()) model = r.model;
  std::printf("\nUse it:\n  llm-sizer calibrate --llama-bench %s --gpu %s%s --json > calibration.json\n"
              "  llm-sizer estimate --model %s --gpu %s%s --calibration calibration.json\n",
              bench_path.c_str(), c.device.c_str(), c.gpu_count > 1 ? (" --gpus " + std::to_string(c.gpu_count)).c_str() : "",
              model.c_str(), c.device.c_str(), c.gpu_count > 1 ? (" --gpus " + std::to_string(c.gpu_count)).c_str() : "");
}

void print_check(const LogCheck& c) {
  std::printf("%s %s on %s%s, %lld tokens x %lld sequence%s, KV %s, flash attention %s%s\n", c.model.c_str(),
              c.quant.c_str(), c.gpu_count > 1 ? (std::to_string(c.gpu_count) + " x ").c_str() : "", c.device.c_str(),
              static_cast<long long>(c.context_tokens), static_cast<long long>(c.sequences), c.sequences == 1 ? "" : "s",
              c.kv_type.c_str(), c.flash_attention ? "on" : "off",
              c.offload_fraction > 0.0 ? (", " + std::to_string(std::lround(c.offload_fraction * 100.0)) + "% of layers in RAM").c_str() : "");
  std::printf("\n%-48s %-9s %12s %12s %9s\n", "buffer", "line", "log MiB", "estimate", "diff");
  int differ = 0;
  for (const LogCheckLine& l : c.lines) {
    if (!l.estimate_mib) {
      std::printf("%-48s %-9s %12.2f %12s\n", l.item.c_str(), l.where.c_str(), l.log_mib, "-");
      continue;
    }
    std::printf("%-48s %-9s %12.2f %12.2f %+8.1f%%%s\n", l.item.c_str(), l.where.c_str(), l.log_mib, *l.estimate_mib,
                l.difference_pct, l.differs ? "  <-" : "");
    differ += l.differs ? 1 : 0;
  }
  for (const LogCheckLine& l : c.lines)
    if (l.differs) std::printf("%s differs by more than 2%%: usually %s\n", l.item.c_str(), l.hint.c_str());
  if (differ == 0) std::printf("every buffer the estimate sizes agrees within 2%%\n");
  for (const std::string& w : c.warnings) std::printf("warning: %s\n", w.c_str());
}

}  // namespace

Result<MachineCalibrationKey> read_calibration_file(const std::string& path) {
  auto text = read_text_file(path, std::int64_t{1} << 20, "a calibration is under 1 KB");
  if (!text) return text.error();
  const Json j = Json::parse(text.value(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error{"cli.file", "'" + path.substr(0, 200) + "' is not JSON: give the output of `llm-sizer calibrate --json`"};
  const auto factors = j.find("factors");
  auto key = machine_calibration_from_json(factors != j.end() ? *factors : j);
  if (!key) return Error{key.error().id, path.substr(0, 200) + ": " + key.error().message};
  return key;
}

int run_calibrate(const Command& c, const Sizer& sizer) {
  auto text = read_text_file(*c.llama_bench_path, static_cast<std::int64_t>(kMaxBenchTextBytes), "llama-bench output is a few KB");
  if (!text) return fail(text.error());
  auto bench = parse_llama_bench(text.value());
  if (!bench) return fail(Error{bench.error().id, c.llama_bench_path->substr(0, 200) + ": " + bench.error().message});
  SizerRequest base;
  if (c.gpu_id) base.gpu_id = *c.gpu_id;
  if (c.gpu_memory_gib)
    base.custom_gpu = CustomDevice{*c.gpu_memory_gib, c.gpu_bandwidth_gbs.value_or(0.0), c.gpu_tflops.value_or(0.0),
                                   c.gpu_vendor.value_or("nvidia")};
  if (c.gpus) {
    if (*c.gpus < 1 || *c.gpus > 1024) return fail(Error{"cli.bad_argument", "--gpus must be between 1 and 1024"});
    base.gpu_count = static_cast<int>(*c.gpus);
  }
  if (c.ram_bandwidth_gbs) base.ram_bandwidth_gb_per_s = *c.ram_bandwidth_gbs;
  auto calibration = calibrate_machine(sizer, bench.value(), base);
  if (!calibration) return fail(calibration.error());
  if (c.json) std::cout << dump_json(machine_calibration_to_json(calibration.value()), 1) << "\n";
  else print_table(calibration.value(), sizer, *c.llama_bench_path);
  return 0;
}

int run_check_log(const Command& c, const Sizer& sizer, const SizerRequest& request) {
  auto text = read_text_file(*c.log_path, static_cast<std::int64_t>(kMaxLogTextBytes), "a load log is a few hundred KB");
  if (!text) return fail(text.error());
  auto log = parse_load_log(text.value());
  if (!log) return fail(Error{log.error().id, c.log_path->substr(0, 200) + ": " + log.error().message});
  auto check = check_load_log(sizer, log.value(), request);
  if (!check) return fail(check.error());
  if (c.json) std::cout << dump_json(log_check_to_json(check.value()), 1) << "\n";
  else print_check(check.value());
  return 0;
}

}  // namespace llmsizer::cli
