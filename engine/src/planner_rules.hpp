// Rules the planner's answers share: which devices are one box, which counts a
// buyer can put in one machine, and when an engine can split a model over them.
#pragma once
#include "llmsizer/architecture.hpp"
#include "llmsizer/device.hpp"
#include "llmsizer/engines.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/runtime_support.hpp"

namespace llmsizer {

// The scenario on `device` in place of its own: a calibrated machine's factors
// (Scenario::machine_factors, with the backend they were measured on) stay
// with the device they were measured on and are dropped on any other.
inline void move_to_device(Scenario& s, const Device& device) {
  const bool same = s.device && s.device->id == device.id;
  const Backend measured_on = s.device ? s.device->backend : device.backend;
  s.device = device;
  if (same) s.device->backend = measured_on;
  else s.machine_factors.reset();
}

inline bool is_unified(const Device& d) {
  return d.unified_memory || d.kind == DeviceKind::unified || d.kind == DeviceKind::apu;
}

// How many of one device a buyer puts in one machine unless asked for more:
// up to 4 consumer or workstation cards in a desktop (slots and power), 8
// datacenter GPUs in a server (an HGX/OAM board); a Mac, an APU or a CPU is one box.
inline int practical_device_count(const Device& d) {
  if (is_unified(d) || d.kind == DeviceKind::cpu) return 1;
  return d.kind == DeviceKind::datacenter ? 8 : 4;
}

// Whole machines (Macs, Strix Halo, DGX Spark) hold a model together only over
// the network, through llama.cpp's RPC: its commands (launch_commands.cpp) and
// its measured per-token hop (speed.cpp) are what the estimate has for them.
// Up to 4, the most the hop was measured over (lhl/strix-halo-testing, 1 to 4
// machines); one machine under any other engine.
inline constexpr int kMaxNetworkedMachines = 4;
inline int networked_machine_limit(const Device& d, InferenceEngine engine) {
  return engine == InferenceEngine::llama_cpp && is_whole_machine(d) ? kMaxNetworkedMachines : 1;
}

// Whether the engine can spread the model over `count` of these devices.
// Macs and APUs are one box each; tensor parallel (vLLM, SGLang, TensorRT-LLM)
// splits attention heads, so the count must divide the query heads, and the KV
// heads must divide evenly or be replicated (vLLM's rule).
inline bool split_allowed(const Architecture& arch, const Device& d, InferenceEngine engine, int count) {
  if (count == 1) return true;
  if (is_unified(d)) return count <= networked_machine_limit(d, engine);
  if (d.kind == DeviceKind::cpu) return false;
  // llama.cpp splits by layers; the serving engines by heads (runtime_support.hpp).
  return !tensor_parallel_unsplittable(arch, engine, count);
}

}  // namespace llmsizer
