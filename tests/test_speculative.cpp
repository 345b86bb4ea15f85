// Speculative decoding (issue 23, draft models): the draft's memory counted by
// hand, and the speed-up range from the standard expected-tokens formula.
#include "llmsizer/json_contract.hpp"
#include "llmsizer/speculative.hpp"
#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using namespace llmsizer;

TEST_CASE("expected tokens per step: (1 - a^(k+1)) / (1 - a)", "[speculative]") {
  // k = 4: 1 + .6 + .36 + .216 + .1296 = 2.3056; 1 + .8 + .64 + .512 + .4096 = 3.3616.
  CHECK_THAT(expected_tokens_per_step(0.6, 4), WithinRel(2.3056, 1e-12));
  CHECK_THAT(expected_tokens_per_step(0.8, 4), WithinRel(3.3616, 1e-12));
  CHECK(expected_tokens_per_step(1.0, 4) == 5.0);
  CHECK(expected_tokens_per_step(0.0, 4) == 1.0);
  // A step of 10 ms plus 4 drafts of 1 ms yields 2.3056 tokens in 14 ms: x 1.6469.
  CHECK_THAT(speculative_speedup(0.6, 4, 0.010, 0.001), WithinRel(2.3056 * 10.0 / 14.0, 1e-12));
}

TEST_CASE("Llama-3.1-8B drafted by Llama-3.2-1B: memory and speed range", "[speculative]") {
  const Architecture target = test::catalog_arch("llama-3.1-8b");
  const Architecture draft = test::catalog_arch("llama-3.2-1b");
  Scenario s;
  s.quant = quant_scheme_from_name("Q8_0").value();
  s.context_tokens = 8192;
  s.device = test::device_of("rtx-4090");
  auto plain = estimate(target, s);
  DraftModel d;
  d.arch = std::make_shared<const Architecture>(draft);
  d.label = "llama-3.2-1b";
  s.draft = d;
  auto drafted = estimate(target, s);
  REQUIRE(plain);
  REQUIRE(drafted);
  const MemoryEstimate& m = drafted.value().memory;
  // Llama-3.2-1B (hidden 2048, 16 layers, 32 heads, 8 KV heads of 64,
  // intermediate 8192, tied embeddings) at Q8_0:
  //   per layer q, o 2048^2 + k, v 2048 x 512 + 3 x 2048 x 8192 = 60,817,408
  //     weights x 34/32 = 64,618,496 + two F32 norms 16,384 = 64,634,880; x 16 = 1,034,158,080
  //   embedding 128256 x 2048 at Q8_0 = 279,085,056 (tied: it is also the head,
  //     so llama.cpp keeps it on the GPU), output norm 8,192
  CHECK(m.draft_weights_bytes == 1'034'158'080 + 279'085'056 + 8'192);
  // Its KV at the same 8192 cells: 2 x 8 x 64 x 8192 x 2 bytes x 16 layers.
  CHECK(m.draft_kv_cache_bytes == 2 * 8 * 64 * 8192 * 2 * 16);  // 268,435,456
  // Its compute buffer: the MLP's gate, up and product rows and the hidden
  // row, 512 x (3 x 8192 + 2048) x 4 bytes, and one row of logits for the
  // one sequence (llama-server since ggml-org/llama.cpp#23861): 128256 x 4.
  CHECK(m.draft_runtime_bytes == 512 * (3 * 8192 + 2048) * 4 + 128256 * 4);  // 55,038,976
  const std::int64_t draft_total = m.draft_weights_bytes + m.draft_kv_cache_bytes + m.draft_runtime_bytes;
  CHECK(m.per_gpu.front().draft_bytes == draft_total);
  CHECK(m.required_bytes - plain.value().memory.required_bytes == draft_total);

  REQUIRE(drafted.value().speed);
  REQUIRE(drafted.value().speed->speculative);
  const SpeculativeEstimate& x = *drafted.value().speed->speculative;
  // The step without speculation is unchanged; the draft's step is its own
  // decode on the same card, estimated alone.
  CHECK(drafted.value().speed->decode_tokens_per_s == plain.value().speed->decode_tokens_per_s);
  Scenario alone = s;
  alone.draft.reset();
  auto draft_alone = estimate(draft, alone);
  REQUIRE(draft_alone);
  const double t_draft = 1.0 / draft_alone.value().speed->decode_tokens_per_s;
  const double t_model = 1.0 / plain.value().speed->decode_tokens_per_s;
  CHECK_THAT(x.draft_step_s, WithinRel(t_draft, 1e-12));
  // Range: base x E(a, 4) x t_model / (t_model + 4 t_draft) for a = 0.6 and 0.8.
  CHECK_THAT(x.decode_tokens_per_s_low, WithinRel(2.3056 / (t_model + 4.0 * t_draft), 1e-9));
  CHECK_THAT(x.decode_tokens_per_s_high, WithinRel(3.3616 / (t_model + 4.0 * t_draft), 1e-9));
  CHECK(x.decode_tokens_per_s_high > x.decode_tokens_per_s_low);
  CHECK(x.decode_tokens_per_s_low > plain.value().speed->decode_tokens_per_s);
}

