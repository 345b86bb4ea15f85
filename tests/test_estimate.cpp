// Whole scenarios: fit verdicts, per-GPU split, offload, engine pools, bad input.
#include "llmsizer/estimate.hpp"

#include <algorithm>
#include <numeric>

#include "llmsizer/json_contract.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/speed_work.hpp"
#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::WithinRel;
using test::catalog_arch;
using test::device_of;

namespace {

Scenario scenario(const char* quant, std::int64_t ctx) {
  Scenario s;
  s.quant = quant_scheme_from_name(quant).value();
  s.context_tokens = ctx;
  return s;
}

Estimate run(const Architecture& arch, const Scenario& s) {
  auto e = estimate(arch, s);
  if (!e) FAIL(e.error().message);
  return e.value();
}

std::int64_t sum_weights(const Estimate& e) {
  std::int64_t n = 0;
  for (const auto& g : e.memory.per_gpu) n += g.weights_bytes;
  return n;
}

}  // namespace

TEST_CASE("an 8B model at Q4_K_M fits a 24 GB card; a 70B needs two", "[estimate][fit]") {
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("rtx-4090");
  const Estimate small = run(catalog_arch("llama-3.1-8b"), s);
  REQUIRE(small.memory.fits.has_value());
  CHECK(*small.memory.fits);
  // usable = 24564 MiB as nvidia-smi reports - 457 MiB CUDA context - 1024 MiB
  // that llama.cpp's --fit-target keeps free (reference README, runtime memory).
  CHECK(*small.memory.usable_bytes == (24564LL - 457 - 1024) * static_cast<std::int64_t>(kMiB));
  CHECK(small.memory.fit_margin_bytes_per_gpu == 1024 * static_cast<std::int64_t>(kMiB));
  CHECK_THAT(*small.memory.utilization,
             WithinRel(static_cast<double>(small.memory.required_bytes) / static_cast<double>(*small.memory.usable_bytes), 1e-12));
  const Estimate big = run(catalog_arch("llama-3.1-70b"), s);
  CHECK_FALSE(*big.memory.fits);
  s.gpu_count = 2;
  const Estimate two = run(catalog_arch("llama-3.1-70b"), s);
  CHECK(*two.memory.fits);
  REQUIRE(two.memory.per_gpu.size() == 2);
  // llama.cpp's split of 80 layers + the output slot over two equal cards:
  // slot i goes to the first while i / 81 < 0.5, i <= 40: 41 layers, then 39
  // and the output head (llama-model.cpp, load_tensors).
  CHECK(two.memory.per_gpu[0].last_layer == 41);
}

TEST_CASE("llama.cpp's --fit-target keeps 1 GiB free on a GPU, none on a CPU-only machine", "[estimate][fit]") {
  // llama_params_fit_impl returns at once without devices of their own memory
  // ("no devices with dedicated memory found", llama.cpp src/llama.cpp): a CPU
  // machine's usable memory is its RAM less the OS's share, nothing more.
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("epyc-9004-genoa-384gb-ddr5-4800");
  const Estimate cpu = run(catalog_arch("llama-3.1-8b"), s);
  CHECK(cpu.memory.fit_margin_bytes_per_gpu == 0);
  CHECK(*cpu.memory.usable_bytes == usable_memory(*s.device).usable_bytes);
  s.device = device_of("rtx-4090");
  const Estimate gpu = run(catalog_arch("llama-3.1-8b"), s);
  CHECK(*gpu.memory.usable_bytes == usable_memory(*s.device).usable_bytes - 1024 * static_cast<std::int64_t>(kMiB));
}

TEST_CASE("layer split: the GPUs and the host hold exactly the file's tensors", "[estimate][split]") {
  Scenario s = scenario("Q4_K_M", 4096);
  s.device = device_of("rtx-4090");
  s.gpu_count = 3;
  const Estimate e = run(catalog_arch("llama-3.1-70b"), s);
  // llama.cpp keeps the token embedding in host memory.
  CHECK(sum_weights(e) + e.memory.host_bytes == e.weights.tensor_bytes);
  std::int64_t kv = 0;
  for (const auto& g : e.memory.per_gpu) kv += g.kv_cache_bytes;
  CHECK(kv == e.memory.kv_cache_bytes);
}

