// Which engine runs which weights on which device. Each rule is what the
// engine's own code or documentation states; where a source is silent the
// pair is allowed (the estimate then stands, as before), never refused on a
// guess.
#include "llmsizer/runtime_support.hpp"

#include <algorithm>

#include <array>
#include <string_view>
#include <utility>
#include <vector>

namespace llmsizer {
namespace {

std::string display_name(InferenceEngine engine) {
  switch (engine) {
    case InferenceEngine::llama_cpp: return "llama.cpp";
    case InferenceEngine::ollama: return "Ollama";
    case InferenceEngine::vllm: return "vLLM";
    case InferenceEngine::sglang: return "SGLang";
    case InferenceEngine::mlx: return "MLX-LM";
    case InferenceEngine::tensorrt_llm: return "TensorRT-LLM";
  }
  return "the engine";
}

}  // namespace

std::string backend_label(Backend backend) {
  switch (backend) {
    case Backend::cuda: return "CUDA";
    case Backend::rocm: return "ROCm";
    case Backend::metal: return "Metal";
    case Backend::sycl: return "SYCL (Intel GPUs)";
    case Backend::cann: return "CANN (Ascend NPUs)";
    case Backend::vulkan: return "Vulkan";
    case Backend::musa: return "MUSA";
    case Backend::cpu: return "the CPU";
    case Backend::other: return "this vendor's own runtime";
  }
  return "this backend";
}

namespace {

constexpr std::array<InferenceEngine, 6> kAllEngines = {InferenceEngine::llama_cpp, InferenceEngine::ollama,
                                                        InferenceEngine::vllm,      InferenceEngine::sglang,
                                                        InferenceEngine::mlx,       InferenceEngine::tensorrt_llm};

// "llama.cpp, Ollama and MLX-LM run there": the engines that do.
std::string engines_for(Backend backend) {
  std::vector<std::string> names;
  for (InferenceEngine e : kAllEngines)
    if (engine_has_backend(e, backend)) names.push_back(display_name(e));
  if (names.empty()) return "none of the engines sized here runs there";
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out + (names.size() == 1 ? " runs there" : " run there");
}

// The checkpoint format the weights are in: a named scheme, or for "native"
// the model's own published format.
SchemeKind weight_kind(const QuantScheme& quant, NativeFormat native) {
  if (quant.kind != SchemeKind::native) return quant.kind;
  switch (native) {
    case NativeFormat::fp8_block: return SchemeKind::fp8_block;
    case NativeFormat::mxfp4_experts: return SchemeKind::mxfp4;
    case NativeFormat::nvfp4: return SchemeKind::nvfp4;
    // INT4 checkpoints (AWQ, GPTQ, compressed-tensors W4A16) keep the scheme
    // "native": llama.cpp and Ollama still refuse them below; the serving
    // engines read their quantization_config.
    case NativeFormat::int4:
    case NativeFormat::int4_experts: return SchemeKind::native;
    default: return SchemeKind::bf16;
  }
}

std::string on(const Device& d) { return " on the " + d.name; }

// llama.cpp's CANN backend multiplies (MUL_MAT, MUL_MAT_ID) F16 and F32
// weights, and Q8_0 and Q4_0 except on the Ascend 310P ("Q4 && Q8 per group
// is not support on 310p device"): ggml-org/llama.cpp@fc8d13e6075a971193e0eaa529a2a2858998d8c8
// ggml/src/ggml-cann/ggml-cann.cpp, ggml_backend_cann_supports_op. Any other
// type's products leave the NPU for the CPU.
std::optional<std::string> cann_gguf(const QuantScheme& quant, const Device& d) {
  const bool p310 = d.gpu_arch == "ascend310p";
  const LlamaFtype t = quant.ftype;
  const bool plain = quant.kind == SchemeKind::gguf;
  const bool runs = plain && (t == LlamaFtype::F16 || t == LlamaFtype::ALL_F32 ||
                              (!p310 && (t == LlamaFtype::Q8_0 || t == LlamaFtype::Q4_0)));
  if (runs) return std::nullopt;
  return "llama.cpp's CANN backend multiplies only " + std::string(p310 ? "F16 and F32" : "F16, F32, Q8_0 and Q4_0") +
         " weights" + (p310 ? " on the Ascend 310P" : " on Ascend NPUs") + ": a " + quant.name +
         " file's matrix products would fall back to the CPU (choose " + (p310 ? "F16" : "Q8_0, Q4_0 or F16") + ")";
}

// llama.cpp loads GGUF files only ("llama.cpp requires the model to be stored
// in the GGUF file format. Models in other data formats can be converted to GGUF
// using the convert_*.py Python scripts", ggml-org/llama.cpp@fa0b8a70a8d686cd11bad1579080d546d681a53e
// README.md); Ollama runs GGUF too and imports FP16/FP32 weights, quantizing them
// on import (ollama/ollama docs/import.md, "Quantizing a Model"). A 16-bit
// checkpoint converts to a GGUF of the same size; the other formats are not
// loaded, only re-made from 16-bit weights, so the GGUF type to choose is said.
std::optional<std::string> gguf_only(InferenceEngine engine, SchemeKind kind, const QuantScheme& quant,
                                     NativeFormat native) {
  if (quant.is_gguf() || kind == SchemeKind::bf16 || kind == SchemeKind::fp16) return std::nullopt;
  const std::string runs = engine == InferenceEngine::ollama ? "Ollama runs GGUF models (it imports FP16 weights)"
                                                              : "llama.cpp loads GGUF files";
  const std::string what = quant.kind == SchemeKind::native ? "this model's published " + quant.name + " checkpoint"
                                                            : quant.name + " checkpoints";
  std::string choose;
  switch (kind) {
    case SchemeKind::mxfp4:
      // MXFP4_MOE puts only routed experts in MXFP4 (the rest Q8_0): gpt-oss's
      // layout, not an MXFP4 checkpoint of every linear layer.
      choose = native == NativeFormat::mxfp4_experts
                   ? "MXFP4 experts are the GGUF file type MXFP4_MOE (choose it)"
                   : "its MXFP4 file type (MXFP4_MOE) holds only MoE experts in MXFP4; choose a GGUF type of about "
                     "the same size (Q4_K_M for 4 bits)";
      break;
    case SchemeKind::fp8_block:
      // The launch commands' note on the same fact: llama.cpp's converter does
      // not read FP8 (ggml-org/llama.cpp#11991); GGUFs of such models come from a BF16 copy.
      choose = "GGUF files of FP8 models are made from a BF16 copy (choose Q8_0 for 8 bits)";
      break;
    default: choose = "choose a GGUF type of about the same size (Q4_K_M for 4 bits, Q8_0 for 8)";
  }
  return runs + ", not " + what + ": " + choose;
}

// vLLM's quantization support by hardware (its "Supported Hardware" table,
// https://docs.vllm.ai/en/v0.15.1/features/quantization/ and
// vllm-project/vllm@5ee0c1f91ca310f2c3abef3c64dbf52bb6df0ab9:docs/features/quantization/supported_hardware.md:
// AWQ not on Volta, FP8 W8A8 not on Intel GPUs or x86 CPUs, bitsandbytes not
// on CPUs) and its FP8 page (docs.vllm.ai v0.32.0,
// features/quantization/llm_compressor/fp8: "FP8 models will run on compute
// capability >= 7.5 (Turing) as weight-only W8A16, utilizing FP8 Marlin").
// On AMD GPUs the code decides, newer than that table's AMD column:
// vllm-project/vllm@001eda31e3d032e9dc864e97f3630358b2ff8b5a:vllm/platforms/rocm.py
// lists "awq", "gptq", "fp8" and "bitsandbytes" among ROCm's
// supported_quantization (AWQ through its Triton kernels,
// VLLM_USE_TRITON_AWQ), and supports_fp8() is `any(gfx in _GCN_ARCH for gfx
// in ["gfx94", "gfx95", "gfx12"])` (later builds: CDNA or RDNA4): no FP8 on
// RDNA2/3 Radeons or the RDNA 3.5 Strix Halo (gfx10xx, gfx11xx).
std::optional<std::string> vllm_weights(SchemeKind kind, const QuantScheme& quant, const Device& d) {
  const int cc = cuda_compute_capability(d);
  const Backend b = d.backend;
  const bool fp8 = kind == SchemeKind::fp8_block;
  if (b == Backend::cuda && cc > 0 && cc < 75 && (fp8 || kind == SchemeKind::awq_int4))
    return "vLLM runs " + quant.name + " weights on compute capability 7.5 (Turing) and newer; the " + d.name +
           " is " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  const std::string_view arch = d.gpu_arch;
  if (b == Backend::rocm && fp8 && (arch.rfind("gfx10", 0) == 0 || arch.rfind("gfx11", 0) == 0))
    return "vLLM runs FP8 weights on AMD GPUs with FP8 units (Instinct MI300 and later, Radeon RDNA4: its "
           "supports_fp8 for ROCm); the " + d.name + " (" + std::string(arch) + ") has none";
  if ((b == Backend::cpu || b == Backend::sycl) && (fp8 || kind == SchemeKind::nf4))
    return "vLLM's " + quant.name + " kernels are not built for " + backend_label(b);
  return std::nullopt;
}

// Ascend (CANN) under vLLM or SGLang: the quantized formats are Huawei's own
// (ModelSlim W8A8, W4A8, W4A16) and MXFP8/MXFP4 on the Ascend 950 only;
// Ascend A2/A3 parts have no FP8 or FP4 path (docs.sglang.io
// hardware-platforms/ascend-npus quantization table; vllm-ascend's
// quantization guide, docs.vllm.ai/projects/ascend v0.13.0).
std::optional<std::string> ascend_weights(InferenceEngine engine, SchemeKind kind, const QuantScheme& quant,
                                          const Device& d) {
  if (kind == SchemeKind::fp8_block || kind == SchemeKind::mxfp4 || kind == SchemeKind::nvfp4)
    return display_name(engine) + " on Ascend runs BF16 or Huawei's W8A8/W4A8 conversions, not " + quant.name +
           " weights" + on(d);
  return std::nullopt;
}

// An F16, BF16 or F32 GGUF names the same weights as a 16-bit (or 32-bit)
// checkpoint: the engines that load only checkpoints size it as one.
bool sixteen_bit_gguf(const QuantScheme& quant) {
  return quant.kind == SchemeKind::gguf &&
         (quant.ftype == LlamaFtype::F16 || quant.ftype == LlamaFtype::BF16 || quant.ftype == LlamaFtype::ALL_F32);
}

// TensorRT-LLM's formats: Hugging Face checkpoints in 16 bits or one of its
// quantization recipes (FP8 per tensor, block or rowwise; NVFP4 and MXFP4;
// W4A16 and W4A8 AWQ or GPTQ: nvidia.github.io/TensorRT-LLM/features/quantization.html);
// no GGUF loader, bitsandbytes NF4 or MLX files. By GPU (NVIDIA TensorRT Model
// Optimizer support matrix, nvidia.github.io/TensorRT-Model-Optimizer/guides/0_support_matrix:
// FP8 "Ada and Later", FP4 "Blackwell and Later", W4A16 AWQ "Ampere and Later").
std::optional<std::string> trtllm_weights(SchemeKind kind, const QuantScheme& quant, const Device& d) {
  if ((quant.is_gguf() && !sixteen_bit_gguf(quant)) || kind == SchemeKind::nf4 || kind == SchemeKind::mlx_4bit ||
      kind == SchemeKind::mlx_8bit)
    return "TensorRT-LLM runs 16-bit checkpoints and its own quantization recipes (FP8, NVFP4, MXFP4, AWQ or GPTQ "
           "INT4), not " + std::string(quant.is_gguf() ? "GGUF files such as " : "") + quant.name +
           ": choose AWQ or GPTQ-INT4 for 4 bits, FP8 for 8 (on Ada and newer)";
  const int cc = cuda_compute_capability(d);
  if (cc <= 0) return std::nullopt;
  int needs = 0;
  std::string generation;
  if (kind == SchemeKind::fp8_block) needs = 89, generation = "Ada";
  else if (kind == SchemeKind::nvfp4) needs = 100, generation = "Blackwell";
  else if (kind == SchemeKind::awq_int4) needs = 80, generation = "Ampere";
  if (needs == 0 || cc >= needs) return std::nullopt;
  return "TensorRT-LLM runs " + quant.name + " on " + generation + " GPUs and newer; the " + d.name +
         " is compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

// MLX-LM runs MLX checkpoints (mlx_lm.convert's 4- and 8-bit) and 16-bit
// ones; it has no GGUF loader. MLX reads GGUF only through mlx-examples'
// gguf_llm example, where "only a few quantizations are supported directly:
// Q4_0, Q4_1, and Q8_0. Unsupported quantizations will be cast to float16"
// (ml-explore/mlx-examples@03f5a7735a589e3e76efc11d2e9808a0bcb9056e:llms/gguf_llm/README.md):
// a K-quant would take its 16-bit size there, not its file's.
std::optional<std::string> mlx_weights(const QuantScheme& quant) {
  if (!quant.is_gguf() || sixteen_bit_gguf(quant)) return std::nullopt;
  return "MLX-LM runs MLX checkpoints, not GGUF files such as " + quant.name +
         " (MLX's GGUF example keeps only Q4_0, Q4_1 and Q8_0 and casts other types to 16 bits): choose MLX-4bit "
         "for 4 bits, MLX-8bit for 8";
}

}  // namespace

// The backends of data/engines.json (scripts/catalog/curated_engines.json,
// each with its source); tests/test_runtime_support.cpp checks the two agree.
// vLLM also runs on accelerators with vendor builds of their own (Gaudi,
// Kunlunxin, MetaX, Hygon, Cambricon, T-Head: the "other" backend).
bool engine_has_backend(InferenceEngine engine, Backend backend) {
  switch (engine) {
    case InferenceEngine::llama_cpp: return backend != Backend::other;
    case InferenceEngine::ollama:
      return backend == Backend::cuda || backend == Backend::rocm || backend == Backend::metal || backend == Backend::cpu;
    case InferenceEngine::vllm: return backend != Backend::metal && backend != Backend::vulkan && backend != Backend::musa;
    case InferenceEngine::sglang: return backend == Backend::cuda || backend == Backend::rocm || backend == Backend::cann;
    case InferenceEngine::mlx: return backend == Backend::metal;
    case InferenceEngine::tensorrt_llm: return backend == Backend::cuda;
  }
  return false;
}

std::vector<Backend> backends_for(InferenceEngine engine, const Device& device) {
  std::vector<Backend> out;
  for (Backend b : {Backend::cuda, Backend::rocm, Backend::metal, Backend::sycl, Backend::cann, Backend::musa, Backend::vulkan, Backend::cpu,
                    Backend::other})
    if (backend_runs_on(b, device) && engine_has_backend(engine, b)) out.push_back(b);
  return out;
}

std::vector<InferenceEngine> engines_for(const Device& device) {
  std::vector<InferenceEngine> out;
  for (InferenceEngine e : kAllEngines)
    if (!backends_for(e, device).empty()) out.push_back(e);
  return out;
}

int cuda_compute_capability(const Device& device) {
  const std::string_view arch = device.gpu_arch;
  if (arch.size() < 5 || arch.substr(0, 3) != "sm_") return 0;
  int value = 0;
  for (char c : arch.substr(3)) {
    if (c < '0' || c > '9' || value > 1000) return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

// "SGLang officially supports only CDNA Instinct parts (gfx942 / gfx950) plus
// gfx1250. RDNA3 is absent from the docs and is rejected outright by the kernel
// build" (pypi.org/project/sglang-radeon-rdna3, the patch package AMD-AIM
// publishes); a Strix Halo build crashes, "it wont work outside of gfx942 &
// gfx950" (sgl-project/sglang#11195). AMD's ROCm docs add a Radeon image of
// their own, run with AITER off (rocm.docs.amd.com/projects/ai-ecosystem/en/latest/inference/sglang.html).
std::optional<std::string> sglang_rocm_unbuilt(const Device& device) {
  if (device.backend != Backend::rocm) return std::nullopt;
  const std::string& arch = device.gpu_arch;
  if (arch == "gfx942" || arch == "gfx950" || arch == "gfx1250") return std::nullopt;
  const bool radeon = arch.rfind("gfx11", 0) == 0 || arch.rfind("gfx12", 0) == 0;
  return "SGLang builds its ROCm kernels for AMD Instinct gfx942 and gfx950 (MI300, MI350) only, and its install rejects the " +
         device.name + (arch.empty() ? std::string() : ", a " + arch) +
         " (sgl-project/sglang#11195; the sglang-radeon-rdna3 package patches it for RDNA3, gfx1100 to gfx1102)" +
         (radeon ? "; AMD's ROCm docs give a Radeon image of their own (rocm/sgl-dev, run with SGLANG_USE_AITER=false "
                   "SGLANG_ROCM_FUSED_DECODE_MLA=false) for the Radeons they list"
                 : std::string()) +
         ". llama.cpp runs on it.";
}

// vLLM's ROCm requirements: "GPU: MI200s (gfx90a), MI300 (gfx942), MI350
// (gfx950), Radeon RX 7900 series (gfx1100/1101), Radeon RX 9000 series
// (gfx1200/1201), Ryzen AI MAX / AI 300 Series (gfx1151/1150)"
// (vllm-project/vllm@379a8487a2381e69787525f60a9e2e71a72417fa:docs/getting_started/installation/gpu.rocm.inc.md).
std::optional<std::string> vllm_rocm_unlisted(const Device& device) {
  if (device.backend != Backend::rocm || device.gpu_arch.empty()) return std::nullopt;
  for (const char* listed : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201", "gfx1150", "gfx1151"})
    if (device.gpu_arch == listed) return std::nullopt;
  return "vLLM's ROCm build lists MI200, MI300 and MI350, the Radeon RX 7900 and RX 9000 series and Ryzen AI MAX / AI 300 "
         "(vLLM's installation docs), not the " + device.name + ", a " + device.gpu_arch + ". llama.cpp runs on it.";
}

std::optional<std::string> runtime_unsupported(InferenceEngine engine, const QuantScheme& quant, NativeFormat native,
                                               const Device& device) {
  const Backend backend = device.backend;
  if (!engine_has_backend(engine, backend))
    return backend == Backend::other
               ? display_name(engine) + " does not run on the " + device.name +
                     ", which needs its vendor's own runtime; " + engines_for(backend)
               : display_name(engine) + " has no build for " + backend_label(backend) + ", which the " + device.name +
                     " needs; " + engines_for(backend);
  const SchemeKind kind = weight_kind(quant, native);
  switch (engine) {
    case InferenceEngine::llama_cpp:
    case InferenceEngine::ollama:
      if (auto why = gguf_only(engine, kind, quant, native)) return why;
      if (backend == Backend::cann && quant.is_gguf()) return cann_gguf(quant, device);
      return std::nullopt;
    case InferenceEngine::vllm:
      if (backend == Backend::cann) return ascend_weights(engine, kind, quant, device);
      return vllm_weights(kind, quant, device);
    case InferenceEngine::sglang:
      if (backend == Backend::cann) return ascend_weights(engine, kind, quant, device);
      return std::nullopt;
    case InferenceEngine::tensorrt_llm: return trtllm_weights(kind, quant, device);
    case InferenceEngine::mlx: return mlx_weights(quant);
  }
  return std::nullopt;
}

std::optional<std::string> tensor_parallel_unsplittable(const Architecture& arch, InferenceEngine engine, int gpus) {
  if (gpus <= 1 || !engine_uses_kv_pool(engine)) return std::nullopt;
  const auto splits = [&arch](int n) {
    for (const LayerSpec& layer : arch.layers) {
      const AttentionSpec& a = layer.attn;
      if (layer.is_mtp || a.n_heads <= 0) continue;
      if (a.n_heads % n != 0) return false;
      return a.n_kv_heads <= 0 || a.n_kv_heads % n == 0 || n % a.n_kv_heads == 0;
    }
    return true;  // no attention heads to split (attention-free stacks)
  };
  if (splits(gpus)) return std::nullopt;
  std::vector<std::string> counts;
  for (int n = 2; n <= 8; ++n)
    if (splits(n)) counts.push_back(std::to_string(n));
  const AttentionSpec* a = nullptr;
  for (const LayerSpec& layer : arch.layers)
    if (!layer.is_mtp && layer.attn.n_heads > 0) {
      a = &layer.attn;
      break;
    }
  std::string heads = std::to_string(a->n_heads) + " attention heads";
  if (a->n_kv_heads > 0 && a->n_kv_heads != a->n_heads) heads += " (" + std::to_string(a->n_kv_heads) + " KV heads)";
  std::string fits = "none of 2 to 8 GPUs does";
  if (!counts.empty()) {
    fits = counts.back() + (counts.size() == 1 ? " does" : " do");
    if (counts.size() > 1) {
      std::string head;
      for (std::size_t i = 0; i + 1 < counts.size(); ++i) head += (i ? ", " : "") + counts[i];
      fits = head + " or " + fits;
    }
  }
  return display_name(engine) + " splits each layer's " + heads + " over the GPUs (tensor parallel), and " +
         std::to_string(gpus) + " GPUs do not divide them: " + fits;
}

std::optional<std::string> runtime_unsupported(const Architecture& arch, const Scenario& scenario) {
  // Attention data parallel keeps each GPU's attention whole (MoE models only, estimate.cpp).
  const bool routed_experts = std::any_of(arch.layers.begin(), arch.layers.end(),
                                          [](const LayerSpec& l) { return l.ffn.n_experts > 0; });
  if (scenario.cards.empty() && !(scenario.attention_data_parallel && routed_experts))
    if (auto why = tensor_parallel_unsplittable(arch, scenario.engine, scenario.gpu_count)) return why;
  if (scenario.device)
    if (auto why = runtime_unsupported(scenario.engine, scenario.quant, arch.native_format, *scenario.device)) return why;
  if (const int machines = networked_machines(scenario); machines > 0 && scenario.engine == InferenceEngine::ollama)
    // Ollama schedules a model on the GPUs of its own host only.
    return "Ollama runs a model on one machine and cannot spread it over " + std::to_string(machines) +
           " machines; llama.cpp can, with its RPC backend (rpc-server on each other machine)";
  for (const Device& card : scenario.cards)
    if (auto why = runtime_unsupported(scenario.engine, scenario.quant, arch.native_format, card)) return why;
  return std::nullopt;
}

}  // namespace llmsizer
