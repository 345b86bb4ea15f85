// Invariants over many random scenarios (seeded, reproducible): a sizing tool
// that is occasionally absurd loses trust for good.
#include <cmath>
#include <random>

#include "llmsizer/estimate.hpp"
#include "llmsizer/runtime_support.hpp"
#include "test_support.hpp"

using namespace llmsizer;

namespace {

struct RandomScenarios {
  std::mt19937_64 rng{20261130};
  std::vector<Architecture> models;
  std::vector<std::string> model_ids;

  RandomScenarios() {
    for (const auto& m : test::catalog().models) {
      auto arch = read_hf_config(model_config(m).value());
      if (arch) {
        models.push_back(arch.value());
        model_ids.push_back(m.id);
      }
    }
  }
  template <typename T>
  const T& pick(const std::vector<T>& list) {
    return list[std::uniform_int_distribution<std::size_t>(0, list.size() - 1)(rng)];
  }
  std::size_t model_index() { return std::uniform_int_distribution<std::size_t>(0, models.size() - 1)(rng); }

  // Another device while the engine cannot run these weights on the one
  // picked (runtime_support.hpp), or none: such pairs are refused, not sized.
  // Likewise fewer GPUs while tensor parallel cannot split the heads over them.
  void make_runnable(Scenario& s, const Architecture& arch) {
    const NativeFormat native = arch.native_format;
    for (int i = 0; i < 100 && s.device && runtime_unsupported(s.engine, s.quant, native, *s.device); ++i)
      s.device = pick(test::catalog().devices);
    if (s.device && runtime_unsupported(s.engine, s.quant, native, *s.device)) s.device.reset();
    while (s.gpu_count > 1 && tensor_parallel_unsplittable(arch, s.engine, s.gpu_count)) --s.gpu_count;
    // Several Macs or Strix Halo machines are several computers, which Ollama
    // cannot span (refused); llama.cpp can, over RPC, with the same files.
    if (s.engine == InferenceEngine::ollama && s.device && is_whole_machine(*s.device))
      s.engine = InferenceEngine::llama_cpp;
  }

  Scenario scenario(const Architecture& arch) {
    Scenario s;
    const std::vector<InferenceEngine> engines = {InferenceEngine::llama_cpp, InferenceEngine::ollama, InferenceEngine::vllm,
                                                  InferenceEngine::sglang, InferenceEngine::mlx, InferenceEngine::tensorrt_llm};
    s.engine = pick(engines);
    const std::vector<std::string> gguf = {"Q4_K_M", "Q8_0", "IQ2_XXS", "Q3_K_S", "F16", "UD-Q2_K_XL", "IQ4_XS", "Q6_K_L"};
    const std::vector<std::string> native = {"native", "BF16-native", "FP8", "AWQ", "NF4", "MLX-4bit", "NVFP4"};
    s.quant = quant_scheme_from_name(engine_is_llama_cpp_based(s.engine) ? pick(gguf) : pick(native)).value();
    s.context_tokens = pick(std::vector<std::int64_t>{512, 1000, 4096, 8192, 32768, 131072});
    s.sequences = pick(std::vector<std::int64_t>{1, 1, 2, 7, 32});
    s.kv_type = pick(std::vector<KvType>{KvType::f16, KvType::bf16, KvType::q8_0, KvType::q4_0, KvType::fp8});
    s.gpu_count = pick(std::vector<int>{1, 1, 2, 3, 8});
    s.offload_fraction = pick(std::vector<double>{0.0, 0.0, 0.3, 1.0});
    s.offload_mode = pick(std::vector<OffloadMode>{OffloadMode::automatic, OffloadMode::layers, OffloadMode::experts});
    s.prompt_tokens = pick(std::vector<std::int64_t>{128, 4096});
    if (std::uniform_int_distribution<int>(0, 5)(rng) > 0) s.device = pick(test::catalog().devices);
    make_runnable(s, arch);
    return s;
  }
};

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0.0; }

