// Which engine runs which weights on which device. Each expectation is read
// off the engine's own source or documentation (cited in
// engine/src/runtime_support.cpp), not off the rule table itself.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "llmsizer/engines.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/runtime_support.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::Contains;

namespace {

const Device& device(const std::string& id) {
  for (const Device& d : test::catalog().devices)
    if (d.id == id) return d;
  FAIL("no device " << id);
  throw;
}

std::optional<std::string> why(InferenceEngine engine, const char* quant, const std::string& id,
                               NativeFormat native = NativeFormat::bf16) {
  return runtime_unsupported(engine, quant_scheme_from_name(quant).value(), native, device(id));
}

const std::vector<CloudOffer>& offers() {
  static const std::vector<CloudOffer> all = embedded_cloud_offers().value();
  return all;
}

Recommendation recommend_for(const char* model_id, const char* quant, const char* engine) {
  SizerRequest request;
  request.model_id = model_id;
  request.quant = quant;
  request.engine = engine;
  auto model = test::sizer().model_for(request);
  REQUIRE(model);
  auto scenario = test::sizer().scenario_for(request);
  REQUIRE(scenario);
  auto r = recommend(test::sizer(), model.value(), scenario.value(), offers(), RecommendOptions{});
  REQUIRE(r);
  return r.value();
}

}  // namespace

TEST_CASE("engine and KV type names as people write them, in any case; other names are none", "[runtime]") {
  CHECK(engine_from_name("vLLM") == InferenceEngine::vllm);
  CHECK(engine_from_name("SGLang") == InferenceEngine::sglang);
  CHECK(engine_from_name("TensorRT-LLM") == InferenceEngine::tensorrt_llm);
  CHECK(engine_from_name("Ollama") == InferenceEngine::ollama);
  CHECK(engine_from_name("MLX") == InferenceEngine::mlx);
  CHECK(engine_from_name("llama.cpp") == InferenceEngine::llama_cpp);
  CHECK_FALSE(engine_from_name("vlm"));
  CHECK_FALSE(engine_from_name("vllm "));
  CHECK_FALSE(engine_from_name(""));
  CHECK(kv_type_from_name("Q8_0") == KvType::q8_0);
  CHECK(kv_type_from_name("FP8") == KvType::fp8);
  CHECK(kv_type_from_name("F16") == KvType::f16);
  CHECK_FALSE(kv_type_from_name("q8"));
  CHECK_FALSE(kv_type_from_name("fp16"));
}

TEST_CASE("an engine without a build for the device's backend is refused, naming those that run there", "[runtime]") {
  // vLLM's installation covers CUDA, ROCm, Intel XPU, Ascend and CPUs, not Metal.
  auto mac = why(InferenceEngine::vllm, "native", "mac-m4-max-128gb");
  REQUIRE(mac);
  CHECK_THAT(*mac, Contains("vLLM has no build for Metal") && Contains("Apple M4 Max") &&
                       Contains("llama.cpp, Ollama and MLX-LM run there"));
  // MLX is Apple's framework: Metal only.
  CHECK(why(InferenceEngine::mlx, "MLX-4bit", "rtx-4090"));
  CHECK_FALSE(why(InferenceEngine::mlx, "MLX-4bit", "mac-m4-max-128gb"));
  // TensorRT-LLM is CUDA only; Ollama ships CUDA, ROCm, Metal and CPU builds.
  CHECK(why(InferenceEngine::tensorrt_llm, "FP8", "mi300x"));
  CHECK(why(InferenceEngine::ollama, "Q4_K_M", "arc-b580"));
  CHECK_FALSE(why(InferenceEngine::llama_cpp, "Q4_K_M", "arc-b580"));
  // llama.cpp has no backend for the vendor runtimes; their vLLM builds run.
  CHECK(why(InferenceEngine::llama_cpp, "Q4_K_M", "kunlunxin-p800"));
  CHECK_FALSE(why(InferenceEngine::vllm, "native", "kunlunxin-p800"));
}

