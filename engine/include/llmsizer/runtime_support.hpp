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

// A backend as people name it: "CUDA", "SYCL (Intel GPUs)", "CANN (Ascend NPUs)".
std::string backend_label(Backend backend);

// Upstream SGLang builds its ROCm kernels for AMD Instinct gfx942 and gfx950
// (and gfx1250) only: on another AMD GPU (a Radeon, Strix Halo, MI250X) its
// install fails. Why, with what runs there; nullopt where it builds.
std::optional<std::string> sglang_rocm_unbuilt(const Device& device);
// vLLM's ROCm build lists MI200, MI300, MI350, the RX 7900 and RX 9000 series
// and Ryzen AI MAX / AI 300 (gfx90a, gfx942, gfx950, gfx1100/1101,
// gfx1200/1201, gfx1150/1151): on another AMD GPU of known arch (MI100, RX 580),
// why; nullopt where it is listed or the arch is not known.
std::optional<std::string> vllm_rocm_unlisted(const Device& device);

// Why `engine` cannot run `quant` weights of a model (whose native checkpoint
// format is `native`) on `device` with its backend; nullopt when it can.
std::optional<std::string> runtime_unsupported(InferenceEngine engine, const QuantScheme& quant, NativeFormat native,
                                               const Device& device);

// Tensor parallel (vLLM, SGLang, TensorRT-LLM on `gpus` GPUs) splits each
// layer's attention heads over the GPUs: a count that does not divide them,
// nor the KV heads (a multiple of the KV heads replicates them), is refused
// by the engine ("Total number of attention heads (64) must be divisible by
// tensor parallel size (3)", vllm-project/vllm@c0c2335ce027486d254c31f665ce00d7db427d22:
// vllm/config.py, verify_with_parallel_config; its QKV layer divides the KV
// heads likewise). Why, with the counts that do; nullopt when it splits.
std::optional<std::string> tensor_parallel_unsplittable(const Architecture& arch, InferenceEngine engine, int gpus);

// The same for a scenario: its device, or any of its mixed cards, and the
// tensor-parallel split of its GPUs. estimate() refuses a scenario for which
// this gives a reason.
std::optional<std::string> runtime_unsupported(const Architecture& arch, const Scenario& scenario);

}  // namespace llmsizer
