// Mixed cards (issue 23): llama.cpp's layer split over 2 x RTX 3090 + RTX
// 3060 12GB, worked out by hand. Llama-3.1-8B at Q8_0 has 32 identical layers,
// so every byte below is a small product.
#include <algorithm>

#include "llmsizer/json_contract.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/planner_responses.hpp"
#include "llmsizer/speed_calibration.hpp"
#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using namespace llmsizer;

namespace {

constexpr std::int64_t MiB = std::int64_t{1} << 20;

// Per layer of Llama-3.1-8B (hidden 4096, 32 heads, 8 KV heads of 128,
// intermediate 14336): matrices q 4096^2 + k, v 4096 x 1024 each + o 4096^2
// + gate, up, down 3 x 4096 x 14336 = 218,103,808 weights at Q8_0 (34 bytes
// per 32) = 231,735,296 bytes, plus two F32 norms of 4096: 32,768.
constexpr std::int64_t kLayerWeightBytes = 231'735'296 + 32'768;  // 231,768,064
// KV per layer at 8192 cells, f16: 2 x 8 heads x 128 x 8192 x 2 bytes.
constexpr std::int64_t kLayerKvBytes = 2 * 8 * 128 * 8192 * 2;  // 33,554,432
// Output head 128256 x 4096 at Q8_0 (558,170,112) + output norm F32 (16,384).
constexpr std::int64_t kOutputBytes = 558'170'112 + 16'384;
// llama.cpp compute buffer, -ub 512 f32 rows: MLP + hidden (14336 + 4096),
// and on the card with the output the logits (128256) too.
// The compute buffer of current llama-server: the MLP's gate, up and product
// rows and the hidden row for the 512-token micro-batch, and on the card with
// the output one logits row per sequence (ggml-org/llama.cpp#23861).
constexpr std::int64_t kComputeBytes = 512 * (3 * 14336 + 4096) * 4;       // 92 MiB
constexpr std::int64_t kComputeWithLogitsBytes = kComputeBytes + 128256 * 4;  // 92.49 MiB
// Usable: driver MiB (nvidia-smi) - 457 MiB CUDA context - 1024 MiB
// --fit-target. The context is charged there only, not again in the buffers.
constexpr std::int64_t kUsable3090 = (24576 - 457 - 1024) * MiB;  // 23095 MiB
constexpr std::int64_t kUsable3060 = (12288 - 457 - 1024) * MiB;  // 10807 MiB

Scenario three_cards(std::int64_t ctx) {
  Scenario s;
  s.quant = quant_scheme_from_name("Q8_0").value();
  s.context_tokens = ctx;
  s.prompt_tokens = 4096;
  REQUIRE_FALSE(set_cards(s, {test::device_of("rtx-3090"), test::device_of("rtx-3090"), test::device_of("rtx-3060-12gb")}));
  return s;
}

}  // namespace

TEST_CASE("equal ids are equal cards; unequal ones a mixed list", "[mixed]") {
  Scenario s;
  REQUIRE_FALSE(set_cards(s, {test::device_of("rtx-3090"), test::device_of("rtx-3090")}));
  CHECK(s.cards.empty());
  CHECK(s.gpu_count == 2);
  CHECK(s.device->id == "rtx-3090");
  s = three_cards(8192);
  CHECK(s.cards.size() == 3);
  CHECK(s.gpu_count == 3);
  CHECK(card_ids(s) == "rtx-3090,rtx-3090,rtx-3060-12gb");
}

TEST_CASE("llama.cpp's split of layers by free memory", "[mixed]") {
  // Free 1, 1, 2 over 9 GPU layers (+ 1 output = 10): cumulative shares 0.25,
  // 0.5, 1; layer r goes to the first card whose share exceeds r / 10:
  // r = 0..2 (0, .1, .2 < .25) -> card 0, r = 3, 4 -> card 1, r = 5..8 -> card 2.
  const auto ranges = layer_split_by_free_memory({1.0, 1.0, 2.0}, 0, 9);
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0] == std::make_pair(0, 3));
  CHECK(ranges[1] == std::make_pair(3, 5));
  CHECK(ranges[2] == std::make_pair(5, 9));
  // Offloaded first layers shift the ranges; a card with no room gets none.
  const auto shifted = layer_split_by_free_memory({1.0, 0.0, 1.0}, 4, 4);
  // Shares 0.5, 0.5, 1 over 4 + 1 layers: r = 0, 1, 2 (0, .2, .4 < .5) on
  // card 0, r = 3 (.6) on card 2.
  CHECK(shifted[0] == std::make_pair(4, 7));
  CHECK(shifted[1] == std::make_pair(7, 7));
  CHECK(shifted[2] == std::make_pair(7, 8));
}