TEST_CASE("offload moves bytes to RAM without creating or losing any", "[estimate][offload]") {
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("rtx-4090");
  s.offload_fraction = 0.5;
  s.offload_mode = OffloadMode::layers;
  const Architecture a = catalog_arch("llama-3.1-70b");
  const Estimate e = run(a, s);
  REQUIRE(e.memory.offloaded_layers == 40);
  std::int64_t gpu_kv = 0;
  for (const auto& g : e.memory.per_gpu) gpu_kv += g.kv_cache_bytes;
  CHECK(sum_weights(e) + e.memory.host_bytes + e.memory.offload_bytes - (e.memory.kv_cache_bytes - gpu_kv) ==
        e.weights.tensor_bytes);

  // llama.cpp counts the output layer among -ngl's slots and offloads it
  // first (i_gpu_start = n_layer + 1 - N; gpustack/gguf-parser-go#42 quotes
  // llama-model.cpp): launch_commands.cpp prints -ngl 41 here, layers 0-39 in
  // RAM and the head on the GPU.
  CHECK_FALSE(e.memory.output_in_ram);
  // The head at Q4_K_M is Q6_K: 128256 x 8192 weights / 256 x 210 B = 861,880,320 B,
  // and its F32 norm 8192 x 4 B = 32,768 B.
  CHECK(e.weights.output_bytes == 861880320 + 32768);
  // RAM: the first 40 layers' weights and their KV (8 KV heads x 128 x K and
  // V x 2 B x 8192 tokens = 33,554,432 B a layer).
  std::int64_t first_40 = 0;
  for (int i = 0; i < 40; ++i) first_40 += e.weights.layer_bytes[static_cast<std::size_t>(i)];
  CHECK(e.memory.offload_bytes == first_40 + 40 * 33554432LL);
  // The GPU holds the other 40 layers and the head; the embedding is in host RAM.
  REQUIRE(e.memory.per_gpu.size() == 1);
  CHECK(e.memory.per_gpu[0].weights_bytes == e.weights.tensor_bytes - e.weights.token_embd_bytes - first_40);
  // Decode reads from RAM what sits there, the offloaded layers.
  const StepWork w = decode_step_work(a, s, e, 1);
  CHECK(w.ram_bytes == static_cast<double>(e.memory.offload_bytes));

  // The host's RAM leaves the OS its stated 4 GiB: what llama.cpp keeps there
  // (offload_bytes, the embedding and the host compute buffer, about 20.95
  // GiB here) fits in 25 GiB of RAM (21 left) and not in 24 (20 left), though
  // 24 GiB is more than it needs.
  const std::int64_t in_ram = e.memory.ram_required_bytes;
  REQUIRE(in_ram == e.memory.offload_bytes + e.memory.host_bytes + e.memory.host_compute_bytes);
  // The host compute buffer: one ubatch of embedded rows and the KQ mask, f32:
  // 512 x (8192 hidden + 8192 cells) x 4 B = 33,554,432 B (32 MiB).
  CHECK(e.memory.host_compute_bytes == 512LL * (8192 + 8192) * 4);
  REQUIRE(in_ram > (std::int64_t{20} << 30));
  REQUIRE(in_ram < (std::int64_t{21} << 30));
  Scenario tight = s;
  tight.system_ram_bytes = std::int64_t{24} << 30;
  const Estimate over = run(a, tight);
  CHECK(over.memory.os_reserve_bytes == (std::int64_t{4} << 30));
  CHECK(over.memory.system_ram_bytes == (std::int64_t{20} << 30));
  CHECK_FALSE(over.memory.ram_fits);
  tight.system_ram_bytes = std::int64_t{25} << 30;
  CHECK(run(a, tight).memory.ram_fits);

  // MoE: --n-cpu-moe (with -ngl 999) moves only experts; the KV and the output
  // layer stay on the GPU. Automatic mode and experts mode agree.
  const Architecture moe = catalog_arch("qwen3-30b-a3b");
  for (OffloadMode mode : {OffloadMode::automatic, OffloadMode::experts}) {
    s.offload_mode = mode;
    const Estimate m = run(moe, s);
    CHECK(m.memory.offloaded_layers == 24);  // half of 48 layers
    CHECK_FALSE(m.memory.output_in_ram);
    std::int64_t first_half_experts = 0;
    for (int i = 0; i < 24; ++i) first_half_experts += m.weights.layer_expert_bytes[static_cast<std::size_t>(i)];
    CHECK(m.memory.offload_bytes == first_half_experts);
    CHECK(m.memory.per_gpu[0].kv_cache_bytes == m.memory.kv_cache_bytes);
  }
}