std::int64_t most_weight_on_one_gpu(const Estimate& e) {
  std::int64_t most = 0;
  for (const auto& g : e.memory.per_gpu) most = std::max(most, g.weights_bytes);
  return most;
}

}  // namespace

TEST_CASE("every figure is finite and non-negative; fit agrees with required <= usable", "[property]") {
  RandomScenarios r;
  int estimated = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::size_t m = r.model_index();
    const Scenario s = r.scenario(r.models[m]);
    auto e = estimate(r.models[m], s);
    INFO("case " << i << " " << r.model_ids[m] << " " << s.quant.name);
    if (!e) {
      // Only the exabyte guard, or an engine that does not run these weights
      // on this device (runtime_support.hpp), may refuse these.
      if (e.error().id == "runtime.unsupported") CHECK(runtime_unsupported(r.models[m], s));
      else CHECK(e.error().id == "scenario.bad_value");
      continue;
    }
    ++estimated;
    const MemoryEstimate& mem = e.value().memory;
    for (std::int64_t bytes : {mem.weights_bytes, mem.kv_cache_bytes, mem.runtime_bytes, mem.offload_bytes,
                               mem.host_bytes, mem.required_bytes})
      CHECK(bytes >= 0);
    if (mem.fits) {
      bool all_fit = true;
      for (const auto& g : mem.per_gpu) {
        CHECK(g.fits == (g.required_bytes <= g.usable_bytes));
        all_fit = all_fit && g.fits;
      }
      // One verdict: every GPU's share, and system RAM for what is kept there.
      CHECK(mem.ram_fits == (mem.ram_required_bytes <= mem.system_ram_bytes));
      CHECK(*mem.fits == (all_fit && mem.ram_fits));
      CHECK(finite_non_negative(*mem.utilization));
    }
    if (e.value().speed) {
      const SpeedEstimate& sp = *e.value().speed;
      CHECK(finite_non_negative(sp.decode_tokens_per_s));
      CHECK(finite_non_negative(sp.decode_tokens_per_s_total));
      CHECK(finite_non_negative(sp.prefill_tokens_per_s));
      CHECK(finite_non_negative(sp.ttft_s));
    }
  }
  CHECK(estimated > 1400);
}

TEST_CASE("more context or more sequences never need less memory", "[property]") {
  RandomScenarios r;
  for (int i = 0; i < 400; ++i) {
    const std::size_t m = r.model_index();
    Scenario s = r.scenario(r.models[m]);
    s.context_tokens = 2048;
    s.sequences = 1;
    auto small = estimate(r.models[m], s);
    s.context_tokens = 16384;
    auto longer = estimate(r.models[m], s);
    s.sequences = 4;
    auto more = estimate(r.models[m], s);
    INFO(r.model_ids[m] << " " << s.quant.name);
    REQUIRE((small && longer && more));
    CHECK(longer.value().memory.kv_cache_bytes >= small.value().memory.kv_cache_bytes);
    CHECK(longer.value().memory.required_bytes + longer.value().memory.offload_bytes >=
          small.value().memory.required_bytes + small.value().memory.offload_bytes);
    CHECK(more.value().memory.kv_cache_bytes >= longer.value().memory.kv_cache_bytes);
  }
}

TEST_CASE("more GPUs never put more weight bytes on one GPU", "[property]") {
  RandomScenarios r;
  for (int i = 0; i < 200; ++i) {
    const std::size_t m = r.model_index();
    Scenario s = r.scenario(r.models[m]);
    s.offload_fraction = 0.0;
    if (s.engine == InferenceEngine::mlx) s.engine = InferenceEngine::llama_cpp;
    r.make_runnable(s, r.models[m]);
    std::int64_t previous = std::numeric_limits<std::int64_t>::max();
    for (int n = 1; n <= 8; n *= 2) {
      // Counts tensor parallel cannot split the heads over are refused, not sized.
      if (tensor_parallel_unsplittable(r.models[m], s.engine, n)) continue;
      s.gpu_count = n;
      auto e = estimate(r.models[m], s);
      REQUIRE(e);
      INFO(r.model_ids[m] << " x" << n);
      CHECK(most_weight_on_one_gpu(e.value()) <= previous);
      previous = most_weight_on_one_gpu(e.value());
    }
  }
}