TEST_CASE("llama.cpp's CANN backend multiplies F16, F32, Q8_0 and Q4_0, and only F16 and F32 on the 310P", "[runtime]") {
  // ggml-cann.cpp supports_op, MUL_MAT: F16 and F32; Q8_0 and Q4_0 under
  // #ifndef ASCEND_310P. K-quants are not among them.
  CHECK_FALSE(why(InferenceEngine::llama_cpp, "Q4_0", "ascend-910b"));
  CHECK_FALSE(why(InferenceEngine::llama_cpp, "Q8_0", "ascend-910b"));
  CHECK_FALSE(why(InferenceEngine::llama_cpp, "F16", "ascend-910b"));
  auto k = why(InferenceEngine::llama_cpp, "Q4_K_M", "ascend-910b");
  REQUIRE(k);
  CHECK_THAT(*k, Contains("Q8_0, Q4_0 or F16"));
  // The Atlas 300I Duo is two Ascend 310P chips.
  CHECK_FALSE(why(InferenceEngine::llama_cpp, "F16", "atlas-300i-duo-96gb"));
  auto q4 = why(InferenceEngine::llama_cpp, "Q4_0", "atlas-300i-duo-96gb");
  REQUIRE(q4);
  CHECK_THAT(*q4, Contains("F16 and F32") && Contains("310P"));
  // A bartowski _L mix puts Q8_0 embeddings around Q4_K_M: still K-quants.
  CHECK(why(InferenceEngine::llama_cpp, "Q4_K_L", "ascend-910b"));
}

TEST_CASE("weight formats follow the GPU generation each engine documents", "[runtime]") {
  // vLLM: FP8 runs from compute capability 7.5 (Turing, as W8A16 Marlin);
  // AWQ not on Volta; FP8 not on x86 CPUs. On AMD (vllm/platforms/rocm.py):
  // AWQ (Triton), GPTQ and bitsandbytes among ROCm's supported_quantization;
  // FP8 where supports_fp8() holds, gfx94/gfx95/gfx12 (later builds any
  // CDNA): not the RX 7900 XTX (gfx1100) or the Strix Halo (gfx1151).
  auto v100 = why(InferenceEngine::vllm, "FP8", "tesla-v100");
  REQUIRE(v100);
  CHECK_THAT(*v100, Contains("7.5") && Contains("is 7.0"));
  CHECK_FALSE(why(InferenceEngine::vllm, "FP8", "tesla-t4"));
  CHECK_FALSE(why(InferenceEngine::vllm, "FP8", "a100-80gb-sxm"));
  CHECK(why(InferenceEngine::vllm, "AWQ", "tesla-v100"));
  CHECK_FALSE(why(InferenceEngine::vllm, "GPTQ-INT4", "tesla-v100"));
  CHECK_FALSE(why(InferenceEngine::vllm, "AWQ", "mi300x"));
  CHECK_FALSE(why(InferenceEngine::vllm, "GPTQ-INT4", "rx-7900-xtx"));
  CHECK_FALSE(why(InferenceEngine::vllm, "FP8", "mi300x"));
  CHECK_FALSE(why(InferenceEngine::vllm, "FP8", "radeon-ai-pro-r9700"));  // gfx1201, RDNA4
  auto xtx = why(InferenceEngine::vllm, "FP8", "rx-7900-xtx");
  REQUIRE(xtx);
  CHECK_THAT(*xtx, Contains("gfx1100"));
  CHECK(why(InferenceEngine::vllm, "FP8", "ryzen-ai-max-plus-395"));
  // A model published in FP8 at "native" on an RDNA3 card: the same refusal.
  CHECK(why(InferenceEngine::vllm, "native", "rx-7900-xtx", NativeFormat::fp8_block));
  CHECK(why(InferenceEngine::vllm, "FP8", "epyc-9004-genoa-384gb-ddr5-4800"));
  // A model published in FP8 (DeepSeek V3) at "native" is FP8 weights.
  CHECK(why(InferenceEngine::vllm, "native", "tesla-v100", NativeFormat::fp8_block));
  CHECK_FALSE(why(InferenceEngine::vllm, "native", "tesla-v100", NativeFormat::bf16));
  // TensorRT-LLM (Model Optimizer's matrix): FP8 from Ada (8.9), FP4 from
  // Blackwell (10.0), W4A16 AWQ from Ampere (8.0).
  CHECK(why(InferenceEngine::tensorrt_llm, "FP8", "a100-80gb-sxm"));
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "FP8", "l40s"));
  CHECK(why(InferenceEngine::tensorrt_llm, "NVFP4", "h100-sxm"));
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "NVFP4", "b200"));
  CHECK(why(InferenceEngine::tensorrt_llm, "AWQ", "tesla-t4"));
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "AWQ", "a100-80gb-sxm"));
  // Nor does it load GGUF, bitsandbytes or MLX files (its quantization recipes:
  // FP8, FP4, AWQ and GPTQ INT4), on any GPU; 16-bit checkpoints run, named
  // as the checkpoint or as the 16-bit GGUF type of the same weights.
  for (const char* q : {"Q4_K_M", "Q8_0", "UD-Q4_K_XL", "NF4", "MLX-4bit"}) {
    const auto refusal = why(InferenceEngine::tensorrt_llm, q, "h100-sxm");
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::Matchers::Contains("AWQ or GPTQ-INT4"));
  }
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "BF16", "h100-sxm"));
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "BF16-native", "h100-sxm"));
  // MLX-LM has no GGUF loader (MLX's GGUF example keeps Q4_0, Q4_1 and Q8_0
  // and casts other types to 16 bits): K-quants are refused, MLX's own run.
  for (const char* q : {"Q4_K_M", "Q6_K", "UD-Q4_K_XL", "IQ4_XS"}) {
    const auto refusal = why(InferenceEngine::mlx, q, "mac-m4-max-128gb");
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::Matchers::Contains("MLX-4bit"));
  }
  CHECK_FALSE(why(InferenceEngine::mlx, "MLX-4bit", "mac-m4-max-128gb"));
  CHECK_FALSE(why(InferenceEngine::mlx, "BF16", "mac-m4-max-128gb"));
  CHECK_FALSE(why(InferenceEngine::tensorrt_llm, "GPTQ-INT4", "h100-sxm"));
  // llama.cpp's MXFP4 file type, MXFP4_MOE, holds the routed experts in MXFP4
  // and Q8_0 elsewhere (llama-quant.cpp): gpt-oss's own layout. For any other
  // model an MXFP4 checkpoint (every linear layer) has no GGUF twin, so the
  // refusal asks for a GGUF type of the same size instead of MXFP4_MOE.
  const auto oss = why(InferenceEngine::llama_cpp, "MXFP4", "rtx-4090", NativeFormat::mxfp4_experts);
  REQUIRE(oss);
  CHECK_THAT(*oss, Contains("MXFP4_MOE (choose it)"));
  const auto dense = why(InferenceEngine::llama_cpp, "MXFP4", "rtx-4090", NativeFormat::bf16);
  REQUIRE(dense);
  CHECK_THAT(*dense, Contains("only MoE experts") && Contains("Q4_K_M"));
  // Ascend A2/A3 parts have no FP8 path under vLLM or SGLang.
  CHECK(why(InferenceEngine::vllm, "FP8", "ascend-910b"));
  CHECK(why(InferenceEngine::sglang, "native", "ascend-910c", NativeFormat::fp8_block));
  CHECK_FALSE(why(InferenceEngine::vllm, "BF16-native", "ascend-910b"));
}