TEST_CASE("MTP layers draft only where the model has them and the files keep them", "[speculative]") {
  const Sizer sizer(test::catalog());
  const auto none = nlohmann::json::parse(estimate_response(sizer, R"({"model": "llama-3.1-8b", "draft": "mtp"})"));
  CHECK(none["ok"] == false);
  CHECK(none["error"]["message"].get<std::string>().find("no multi-token-prediction layers") != std::string::npos);
  // DeepSeek-V3's GGUF drops its MTP layer (llama.cpp's converter).
  const auto gguf = nlohmann::json::parse(estimate_response(sizer, R"({"model": "deepseek-v3", "draft": "mtp"})"));
  CHECK(gguf["ok"] == false);
  // Served as FP8 by vLLM: its one MTP layer's latent KV, 576 x 2 bytes x 8192 cells.
  const auto served = nlohmann::json::parse(estimate_response(
      sizer, R"({"model": "deepseek-v3", "quant": "FP8", "engine": "vllm", "kv": "bf16", "draft": "mtp", "gpu": "h200-sxm", "gpus": 8})"));
  REQUIRE(served["ok"] == true);
  CHECK(served["memory"]["draft_kv_cache_bytes"] == 576 * 2 * 8192);
  CHECK(served["scenario"]["draft_tokens"] == 1);
  CHECK(served["speed"]["speculative"]["tokens_per_step_low"] == 1.6);
  // Without drafting, vLLM and SGLang skip the MTP layer when they load the
  // checkpoint (their deepseek_v2.py load_weights): its bytes leave the GPUs.
  // With it, they are loaded: the difference is the layer's weights exactly.
  const std::int64_t mtp_bytes = served["weights"]["mtp_bytes"].get<std::int64_t>();
  REQUIRE(mtp_bytes > 10'000'000'000);  // one DeepSeek-V3 layer of 256 FP8 experts, ~11.6 GB
  for (const char* engine : {"vllm", "sglang"}) {
    const auto plain = nlohmann::json::parse(estimate_response(
        sizer, std::string(R"({"model": "deepseek-v3", "quant": "FP8", "kv": "bf16", "gpu": "h200-sxm", "gpus": 8, "engine": ")") +
                   engine + "\"}"));
    REQUIRE(plain["ok"] == true);
    CHECK(served["memory"]["weights_bytes"].get<std::int64_t>() - plain["memory"]["weights_bytes"].get<std::int64_t>() ==
          mtp_bytes);
  }
  const auto unknown = nlohmann::json::parse(estimate_response(sizer, R"({"model": "llama-3.1-8b", "draft": "nope"})"));
  CHECK(unknown["error"]["message"] == "draft: unknown model 'nope'");
}
