#include "llmsizer/machine_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "file_text.hpp"
#include "llmsizer/catalog_match.hpp"
#include "llmsizer/speed.hpp"
#include "llmsizer/units.hpp"
#include "log_factor_fit.hpp"

namespace llmsizer {
namespace {

// A row is left out of the fit when the GGUF it ran differs from the
// catalog's file of that type by more than this share: decode reads the
// file's bytes, and the fit would blame the machine for the difference.
constexpr double kSizeMismatchLeaveOut = 0.15;
constexpr double kSizeMismatchWarn = 0.03;
// Factors outside this range mean the rows are not of the chosen device.
constexpr double kLowestFactor = 0.05;
constexpr double kHighestFactor = 20.0;
// Rows at depths up to at least this many tokens, and at another depth, set
// the attention and KV factors: below it attention is a small share of a
// step, and a factor fitted on it would follow the measurements' noise.
constexpr int kDepthForAttention = 4096;
// A row the fitted factors leave further off than this is flagged.
constexpr double kRowsDisagree = 0.10;

// The same chip at several memory sizes (Apple's): one speed for all of them.
bool same_speed(const Device& a, const Device& b) {
  return a.bandwidth_bytes_per_s == b.bandwidth_bytes_per_s && a.fp16_flops == b.fp16_flops &&
         a.fp32_flops == b.fp32_flops && a.backend == b.backend;
}

// llama-bench's backends ("CUDA", "Metal,BLAS", "Vulkan,RPC", "CPU") as the one
// the model's layers ran on.
Backend bench_backend(std::string_view backends) {
  const std::string s = lower_alnum(backends);
  auto has = [&](std::string_view name) { return s.find(name) != std::string::npos; };
  if (has("cuda")) return Backend::cuda;
  if (has("rocm") || has("hip")) return Backend::rocm;
  if (has("metal") || has("mtl")) return Backend::metal;
  if (has("vulkan")) return Backend::vulkan;
  if (has("sycl")) return Backend::sycl;
  if (has("cann")) return Backend::cann;
  if (has("musa")) return Backend::musa;
  if (has("cpu") || has("blas")) return Backend::cpu;
  return Backend::other;
}

// Tokens per second of one row, from its scenario(s), at given factors.
struct RowModel {
  std::size_t row = 0;       // index into the result's rows
  const Architecture* arch = nullptr;
  double measured = 0.0;
  int n_prompt = 0;
  int n_gen = 0;
  int n_depth = 0;
  // Decode: one scenario whose window is the cache half-way through the
  // generated tokens (the KV read grows linearly, so its mean is the middle).
  // Prompt: the prompt after the depth, and the depth alone when there is one.
  std::vector<std::pair<Scenario, Estimate>> parts;
  bool decode = false;         // feeds the bandwidth and overhead factors
  bool prompt = false;         // feeds the compute factor
  double weight_bytes = 0.0;   // for telling models of different sizes apart