TEST_CASE("SGLang's ROCm kernels build for Instinct gfx942 and gfx950 only: other AMD GPUs get the reason, not a command", "[runtime]") {
  // "SGLang officially supports only CDNA Instinct parts (gfx942 / gfx950) plus
  // gfx1250 ... rejected outright by the kernel build" (pypi sglang-radeon-rdna3);
  // a Strix Halo build crashes (sgl-project/sglang#11195).
  for (const char* id : {"mi300x", "mi325x", "mi355x"}) CHECK_FALSE(sglang_rocm_unbuilt(device(id)));
  CHECK_FALSE(sglang_rocm_unbuilt(device("h100-sxm")));  // CUDA: not this rule's
  for (const char* id : {"rx-7900-xtx", "radeon-ai-pro-r9700", "ryzen-ai-max-plus-395", "mi250x", "mi100"}) {
    INFO(id);
    const auto why = sglang_rocm_unbuilt(device(id));
    REQUIRE(why);
    CHECK_THAT(*why, Contains("gfx942 and gfx950") && Contains(device(id).gpu_arch) && Contains("llama.cpp runs on it"));
  }
  // AMD's own Radeon image is named for Radeons, not for an older Instinct.
  CHECK_THAT(*sglang_rocm_unbuilt(device("rx-7900-xtx")), Contains("SGLANG_USE_AITER=false"));
  CHECK_THAT(*sglang_rocm_unbuilt(device("mi250x")), !Contains("SGLANG_USE_AITER"));
}

