// Whether an engine runs a weight format on a device at all: the backends
// each engine is built for, and the weight types each backend's kernels take
// on a given chip. An estimate for a pair that cannot run would be a number
// for a machine nobody can build; the sizer refuses it with the reason, and
// the planners skip it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/device.hpp"
#include "llmsizer/engines.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/quantization.hpp"

namespace llmsizer {

// Whether the engine has a build for this backend (data/engines.json
// "backends", from each engine's installation documentation).
bool engine_has_backend(InferenceEngine engine, Backend backend);

// The backends this engine can run on this device, the vendor's own before
// Vulkan (an AMD card under llama.cpp: ROCm, Vulkan), and a vendor runtime's
// own ("other": Kunlunxin, Gaudi...) where the engine has a build for it.
std::vector<Backend> backends_for(InferenceEngine engine, const Device& device);

// The engines with a build for this device (some backend of backends_for).
std::vector<InferenceEngine> engines_for(const Device& device);

// The CUDA compute capability of an NVIDIA device as major * 10 + minor
// (sm_89 -> 89, sm_120 -> 120), from its catalog gpu_arch; 0 when unknown.
int cuda_compute_capability(const Device& device);

// Why `engine` cannot run `quant` weights of a model (whose native checkpoint
// format is `native`) on `device` with its backend; nullopt when it can.
std::optional<std::string> runtime_unsupported(InferenceEngine engine, const QuantScheme& quant, NativeFormat native,
                                               const Device& device);

// The same for a scenario: its device, or any of its mixed cards. estimate()
// refuses a scenario for which this gives a reason.
std::optional<std::string> runtime_unsupported(const Architecture& arch, const Scenario& scenario);

}  // namespace llmsizer