TEST_CASE("vLLM reserves a KV pool from the utilization fraction", "[estimate][vllm][reference]") {
  // Logged: Meta-Llama-3-8B on an H100 (79.22 GiB seen by torch), utilization
  // 0.9 -> 71.29 GiB: weights 14.96, non-torch 1.79, activations 1.26 -> KV 53.29 GiB.
  Scenario s = scenario("native", 8192);
  s.engine = InferenceEngine::vllm;
  s.kv_type = KvType::bf16;
  Device h100 = device_of("h100-sxm");
  h100.driver_memory_bytes = static_cast<std::int64_t>(79.22 * static_cast<double>(kGiB));
  s.device = h100;
  const Estimate e = run(catalog_arch("llama-3.1-8b"), s);
  CHECK_THAT(static_cast<double>(e.memory.weights_bytes), WithinRel(14.96 * static_cast<double>(kGiB), 0.001));
  REQUIRE(e.memory.kv_pool_bytes.has_value());
  CHECK_THAT(static_cast<double>(*e.memory.kv_pool_bytes), WithinRel(53.29 * static_cast<double>(kGiB), 0.01));
  // 131072 B per token: the pool holds about 53.29 GiB / 128 KiB = 436,551 tokens.
  CHECK_THAT(static_cast<double>(*e.memory.kv_pool_tokens), WithinRel(436551.0, 0.01));
}

TEST_CASE("tensor parallel beyond the KV heads replicates them", "[estimate][tp]") {
  Scenario s = scenario("native", 8192);
  s.engine = InferenceEngine::vllm;
  s.kv_type = KvType::bf16;
  s.device = device_of("h100-sxm");
  s.gpu_count = 16;
  const Estimate e = run(catalog_arch("llama-3.1-70b"), s);  // 8 KV heads
  CHECK(e.memory.per_gpu[0].kv_cache_bytes == e.memory.kv_cache_bytes / 8);
  bool warned = false;
  for (const auto& w : e.warnings) warned = warned || w.find("replicated") != std::string::npos;
  CHECK(warned);
  s.gpu_count = 4;
  const Estimate four = run(catalog_arch("llama-3.1-70b"), s);
  CHECK(four.memory.per_gpu[0].kv_cache_bytes == four.memory.kv_cache_bytes / 4);
  CHECK(four.memory.per_gpu[0].weights_bytes == four.weights.tensor_bytes / 4);
}

TEST_CASE("Apple unified memory: the default wired limit", "[estimate][apple][reference]") {
  // Reference: recommendedMaxWorkingSetSize 21,845 MB on 32 GB (two thirds),
  // 73,728 MB on 96 GB (three quarters); the figures are MiB.
  const UsableMemory m32 = usable_memory(device_of("mac-m1-pro-32gb"));
  const UsableMemory m96 = usable_memory(device_of("mac-m2-max-96gb"));
  CHECK(m32.capacity_bytes / static_cast<std::int64_t>(kMiB) == 21845);
  CHECK(m96.capacity_bytes == 73728LL * static_cast<std::int64_t>(kMiB));
  CHECK(std::string(m96.basis) == "apple-wired-limit");
}

TEST_CASE("a CPU-only machine: its RAM less the stated OS reserve, the whole model in it", "[estimate][cpu]") {
  // data/devices.json: the Ryzen 9 7950X machine of system_ram.json, 128 GB of
  // DDR5-3600; device.cpp reserves 4 GiB of it for the operating system.
  const Device d = device_of("ryzen-9-7950x-128gb-ddr5-3600");
  CHECK(d.kind == DeviceKind::cpu);
  CHECK(d.backend == Backend::cpu);
  const UsableMemory m = usable_memory(d);
  CHECK(m.capacity_bytes == 128LL * static_cast<std::int64_t>(kGiB));
  CHECK(m.reserved_bytes == 4LL * static_cast<std::int64_t>(kGiB));
  CHECK(m.usable_bytes == 124LL * static_cast<std::int64_t>(kGiB));
  CHECK(std::string(m.basis) == "system-ram-less-os-reserve");

  Scenario s = scenario("Q4_K_M", 8192);
  s.device = d;
  const Estimate e = run(catalog_arch("llama-3.1-8b"), s);
  // Nothing sits in a separate "host" RAM: the embedding is among the weights.
  CHECK(e.memory.host_bytes == 0);
  CHECK(e.memory.ram_required_bytes == 0);
  CHECK(e.memory.per_gpu.size() == 1);
  CHECK(e.memory.per_gpu[0].weights_bytes == e.weights.tensor_bytes);
  CHECK(e.memory.fits == true);
  for (const std::string& w : e.warnings) CHECK_THAT(w, !Catch::Matchers::Contains("GPU"));
  // A 405B model at F16 (810 GB) does not fit 124 GiB.
  Scenario f16 = scenario("F16", 8192);
  f16.device = d;
  const Estimate big = run(catalog_arch("llama-3.1-405b"), f16);
  CHECK(big.memory.fits == false);
}

