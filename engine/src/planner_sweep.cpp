// The catalog sweep: every model x device x standard quantization at one
// context. One device-less estimate per model and quantization; per device only
// the usable bytes differ (as in estimate(), one GPU).
#include <string>
#include <vector>

#include "llmsizer/launch_commands.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/runtime.hpp"
#include "llmsizer/runtime_support.hpp"

namespace llmsizer {

Result<CatalogSweep> sweep_catalog(const Sizer& sizer, const SweepRequest& request) {
  if (request.context_tokens < 1 || request.context_tokens > 16777216)
    return Error{"planner.bad_value", "context must be between 1 and 16777216 tokens"};
  CatalogSweep sweep;
  sweep.context_tokens = request.context_tokens;
  sweep.engine = request.engine;
  sweep.quants = standard_quants(request.engine);
  std::vector<QuantScheme> schemes;
  for (const auto& name : sweep.quants) schemes.push_back(quant_scheme_from_name(name).value());

  Scenario base;
  base.engine = request.engine;
  base.kv_type = engine_uses_kv_pool(request.engine) ? KvType::bf16 : KvType::f16;  // as Sizer::scenario_for
  base.context_tokens = request.context_tokens;

  // Per device: what one GPU offers (the runtime context already out of it).
  const Catalog& catalog = sizer.catalog();
  std::vector<std::int64_t> usable;
  // Unified memory: what the pool leaves beside the GPU's runtime context, for
  // the GPU's share and what llama.cpp keeps on the CPU's side together (the
  // estimate's "unified" limit); -1 for a discrete card or a CPU machine.
  std::vector<std::int64_t> pool_left;
  for (const Device& d : catalog.devices) {
    const UsableMemory u = usable_memory(d);
    sweep.devices.push_back(d.id);
    Scenario on_device = base;  // the engine's margin depends on the device (none on a CPU)
    on_device.device = d;
    usable.push_back(usable_bytes_per_gpu(u, on_device));
    pool_left.push_back(u.shared_pool_bytes > 0 ? u.shared_pool_bytes - u.os_reserve_bytes - u.reserved_bytes : -1);
  }

  const std::size_t n_devices = catalog.devices.size();
  for (std::size_t i = 0; i < catalog.models.size(); ++i) {
    const Result<Architecture>& arch = sizer.catalog_architecture(i);
    if (!arch) continue;
    SizedModel model;
    model.entry = &catalog.models[i];
    model.architecture = &arch.value();
    model.label = catalog.models[i].id;
    sweep.models.push_back(model.label);
    const std::size_t first_required = sweep.required_bytes.size();
    // On a CPU-only machine llama.cpp's embedding is not in a separate host RAM
    // but in the same memory (once, whether or not tied to the head).
    std::vector<std::int64_t> cpu_extra;
    std::vector<std::int64_t> cpu_side;  // what llama.cpp keeps on the CPU's side (embedding, host compute buffer)
    // Whether the engine can start the model at the quantization at all (a
    // checkpoint known, or made as it loads): vLLM's AWQ of a model nobody
    // published an AWQ build of fits many devices and runs on none.
    std::vector<bool> starts;
    for (const QuantScheme& quant : schemes) {
      Scenario s = base;
      s.quant = quant;
      ++sweep.estimates;
      auto e = sizer.estimate(model, s);
      sweep.required_bytes.push_back(e ? e.value().memory.required_bytes : -1);
      cpu_extra.push_back(e && !arch.value().tied_embeddings ? e.value().memory.host_bytes : 0);
      cpu_side.push_back(e ? e.value().memory.ram_required_bytes : 0);
      starts.push_back(!e || engine_starts(model, s, e.value()));
    }
    for (std::size_t d = 0; d < n_devices; ++d) {
      int best = -1;
      const bool cpu = catalog.devices[d].kind == DeviceKind::cpu;
      for (std::size_t q = 0; q < schemes.size() && best < 0; ++q) {
        std::int64_t required = sweep.required_bytes[first_required + q];
        if (required >= 0 && cpu) required += cpu_extra[q];
        // The device-less estimate has no GPU link: NVLinked parts add what
        // the serving engines' NCCL buffers take there.
        if (required >= 0 && engine_uses_kv_pool(request.engine) && catalog.devices[d].interconnect_bytes_per_s > 0.0)
          required += serving_non_torch_bytes(1, true) - serving_non_torch_bytes(1, false);
        // Held by the memory is not enough: the engine must run those weights there.
        if (runtime_unsupported(request.engine, schemes[q], arch.value().native_format, catalog.devices[d])) continue;
        if (!starts[q]) continue;
        const bool pool_holds = pool_left[d] < 0 || required + cpu_side[q] <= pool_left[d];
        if (required >= 0 && required <= usable[d] && pool_holds) best = static_cast<int>(q);
      }
      sweep.best_quant.push_back(best);
    }
    sweep.scenarios += static_cast<std::int64_t>(n_devices * schemes.size());
  }
  return sweep;
}

}  // namespace llmsizer