TEST_CASE("2 x RTX 3090 + RTX 3060: per-card layers, weights, KV and fit", "[mixed]") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  auto e = estimate(arch, three_cards(8192));
  REQUIRE(e);
  const auto& g = e.value().memory.per_gpu;
  REQUIRE(g.size() == 3);
  // Free per card = usable - compute buffer:
  //   3090: 23095 - 92 = 23003 MiB (twice); 3060: 10807 - 92.49 = 10714.51 MiB.
  // Cumulative shares 23003 / 56720.51 = 0.40555, 0.81111, 1. Over 32 + 1 layers,
  // layer r is on card 0 while r / 33 < 0.40555 (r <= 13), on card 1 while
  // r / 33 < 0.81111 (r <= 26), then on the 3060 with the output.
  CHECK(g[0].first_layer == 0);
  CHECK(g[0].last_layer == 14);
  CHECK(g[1].first_layer == 14);
  CHECK(g[1].last_layer == 27);
  CHECK(g[2].first_layer == 27);
  CHECK(g[2].last_layer == 32);
  CHECK(g[0].weights_bytes == 14 * kLayerWeightBytes);                 // 3,244,752,896
  CHECK(g[1].weights_bytes == 13 * kLayerWeightBytes);                 // 3,012,984,832
  CHECK(g[2].weights_bytes == 5 * kLayerWeightBytes + kOutputBytes);   // 1,717,026,816
  CHECK(g[0].kv_cache_bytes == 14 * kLayerKvBytes);                    // 469,762,048
  CHECK(g[1].kv_cache_bytes == 13 * kLayerKvBytes);
  CHECK(g[2].kv_cache_bytes == 5 * kLayerKvBytes);                     // 167,772,160
  CHECK(g[0].runtime_bytes == kComputeBytes);            // 96,468,992
  CHECK(g[2].runtime_bytes == kComputeWithLogitsBytes);  // 96,982,016
  CHECK(g[0].usable_bytes == kUsable3090);
  CHECK(g[2].usable_bytes == kUsable3060);
  // 3090: 3,752,263,680 of 24,216,862,720; 3060: 2,185,216,000 of 11,331,960,832.
  CHECK(g[2].required_bytes == 5 * kLayerWeightBytes + kOutputBytes + 5 * kLayerKvBytes + kComputeWithLogitsBytes);
  for (const GpuShare& share : g) CHECK(share.fits);
  CHECK(e.value().memory.fits == true);
  CHECK(*e.value().memory.usable_bytes == 2 * kUsable3090 + kUsable3060);

  // At 131072 tokens the KV is 16 x 33,554,432 = 512 MiB a layer: card 0's
  // 14 layers need 3,244,752,896 + 7,516,192,768 + 516,947,968 = 11.28 GB of
  // 24.2, but the 3060's 5 layers need 1,717,026,816 + 2,684,354,560 +
  // 779,616,256 = 5.18 GB of 11.3: every card is checked against its own bytes.
  auto long_ctx = estimate(arch, three_cards(131072));
  REQUIRE(long_ctx);
  for (const GpuShare& share : long_ctx.value().memory.per_gpu) CHECK(share.fits);
  // Beyond what any card holds: the verdict is each card's.
  auto too_long = estimate(arch, three_cards(1 << 20));
  REQUIRE(too_long);
  CHECK(too_long.value().memory.fits == false);
}