TEST_CASE("vLLM's ROCm build lists MI200/300/350, RX 7900 and 9000 and Ryzen AI MAX: not an MI100", "[runtime]") {
  // vLLM's installation docs: "GPU: MI200s (gfx90a), MI300 (gfx942), MI350 (gfx950), Radeon RX 7900 series
  // (gfx1100/1101), Radeon RX 9000 series (gfx1200/1201), Ryzen AI MAX / AI 300 Series (gfx1151/1150)".
  for (const char* id : {"mi250x", "mi300x", "mi355x", "rx-7900-xtx", "rx-9070-xt", "radeon-ai-pro-r9700", "ryzen-ai-max-plus-395"})
    CHECK_FALSE(vllm_rocm_unlisted(device(id)));
  const auto mi100 = vllm_rocm_unlisted(device("mi100"));
  REQUIRE(mi100);
  CHECK_THAT(*mi100, Contains("gfx908") && Contains("llama.cpp runs on it"));
  CHECK_FALSE(vllm_rocm_unlisted(device("radeon-pro-vii")));  // arch not in the catalog: no claim
  CHECK_FALSE(vllm_rocm_unlisted(device("rtx-4090")));
}

TEST_CASE("compute capability reads the catalog's sm_ generation", "[runtime]") {
  CHECK(cuda_compute_capability(device("tesla-v100")) == 70);
  CHECK(cuda_compute_capability(device("rtx-4090")) == 89);
  CHECK(cuda_compute_capability(device("b300")) == 103);
  CHECK(cuda_compute_capability(device("dgx-spark-gb10")) == 121);
  CHECK(cuda_compute_capability(device("mi300x")) == 0);
  // Every NVIDIA GPU in the catalog has its generation recorded.
  for (const Device& d : test::catalog().devices)
    if (d.vendor == "nvidia") {
      INFO(d.id);
      CHECK(cuda_compute_capability(d) >= 70);
    }
}

TEST_CASE("the engine's backend table is data/engines.json's", "[runtime]") {
  std::ifstream in(std::string(LLMSIZER_FIXTURES_DIR) + "/../../data/engines.json");
  REQUIRE(in);
  const nlohmann::json engines = nlohmann::json::parse(in);
  const std::vector<std::pair<const char*, Backend>> backends = {
      {"cuda", Backend::cuda}, {"rocm", Backend::rocm}, {"metal", Backend::metal}, {"vulkan", Backend::vulkan},
      {"sycl", Backend::sycl}, {"cann", Backend::cann}, {"musa", Backend::musa},   {"cpu", Backend::cpu}};
  int checked = 0;
  for (const auto& e : engines["engines"]) {
    const auto engine = engine_from_name(e["id"].get<std::string>());
    REQUIRE(engine);
    for (const auto& [name, backend] : backends) {
      bool listed = false;
      for (const auto& b : e["backends"]) listed = listed || b.get<std::string>() == name;
      INFO(e["id"].get<std::string>() << " on " << name);
      CHECK(engine_has_backend(*engine, backend) == listed);
      ++checked;
    }
  }
  CHECK(checked == 6 * 8);
}

TEST_CASE("the planner answers with hardware the engine runs on", "[runtime][planner]") {
  // MLX: every purchase answer is a Mac and no cloud GPU is offered.
  const Recommendation mlx = recommend_for("qwen3-8b", "MLX-4bit", "mlx");
  REQUIRE(mlx.single);
  CHECK(device(mlx.single->gpu).vendor == "apple");
  CHECK_FALSE(mlx.cloud);
  // DeepSeek V3 in its FP8 under vLLM: neither an Ascend part (no FP8 path)
  // nor a V100 is the value answer.
  const Recommendation ds = recommend_for("deepseek-v3", "FP8", "vllm");
  REQUIRE(ds.value);
  CHECK(device(ds.value->gpu).backend != Backend::cann);
  CHECK(cuda_compute_capability(device(ds.value->gpu)) != 70);
}