  std::optional<double> tokens_per_s(const MachineFactors& f) const {
    auto speed_of = [&](std::size_t i) -> std::optional<SpeedEstimate> {
      Scenario s = parts[i].first;
      s.machine_factors = f;
      return estimate_speed(*arch, s, parts[i].second);
    };
    if (n_prompt == 0) {  // tgN
      const auto sp = speed_of(0);
      if (!sp || sp->decode_tokens_per_s <= 0.0) return std::nullopt;
      return sp->decode_tokens_per_s;
    }
    const auto full = speed_of(0);
    if (!full || full->prefill_tokens_per_s <= 0.0) return std::nullopt;
    double prompt_s = full->prefill_time.total_s;
    if (n_depth > 0) {
      const auto before = speed_of(1);
      if (!before || before->prefill_tokens_per_s <= 0.0) return std::nullopt;
      prompt_s -= before->prefill_time.total_s;
    }
    if (n_gen == 0) return prompt_s > 0.0 ? std::optional<double>(n_prompt / prompt_s) : std::nullopt;
    // ppN+tgM: the prompt, then M tokens decoded after it (the part's decode
    // step is at the middle of the generated tokens).
    const auto gen = speed_of(n_depth > 0 ? 2 : 1);
    if (!gen || gen->decode_tokens_per_s <= 0.0) return std::nullopt;
    return static_cast<double>(n_prompt + n_gen) / (prompt_s + n_gen / gen->decode_tokens_per_s);
  }
};

// The factors' logarithms, those the rows determine; the rest stay at 0 (x1).
struct FitSpace {
  std::array<bool, kFactors> free{};  // which factors the rows determine
  MachineFactors at(const LogFactors& x, int rows) const {
    MachineFactors f;
    f.bandwidth_factor = free[0] ? std::exp(x[0]) : 1.0;
    f.compute_factor = free[1] ? std::exp(x[1]) : 1.0;
    f.overhead_factor = free[2] ? std::exp(x[2]) : 1.0;
    f.attention_factor = free[3] ? std::exp(x[3]) : 1.0;
    f.kv_factor = free[4] ? std::exp(x[4]) : 1.0;
    f.rows = rows;
    return f;
  }
};

// Each row's log error at log factors x; false where a row cannot be timed.
bool residuals(const std::vector<RowModel>& rows, const FitSpace& space, const LogFactors& x, std::vector<double>& out) {
  const MachineFactors f = space.at(x, 0);
  out.clear();
  for (const RowModel& r : rows) {
    const auto t = r.tokens_per_s(f);
    if (!t) return false;
    out.push_back(std::log(*t / r.measured));
  }
  return true;
}

std::string fmt_gib(double bytes) {
  const double gib = bytes / static_cast<double>(kGiB);
  const long long hundredths = std::llround(gib * 100.0);
  std::string frac = std::to_string(hundredths % 100);
  if (frac.size() < 2) frac = "0" + frac;
  return std::to_string(hundredths / 100) + "." + frac + " GiB";
}

}  // namespace

Result<MachineCalibration> calibrate_machine(const Sizer& sizer, const BenchResults& bench, const SizerRequest& base) {
  MachineCalibration out;
  const std::vector<BenchRow>& rows = bench.rows;
  if (rows.empty()) return Error{"bench.empty", "no llama-bench rows"};

  // One machine, one backend.
  const Backend backend = bench_backend(rows.front().backends);
  for (const BenchRow& r : rows) {
    if (bench_backend(r.backends) != backend)
      return Error{"bench.mixed", "the rows mix backends (" + rows.front().backends + " at " + rows.front().where + ", " +
                                      r.backends + " at " + r.where + "): calibrate one machine and backend at a time"};
    if (r.gpu_info != rows.front().gpu_info)
      return Error{"bench.mixed", "the rows come from different machines (" + rows.front().gpu_info + " at " +
                                      rows.front().where + ", " + r.gpu_info + " at " + r.where + ")"};
  }
  if (backend == Backend::other)
    return Error{"bench.bad_row", rows.front().where + ": unknown backend '" + rows.front().backends + "'"};

  // The machine: the request's device, else the one the text names.
  SizerRequest machine = base;
  machine.model_id.clear();
  machine.config_json.clear();
  machine.engine = "llama.cpp";
  machine.backend.clear();
  machine.machine_factors.reset();
  std::vector<std::string> named = bench.devices_named;
  if (!rows.front().gpu_info.empty()) named.insert(named.begin(), rows.front().gpu_info);
  std::vector<const Device*> candidates;
  std::string stated;
  for (const std::string& n : named) {
    candidates = devices_named(sizer.catalog(), n);
    if (!candidates.empty()) {
      stated = n;
      break;
    }
  }
  const bool same_chip = !candidates.empty() && std::all_of(candidates.begin(), candidates.end(), [&](const Device* d) {
    return same_speed(*d, *candidates.front());
  });
  if (machine.gpu_id.empty() && !machine.custom_gpu) {
    if (candidates.empty())
      return Error{"bench.no_device", named.empty() ? "the text does not name the GPU: choose the device the rows were measured on"
                                                    : "the GPU the text names (" + printable(named.front(), 60) +
                                                          ") is not in the catalog: choose the closest device"};
    if (!same_chip)
      return Error{"bench.no_device", "the text names " + printable(stated, 60) + ", which could be " +
                                          candidates[0]->name + " or " + candidates[1]->name + ": choose the device"};
    machine.gpu_id = candidates.front()->id;
    if (candidates.size() > 1)
      out.warnings.push_back("the text names " + printable(stated, 60) + "; sized on " + candidates.front()->name +
                             " (the same speed at every memory size): choose yours for the memory figures");
    // Several GPUs of this kind in one start-up list: llama-bench splits layers
    // over all of them (a host's own integrated GPU, listed beside, is not one
    // of them). Each run pasted lists its devices again from 0: two single-GPU
    // runs are one GPU, not two.
    long alike = 0;
    long in_list = 0;
    for (std::size_t i = 0; i < bench.devices_named.size(); ++i) {
      if (i < bench.device_indices.size() && bench.device_indices[i] <= 0) in_list = 0;
      if (bench.devices_named[i] == stated) alike = std::max(alike, ++in_list);
    }
    if (machine.gpu_count == 1 && alike > 1) machine.gpu_count = static_cast<int>(alike);
  } else if (!candidates.empty() && !machine.gpu_id.empty()) {
    const bool chosen_named = std::any_of(candidates.begin(), candidates.end(), [&](const Device* d) { return d->id == machine.gpu_id; });
    if (!chosen_named)
      out.warnings.push_back("the text names " + printable(stated, 60) + " but the rows are sized on the chosen device (" +
                             machine.gpu_id + "); the factors say how far that device's figures are from these rows");
  }
  machine.backend = backend_name(backend);
  auto machine_scenario = sizer.scenario_for(machine);
  if (!machine_scenario) {
    if (machine_scenario.error().message.find("backend") != std::string::npos)
      return Error{"bench.mixed", "the rows ran llama.cpp's " + std::string(backend_name(backend)) + " backend, which does not run on the chosen device"};
    return machine_scenario.error();
  }
  const Device& device = *machine_scenario.value().device;
  out.device = device.id;
  out.backend = backend_name(backend);
  out.gpu_count = machine_scenario.value().gpu_count;
  if (backend == Backend::cpu && device.kind != DeviceKind::cpu)
    return Error{"bench.mixed", "the rows ran on the CPU backend but the device is a GPU: choose the CPU machine, or paste GPU rows"};

  // Each row sized as its own scenario on that machine.
  std::vector<RowModel> models;
  std::set<std::string> kv_warned;
  for (const BenchRow& r : rows) {
    CalibratedRow c;
    c.where = r.where;
    c.test = r.test_name();
    c.model_as_stated = r.model_type;
    c.measured_tokens_per_s = r.tokens_per_s;
    c.quant = quant_name_from_model_type(r.model_type);
    auto leave_out = [&](std::string why) {
      c.left_out = std::move(why);
      out.rows.push_back(c);
    };
    const CatalogModel* model = catalog_model_with_params(sizer, r.model_params, arch_from_model_type(r.model_type));
    if (model == nullptr) {
      leave_out("no catalog model has " + std::to_string(r.model_params) + " parameters like " +
                printable(arch_from_model_type(r.model_type), 24));
      continue;
    }
    c.model = model->id;
    if (c.quant.empty()) {
      leave_out("unknown file type in '" + printable(r.model_type, 60) + "'");
      continue;
    }
    if (r.n_gpu_layers >= 0 && r.n_gpu_layers < 999 && backend != Backend::cpu) {
      const Result<Architecture>& a = sizer.catalog_architecture(static_cast<std::size_t>(model - sizer.catalog().models.data()));
      if (a && r.n_gpu_layers < a.value().decoder_layer_count()) {
        leave_out("part of the model ran on the CPU (ngl " + std::to_string(r.n_gpu_layers) + "): the fit takes rows run wholly on the GPU");
        continue;
      }
    }
    if (r.no_kv_offload) {
      leave_out("the KV cache stayed in system RAM (nkvo 1): the fit takes rows run wholly on the GPU");
      continue;
    }
    if (r.n_cpu_moe > 0) {
      leave_out("experts ran on the CPU (n_cpu_moe " + std::to_string(r.n_cpu_moe) + "): the fit takes rows run wholly on the GPU");
      continue;
    }
    SizerRequest q = machine;
    q.model_id = model->id;
    q.quant = c.quant;
    q.sequences = 1;
    q.offload_fraction = 0.0;
    q.output_tokens = 0;
    q.draft.clear();
    q.vision = false;
    q.speed_if_no_fit = true;
    q.suggestions = false;
    q.flash_attention = r.flash_attn != 0;
    q.kv_type = r.type_k;
    if (r.type_v != r.type_k && kv_warned.insert(r.type_k + "/" + r.type_v).second)
      out.warnings.push_back(r.where + ": K cache " + r.type_k + ", V cache " + r.type_v + "; sized with " + r.type_k + " for both");
    auto sized = sizer.model_for(q);
    if (!sized) {
      leave_out(sized.error().message);
      continue;
    }
    RowModel m;
    m.row = out.rows.size();
    m.arch = &sized.value().arch();
    m.measured = r.tokens_per_s;
    m.n_prompt = r.n_prompt;
    m.n_gen = r.n_gen;
    m.n_depth = r.n_depth;
    // The windows each part needs: llama-bench's context is depth + prompt + generated.
    std::vector<std::pair<std::int64_t, std::int64_t>> windows;  // (context tokens, prompt tokens)
    const std::int64_t depth = r.n_depth;
    if (r.n_prompt > 0) {
      windows.emplace_back(depth + r.n_prompt, depth + r.n_prompt);
      if (depth > 0) windows.emplace_back(depth, depth);
    }
    if (r.n_gen > 0) windows.emplace_back(std::max<std::int64_t>(1, depth + r.n_prompt + r.n_gen / 2), 1);
    std::string failed;
    for (const auto& [ctx, prompt] : windows) {
      SizerRequest w = q;
      w.context_tokens = ctx;
      w.prompt_tokens = prompt;
      auto s = sizer.scenario_for(w);
      if (!s) {
        failed = s.error().message;
        break;
      }
      Scenario scenario = std::move(s).value();
      if (r.n_ubatch != 512) scenario.prefill_ubatch_tokens = r.n_ubatch;
      scenario.prefill_speed = prompt > 1;
      auto e = sizer.estimate(sized.value(), scenario);
      if (!e) {
        failed = e.error().message;
        break;
      }
      if (m.weight_bytes == 0.0) m.weight_bytes = static_cast<double>(e.value().weights.total_bytes);
      m.parts.emplace_back(std::move(scenario), std::move(e).value());
    }
    if (!failed.empty()) {
      leave_out(failed);
      continue;
    }
    if (r.model_size_bytes > 0) {
      const double gap = std::fabs(m.weight_bytes - static_cast<double>(r.model_size_bytes)) / static_cast<double>(r.model_size_bytes);
      const std::string sizes = "the file holds " + fmt_gib(static_cast<double>(r.model_size_bytes)) + ", the catalog's " +
                                c.quant + " of " + model->id + " " + fmt_gib(m.weight_bytes);
      if (gap > kSizeMismatchLeaveOut) {
        leave_out(sizes + ": another mix of types; decode reads the file's bytes");
        continue;
      }
      if (gap > kSizeMismatchWarn) out.warnings.push_back(r.where + ": " + sizes + " (another mix of types): its speed is compared with the catalog file's");
    }
    m.decode = r.n_gen > 0;
    m.prompt = r.n_prompt > 0;
    const auto estimated = m.tokens_per_s(MachineFactors{});
    if (!estimated) {
      leave_out(m.prompt ? "no prompt speed for this device (no matrix throughput figure)" : "no decode speed for this device");
      continue;
    }
    c.estimated_tokens_per_s = *estimated;
    out.rows.push_back(c);
    models.push_back(std::move(m));
  }
  if (models.empty()) {
    for (const CalibratedRow& c : out.rows)
      if (!c.left_out.empty())
        return Error{"bench.no_rows", "no row could be sized: " + c.where + ": " + c.left_out};
    return Error{"bench.no_rows", "no row could be sized"};
  }

  // Which factors the rows determine.
  FitSpace space;
  std::set<long long> decode_sizes;
  std::set<int> prompt_depths;
  std::set<int> decode_depths;
  for (const RowModel& m : models) {
    space.free[0] = space.free[0] || m.decode;
    space.free[1] = space.free[1] || m.prompt;
    if (m.decode && m.n_prompt == 0) decode_sizes.insert(std::llround(std::log(m.weight_bytes) * 4.0));  // 1.28x apart
    // A prompt attends over the depth and itself: pp512 and pp4096 at d0 set
    // the attention factor as pp2048 at d0 and d4096 do.
    if (m.prompt && m.n_gen == 0) prompt_depths.insert(m.n_depth + m.n_prompt);
    if (m.decode && m.n_prompt == 0) decode_depths.insert(m.n_depth);
  }
  // The fixed cost per layer separates from bandwidth only across models of
  // different sizes, with more rows than factors; attention from the GEMMs,
  // and the cache's reads from the weights', only across rows at depths far
  // enough apart for attention to weigh (pp2048 @ d0 ... d32768).
  auto spread = [](const std::set<int>& depths) { return depths.size() >= 2 && *depths.rbegin() >= kDepthForAttention; };
  space.free[2] = decode_sizes.size() >= 2 && models.size() > 3;
  space.free[3] = spread(prompt_depths);
  space.free[4] = spread(decode_depths);
  const char* names[kFactors] = {"bandwidth_factor", "compute_factor", "overhead_factor", "attention_factor", "kv_factor"};
  for (std::size_t k = 0; k < kFactors; ++k)
    if (space.free[k]) out.fitted.push_back(names[k]);
  const LogFactors x = fit_log_factors(
      [&](const LogFactors& at, std::vector<double>& r) { return residuals(models, space, at, r); }, space.free,
      kLowestFactor, kHighestFactor);
  out.factors = space.at(x, static_cast<int>(models.size()));
  for (const RowModel& m : models) {
    const auto t = m.tokens_per_s(out.factors);
    out.rows[m.row].calibrated_tokens_per_s = t ? *t : 0.0;
  }
  const double lowest = std::min({out.factors.bandwidth_factor, out.factors.compute_factor, out.factors.overhead_factor,
                                  out.factors.attention_factor, out.factors.kv_factor});
  const double highest = std::max({out.factors.bandwidth_factor, out.factors.compute_factor, out.factors.overhead_factor,
                                   out.factors.attention_factor, out.factors.kv_factor});
  if (lowest <= kLowestFactor * 1.01 || highest >= kHighestFactor * 0.99)
    out.warnings.push_back("a factor reached its bound: the rows are unlike this device's figures (another GPU, or several?)");
  double worst = 0.0;
  std::string worst_where;
  for (const CalibratedRow& c : out.rows) {
    if (!c.left_out.empty() || c.calibrated_tokens_per_s <= 0.0) continue;
    const double e = std::fabs(c.calibrated_tokens_per_s / c.measured_tokens_per_s - 1.0);
    if (e > worst) {
      worst = e;
      worst_where = c.where + " (" + c.test + ")";
    }
  }
  if (worst > kRowsDisagree)
    out.warnings.push_back("the factors leave " + worst_where + " " + std::to_string(std::lround(worst * 100.0)) +
                           "% off: these rows vary in a way the factors do not follow (another bottleneck: a slow "
                           "host link, thermal limits, or attention at depth), so the calibrated speeds are as uncertain");
  if (!space.free[1]) out.warnings.push_back("no pp rows: prompt speeds are not calibrated");
  if (!space.free[0]) out.warnings.push_back("no tg rows: decode speeds are not calibrated");
  return out;
}

}  // namespace llmsizer
