#include "llmsizer/log_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "file_text.hpp"
#include "llmsizer/llama_bench.hpp"
#include "llmsizer/catalog_match.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(kMiB); }

// The device a buffer is on: "MTL0_Mapped" (weights mapped from the file) is
// MTL0's memory, as "CUDA0" is CUDA0's.
std::string device_of(const std::string& name) {
  const std::string mapped = "_Mapped";
  if (name.size() > mapped.size() && name.compare(name.size() - mapped.size(), mapped.size(), mapped) == 0 &&
      name.rfind("CPU", 0) != 0)
    return name.substr(0, name.size() - mapped.size());
  return name;
}

// The log's buffers summed per device and kind, in the order they first
// appear: a model with sliding-window layers has two KV caches per device.
std::vector<LogBuffer> per_device(const std::vector<LogBuffer>& buffers) {
  std::vector<LogBuffer> out;
  for (const LogBuffer& b : buffers) {
    const std::string device = device_of(b.device);
    auto same = std::find_if(out.begin(), out.end(), [&](const LogBuffer& o) { return o.device == device && o.kind == b.kind; });
    if (same == out.end()) out.push_back(LogBuffer{device, b.kind, b.bytes, b.where});
    else same->bytes += b.bytes;
  }
  return out;
}

// A device name of llama.cpp's buffers that is host memory: CPU, CPU_Mapped,
// CPU_REPACK, CUDA_Host, ROCm_Host, Host.
bool is_host(const std::string& device) {
  return device.rfind("CPU", 0) == 0 || device == "Host" ||
         (device.size() > 5 && device.compare(device.size() - 5, 5, "_Host") == 0);
}

std::string hint_for(const std::string& kind, const LogCheck& c) {
  if (kind == "host_model")
    return "llama.cpp maps the file (mmap): the host buffer is the span of the file from the first tensor kept in RAM "
           "to the last, the GPU's tensors between them included; or another mix of types than the catalog's " + c.quant;
  if (kind == "model")
    return "another mix of types than the catalog's " + c.quant +
           " (an imatrix, unsloth UD or bartowski _L file), or the layers split otherwise over the GPUs (-ts)";
  if (kind == "kv" || kind == "context")
    return "another KV type (-ctk/-ctv), a context other than n_ctx, sliding-window layers kept at full size "
           "(--swa-full), or a variant of the model with other KV heads than the catalog's" + std::string(kind == "context" ? "; the context figure also holds the output buffer" : "");
  if (kind == "compute") {
    if (!c.flash_attention) return "without flash attention the compute buffer grows with the context (-fa on shrinks it)";
    return "the compute graph differs by llama.cpp version and backend; a few hundred MiB either way is usual";
  }
  return "";
}

void add_line(LogCheck& c, const LoadLog& log, const std::string& item, const std::string& kind, const LogBuffer* b,
              std::int64_t log_bytes, std::optional<std::int64_t> estimate_bytes) {
  LogCheckLine line;
  line.item = item;
  line.where = b ? b->where : "";
  line.log_mib = mib(log_bytes);
  if (estimate_bytes) {
    line.estimate_mib = mib(*estimate_bytes);
    if (log_bytes > 0) {
      line.difference_pct = 100.0 * (static_cast<double>(*estimate_bytes) / static_cast<double>(log_bytes) - 1.0);
      // Whole MiB in the breakdown rows: a rounding of half a MiB either way agrees.
      const double slack = log.from_breakdown ? 1.0 : 0.0;
      line.differs = std::fabs(*line.estimate_mib - line.log_mib) > std::max(kLogCheckTolerance * line.log_mib, slack);
    } else {
      line.differs = *estimate_bytes > 0;
    }
    if (line.differs) line.hint = hint_for(kind, c);
  }
  c.lines.push_back(std::move(line));
}

