#include "llmsizer/speed_calibration.hpp"

namespace llmsizer {

// The generated tables (speed_calibration_data.cpp).
extern const BackendCalibration kBackendCalibrations[];
extern const std::size_t kBackendCalibrationCount;
extern const RuntimeCalibration kRuntimeCalibrations[];
extern const std::size_t kRuntimeCalibrationCount;
extern const WeightCalibration kWeightCalibrations[];
extern const std::size_t kWeightCalibrationCount;
extern const SpeedConstants kSpeedConstants;
extern const ServedCalibration kServedCalibrations[];
extern const std::size_t kServedCalibrationCount;

namespace {

// The closest measured neighbour of a backend without measurements of its own:
// SYCL GPUs run llama.cpp kernels shaped like Vulkan's; MUSA's are ports of
// CUDA's; Ascend (CANN) and other accelerators are given CUDA's row.
Backend neighbour(Backend backend) {
  switch (backend) {
    case Backend::sycl: return Backend::vulkan;
    case Backend::cpu: return Backend::cpu;
    default: return Backend::cuda;
  }
}

// The row for (backend, vendor): a vendor's own row first, then the backend's
// row for any vendor; nullptr when the backend has none.
template <typename Row>
const Row* find_row(const Row* rows, std::size_t count, Backend backend, std::string_view vendor,
                    bool (*matches)(const Row&)) {
  const Row* any = nullptr;
  for (std::size_t i = 0; i < count; ++i) {
    const Row& r = rows[i];
    if (r.backend != backend || !matches(r)) continue;
    if (!r.vendor.empty() && r.vendor == vendor) return &r;
    if (r.vendor.empty() && any == nullptr) any = &r;
  }
  return any;
}

template <typename Row>
const Row& lookup(const Row* rows, std::size_t count, Backend backend, std::string_view vendor,
                  bool (*matches)(const Row&)) {
  if (const Row* r = find_row(rows, count, backend, vendor, matches)) return *r;
  if (const Row* r = find_row(rows, count, neighbour(backend), vendor, matches)) return *r;
  if (const Row* r = find_row(rows, count, Backend::cuda, vendor, matches)) return *r;
  for (std::size_t i = 0; i < count; ++i)
    if (matches(rows[i])) return rows[i];
  return rows[0];
}

}  // namespace

EngineFamily engine_family(InferenceEngine engine) {
  if (engine_is_llama_cpp_based(engine)) return EngineFamily::llama_cpp;
  if (engine == InferenceEngine::mlx) return EngineFamily::mlx;
  return EngineFamily::serving;
}

const char* engine_family_name(EngineFamily family) {
  switch (family) {
    case EngineFamily::llama_cpp: return "llama.cpp";
    case EngineFamily::serving: return "serving";
    case EngineFamily::mlx: return "mlx";
  }
  return "llama.cpp";
}

WeightFamily weight_family(const QuantScheme& quant, NativeFormat native_format) {
  if (quant.is_gguf()) {
    switch (quant.ftype) {
      case LlamaFtype::ALL_F32:
      case LlamaFtype::F16:
      case LlamaFtype::BF16: return WeightFamily::float16;
      case LlamaFtype::Q8_0:
      case LlamaFtype::Q5_0:
      case LlamaFtype::Q5_1:
      case LlamaFtype::Q4_0:
      case LlamaFtype::Q4_1: return WeightFamily::legacy;
      case LlamaFtype::MXFP4_MOE: return WeightFamily::mxfp4;
      case LlamaFtype::IQ4_XS:
      case LlamaFtype::IQ4_NL:
      case LlamaFtype::IQ3_M:
      case LlamaFtype::IQ3_S:
      case LlamaFtype::IQ3_XS:
      case LlamaFtype::IQ3_XXS:
      case LlamaFtype::IQ2_M:
      case LlamaFtype::IQ2_S:
      case LlamaFtype::IQ2_XS:
      case LlamaFtype::IQ2_XXS:
      case LlamaFtype::IQ1_M:
      case LlamaFtype::IQ1_S:
      case LlamaFtype::TQ1_0:
      case LlamaFtype::TQ2_0: return WeightFamily::iquant;
      default: return WeightFamily::kquant;
    }
  }
  switch (quant.kind) {
    case SchemeKind::fp8_block: return WeightFamily::fp8;
    case SchemeKind::mxfp4:
    case SchemeKind::nvfp4: return WeightFamily::fp4;
    case SchemeKind::awq_int4:
    case SchemeKind::gptq_int4:
    case SchemeKind::nf4: return WeightFamily::int4;
    case SchemeKind::mlx_4bit:
    case SchemeKind::mlx_8bit: return WeightFamily::legacy;
    case SchemeKind::native:
      switch (native_format) {
        case NativeFormat::fp8_block:
        case NativeFormat::fp4_experts_fp8: return WeightFamily::fp8;
        case NativeFormat::mxfp4_experts:
        case NativeFormat::nvfp4: return WeightFamily::fp4;
        case NativeFormat::int4:
        case NativeFormat::int4_experts: return WeightFamily::int4;
        default: return WeightFamily::float16;
      }
    default: return WeightFamily::float16;
  }
}

bool fp4_products(const QuantScheme& quant, NativeFormat native_format) {
  // NVFP4 checkpoints quantize activations too; so do AMD Quark's MXFP4 ones
  // ("Activation quantization: OCP MXFP4", w_mxfp4_a_mxfp4: the MXFP4 scheme
  // for a model not published in MXFP4, weights.cpp). gpt-oss's MXFP4 experts
  // are weight-only.
  return quant.kind == SchemeKind::nvfp4 ||
         (quant.kind == SchemeKind::mxfp4 && native_format != NativeFormat::mxfp4_experts) ||
         (quant.kind == SchemeKind::native && native_format == NativeFormat::nvfp4);
}

std::string_view served_weights_key(const QuantScheme& quant, NativeFormat native_format) {
  const bool mxfp4 = quant.kind == SchemeKind::mxfp4 ||
                     (quant.kind == SchemeKind::native && native_format == NativeFormat::mxfp4_experts) ||
                     (quant.is_gguf() && quant.ftype == LlamaFtype::MXFP4_MOE);
  return mxfp4 ? "mxfp4" : weight_family_name(weight_family(quant, native_format));
}

const char* weight_family_name(WeightFamily family) {
  switch (family) {
    case WeightFamily::float16: return "float16";
    case WeightFamily::legacy: return "legacy";
    case WeightFamily::kquant: return "kquant";
    case WeightFamily::iquant: return "iquant";
    case WeightFamily::mxfp4: return "mxfp4";
    case WeightFamily::fp8: return "fp8";
    case WeightFamily::fp4: return "fp4";
    case WeightFamily::int4: return "int4";
  }
  return "float16";
}

// From the catalog's memory_type ("HBM3", "GDDR6X", "LPDDR unified memory");
// without one, unified-memory parts are LPDDR and the rest GDDR.
MemoryClass memory_class(const Device& d) {
  if (d.kind == DeviceKind::cpu) return MemoryClass::ddr;  // a CPU-only machine's system RAM
  const std::string& t = d.memory_type;
  if (t.find("HBM") != std::string::npos) return MemoryClass::hbm;
  if (t.find("LPDDR") != std::string::npos) return MemoryClass::lpddr;
  if (t.find("GDDR") != std::string::npos) return MemoryClass::gddr;
  if (d.unified_memory || d.kind == DeviceKind::unified || d.kind == DeviceKind::apu || d.vendor == "apple")
    return MemoryClass::lpddr;
  return MemoryClass::gddr;
}

const char* memory_class_name(MemoryClass c) {
  switch (c) {
    case MemoryClass::gddr: return "gddr";
    case MemoryClass::hbm: return "hbm";
    case MemoryClass::lpddr: return "lpddr";
    case MemoryClass::ddr: return "ddr";
  }
  return "gddr";
}

const BackendCalibration& backend_calibration(Backend backend, std::string_view vendor) {
  return lookup<BackendCalibration>(kBackendCalibrations, kBackendCalibrationCount, backend, vendor,
                                    [](const BackendCalibration&) { return true; });
}

const RuntimeCalibration& runtime_calibration(EngineFamily engine, Backend backend, std::string_view vendor) {
  // MLX runs only on Metal: its row is the one for any backend it is asked about.
  if (engine == EngineFamily::mlx) backend = Backend::metal;
  switch (engine) {
    case EngineFamily::llama_cpp:
      return lookup<RuntimeCalibration>(kRuntimeCalibrations, kRuntimeCalibrationCount, backend, vendor,
                                        [](const RuntimeCalibration& r) { return r.engine == EngineFamily::llama_cpp; });
    case EngineFamily::serving:
      return lookup<RuntimeCalibration>(kRuntimeCalibrations, kRuntimeCalibrationCount, backend, vendor,
                                        [](const RuntimeCalibration& r) { return r.engine == EngineFamily::serving; });
    case EngineFamily::mlx: break;
  }
  return lookup<RuntimeCalibration>(kRuntimeCalibrations, kRuntimeCalibrationCount, backend, vendor,
                                    [](const RuntimeCalibration& r) { return r.engine == EngineFamily::mlx; });
}

const WeightCalibration& weight_calibration(WeightFamily family) {
  for (std::size_t i = 0; i < kWeightCalibrationCount; ++i)
    if (kWeightCalibrations[i].family == family) return kWeightCalibrations[i];
  return kWeightCalibrations[0];
}

const SpeedConstants& speed_constants() { return kSpeedConstants; }

const ServedCalibration& served_calibration(InferenceEngine engine, Backend backend, std::string_view weights) {
  // llama.cpp's server schedules like llama.cpp (its rows are llama.cpp's);
  // Ollama too. Backends without rows of their own take CUDA's (the engines'
  // reference platform), as the row's basis says.
  if (engine == InferenceEngine::ollama) engine = InferenceEngine::llama_cpp;
  if (backend != Backend::rocm) backend = Backend::cuda;
  const std::string_view family = weights;
  const ServedCalibration* any_format = nullptr;
  const ServedCalibration* any_backend = nullptr;
  for (std::size_t i = 0; i < kServedCalibrationCount; ++i) {
    const ServedCalibration& row = kServedCalibrations[i];
    if (row.engine != engine) continue;
    if (row.backend == backend && row.weights == family) return row;
    if (row.backend == backend && row.weights.empty()) any_format = &row;
    if (row.backend == Backend::cuda && row.weights.empty() && !any_backend) any_backend = &row;
  }
  if (any_format) return *any_format;
  if (any_backend) return *any_backend;
  // An engine no serving run was measured on (MLX): its single-stream
  // constants, nothing added.
  static constexpr ServedCalibration kUnmeasured{
      InferenceEngine::mlx, Backend::metal, "", ServedFactors{}, 0, -1, -1,
      "no serving runs measured on this engine: its single-stream constants, no per-step or per-request cost", ""};
  return kUnmeasured;
}

CalibrationTables calibration_tables() {
  return CalibrationTables{kBackendCalibrations, kBackendCalibrationCount, kRuntimeCalibrations,
                           kRuntimeCalibrationCount, kWeightCalibrations,  kWeightCalibrationCount,
                           &kSpeedConstants,       kServedCalibrations,    kServedCalibrationCount};
}

}  // namespace llmsizer