TEST_CASE("more GPUs never put more weight bytes on one GPU", "[estimate][property]") {
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("a100-80gb-sxm");
  for (const char* id : {"llama-3.1-70b", "qwen3-235b-a22b", "deepseek-v3"}) {
    std::int64_t previous = std::numeric_limits<std::int64_t>::max();
    for (int n = 1; n <= 8; ++n) {
      s.gpu_count = n;
      const Estimate e = run(catalog_arch(id), s);
      std::int64_t most = 0;
      for (const auto& g : e.memory.per_gpu) most = std::max(most, g.weights_bytes);
      INFO(id << " x" << n);
      CHECK(most <= previous);
      previous = most;
    }
  }
}

TEST_CASE("out-of-range inputs are refused with a message", "[estimate][errors]") {
  const Architecture a = catalog_arch("llama-3.1-8b");
  Scenario s = scenario("Q4_K_M", 0);
  CHECK(estimate(a, s).error().id == "scenario.bad_value");
  s.context_tokens = 4096;
  s.sequences = 100000;
  CHECK(estimate(a, s).error().message.find("batch") != std::string::npos);
  s.sequences = 1;
  s.offload_fraction = 1.5;
  CHECK_FALSE(estimate(a, s).ok());
  s.offload_fraction = std::nan("");
  CHECK_FALSE(estimate(a, s).ok());
}

TEST_CASE("figures that need a device are absent without one", "[estimate]") {
  const Estimate e = run(catalog_arch("llama-3.1-8b"), scenario("Q4_K_M", 8192));
  CHECK_FALSE(e.memory.fits.has_value());
  CHECK_FALSE(e.memory.usable_bytes.has_value());
  CHECK_FALSE(e.speed.has_value());
  CHECK(e.memory.required_bytes > e.memory.kv_cache_bytes);
}

TEST_CASE("the figures path stops at decode: the full estimate's memory, decode and cost", "[estimate][figures]") {
  // estimate_request skips the prefill model (the page's matrix and chart draw
  // memory and decode only). Everything it does compute must be what the full
  // estimate says, bit for bit (the next test: the warning about prefill).
  const Sizer sizer(test::catalog());
  int compared = 0;
  for (const char* model : {"glm-4.5", "llama-3.1-8b", "qwen3-30b-a3b"})
    for (const char* gpu : {"mi300x", "rtx-4090", "rtx-3060-12gb"})
      for (const char* engine : {"llama.cpp", "vllm"})
        for (double batch : {1.0, 4.0}) {
          CAPTURE(model, gpu, engine, batch);
          RequestFields f;
          f.model = model;
          f.gpu = gpu;
          f.engine = engine;
          f.batch = batch;
          f.ctx = 32768;
          SizerRequest r;
          r.model_id = model;
          r.gpu_id = gpu;
          r.engine = engine;
          r.sequences = static_cast<std::int64_t>(batch);
          r.context_tokens = 32768;
          const auto full = sizer.estimate(r);
          const auto figures = estimate_request(sizer, f);
          REQUIRE(full);
          REQUIRE(figures);
          const Estimate& a = full.value();
          const Estimate& b = figures.value();
          CHECK(b.memory.required_bytes == a.memory.required_bytes);
          CHECK(b.memory.weights_bytes == a.memory.weights_bytes);
          CHECK(b.memory.kv_cache_bytes == a.memory.kv_cache_bytes);
          CHECK(b.memory.runtime_bytes == a.memory.runtime_bytes);
          CHECK(b.memory.usable_bytes == a.memory.usable_bytes);
          CHECK(b.memory.fits == a.memory.fits);
          REQUIRE(a.speed.has_value());
          REQUIRE(b.speed.has_value());
          CHECK(b.speed->decode_tokens_per_s == a.speed->decode_tokens_per_s);
          CHECK(b.speed->decode_tokens_per_s_total == a.speed->decode_tokens_per_s_total);
          CHECK(b.cost.usd_per_million_tokens == a.cost.usd_per_million_tokens);
          CHECK(b.speed->prefill_tokens_per_s == 0.0);
          CHECK(b.speed->ttft_s == 0.0);
          CHECK(a.speed->prefill_tokens_per_s > 0.0);
          CHECK(a.warnings == b.warnings);
          ++compared;
        }
  CHECK(compared == 36);
}