TEST_CASE("2 x RTX 3090 + RTX 3060: decode is each card's share of the step, one after another", "[mixed]") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  const Scenario s = three_cards(8192);
  auto e = estimate(arch, s);
  REQUIRE(e);
  REQUIRE(e.value().speed);
  const SpeedEstimate& sp = *e.value().speed;
  // The fitted constants, read from the build (a refit moves them, not the formula).
  const SpeedConstants& k = speed_constants();
  const double efficiency = backend_calibration(Backend::cuda, "nvidia").bandwidth_efficiency;
  const double overhead = runtime_calibration(EngineFamily::llama_cpp, Backend::cuda, "nvidia").layer_overhead_s;
  const double weight_factor = weight_calibration(weight_family(s.quant, arch.native_format)).bandwidth_factor;
  // Each card: its weights over bandwidth x efficiency x the format's factor,
  // its KV over bandwidth x efficiency, and its layers' fixed cost.
  auto card_s = [&](double weights, double kv, int layers, double bandwidth_gbs) {
    const double rate = bandwidth_gbs * 1e9 * efficiency;
    return weights / (rate * weight_factor) + kv / rate + layers * overhead;
  };
  const double c0 = card_s(14.0 * kLayerWeightBytes, 14.0 * kLayerKvBytes, 14, 936);
  const double c1 = card_s(13.0 * kLayerWeightBytes, 13.0 * kLayerKvBytes, 13, 936);
  const double c2 = card_s(5.0 * kLayerWeightBytes + kOutputBytes, 5.0 * kLayerKvBytes, 5, 360);
  REQUIRE(sp.decode_seconds_per_gpu.size() == 3);
  CHECK_THAT(sp.decode_seconds_per_gpu[0], WithinRel(c0, 1e-9));
  CHECK_THAT(sp.decode_seconds_per_gpu[1], WithinRel(c1, 1e-9));
  CHECK_THAT(sp.decode_seconds_per_gpu[2], WithinRel(c2, 1e-9));
  // Two boundaries, each a hand-off (layer_split_hop_s) and 4096 x 2 bytes over PCIe.
  const double step = c0 + c1 + c2 + 2.0 * (k.layer_split_hop_s + 4096.0 * 2.0 / k.pcie_bytes_per_s);
  CHECK_THAT(sp.decode_tokens_per_s, WithinRel(1.0 / step, 1e-9));
  // Right after the 4096-token prompt each card reads half its layers' cache
  // (4096 of 8192 cells); the first token comes after that step.
  const double after = card_s(14.0 * kLayerWeightBytes, 7.0 * kLayerKvBytes, 14, 936) +
                       card_s(13.0 * kLayerWeightBytes, 6.5 * kLayerKvBytes, 13, 936) +
                       card_s(5.0 * kLayerWeightBytes + kOutputBytes, 2.5 * kLayerKvBytes, 5, 360) +
                       2.0 * (k.layer_split_hop_s + 4096.0 * 2.0 / k.pcie_bytes_per_s);
  CHECK(sp.after_prompt_cached_tokens == 4096);
  CHECK_THAT(sp.decode_tokens_per_s_after_prompt, WithinRel(1.0 / after, 1e-9));
  CHECK_THAT(sp.ttft_s, WithinRel(sp.prefill_time.total_s + after, 1e-9));
  // The 3060 reads 2.6 of the 8.4 GB (31%) at 360 GB/s: its share is the longest.
  CHECK(sp.decode_seconds_per_gpu[2] > sp.decode_seconds_per_gpu[0]);
  // Three 3090s hold the same model faster: the 3060's bandwidth is what it costs.
  Scenario equal = s;
  REQUIRE_FALSE(set_cards(equal, std::vector<Device>(3, test::device_of("rtx-3090"))));
  auto fast = estimate(arch, equal);
  REQUIRE(fast);
  CHECK(fast.value().speed->decode_tokens_per_s > sp.decode_tokens_per_s);
  // Prefill pipelines through the cards, paced by the slowest stage (GeForce
  // cards realize little of the overlap): slower than three 3090s.
  CHECK(sp.prefill_tokens_per_s > 0.0);
  CHECK(sp.prefill_tokens_per_s < fast.value().speed->prefill_tokens_per_s);
}

TEST_CASE("mixed cards: cost, engines and launch command", "[mixed]") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario s = three_cards(8192);
  auto e = estimate(arch, s);
  REQUIRE(e);
  // Purchase: 700 + 700 + 339 USD: the RTX 3090s used (no longer sold new
  // by NVIDIA since 2023-03; "GPU purchased used: $700", local-llm.net 2026,
  // sourced_superseded_7c.json), the RTX 3060 12GB at its cheapest new Newegg
  // price of 2026-03-03 (SiliconValueIndex); power at 350 + 350 + 170 W.
  REQUIRE(e.value().cost.purchase_usd);
  CHECK_THAT(*e.value().cost.purchase_usd, WithinRel(700.0 + 700.0 + 339.0, 1e-9));
  CHECK_THAT(*e.value().cost.power_usd_per_month, WithinRel(870.0 / 1000.0 * 0.15 * 24.0 * (365.25 / 12.0), 1e-6));
  // One card without a price: the purchase is unknown, not a partial sum.
  Scenario unpriced = s;
  unpriced.cards[2].price_usd.reset();
  auto e2 = estimate(arch, unpriced);
  REQUIRE(e2);
  CHECK_FALSE(e2.value().cost.purchase_usd);

  for (InferenceEngine engine : {InferenceEngine::vllm, InferenceEngine::sglang, InferenceEngine::tensorrt_llm}) {
    Scenario tp = s;
    tp.engine = engine;
    auto refused = estimate(arch, tp);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("tensor parallel") != std::string::npos);
    CHECK(refused.error().message.find("equal cards") != std::string::npos);
  }

  SizedModel model;
  model.entry = test::catalog().find_model("llama-3.1-8b");
  model.architecture = &arch;
  model.label = "llama-3.1-8b";
  const auto commands = launch_commands(model, s, e.value());
  // Free MiB per card as the split used them: 23095 - 92 = 23003 twice,
  // 10807 - 92.49 = 10714.51, printed rounded to 10715.
  const std::string& llama = commands[0].steps.at(0);
  CHECK(llama.find("--tensor-split 23003,23003,10715") != std::string::npos);
  CHECK(llama.find("-ngl 999") != std::string::npos);
  CHECK(commands[2].steps.empty());  // vllm
  CHECK(commands[2].note.find("needs equal cards") != std::string::npos);
  CHECK(commands[2].note.find("(rtx-3090,rtx-3090,rtx-3060-12gb)") != std::string::npos);
  CHECK(commands[0].note.find("CUDA device order (rtx-3090,rtx-3090,rtx-3060-12gb)") != std::string::npos);
  CHECK(commands[3].steps.empty());  // sglang
}