// What the log's buffers of one kind hold, all devices: the KV cache (its
// total line, else the KV buffers, else a breakdown's context columns, which
// add the small output buffer), or the GPUs' compute buffers.
std::int64_t logged_bytes(const std::vector<LogBuffer>& buffers, const LoadLog& log, const std::string& kind) {
  if (kind == "kv" && log.kv_total_bytes) return *log.kv_total_bytes;
  std::int64_t bytes = 0;
  for (const LogBuffer& b : buffers)
    if (b.kind == kind && (kind == "kv" || !is_host(b.device))) bytes += b.bytes;
  if (kind == "kv" && bytes == 0)
    for (const LogBuffer& b : buffers)
      if (b.kind == "context") bytes += b.bytes;
  return bytes;
}

// How far an estimate is from a logged figure, either way: |log(estimate / logged)|.
double log_distance(std::int64_t estimate_bytes, std::int64_t logged_bytes) {
  return std::fabs(std::log(static_cast<double>(std::max<std::int64_t>(1, estimate_bytes)) /
                            static_cast<double>(std::max<std::int64_t>(1, logged_bytes))));
}

// A build number before llama.cpp#23861 (a logits row per micro-batch token),
// for a log that does not print its own.
constexpr int kBuildBeforeOutputRowsPerSequence = 1;

}  // namespace