TEST_CASE("a device without a dense throughput figure: the prefill warning only when prefill is asked for", "[estimate][figures]") {
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("rtx-4090");
  s.device->fp16_flops = 0.0;
  s.device->fp8_flops = 0.0;
  s.device->fp32_flops = 0.0;
  const Architecture arch = catalog_arch("llama-3.1-8b");
  const Estimate full = run(arch, s);
  s.prefill_speed = false;
  const Estimate decode_only = run(arch, s);
  const std::string warning =
      "the device has no dense throughput figure: prefill, TTFT and the compute bound of batched decode are not estimated";
  CHECK(std::count(full.warnings.begin(), full.warnings.end(), warning) == 1);
  CHECK(std::count(decode_only.warnings.begin(), decode_only.warnings.end(), warning) == 0);
  REQUIRE(full.speed);
  REQUIRE(decode_only.speed);
  CHECK(decode_only.speed->decode_tokens_per_s == full.speed->decode_tokens_per_s);
}

TEST_CASE("the vLLM command carries the memory fraction with two decimals, cut and not rounded", "[commands]") {
  // The flag prints to_string(fraction).substr(0, 4): printf's six decimals,
  // cut to two (vLLM reads any decimal). Worked by hand: 0.875 -> "0.875000"
  // -> "0.87"; 0.899999999 -> "0.900000" -> "0.90".
  const Sizer sizer(test::catalog());
  SizerRequest r;
  r.model_id = "llama-3.1-8b";
  r.engine = "vllm";
  r.gpu_id = "h100-sxm";
  const auto model = sizer.model_for(r);
  const auto base = sizer.scenario_for(r);
  const auto e = sizer.estimate(r);
  REQUIRE(model);
  REQUIRE(base);
  REQUIRE(e);
  const auto vllm = [&](double fraction) {
    Scenario s = base.value();
    s.gpu_memory_utilization = fraction;
    for (const auto& c : launch_commands(model.value(), s, e.value()))
      if (c.engine == "vllm") return c.steps.empty() ? std::string() : c.steps.front();
    return std::string();
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(vllm(0.9), Contains("--gpu-memory-utilization 0.90 "));
  CHECK_THAT(vllm(0.875), Contains("--gpu-memory-utilization 0.87 "));
  CHECK_THAT(vllm(1.0), Contains("--gpu-memory-utilization 1.00 "));
  CHECK_THAT(vllm(0.05), Contains("--gpu-memory-utilization 0.05 "));
  CHECK_THAT(vllm(0.899999999), Contains("--gpu-memory-utilization 0.90 "));
}

TEST_CASE("Ollama on an MoE model: the speeds are llama.cpp's, with what older Ollama engines measured", "[estimate][ollama]") {
  // From 0.30 Ollama runs GGUF models on llama.cpp's llama-server
  // (ollama/ollama#16031); before, MoE models ran on its own engine, measured
  // at 0.3 to 0.8 of llama.cpp's decode (scripts/speed/sourced_ollama_engine.json).
  auto has_note = [](const Estimate& e) {
    for (const std::string& w : e.warnings)
      if (w.rfind("Ollama: these are llama.cpp's speeds", 0) == 0) return true;
    return false;
  };
  Scenario s = scenario("Q4_K_M", 8192);
  s.device = device_of("rtx-5090");
  s.engine = InferenceEngine::ollama;
  const Estimate moe = run(catalog_arch("qwen3-30b-a3b"), s);
  CHECK(has_note(moe));
  Scenario on_llama = s;
  on_llama.engine = InferenceEngine::llama_cpp;
  const Estimate same = run(catalog_arch("qwen3-30b-a3b"), on_llama);
  CHECK(!has_note(same));
  REQUIRE(moe.speed);
  REQUIRE(same.speed);
  CHECK(moe.speed->decode_tokens_per_s == same.speed->decode_tokens_per_s);
  // Dense models measured level with llama.cpp on the old engine (1.10 and 1.26 on an RTX 5090): no note.
  CHECK(!has_note(run(catalog_arch("llama-3.1-8b"), s)));
}