TEST_CASE("the backends each engine offers on a device: the vendor's own, then Vulkan where the engine has it", "[runtime]") {
  using B = std::vector<Backend>;
  // llama.cpp builds ROCm and Vulkan for an AMD card; Ollama ships ROCm (data/engines.json).
  CHECK(backends_for(InferenceEngine::llama_cpp, device("rx-7900-xtx")) == B{Backend::rocm, Backend::vulkan});
  CHECK(backends_for(InferenceEngine::ollama, device("rx-7900-xtx")) == B{Backend::rocm});
  CHECK(backends_for(InferenceEngine::llama_cpp, device("rtx-4090")) == B{Backend::cuda, Backend::vulkan});
  CHECK(backends_for(InferenceEngine::vllm, device("rtx-4090")) == B{Backend::cuda});
  CHECK(backends_for(InferenceEngine::llama_cpp, device("arc-b580")) == B{Backend::sycl, Backend::vulkan});
  // Apple GPUs: Metal only (no Vulkan driver); a CPU machine: its CPU.
  CHECK(backends_for(InferenceEngine::llama_cpp, device("mac-m4-max-128gb")) == B{Backend::metal});
  CHECK(backends_for(InferenceEngine::llama_cpp, device("epyc-9004-genoa-384gb-ddr5-4800")) == B{Backend::cpu});
  CHECK(backends_for(InferenceEngine::vllm, device("mac-m4-max-128gb")).empty());
  // With Vulkan chosen for a Radeon (or a GeForce), the choice is still judged
  // from its own backend: ROCm stays offered, so the page can switch back.
  Device vulkan_radeon = device("rx-7900-xtx");
  choose_backend(vulkan_radeon, Backend::vulkan);
  CHECK(vulkan_radeon.backend == Backend::vulkan);
  CHECK(backends_for(InferenceEngine::llama_cpp, vulkan_radeon) == B{Backend::rocm, Backend::vulkan});
  choose_backend(vulkan_radeon, Backend::rocm);
  CHECK(vulkan_radeon.backend == Backend::rocm);
  CHECK(vulkan_radeon.native_backend == Backend::rocm);
  Device vulkan_rx580 = device("rx-580");
  CHECK_FALSE(backend_runs_on(Backend::rocm, vulkan_rx580));
  // A vendor runtime only where it is the device's own: the RX 580 (Polaris,
  // no current ROCm build) has Vulkan alone, so no Ollama; Intel's Gaudi has
  // its own runtime, not SYCL, so no llama.cpp.
  CHECK(backends_for(InferenceEngine::llama_cpp, device("rx-580")) == B{Backend::vulkan});
  CHECK(backends_for(InferenceEngine::ollama, device("rx-580")).empty());
  CHECK(backends_for(InferenceEngine::llama_cpp, device("gaudi3")).empty());
  CHECK(backends_for(InferenceEngine::vllm, device("gaudi3")) == B{Backend::other});
}

TEST_CASE("the engines a device runs: those with a build for one of its backends", "[runtime]") {
  using E = std::vector<InferenceEngine>;
  // A Mac: llama.cpp (Metal), Ollama and MLX-LM; no vLLM, SGLang or TensorRT-LLM build for Metal.
  CHECK(engines_for(device("mac-m4-max-128gb")) == E{InferenceEngine::llama_cpp, InferenceEngine::ollama, InferenceEngine::mlx});
  // A vendor runtime (Kunlunxin): only vLLM, through the vendor's own build.
  CHECK(engines_for(device("kunlunxin-p800")) == E{InferenceEngine::vllm});
}

TEST_CASE("tensor parallel needs a GPU count that divides the attention heads; llama.cpp splits layers", "[runtime]") {
  // Llama 3.1 70B: 64 attention heads, 8 KV heads (config.json). vLLM raises
  // "Total number of attention heads (64) must be divisible by tensor parallel
  // size (3)"; 2, 4 and 8 divide both (8 KV heads over 8 GPUs: one each).
  const Architecture llama = test::catalog_arch("llama-3.1-70b");
  const auto three = tensor_parallel_unsplittable(llama, InferenceEngine::vllm, 3);
  REQUIRE(three);
  CHECK_THAT(*three, Contains("64 attention heads (8 KV heads)") && Contains("3 GPUs do not divide them: 2, 4 or 8 do"));
  for (const int n : {1, 2, 4, 8}) CHECK_FALSE(tensor_parallel_unsplittable(llama, InferenceEngine::vllm, n));
  CHECK(tensor_parallel_unsplittable(llama, InferenceEngine::sglang, 6));  // 64 % 6 != 0
  CHECK(tensor_parallel_unsplittable(llama, InferenceEngine::tensorrt_llm, 5));
  // llama.cpp and Ollama split by layers: any count.
  CHECK_FALSE(tensor_parallel_unsplittable(llama, InferenceEngine::llama_cpp, 3));
  CHECK_FALSE(tensor_parallel_unsplittable(llama, InferenceEngine::ollama, 3));
  // Qwen3-8B, 32 heads and 8 KV heads: 16 GPUs replicate each KV head twice (16 % 8 == 0).
  const Architecture qwen = test::catalog_arch("qwen3-8b");
  CHECK_FALSE(tensor_parallel_unsplittable(qwen, InferenceEngine::vllm, 16));
  // The estimate refuses the scenario with that reason.
  Scenario s;
  s.engine = InferenceEngine::vllm;
  s.quant = quant_scheme_from_name("FP8").value();
  s.device = device("h100-sxm");
  s.gpu_count = 3;
  const auto e = estimate(llama, s);
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "runtime.unsupported");
  CHECK_THAT(e.error().message, Contains("tensor parallel"));
}