TEST_CASE("offload moves bytes, it does not create or lose them", "[property]") {
  RandomScenarios r;
  for (int i = 0; i < 300; ++i) {
    const std::size_t m = r.model_index();
    Scenario s = r.scenario(r.models[m]);
    s.engine = InferenceEngine::llama_cpp;
    s.quant = quant_scheme_from_name("Q4_K_M").value();
    r.make_runnable(s, r.models[m]);
    auto e = estimate(r.models[m], s);
    REQUIRE(e);
    const Estimate& x = e.value();
    std::int64_t gpu_weights = 0;
    std::int64_t gpu_kv = 0;
    for (const auto& g : x.memory.per_gpu) {
      gpu_weights += g.weights_bytes;
      gpu_kv += g.kv_cache_bytes;
    }
    const std::int64_t ram_kv = x.memory.kv_cache_bytes - gpu_kv;
    INFO(r.model_ids[m] << " offload " << s.offload_fraction);
    CHECK(ram_kv >= 0);
    // GPUs + the host's embedding table + what was offloaded = the file's tensors
    // (MTP layers that llama.cpp's converter drops are not in the file). A tied
    // head is a second copy on the GPU; a CPU-only machine holds it once, and so
    // does RAM when every layer is there (-ngl 0). With some layers in RAM the
    // head stays on the GPU: llama.cpp offloads the output layer first.
    const bool cpu_only = s.device && s.device->kind == DeviceKind::cpu;
    const bool head_in_ram = x.memory.offloaded_layers > 0 && !x.memory.offload_experts_only &&
                             (cpu_only || x.memory.offloaded_layers >= r.models[m].decoder_layer_count());
    CHECK(x.memory.output_in_ram == head_in_ram);
    const std::int64_t tied_copy =
        r.models[m].tied_embeddings && !cpu_only && !head_in_ram ? x.weights.token_embd_bytes : 0;
    CHECK(gpu_weights + x.memory.host_bytes + (x.memory.offload_bytes - ram_kv) - tied_copy == x.weights.tensor_bytes);
  }
}

TEST_CASE("decode never beats the bandwidth bound", "[property]") {
  // A token must at least read the active weights once: tokens/s <= total
  // bandwidth / (file bytes x active share x 1/2). The half leaves room for the
  // embedding rows a token does not read; any model that breaks this is off by
  // more than 2x.
  RandomScenarios r;
  int checked = 0;
  for (int i = 0; i < 800; ++i) {
    const std::size_t m = r.model_index();
    Scenario s = r.scenario(r.models[m]);
    if (!s.device || s.device->bandwidth_bytes_per_s <= 0.0) continue;
    auto e = estimate(r.models[m], s);
    REQUIRE(e);
    const Estimate& x = e.value();
    if (!x.speed) continue;
    const double active_share = static_cast<double>(x.params.active) / static_cast<double>(x.params.total + x.params.mtp);
    const double bytes_floor = static_cast<double>(x.weights.tensor_bytes) * active_share * 0.5;
    const double bandwidth = s.device->bandwidth_bytes_per_s * s.gpu_count + s.ram_bandwidth_bytes_per_s;
    INFO(r.model_ids[m] << " on " << s.device->id << " x" << s.gpu_count);
    CHECK(x.speed->decode_tokens_per_s <= bandwidth / bytes_floor);
    ++checked;
  }
  CHECK(checked > 300);
}