TEST_CASE("mixed cards through the JSON request and the planner's what-fits", "[mixed]") {
  const Sizer sizer(test::catalog());
  const auto answer = nlohmann::json::parse(estimate_response(
      sizer, R"({"model": "llama-3.1-8b", "quant": "Q8_0", "ctx": 8192, "gpu": "rtx-3090,rtx-3090,rtx-3060-12gb"})"));
  REQUIRE(answer["ok"] == true);
  CHECK(answer["scenario"]["cards"] == nlohmann::json::array({"rtx-3090", "rtx-3090", "rtx-3060-12gb"}));
  CHECK(answer["scenario"]["mixed_cards"] == true);
  CHECK(answer["scenario"]["gpus"] == 3);
  CHECK(answer["memory"]["per_gpu"][2]["gpu"] == "rtx-3060-12gb");
  CHECK(answer["memory"]["per_gpu"][2]["first_layer"] == 27);
  CHECK(answer["memory"]["per_gpu"][2]["decode_s"].is_number());
  CHECK(answer["commands"]["llama.cpp"]["steps"][0].get<std::string>().find("--tensor-split 23003,23003,10715") !=
        std::string::npos);

  const auto wrong_count = nlohmann::json::parse(
      estimate_response(sizer, R"({"model": "llama-3.1-8b", "gpu": "rtx-3090,rtx-3060-12gb", "gpus": 3})"));
  CHECK(wrong_count["ok"] == false);
  const auto unknown = nlohmann::json::parse(estimate_response(sizer, R"({"model": "llama-3.1-8b", "gpu": "rtx-3090,nope"})"));
  CHECK(unknown["error"]["message"] == "unknown GPU 'nope' in the list 'rtx-3090,nope'");
  const auto vllm = nlohmann::json::parse(
      estimate_response(sizer, R"({"model": "llama-3.1-8b", "engine": "vllm", "gpu": "rtx-3090,rtx-3060-12gb"})"));
  CHECK(vllm["ok"] == false);

  // What can I run on 24 + 12 GB: Llama-3.1-8B at Q8_0 fits (about 10 GB).
  const auto fits = nlohmann::json::parse(fit_response(sizer, R"({"gpu": "rtx-3090,rtx-3060-12gb", "ctx": 8192})"));
  REQUIRE(fits["ok"] == true);
  bool found = false;
  for (const auto& r : fits["results"]) found = found || (r["model"] == "llama-3.1-8b" && r["quant"] == "Q8_0");
  CHECK(found);
}

TEST_CASE("mixed cards have peer access only when every card has it", "[mixed]") {
  // An RTX A6000 (workstation: peer access) beside an RTX 3090 (GeForce: none):
  // their copies go through host memory, so the pair pipelines as GeForce cards
  // do, and says so, whichever card is listed first.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  for (const bool geforce_first : {false, true}) {
    Scenario s;
    s.quant = quant_scheme_from_name("Q8_0").value();
    s.context_tokens = 8192;
    s.prompt_tokens = 4096;
    const Device a6000 = test::device_of("rtx-a6000");
    const Device rtx3090 = test::device_of("rtx-3090");
    REQUIRE_FALSE(set_cards(s, geforce_first ? std::vector<Device>{rtx3090, a6000} : std::vector<Device>{a6000, rtx3090}));
    auto e = estimate(arch, s);
    REQUIRE(e);
    REQUIRE(e.value().speed);
    CHECK_FALSE(e.value().speed->basis.peer_access);
  }
  Scenario both;
  both.quant = quant_scheme_from_name("Q8_0").value();
  both.context_tokens = 8192;
  both.prompt_tokens = 4096;
  REQUIRE_FALSE(set_cards(both, {test::device_of("rtx-a6000"), test::device_of("rtx-6000-ada")}));
  auto e = estimate(arch, both);
  REQUIRE(e);
  CHECK(e.value().speed->basis.peer_access);
}