Result<LogCheck> check_load_log(const Sizer& sizer, const LoadLog& log, const SizerRequest& base) {
  LogCheck c;
  SizerRequest q = base;
  q.engine = "llama.cpp";
  q.speed_if_no_fit = false;
  q.suggestions = false;
  q.output_tokens = 0;
  q.draft.clear();
  q.machine_factors.reset();

  // The model: given, or the catalog's with the log's parameter count.
  if (q.model_id.empty() && q.config_json.empty()) {
    const CatalogModel* m = catalog_model_with_params(sizer, log.model_params, log.arch);
    if (m == nullptr)
      return Error{"log.no_model", log.model_params > 0
                                       ? "no catalog model has the log's " + std::to_string(log.model_params) +
                                             " parameters (" + log.arch + "): choose the model"
                                       : "the log does not state the model's parameters: choose the model"};
    q.model_id = m->id;
  } else if (!q.model_id.empty() && log.model_params > 0) {
    const CatalogModel* m = catalog_model_with_params(sizer, log.model_params, log.arch);
    auto sized = sizer.model_for(q);
    if (sized && m != nullptr && sized.value().entry != nullptr && m->id != sized.value().entry->id) {
      const ParamCounts p = count_params(sized.value().arch());
      const double gap = std::fabs(static_cast<double>(p.total) - static_cast<double>(log.model_params)) /
                         static_cast<double>(log.model_params);
      if (gap > 0.01)
        return Error{"log.other_model", "the log's model has " + std::to_string(log.model_params) + " parameters, like " +
                                            m->id + ", not " + q.model_id + ": choose " + m->id};
    }
  }
  if (q.quant.empty()) {
    q.quant = quant_name_from_file_type(log.file_type);
    if (q.quant.empty()) return Error{"log.no_quant", "the log does not state the file type: choose the quantization"};
  }
  // The machine: given, or the GPU the log names.
  if (q.gpu_id.empty() && !q.custom_gpu) {
    std::vector<const Device*> found;
    for (const std::string& n : log.devices_named)
      if (found = devices_named(sizer.catalog(), n); !found.empty()) break;
    if (found.empty()) return Error{"log.no_device", "the log does not name a GPU the catalog knows: choose the device"};
    q.gpu_id = found.front()->id;
    if (found.size() > 1) c.warnings.push_back("sized on " + found.front()->name + ": choose yours if its memory differs");
  }
  // GPUs with buffers of their own.
  const std::vector<LogBuffer> buffers = per_device(log.buffers);
  std::vector<std::string> gpus;
  for (const LogBuffer& b : buffers)
    if (!is_host(b.device) && std::find(gpus.begin(), gpus.end(), b.device) == gpus.end()) gpus.push_back(b.device);
  if (base.gpu_count == 1 && gpus.size() > 1) q.gpu_count = static_cast<int>(gpus.size());
  // The log's settings: n_ctx cells for n_seq_max sequences. A unified cache
  // (n_ctx_seq = n_ctx) lets any sequence fill it, but holds the same n_ctx
  // cells, and its sliding-window cache n_swa x n_seq_max + n_ubatch of them,
  // as a split one does.
  q.sequences = std::max<std::int64_t>(1, log.n_seq_max.value_or(1));
  if (log.n_ctx) {
    q.context_tokens = std::max<std::int64_t>(1, *log.n_ctx / q.sequences);
  } else if (log.command_ctx) {
    q.context_tokens = *log.command_ctx;
    c.warnings.push_back("the context is the command line's -c " + std::to_string(*log.command_ctx) + " (the log does not print n_ctx)");
  }
  if (!log.type_k.empty()) q.kv_type = log.type_k;
  if (!log.type_v.empty() && log.type_v != log.type_k)
    c.warnings.push_back("K cache " + log.type_k + ", V cache " + log.type_v + ": sized with " + log.type_k + " for both");
  q.flash_attention = log.flash_attn.value_or(0) == 1;
  if (log.offloaded_layers && log.offloadable_layers && *log.offloadable_layers > 1 &&
      *log.offloaded_layers < *log.offloadable_layers) {
    // n_layer repeating layers and the output layer; what is not offloaded runs from RAM.
    q.offload_mode = "layers";
    q.offload_fraction = std::clamp(static_cast<double>(*log.offloadable_layers - *log.offloaded_layers) /
                                        static_cast<double>(*log.offloadable_layers - 1), 0.0, 1.0);
  }
  auto model = sizer.model_for(q);
  if (!model) return model.error();
  if (log.expert_layers_on_cpu) {
    // -ot keeps these layers' routed experts in system RAM.
    int moe_layers = 0;
    for (const LayerSpec& l : model.value().arch().layers) moe_layers += l.ffn.n_experts > 0 ? 1 : 0;
    if (moe_layers > 0) {
      q.offload_mode = "experts";
      q.offload_fraction = std::min(1.0, static_cast<double>(*log.expert_layers_on_cpu) / moe_layers);
    }
  }
  // The log's build sizes the buffers as that build did (llama.cpp#23861
  // changed the logits rows); a log without its build line, as its buffers say.
  int build = log.build_number.value_or(0);
  auto size_at = [&](const SizerRequest& at) -> Result<std::pair<Scenario, Estimate>> {
    auto scenario = sizer.scenario_for(at);
    if (!scenario) return scenario.error();
    // The log's -ub: the compute buffer and the sliding-window cells are per micro-batch.
    if (log.n_ubatch && *log.n_ubatch > 0) scenario.value().prefill_ubatch_tokens = *log.n_ubatch;
    scenario.value().llama_cpp_build = build;
    // One cache stream for all sequences where the log says so (-np auto).
    scenario.value().kv_unified = log.kv_unified.value_or(false);
    auto e = sizer.estimate(model.value(), scenario.value());
    if (!e) return e.error();
    return std::make_pair(std::move(scenario).value(), std::move(e).value());
  };
  // Routed experts kept on the CPU where the log does not say how many
  // (--n-cpu-moe on a command line it leaves out): the first layers' whose
  // bytes leave the GPUs' model buffers as logged (the host's mapped buffer
  // is a span of the file, wider than the tensors it serves).
  int moe_layer_count = 0;
  for (const LayerSpec& l : model.value().arch().layers) moe_layer_count += l.ffn.n_experts > 0 ? 1 : 0;
  std::int64_t logged_gpu_model = 0;
  for (const LogBuffer& b : buffers)
    if (b.kind == "model" && !is_host(b.device)) logged_gpu_model += b.bytes;
  if (!log.expert_layers_on_cpu && moe_layer_count > 0 && logged_gpu_model > 0 && q.offload_fraction == 0.0) {
    int best_layers = 0;
    double best_gap = 0.0;
    for (int n = 0; n <= moe_layer_count; ++n) {
      SizerRequest at = q;
      at.offload_mode = "experts";
      at.offload_fraction = static_cast<double>(n) / moe_layer_count;
      auto sized = size_at(at);
      if (!sized) continue;
      std::int64_t on_gpus = 0;
      for (const GpuShare& g : sized.value().second.memory.per_gpu) on_gpus += g.weights_bytes;
      const double gap = log_distance(on_gpus, logged_gpu_model);
      if (n == 0 || gap < best_gap) best_layers = n, best_gap = gap;
    }
    if (best_layers > 0) {
      q.offload_mode = "experts";
      q.offload_fraction = static_cast<double>(best_layers) / moe_layer_count;
      c.warnings.push_back("the log does not state which experts stay on the CPU: sized with the first " +
                           std::to_string(best_layers) + " layers' (--n-cpu-moe " + std::to_string(best_layers) +
                           "), as its GPU model buffers hold");
    }
  }
  // Settings the log does not print are the ones its buffers were made with:
  // the context whose KV cache is the log's, flash attention on or off as its
  // compute buffers are (a memory breakdown alone prints neither).
  const std::int64_t logged_kv = logged_bytes(buffers, log, "kv");
  const std::int64_t logged_compute = logged_bytes(buffers, log, "compute");
  if (!log.n_ctx && !log.command_ctx && logged_kv > 0) {
    std::int64_t best_ctx = 0;
    double best_gap = 0.0;
    for (std::int64_t ctx = 256; ctx <= (std::int64_t{1} << 20); ctx *= 2) {
      SizerRequest at = q;
      at.context_tokens = ctx;
      auto sized = size_at(at);
      if (!sized) break;
      const double gap = log_distance(sized.value().second.memory.kv_cache_bytes, logged_kv);
      if (best_ctx == 0 || gap < best_gap) best_ctx = ctx, best_gap = gap;
    }
    if (best_ctx > 0) {
      q.context_tokens = best_ctx;
      c.warnings.push_back("the log does not state n_ctx: sized at " + std::to_string(best_ctx) +
                           " tokens, the context whose KV cache is the log's");
    }
  } else if (!log.n_ctx && !log.command_ctx) {
    c.warnings.push_back("the log does not state n_ctx: sized at " + std::to_string(q.context_tokens) + " tokens");
  }
  if ((!log.flash_attn || !log.build_number) && logged_compute > 0) {
    // Flash attention and the build's logits rows, where the log leaves them
    // out: the pair whose compute buffers are the log's.
    auto gap = [&](const Result<std::pair<Scenario, Estimate>>& r) {
      if (!r) return 1e9;
      std::int64_t bytes = 0;
      for (const GpuShare& g : r.value().second.memory.per_gpu) bytes += g.runtime_bytes;
      return log_distance(bytes, logged_compute);
    };
    const std::vector<bool> fa_options = log.flash_attn ? std::vector<bool>{*log.flash_attn == 1} : std::vector<bool>{true, false};
    // 0: a current build (a logits row per sequence), or one before llama.cpp#23861.
    const std::vector<int> build_options = log.build_number ? std::vector<int>{*log.build_number}
                                                            : std::vector<int>{0, kBuildBeforeOutputRowsPerSequence};
    double best = 2e9;
    bool best_fa = q.flash_attention;
    int best_build = build;
    for (bool fa : fa_options)
      for (int b : build_options) {
        SizerRequest at = q;
        at.flash_attention = fa;
        build = b;
        const double g = gap(size_at(at));
        if (g < best) best = g, best_fa = fa, best_build = b;
      }
    q.flash_attention = best_fa;
    build = best_build;
    if (!log.flash_attn)
      c.warnings.push_back(std::string("the log does not state flash attention: sized with it ") +
                           (q.flash_attention ? "on" : "off") + ", as its compute buffers are");
    if (!log.build_number)
      c.warnings.push_back(std::string("the log does not state its build: sized as ") +
                           (build == 0 ? "a current one (a logits row per sequence, llama.cpp#23861)"
                                       : "one before llama.cpp#23861 (a logits row per token of the micro-batch)") +
                           ", as its compute buffers are");
  } else if (!log.flash_attn) {
    c.warnings.push_back("the log does not state flash attention: sized without it, as older builds ran");
  }
  auto e = size_at(q);
  if (!e) return e.error();
  const Scenario& scenario = e.value().first;
  const Estimate& est = e.value().second;
  const MemoryEstimate& m = est.memory;
  c.model = q.model_id.empty() ? model.value().label : q.model_id;
  c.quant = scenario.quant.name;
  c.device = scenario.device ? scenario.device->id : "";
  c.gpu_count = scenario.gpu_count;
  c.context_tokens = q.context_tokens;
  c.sequences = q.sequences;
  c.kv_type = kv_type_name(scenario.kv_type);
  c.flash_attention = q.flash_attention;
  c.offload_fraction = q.offload_fraction;

  // Each GPU's buffers against its share; the host's model buffers against the
  // weights kept off the GPUs.
  std::map<std::string, std::int64_t> host_model;
  const LogBuffer* host_where = nullptr;
  for (const LogBuffer& b : buffers) {
    const std::string label = b.kind == "model" ? "model buffer" : b.kind == "kv" ? "KV buffer"
                              : b.kind == "compute" ? "compute buffer" : "context (KV and outputs)";
    if (is_host(b.device)) {
      if (b.kind == "model") {
        host_model[b.device] += b.bytes;
        host_where = host_where ? host_where : &b;
      } else {
        // The host compute buffer (embedded rows and KQ mask, runtime.cpp).
        std::optional<std::int64_t> estimate;
        if (b.kind == "compute" && m.host_compute_bytes > 0) estimate = m.host_compute_bytes;
        add_line(c, log, b.device + " " + label, b.kind, &b, b.bytes, estimate);
      }
      continue;
    }
    const auto index = static_cast<std::size_t>(std::find(gpus.begin(), gpus.end(), b.device) - gpus.begin());
    std::optional<std::int64_t> estimate;
    if (index < m.per_gpu.size()) {
      const GpuShare& g = m.per_gpu[index];
      estimate = b.kind == "model" ? g.weights_bytes : b.kind == "compute" ? g.runtime_bytes : g.kv_cache_bytes;
      // Metal wraps the memory-mapped file in one buffer (MTL0_Mapped): the
      // token embedding kept for the CPU lies inside it and is counted again,
      // though the bytes are one copy. gpt-oss-20b Q4_K_M on an M5: 10694.12
      // MiB of GPU tensors + 379.71 of embedding = 11073.83, as logged.
      if (b.kind == "model" && scenario.device && scenario.device->backend == Backend::metal && gpus.size() == 1)
        *estimate += m.host_bytes;
    }
    add_line(c, log, b.device + " " + label, b.kind, &b, b.bytes, estimate);
  }
  if (gpus.size() > 1) {
    // Several GPUs: the model's bytes on all of them, which a different
    // layer split (-ts) moves between GPUs but does not change.
    std::int64_t bytes = 0;
    for (const LogBuffer& b : buffers)
      if (b.kind == "model" && !is_host(b.device)) bytes += b.bytes;
    add_line(c, log, "model buffers, all GPUs", "model", nullptr, bytes, m.weights_on_gpus_bytes);
  }
  if (!host_model.empty()) {
    std::int64_t bytes = 0;
    std::string names;
    for (const auto& [device, b] : host_model) {
      bytes += b;
      names += (names.empty() ? "" : " + ") + device;
    }
    // The weights llama.cpp keeps in host memory: the token embedding, and
    // the offloaded layers' weights (offload_bytes less their KV cache).
    const std::int64_t kv_in_ram = m.kv_cache_bytes - m.kv_cache_on_gpus_bytes;
    add_line(c, log, names + " model buffer (weights in system RAM)", "host_model", host_where, bytes,
             m.host_bytes + m.offload_bytes - kv_in_ram);
  }
  if (log.kv_total_bytes) add_line(c, log, "KV cache, all devices", "kv", nullptr, *log.kv_total_bytes, m.kv_cache_bytes);
  if (c.lines.empty()) return Error{"log.empty", "no buffer the estimate sizes was found in the log"};
  return c;
}

}  // namespace llmsizer
