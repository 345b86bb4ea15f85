// Served speed under load (issue 35): a scheduler step that carries a prompt
// chunk, the experts a step's tokens touch, the balance between decoding and
// waiting prompts, the wait before the first token, and the curve's
// saturation point. Expected values are worked out by hand in the comments.
#include <cmath>

#include "llmsizer/serve.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/speed.hpp"
#include "llmsizer/speed_calibration.hpp"
#include "llmsizer/speed_work.hpp"
#include "speed_rates.hpp"
#include "test_support.hpp"

using Catch::Matchers::WithinRel;
using namespace llmsizer;

namespace {

Scenario served_scenario(const char* gpu, const char* quant, std::int64_t in, std::int64_t out, std::int64_t c) {
  Scenario s;
  s.device = test::device_of(gpu);
  s.engine = InferenceEngine::vllm;
  s.quant = quant_scheme_from_name(quant).value();
  s.kv_type = KvType::bf16;
  s.prompt_tokens = in;
  s.output_tokens = out;
  s.context_tokens = in + out;
  s.sequences = c;
  return s;
}

Estimate run(const Architecture& arch, const Scenario& s) {
  auto e = estimate(arch, s);
  if (!e) FAIL(e.error().message);
  return e.value();
}

}  // namespace

TEST_CASE("a step that carries a prompt chunk adds the chunk's FLOPs, not its weights (dense)", "[served]") {
  // Llama 3.1 8B: 32 layers, 32 query heads of 128, hidden 4096, vocab 128256,
  // untied head. Matrix weights per token: active 8,030,261,248 less the
  // 525,336,576 embedding lookup = 7,504,924,672 with the head; a prompt token
  // skips the head (its logits are not needed): 6,979,588,096. At position 512
  // it attends to 512 tokens: 32 layers x 2 x 32 heads x (128 + 128) x 512 =
  // 268,435,456. Per prompt token 2 x 6,979,588,096 + 268,435,456 =
  // 14,227,611,648 FLOPs; a 1024-token chunk 14,569,074,327,552. A dense
  // model's step reads every weight already: no more bytes.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  const Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, 8);
  const Estimate e = run(arch, s);
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(s, 1536));
  const StepWork decode = decode_step_work(arch, s, e, 8, cache, 1536);
  const StepWork mixed = served_step_work(arch, s, e, 8, cache, 1536, 1024, 512.0);
  CHECK(mixed.flops - decode.flops == 14569074327552.0);
  CHECK(mixed.gpu_weight_bytes == decode.gpu_weight_bytes);
  CHECK(mixed.gpu_kv_bytes == decode.gpu_kv_bytes);
  CHECK(mixed.gemm_rows == 8.0 + 1024.0);
}

TEST_CASE("a step's tokens touch more experts than its decoding sequences alone", "[served]") {
  // Qwen3-30B-A3B: 128 routed experts per layer, 8 used per token. A token
  // misses a given expert with probability 120/128 = 15/16; 8 decoding
  // sequences touch 1 - (15/16)^8 = 40.33% of the experts, the same step
  // with a 56-token chunk (64 tokens) 1 - (15/16)^64 = 98.38%. The step reads
  // the difference, (15/16)^8 - (15/16)^64 = 0.5967 - 0.0162 = 0.5806 of the
  // routed-expert bytes, more.
  const Architecture arch = test::catalog_arch("qwen3-30b-a3b");
  const Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, 8);
  const Estimate e = run(arch, s);
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(s, 1536));
  const StepWork decode = decode_step_work(arch, s, e, 8, cache, 1536);
  const StepWork mixed = served_step_work(arch, s, e, 8, cache, 1536, 56, 512.0);
  const double share = std::pow(15.0 / 16.0, 8) - std::pow(15.0 / 16.0, 64);
  CHECK_THAT(share, WithinRel(0.5806, 1e-3));
  CHECK_THAT(mixed.gpu_weight_bytes - decode.gpu_weight_bytes,
             WithinRel(static_cast<double>(e.weights.routed_expert_bytes) * share, 1e-9));
  // Each touched expert multiplies the tokens routed to it: 64 x 8 / 128 = 4
  // routings per expert on average, over the 98.39% of experts touched
  // (1 - e^(64 ln(15/16)) = 1 - 0.016079): 4 / 0.983921 = 4.0654 rows. Eight
  // decoding tokens alone: 8 x 8 / 128 = 0.5 over 40.33%: 1.2398 rows, not half a row.
  CHECK_THAT(mixed.expert_rows, WithinRel(4.0 / 0.983921, 1e-5));
  const StepWork decode_only = served_step_work(arch, s, e, 8, cache, 1536, 0, 0.0);
  CHECK_THAT(decode_only.expert_rows, WithinRel(0.5 / (1.0 - std::pow(15.0 / 16.0, 8)), 1e-9));
  CHECK_THAT(decode_only.expert_rows, WithinRel(1.2398, 1e-4));
}

TEST_CASE("prompts that arrive faster than the budget takes them hold back the decoding", "[served]") {
  // Requests of 8000 tokens in and 1000 out, a 512-token step budget. In
  // steady state D requests decode and finish D/1000 a step, bringing
  // D x 8000/1000 = 8 D prompt tokens a step; the budget leaves 512 - D for
  // them. Balance: 8 D = 512 - D, D = 512 x 1000 / 9000 = 56.89. With 128 in
  // flight, the rest wait their turn: every step carries a chunk.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario s = served_scenario("h200-sxm", "FP8", 8000, 1000, 128);
  s.prefill_ubatch_tokens = 512;
  const Estimate e = run(arch, s);
  REQUIRE(e.speed);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  REQUIRE(v.admitted_concurrency > 57);  // the pool is not what limits it
  CHECK(v.prefill_bound);
  CHECK_THAT(v.decoding_concurrency, WithinRel(512.0 * 1000.0 / 9000.0, 1e-12));
  CHECK(v.prefill_step_share == 1.0);
  CHECK_THAT(v.tpot_s, WithinRel(v.mixed_step_time.total_s, 1e-12));
  CHECK_THAT(v.output_tokens_per_s, WithinRel(v.decoding_concurrency / v.tpot_s, 1e-12));
}

TEST_CASE("the first token waits for the requests ahead: Little's law in a closed loop", "[served]") {
  // 1024 in, 1024 out, 512 clients on one H100 under vLLM: more than the KV
  // pool admits (A of them), so 512 - A wait. vLLM's pool holds the blocks
  // sequences have filled: in steady state a running request holds its prompt
  // and half its answer, 1536 tokens, not its 2048-token window, so the pool
  // that holds M whole windows runs floor(M x 2048 / 1536) requests (Llama 3.1
  // 8B caches 128 KiB per token in every layer: the bytes scale with tokens).
  // Requests finish at A/1024 a step; by Little's law each waits
  // (512 - A) x 1024 / A steps before it decodes, its own prompt's steps
  // included: steps of the mean length, every request's prompt chunks among
  // them, A / (output tokens/s) each, so (512 - A) x 1024 / (output tokens/s). With the pool not full (64 clients), the wait is a queue
  // for the budget's prompt room only: far shorter than the closed loop's.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  const Estimate crowded = run(arch, served_scenario("h100-sxm", "BF16-native", 1024, 1024, 512));
  REQUIRE(crowded.speed->served);
  const ServedEstimate& v = *crowded.speed->served;
  REQUIRE(v.admitted_concurrency < 512);
  CHECK(v.admitted_concurrency == *crowded.memory.max_concurrent_sequences * 2048 / 1536);
  const double a = static_cast<double>(v.admitted_concurrency);
  const double before_decode_s = (512.0 - a) * 1024.0 / v.output_tokens_per_s;
  // The prompt's 1024 tokens fit one step of vLLM's 8192-token budget on an H100.
  CHECK_THAT(v.queue_s, WithinRel(before_decode_s - v.mixed_step_time.total_s, 1e-9));
  // On top, the engine's fixed cost per request (vLLM on CUDA: its fitted row).
  CHECK(v.request_overhead_s == served_calibration(InferenceEngine::vllm, Backend::cuda, "float16")
                                    .factors.request_overhead_s);
  CHECK_THAT(v.ttft_s, WithinRel(v.request_overhead_s + before_decode_s + v.decode_step_time.total_s, 1e-9));

  const Estimate calm = run(arch, served_scenario("h100-sxm", "BF16-native", 1024, 1024, 16));
  const ServedEstimate& w = *calm.speed->served;
  CHECK(w.admitted_concurrency == 16);
  CHECK(w.queue_s < 0.1 * w.ttft_s);
  CHECK(v.ttft_s > 20.0 * w.ttft_s);
  // Idle, one request's first token is the engine's cost per request, its
  // prompt (one step: 1024 tokens in the 8192-token budget) and the step that
  // returns the token; it hardly waits.
  const Estimate idle = run(arch, served_scenario("h100-sxm", "BF16-native", 1024, 1024, 1));
  const ServedEstimate& one = *idle.speed->served;
  CHECK(one.queue_s < 0.01 * one.ttft_s);
  CHECK_THAT(one.ttft_s, WithinRel(one.request_overhead_s + one.queue_s + one.mixed_step_time.total_s +
                                       one.decode_step_time.total_s, 1e-9));
}

TEST_CASE("the serve curve stops where more requests no longer decode at once, its peak there", "[served]") {
  // The prompt-bound mix above: decoding grows 1, 2, 4, ..., 32, then stops
  // at the balance 56.89 from 64 requests on; the sweep runs to the first
  // point that adds none (128) and the peak output is at 64.
  const Sizer sizer(test::catalog());
  SizerRequest r;
  r.model_id = "llama-3.1-8b";
  auto model = sizer.model_for(r);
  REQUIRE(model);
  Scenario s = served_scenario("h200-sxm", "FP8", 8000, 1000, 1);
  s.prefill_ubatch_tokens = 512;
  auto curve = serve_curve(sizer, model.value(), s, {}, 0.0);
  REQUIRE(curve);
  const ServeCurve& c = curve.value();
  REQUIRE(c.points.size() == 8);  // 1, 2, 4, ..., 128
  CHECK(c.points.back().concurrency == 128);
  CHECK_THAT(c.points[6].served.decoding_concurrency, WithinRel(512.0 * 1000.0 / 9000.0, 1e-12));
  REQUIRE(c.saturation);
  CHECK(c.points[*c.saturation].concurrency == 64);
  for (std::size_t i = 1; i <= 6; ++i)
    CHECK(c.points[i].served.output_tokens_per_s > c.points[i - 1].served.output_tokens_per_s);
  // A target of the speed at 16 requests is met up to 16, not beyond.
  const double at16 = c.points[4].served.tokens_per_s_per_user;
  auto targeted = serve_curve(sizer, model.value(), s, {1, 4, 16, 32}, at16);
  REQUIRE(targeted);
  REQUIRE(targeted.value().target);
  CHECK(targeted.value().points[*targeted.value().target].concurrency == 16);
  const Json j = serve_curve_to_json(targeted.value());
  CHECK(j["target"] == 16);
  CHECK(j["points"].size() == 4);
  // Bad input: one message, no curve.
  auto bad = serve_curve(sizer, model.value(), s, {0}, 0.0);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().id == "serve.bad_value");
}

TEST_CASE("a target speed per user is met only where every request in flight runs", "[served]") {
  // gpt-oss-120b on one H100 under vLLM, 1024 in and 1024 out: the KV pool
  // holds max_concurrency such requests; at 256 in flight the rest queue for
  // a place and wait seconds for their first token, whatever the running
  // ones decode at. The target is the busiest point with none waiting.
  const Sizer sizer(test::catalog());
  SizerRequest r;
  r.model_id = "gpt-oss-120b";
  auto model = sizer.model_for(r);
  REQUIRE(model);
  Scenario s = served_scenario("h100-sxm", "native", 1024, 1024, 1);
  auto curve = serve_curve(sizer, model.value(), s, {}, 20.0);
  REQUIRE(curve);
  const ServeCurve& c = curve.value();
  REQUIRE(c.max_concurrency);
  REQUIRE(c.points.back().concurrency > *c.max_concurrency);  // the sweep reaches the queue
  REQUIRE(c.target);
  const ServePoint& t = c.points[*c.target];
  CHECK(t.served.admitted_concurrency == t.concurrency);
  CHECK(t.concurrency <= *c.max_concurrency);
  CHECK(t.served.tokens_per_s_per_user >= 20.0);
  for (const ServePoint& p : c.points)
    if (p.served.admitted_concurrency == p.concurrency && p.served.tokens_per_s_per_user >= 20.0)
      CHECK(p.served.output_tokens_per_s <= t.served.output_tokens_per_s);
  // The peak itself queues: it is not the answer to a speed per user.
  REQUIRE(c.saturation);
  CHECK(c.points[*c.saturation].served.admitted_concurrency < c.points[*c.saturation].concurrency);
}

TEST_CASE("each engine's step budget and request limit are its own defaults on the device", "[served]") {
  // vLLM V1's OpenAI server (vllm/engine/arg_utils.py, get_batch_defaults):
  // 8192 tokens and 1024 requests on 70 GiB or more unless an A100, else 2048
  // and 256. SGLang (server_args.py): 2048 below 35 GB of GPU memory, 8192
  // below 160 GB, 16384 above; no request limit but the pool.
  auto defaults = [](const char* gpu, InferenceEngine engine) {
    Scenario s = served_scenario(gpu, "BF16-native", 1024, 1024, 1);
    s.engine = engine;
    return scheduler_defaults(s);
  };
  CHECK(defaults("h100-sxm", InferenceEngine::vllm).token_budget == 8192);
  CHECK(defaults("h100-sxm", InferenceEngine::vllm).max_running_requests == 1024);
  CHECK(defaults("a100-80gb-sxm", InferenceEngine::vllm).token_budget == 2048);
  CHECK(defaults("a100-80gb-sxm", InferenceEngine::vllm).max_running_requests == 256);
  CHECK(defaults("l40s", InferenceEngine::vllm).token_budget == 2048);  // 48 GiB
  CHECK(defaults("rtx-4090", InferenceEngine::sglang).token_budget == 2048);
  CHECK(defaults("h200-sxm", InferenceEngine::sglang).token_budget == 8192);  // 141 GiB
  CHECK(defaults("b200", InferenceEngine::sglang).token_budget == 16384);     // 180 GiB
  CHECK(defaults("mi300x", InferenceEngine::sglang).max_running_requests == 0);
  CHECK(defaults("h100-sxm", InferenceEngine::llama_cpp).token_budget == 512);

  // 1000 short requests on an A100 under vLLM: the pool would hold more
  // (Llama 3.1 8B in BF16, 15 GiB, leaves some 54 GiB of the 72 GiB vLLM takes
  // for a 128 KiB-per-token cache: about 860 requests of 512 tokens), the
  // scheduler runs 256.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  const Estimate e = run(arch, served_scenario("a100-80gb-sxm", "BF16-native", 256, 256, 1000));
  REQUIRE(e.memory.max_concurrent_sequences);
  CHECK(*e.memory.max_concurrent_sequences > 256);
  CHECK(e.speed->served->max_concurrency == 256);
  CHECK(e.speed->served->admitted_concurrency == 256);
}

TEST_CASE("a request's own serving constants replace the fitted row's, and say so", "[served]") {
  // A fixed 10 ms per scheduler step adds 10 ms to every step (one pass each);
  // 0.1 s per request adds 0.1 s to the first token. Bandwidth and compute
  // factors of 1 leave the single-stream rates.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, 8);
  s.served_factors = ServedFactors{};
  const Estimate plain = run(arch, s);
  s.served_factors->step_overhead_s = 0.010;
  s.served_factors->request_overhead_s = 0.1;
  const Estimate slowed = run(arch, s);
  const ServedEstimate& a = *plain.speed->served;
  const ServedEstimate& b = *slowed.speed->served;
  CHECK(b.calibration_override);
  CHECK_THAT(b.decode_step_time.total_s - a.decode_step_time.total_s, WithinRel(0.010, 1e-9));
  CHECK_THAT(b.mixed_step_time.total_s - a.mixed_step_time.total_s, WithinRel(0.010, 1e-9));
  CHECK_THAT(b.tpot_s - a.tpot_s, WithinRel(0.010, 1e-9));
  CHECK(b.request_overhead_s == 0.1);
  // The single-stream decode step of the same eight sequences reads as much
  // as the served step without a chunk: neutral factors, no extra cost.
  CHECK(a.decode_step_work.gpu_weight_bytes == plain.speed->decode_batch_work.gpu_weight_bytes);
}

TEST_CASE("the host's work per running sequence grows each step with the batch", "[served]") {
  // 50 microseconds per sequence and step: 8 sequences add 8 x 50 us = 0.4 ms
  // to every step, 64 add 3.2 ms. A step gives each sequence one token, so
  // TPOT grows by D x 50 us and throughput D / TPOT stays below
  // 1 / 50 us = 20,000 tokens/s however large the batch. Everything else as
  // the neutral row.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  for (const std::int64_t d : {8, 64}) {
    Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, d);
    s.served_factors = ServedFactors{};
    const Estimate plain = run(arch, s);
    s.served_factors->sequence_overhead_s = 50e-6;
    const Estimate host = run(arch, s);
    const ServedEstimate& a = *plain.speed->served;
    const ServedEstimate& b = *host.speed->served;
    REQUIRE(a.decoding_concurrency == static_cast<double>(d));
    const double added_s = static_cast<double>(d) * 50e-6;
    CHECK_THAT(b.decode_step_time.total_s - a.decode_step_time.total_s, WithinRel(added_s, 1e-9));
    CHECK_THAT(b.mixed_step_time.total_s - a.mixed_step_time.total_s, WithinRel(added_s, 1e-9));
    CHECK_THAT(b.decode_step_time.overhead_s - a.decode_step_time.overhead_s, WithinRel(added_s, 1e-9));
    CHECK_THAT(b.tpot_s - a.tpot_s, WithinRel(added_s, 1e-9));
    CHECK(b.output_tokens_per_s < 1.0 / 50e-6);
  }
}

TEST_CASE("attention data parallel: each GPU holds its own sequences' whole cache and the whole attention", "[served]") {
  // DeepSeek-V3 (MLA), BF16 weights on 8 MI325X (256 GB: 1.34 TB of BF16 over
  // 8 leaves room), 16 sequences of 2048 tokens.
  // MLA caches one 512-wide latent and a 64-wide rotary key per token and
  // layer: (512 + 64) x 2 bytes x 61 layers = 70,272 bytes per token, 2048 x
  // 70,272 = 143,917,056 per sequence, 2,302,672,896 for the 16.
  // Tensor parallel keeps the latent whole on every GPU (all 2,302,672,896);
  // attention data parallel gives each GPU 16 / 8 = 2 sequences:
  // 287,834,112.
  // Attention weights per layer (config: hidden 7168, q_lora 1536, kv_lora
  // 512, 128 heads, nope 128 + rope 64 query dims, value 128):
  //   q_a 7168 x 1536 = 11,010,048; q_b 1536 x 128 x 192 = 37,748,736;
  //   kv_a 7168 x (512 + 64) = 4,128,768; kv_b 512 x 128 x (128 + 128) =
  //   16,777,216; o 128 x 128 x 7168 = 117,440,512; together 187,105,280,
  //   x 61 layers = 11,413,422,080 parameters, 22,826,844,160 bytes in BF16.
  // Tensor parallel already keeps q_a and kv_a whole on every GPU (vLLM's
  // ReplicatedLinear): (11,010,048 + 4,128,768) x 61 = 923,467,776 parameters,
  // 1,846,935,552 bytes. Data parallel keeps the rest whole too: 7/8 of
  // 22,826,844,160 - 1,846,935,552 = 20,979,908,608 more per GPU than tensor
  // parallel's eighth, 18,357,420,032 bytes.
  const Architecture arch = test::catalog_arch("deepseek-v3");
  Scenario tp = served_scenario("mi325x", "BF16-native", 1024, 1024, 16);
  tp.context_tokens = 2048;
  tp.gpu_count = 8;
  Scenario dp = tp;
  dp.attention_data_parallel = true;
  const Estimate a = run(arch, tp);
  const Estimate b = run(arch, dp);
  CHECK(a.weights.mixer_bytes == 22826844160);
  CHECK(a.memory.attention_ranks == 1);
  CHECK(b.memory.attention_ranks == 8);
  CHECK(a.memory.per_gpu.front().kv_cache_bytes == 2302672896);
  CHECK(b.memory.per_gpu.front().kv_cache_bytes == 287834112);
  CHECK(a.weights.tp_replicated_mixer_bytes == 1846935552);
  CHECK(b.memory.per_gpu.front().weights_bytes - a.memory.per_gpu.front().weights_bytes == 18357420032);
  // The pool: what a GPU leaves after its weights and buffers, in whole
  // sequences of 143,917,056 bytes, times the 8 GPUs that each hold their own.
  const GpuShare& g = b.memory.per_gpu.front();
  const std::int64_t pool = g.usable_bytes - (g.required_bytes - g.kv_cache_bytes);
  REQUIRE(b.memory.max_concurrent_sequences.has_value());
  CHECK(*b.memory.max_concurrent_sequences == pool / 143917056 * 8);
  // A decode step of the 16: each GPU reads its 2 sequences' cache (1/8 of the
  // batch's) and the whole attention weights.
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(dp, 2048));
  const StepWork wa = decode_step_work(arch, tp, a, 16, cache, 2048);
  const StepWork wb = decode_step_work(arch, dp, b, 16, cache, 2048);
  CHECK_THAT(wb.gpu_kv_bytes, WithinRel(wa.gpu_kv_bytes / 8.0, 1e-12));
  CHECK_THAT(wb.gpu_weight_bytes - wa.gpu_weight_bytes, WithinRel(18357420032.0, 1e-12));
  // No all-reduce after attention: one collective per layer (the FFN's), 61, not 122.
  CHECK(wa.allreduces == 122);
  CHECK(wb.allreduces == 61);
}

TEST_CASE("tensor parallel keeps MLA's down-projections and the router whole on every GPU", "[served]") {
  // DeepSeek-V3 (config: hidden 7168, q_lora 1536, kv_lora 512 + rope 64, 61
  // layers of which 58 MoE with 256 routed experts and a score-correction
  // bias). vLLM's deepseek_v2.py builds q_a and kv_a with disable_tp=True and
  // the router as one replicated GateLinear: each GPU holds and reads them all.
  //   q_a 7168 x 1536 = 11,010,048 and kv_a 7168 x 576 = 4,128,768 per layer,
  //   x 61 = 923,467,776; router 7168 x 256 = 1,835,008 and bias 256 per MoE
  //   layer, x 58 = 106,445,312. Together 1,029,913,088 parameters.
  const Architecture arch = test::catalog_arch("deepseek-v3");
  Scenario s = served_scenario("mi325x", "BF16-native", 1024, 1024, 16);
  s.context_tokens = 2048;
  s.gpu_count = 8;
  const Estimate e = run(arch, s);
  CHECK(e.weights.tp_replicated_params == 1029913088);
  CHECK(e.weights.tp_replicated_mixer_params == 923467776);
  // Bytes: q_a and kv_a at BF16, 923,467,776 x 2 = 1,846,935,552; the
  // routers and their bias as the engine keeps every router (F32,
  // tensor_stays_f32), 106,445,312 x 4 = 425,781,248; 2,272,716,800 in all.
  const std::int64_t whole = 2272716800;
  CHECK(e.weights.tp_replicated_bytes == whole);
  // Per GPU: an eighth of everything else, and the replicated bytes whole.
  // Every weight but the MTP layer (loaded only for speculative decoding) is on the GPUs.
  const std::int64_t on_gpus = e.weights.total_bytes - e.weights.mtp_bytes;
  CHECK(e.memory.per_gpu.front().weights_bytes == (on_gpus - whole) / 8 + whole);
  // A decode step of one sequence, against the same estimate with nothing
  // replicated: the replicated matrices multiply its token on all 8 GPUs,
  // 2 x 1,029,913,088 x 7/8 FLOPs more per GPU, and are read whole, 7/8 of
  // their bytes more.
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(s, 2048));
  Estimate split_all = e;
  split_all.weights.tp_replicated_bytes = split_all.weights.tp_replicated_params = 0;
  split_all.weights.tp_replicated_mixer_bytes = split_all.weights.tp_replicated_mixer_params = 0;
  const StepWork w = decode_step_work(arch, s, e, 1, cache, 2048);
  const StepWork even = decode_step_work(arch, s, split_all, 1, cache, 2048);
  CHECK_THAT(w.flops - even.flops, WithinRel(2.0 * 1029913088.0 * 7.0 / 8.0, 1e-9));
  CHECK_THAT(w.gpu_weight_bytes - even.gpu_weight_bytes, WithinRel(static_cast<double>(whole) * 7.0 / 8.0, 1e-9));
}

TEST_CASE("attention data parallel is for serving engines on several GPUs", "[served]") {
  const Architecture arch = test::catalog_arch("deepseek-v3");
  Scenario s = served_scenario("h200-sxm", "BF16-native", 1024, 1024, 16);
  s.attention_data_parallel = true;  // one GPU: nothing to split
  const Estimate e = run(arch, s);
  CHECK(e.memory.attention_ranks == 1);
  bool warned = false;
  for (const auto& w : e.warnings) warned = warned || w.find("attention data parallel") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("attention's products run at the 16-bit rate when the weights are FP8", "[served]") {
  // H100 SXM: 1,978 TFLOPS dense FP8 and 989 dense BF16 (NVIDIA's datasheet
  // halves its with-sparsity 3,958 and 1,979). An FP8 checkpoint's GEMMs run
  // at the FP8 rate; FlashAttention multiplies queries by BF16 keys at the
  // BF16 rate, half of it: 989 / 1,978 = 0.5.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario s = served_scenario("h100-sxm", "FP8", 1024, 1024, 8);
  const Estimate e = run(arch, s);
  const EffectiveRates r = effective_rates(arch, s, e, EngineFamily::serving, WeightFamily::fp8, false);
  CHECK(r.basis.flops_basis == "fp8");
  CHECK_THAT(r.attention_flops / r.matrix_flops, WithinRel(0.5, 1e-12));
  // A step of 1 GFLOP of GEMMs and 1 GFLOP of attention takes the GEMMs' time
  // plus twice that for the attention: 3 x 1e9 / matrix_flops (rows many
  // enough that tile waste is nil: gemm_rows 0 turns it off).
  StepWork w;
  w.flops = 2e9;
  w.attention_flops = 1e9;
  const StepTime t = step_time(w, r, 1.0, 1.0);
  CHECK_THAT(t.compute_s, WithinRel(3e9 / r.matrix_flops, 1e-12));
  // BF16 weights: one rate for both, no separate attention rate.
  const EffectiveRates bf16 = effective_rates(arch, s, e, EngineFamily::serving, WeightFamily::float16, false);
  CHECK(bf16.attention_flops == 0.0);
}

TEST_CASE("SGLang on ROCm times MLA models with the MLA kernels' row, other models with the platform's", "[served]") {
  // The serving row follows the kernels a run uses: DeepSeek-V3 and Kimi K2
  // attend through latent KV (kv_lora_rank 512), GLM-4.5 through grouped KV
  // heads. Only SGLang on ROCm has an MLA row of its own; on CUDA an MLA model
  // takes the engine's row.
  auto row_for = [](const char* model, const char* gpu, InferenceEngine engine) {
    Scenario s = served_scenario(gpu, "FP8", 1000, 1000, 16);
    s.engine = engine;
    s.gpu_count = 8;
    const Estimate e = run(test::catalog_arch(model), s);
    REQUIRE(e.speed);
    REQUIRE(e.speed->served);
    return e.speed->served->calibration_row;
  };
  CHECK(row_for("deepseek-v3", "mi300x", InferenceEngine::sglang) == "sglang/rocm/mla");
  CHECK(row_for("kimi-k2-instruct", "mi300x", InferenceEngine::sglang) == "sglang/rocm/mla");
  CHECK(row_for("glm-4.5", "mi300x", InferenceEngine::sglang) == "sglang/rocm");
  CHECK(row_for("deepseek-v3", "h200-sxm", InferenceEngine::sglang) == "sglang/cuda");
  CHECK(row_for("deepseek-v3", "mi300x", InferenceEngine::vllm) == "vllm/rocm");
}

TEST_CASE("SGLang on CUDA times INT4 experts and attention data parallel with rows of their own", "[served]") {
  // Kimi K2.5's own INT4 release runs SGLang's W4A16 MoE kernels (its measured
  // runs: output flat from concurrency 16 to 100); a dense model quantized to
  // INT4 (AWQ) runs GEMMs the platform's row already times. Attention data
  // parallel (--enable-dp-attention) steps each rank's own batch and gathers
  // the experts' tokens: its own row, on CUDA, where runs were measured.
  auto row_for = [](const char* model, const char* quant, bool attention_dp) {
    Scenario s = served_scenario("h200-sxm", quant, 1000, 1000, 16);
    s.engine = InferenceEngine::sglang;
    s.gpu_count = 8;
    s.attention_data_parallel = attention_dp;
    const Estimate e = run(test::catalog_arch(model), s);
    REQUIRE(e.speed);
    REQUIRE(e.speed->served);
    return e.speed->served->calibration_row;
  };
  CHECK(row_for("kimi-k2.5", "native", false) == "sglang/cuda/int4");
  {
    // No factor reproduces those runs (flat output from 16 to 100 in flight):
    // the row fits none of them and gives the measurement as its reason.
    Scenario s = served_scenario("h200-sxm", "native", 1000, 1000, 16);
    s.engine = InferenceEngine::sglang;
    s.gpu_count = 8;
    const Estimate e = run(test::catalog_arch("kimi-k2.5"), s);
    REQUIRE(e.speed);
    REQUIRE(e.speed->served);
    CHECK(e.speed->served->calibration_records == 0);
    CHECK(e.speed->served->calibration_rough);
    CHECK(e.speed->served->calibration_rough_because.find("flat output from 16 to 100") != std::string::npos);
  }
  CHECK(row_for("llama-3.1-70b", "AWQ", false) == "sglang/cuda");
  CHECK(row_for("kimi-k2-instruct", "FP8", true) == "sglang/cuda/attention-dp");
  CHECK(row_for("kimi-k2-instruct", "FP8", false) == "sglang/cuda");
  // gpt-oss's MXFP4 experts keep their own row, attention data parallel or not.
  CHECK(row_for("gpt-oss-120b", "native", true) == "sglang/cuda/mxfp4");
}

TEST_CASE("served figures on a device unlike every measured one are labelled rough, with the reason", "[served]") {
  // Every serving run fitted is on HBM datacenter GPUs (H100, H200, B200, A100,
  // MI300X, MI325X, MI355X); an RTX 4090 (GDDR6X) is outside them, whatever
  // the row's own runs say. An H100 under TensorRT-LLM (14 runs, 3%) is not.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario gddr = served_scenario("rtx-4090", "FP8", 1000, 1000, 4);
  gddr.engine = InferenceEngine::tensorrt_llm;
  const Estimate g = run(arch, gddr);
  REQUIRE(g.speed->served);
  CHECK(g.speed->served->calibration_rough);
  CHECK(g.speed->served->calibration_rough_because ==
        "serving runs were measured on HBM datacenter GPUs only, none with GDDR memory like this device's");
  Scenario hbm = gddr;
  hbm.device = test::device_of("h100-sxm");
  const Estimate h = run(arch, hbm);
  REQUIRE(h.speed->served);
  CHECK(h.speed->served->calibration_row == "tensorrt-llm/cuda");
  CHECK_FALSE(h.speed->served->calibration_rough);
  CHECK(h.speed->served->calibration_rough_because.empty());
}

TEST_CASE("a row that misses its runs' first-token times by more than 25% labels the TTFT, not the rest", "[served]") {
  // SGLang on CUDA reproduces its runs' throughput within 10% on median but
  // their TTFTs only within 35% (data/speed_calibration.json, "served"): one
  // per-request cost for 8-GPU runs at 100-190 ms and one H100 at 28 ms.
  const Architecture arch = test::catalog_arch("qwen3-8b");
  Scenario s = served_scenario("h100-sxm", "BF16-native", 233, 221, 4);
  s.engine = InferenceEngine::sglang;
  const Estimate e = run(arch, s);
  REQUIRE(e.speed);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  const ServedCalibration& row = served_calibration(InferenceEngine::sglang, Backend::cuda, "");
  REQUIRE(row.ttft_typical_error_pct > 25);
  CHECK_FALSE(v.calibration_rough);
  CHECK(v.calibration_ttft_typical_error_pct == row.ttft_typical_error_pct);
  CHECK(v.ttft_rough_because == "the row's measured times to first token scatter " +
                                    std::to_string(row.ttft_typical_error_pct) + "% around it on median");
  // vLLM's CUDA row reproduces its runs' TTFTs within 25%: no such label.
  s.engine = InferenceEngine::vllm;
  const ServedCalibration& vllm = served_calibration(InferenceEngine::vllm, Backend::cuda, "");
  REQUIRE(vllm.ttft_typical_error_pct >= 0);
  REQUIRE(vllm.ttft_typical_error_pct <= 25);
  const Estimate ev = run(arch, s);
  CHECK(ev.speed->served->ttft_rough_because.empty());
}

TEST_CASE("a row whose runs measured no first-token time takes the engine's per-request cost from a row that did, and says so", "[served]") {
  // vLLM's ROCm row is fitted on 12 runs that report throughput only (GLM-4.6
  // on 8x MI300X, vllm-project/vllm#27323; GLM-5.1, ROCm/aiter#3422; GLM-4.7 on
  // MI355X, ROCm/aiter#3529): nothing there measures the cost a request pays
  // before its first token (the HTTP server, tokenizing, admission), and the
  // search left it at 0: GLM-4.5's 1,024-token prompt answered in 50 ms on 8x
  // MI300X. That cost is vLLM's host work, not the platform's kernels: vLLM's
  // CUDA row measured it (Qwen3-8B on one H100 at 1-4 in flight: 59-64 ms TTFT
  // for 233-token prompts whose compute is a few ms).
  const Architecture arch = test::catalog_arch("glm-4.5");
  Scenario s = served_scenario("mi300x", "FP8", 1024, 1024, 1);
  s.gpu_count = 8;
  const ServedCalibration& rocm = served_calibration(InferenceEngine::vllm, Backend::rocm, "");
  const ServedCalibration& cuda = served_calibration(InferenceEngine::vllm, Backend::cuda, "");
  REQUIRE(rocm.backend == Backend::rocm);
  REQUIRE(rocm.fitted_records >= 5);
  REQUIRE(rocm.ttft_typical_error_pct == -1);  // no TTFT among its runs
  REQUIRE(cuda.ttft_typical_error_pct >= 0);
  REQUIRE(cuda.factors.request_overhead_s > 0.0);
  CHECK(rocm.factors.request_overhead_s == cuda.factors.request_overhead_s);
  CHECK(rocm.factors.prompt_pass_layer_overhead_s == cuda.factors.prompt_pass_layer_overhead_s);
  const Estimate e = run(arch, s);
  REQUIRE(e.speed);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  CHECK(v.calibration_row == "vllm/rocm");
  CHECK_FALSE(v.calibration_rough);
  // The first token waits for that cost, the prompt's pass and the step that returns it.
  CHECK(v.request_overhead_s == cuda.factors.request_overhead_s);
  CHECK_THAT(v.ttft_s, WithinRel(v.request_overhead_s + v.queue_s + v.mixed_step_time.total_s + v.decode_step_time.total_s, 1e-12));
  // Worked apart from the engine: at least the 40 ms plus the prompt's
  // matrix work at eight MI300X's FP8 peak, 2 x 32.8e9 multiplied parameters
  // (GLM-4.5's 33.6e9 active less its 0.78e9 embedding, looked up not
  // multiplied) x 1024 tokens / (8 x 2.615e15 FLOP/s, AMD's dense FP8 figure)
  // = 3.2 ms: 43.2 ms, where the row left at 0 answered 50 ms in all.
  CHECK(v.ttft_s >= 0.040 + 2.0 * 32.8e9 * 1024.0 / (8.0 * 2.615e15));
  const std::string said = "no first-token time measured on this row's runs; its 40 ms per request is vLLM's on CUDA";
  REQUIRE(cuda.factors.request_overhead_s == 0.04);  // the 40 ms said
  CHECK(v.ttft_rough_because == said);
  // The single-stream figures are the same row's at one in flight: the same label.
  CHECK(e.speed->basis.serving_ttft_rough_because == said);
  CHECK(e.speed->basis.serving_rough_because.empty());
  // A row whose runs measured TTFTs within 25% says nothing (vLLM on CUDA).
  Scenario h = served_scenario("h100-sxm", "BF16-native", 233, 221, 4);
  const Estimate eh = run(test::catalog_arch("qwen3-8b"), h);
  CHECK(eh.speed->served->ttft_rough_because.empty());
  CHECK(eh.speed->basis.serving_ttft_rough_because.empty());
}

TEST_CASE("a hybrid model takes its engine's hybrid row where one was measured, and is labelled rough where none was", "[served]") {
  // Qwen3.5-122B-A10B-FP8 under vLLM 0.18 on one MI300X, one user, 1,024
  // tokens in and 1,024 out (Millstone-AI-Solutions/mi300x-benchmark-
  // investigation, raw-metrics/vllm-v1 and -v2 calculations.md, vLLM's own
  // /metrics): 85.97 and 82.35 tok/s per user, TTFT 138 and 152 ms. Its 36
  // Gated DeltaNet layers run kernels of their own: vLLM's ROCm row for other
  // models gives ~150 tok/s there (10B active parameters of FP8 at its
  // bandwidth factor), 75% too fast.
  const Architecture arch = test::catalog_arch("qwen3.5-122b-a10b");
  Scenario s = served_scenario("mi300x", "FP8", 1024, 1024, 1);
  const Estimate e = run(arch, s);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  CHECK(v.calibration_row == "vllm/rocm/hybrid");
  const double measured_per_user = (85.97 + 82.35) / 2.0;  // 84.16 tok/s
  CHECK_THAT(v.tokens_per_s_per_user, WithinRel(measured_per_user, 0.15));
  const double measured_ttft_s = (0.138 + 0.152) / 2.0;  // 145 ms
  CHECK_THAT(v.ttft_s, WithinRel(measured_ttft_s, 0.35));
  // Its runs are on one GPU: a tensor-parallel hybrid run's all-reduces are
  // those vLLM's ROCm runs on 4 and 8 GPUs measured, not the neutral guess.
  const ServedCalibration& hybrid = served_calibration(InferenceEngine::vllm, Backend::rocm, "hybrid");
  const ServedCalibration& rocm = served_calibration(InferenceEngine::vllm, Backend::rocm, "");
  REQUIRE(hybrid.weights == "hybrid");
  CHECK(hybrid.factors.allreduce_latency_factor == rocm.factors.allreduce_latency_factor);
  CHECK(rocm.factors.allreduce_latency_factor != 1.0);
  // The same model under TensorRT-LLM on an H200, whose CUDA row (14 runs,
  // close) no hybrid run fitted: labelled.
  Scenario h = served_scenario("h200-sxm", "FP8", 1024, 1024, 1);
  h.engine = InferenceEngine::tensorrt_llm;
  const Estimate eh = run(arch, h);
  CHECK(eh.speed->served->calibration_row == "tensorrt-llm/cuda");
  CHECK(eh.speed->served->calibration_rough);
  CHECK(eh.speed->served->calibration_rough_because ==
        "no serving run of a hybrid (linear-attention) model was measured on this row; where one was (vLLM on ROCm, "
        "SGLang on CUDA), the engine's row for other models put it up to 82% too fast");
  CHECK(eh.speed->basis.serving_rough_because == eh.speed->served->calibration_rough_because);
  // A model without recurrent layers on that row keeps its own label (Qwen3-8B on an H100: none of this).
  const Estimate dense = run(test::catalog_arch("qwen3-8b"), served_scenario("h100-sxm", "BF16-native", 233, 221, 4));
  CHECK(dense.speed->served->calibration_rough_because.find("hybrid") == std::string::npos);
}

TEST_CASE("llama-server decodes as llama.cpp's batched decode does: matrix-vector kernels up to 8, tiles sized to the batch above", "[served]") {
  // llama.cpp multiplies a decode batch of up to 8 rows with its matrix-vector
  // kernels (MMVQ_MAX_BATCH_SIZE 8, ggml-cuda/mmvq.cuh): bandwidth-bound, no
  // GEMM tiles. Qwen3-32B Q4_K_M on an RTX 5090, one request of 256 in and
  // 4096 out, the window 256 + 4096 / 2 = 2304 tokens: the served decode step
  // (no prompt chunk) is the single-stream decode step at that window, to the
  // rounding. Before, the tile term (1 + 86.8 / 1) made the step compute-bound
  // at 29 ms against the stream's 17: 32.9 against 58 tok/s.
  const Architecture arch = test::catalog_arch("qwen3-32b");
  Scenario s = served_scenario("rtx-5090", "Q4_K_M", 256, 4096, 1);
  s.engine = InferenceEngine::llama_cpp;
  s.kv_type = KvType::f16;
  s.context_tokens = 256 + 4096 / 2;
  const Estimate e = run(arch, s);
  REQUIRE(e.speed);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  CHECK(v.decode_step_work.gemm_rows == 0.0);
  CHECK_THAT(v.decode_step_time.total_s, WithinRel(e.speed->decode_single_time.total_s, 1e-9));
  // 16 sequences: past the vector kernels MMQ sizes its token tile to the
  // batch (mmq_x in steps of 8, ggml-cuda/mmq.cuh): 16 columns, one full
  // tile, so no tile term either; the served decode step is the estimate's
  // batched decode step of 16 sequences at the same window (2304 tokens each).
  s.sequences = 16;
  const Estimate sixteen = run(arch, s);
  REQUIRE(sixteen.speed->served);
  CHECK(sixteen.speed->served->decode_step_work.gemm_rows == 0.0);
  CHECK_THAT(sixteen.speed->served->decode_step_time.total_s,
             WithinRel(sixteen.speed->decode_batch_time.total_s, 1e-9));
  // A ninth request adds output, it does not halve it (it did with the tile term).
  s.sequences = 8;
  const double eight = run(arch, s).speed->served->output_tokens_per_s;
  s.sequences = 9;
  const double nine = run(arch, s).speed->served->output_tokens_per_s;
  CHECK(nine > eight);
}

TEST_CASE("vLLM's decode steps pad their tokens to a 16-row tile, not to the prompt's tile term", "[served]") {
  // Qwen3-32B in BF16 on four RTX 3090s (tensor parallel 4), one request of
  // 1024 in and 1024 out. A decode step of one token multiplies 2 x 8.2B
  // weights per GPU (16.4 GFLOP); vLLM's GEMMs pad it to one 16-row tile
  // (mma.m16n8k16): 16 x that, 262 GFLOP, at the 3090's 71 TFLOPS (GA102
  // whitepaper) times the row's compute factor, a few ms, below the 16.0 GB of
  // weights each GPU reads at 936 GB/s x the row's bandwidth factor (about 19
  // ms): the step is bandwidth-bound, as the single-stream estimate says. With
  // the prompt's fitted term (1 + 86.8 / 1) its compute was 88 rows' worth,
  // 66 ms a token: 13 tok/s where the estimate gave 32.
  const Architecture arch = test::catalog_arch("qwen3-32b");
  Scenario s = served_scenario("rtx-3090", "BF16-native", 1024, 1024, 1);
  s.gpu_count = 4;
  const Estimate e = run(arch, s);
  REQUIRE(e.speed);
  REQUIRE(e.speed->served);
  const ServedEstimate& v = *e.speed->served;
  CHECK(v.decode_step_work.gemm_rows == 1.0);
  CHECK(v.decode_step_work.gemm_tile_rows == 16.0);
  const double rate = v.decode_step_time.compute_s > 0.0 ? v.decode_step_work.flops * 16.0 / v.decode_step_time.compute_s : 0.0;
  // The rate the compute time implies is the device's 71 TFLOPS at the serving
  // engines' prompt efficiency, scaled by vLLM's fitted compute factor.
  const double efficiency = runtime_calibration(EngineFamily::serving, Backend::cuda, "nvidia").prefill_efficiency;
  const double factor = served_calibration(InferenceEngine::vllm, Backend::cuda, "float16").factors.compute_factor;
  CHECK_THAT(rate, WithinRel(71e12 * efficiency * factor, 1e-3));
  CHECK(v.decode_step_time.compute_s < v.decode_step_time.weights_s);
  // Within the served row's factors of the single-stream decode (32 tok/s).
  CHECK(v.tokens_per_s_per_user > 0.8 * e.speed->decode_tokens_per_s);
  // A prompt chunk's step keeps the fitted tile term.
  const KvBreakdown cache = compute_kv_cache(arch, kv_request_for(s, 1536));
  CHECK(served_step_work(arch, s, e, 1, cache, 1536, 1024, 512.0).gemm_tile_rows == 0.0);
}

TEST_CASE("SGLang runs a step's prompts in a pass of their own: the decoders wait for it; vLLM decodes beside them", "[served]") {
  // Llama 3.1 8B in BF16 on an H100, 16 in flight, 1024 in and 1024 out. Both
  // engines budget 8192 tokens a step on an 80 GB part (SGLang's
  // chunked_prefill_size, vLLM's max_num_batched_tokens): all 16 decode
  // (16 < 8192 x 1024 / 2048). Prompts arrive 16 x 1024 / 1024 = 16 tokens a
  // step and a step takes one whole 1024-token prompt: 1 step in 64 carries one.
  // vLLM's such step also decodes the 16 (1040 rows); SGLang's prompt pass runs
  // alone (enable_mixed_chunk off by default; one decoding sequence's row
  // counted beside it, 1025 rows), and the 16 decode in the step after. A
  // request's time per token sees the other 15's prompts, 15 / 1024 of its
  // steps: vLLM's cost the mixed step, SGLang's the decode step and the pass.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, 16);
  s.engine = InferenceEngine::sglang;
  const Estimate sg = run(arch, s);
  s.engine = InferenceEngine::vllm;
  const Estimate vl = run(arch, s);
  REQUIRE(sg.speed->served);
  REQUIRE(vl.speed->served);
  const ServedEstimate& a = *sg.speed->served;
  const ServedEstimate& b = *vl.speed->served;
  CHECK(a.decoding_concurrency == 16.0);
  CHECK(b.decoding_concurrency == 16.0);
  CHECK_THAT(a.prefill_step_share, WithinRel(1.0 / 64.0, 1e-12));
  CHECK(a.mixed_step_work.gemm_rows == 1025.0);
  CHECK(b.mixed_step_work.gemm_rows == 1040.0);
  const double others = 15.0 / 1024.0;
  const double sg_light = a.decode_step_time.total_s;
  const double sg_pass = a.mixed_step_time.total_s;
  CHECK_THAT(a.tpot_s, WithinRel(others * (sg_light + sg_pass) + (1.0 - others) * sg_light, 1e-12));
  CHECK_THAT(b.tpot_s, WithinRel(others * b.mixed_step_time.total_s + (1.0 - others) * b.decode_step_time.total_s, 1e-12));
  // All 16 together: 16 tokens a step, every request's prompt among the steps.
  CHECK_THAT(a.output_tokens_per_s, WithinRel(16.0 / (sg_light + sg_pass / 64.0), 1e-12));
  // A prompt's own wait is its pass, not a decode step's.
  CHECK_THAT(a.ttft_s, WithinRel(a.request_overhead_s + a.queue_s + sg_pass + sg_light, 1e-12));
}

TEST_CASE("A serving engine's figures alone carry its serving row's reason to be read as rough", "[served]") {
  // Qwen3-8B in BF16 under SGLang: on an RTX 4090 (GDDR6X) its CUDA row stands
  // on HBM datacenter runs only, so the Speed panel's figures, the same row's
  // step, say so as the Serving panel does; under vLLM on an H100 (HBM3) both
  // name the few runs vLLM's CUDA row stands on.
  const Architecture arch = test::catalog_arch("qwen3-8b");
  Scenario sglang = served_scenario("rtx-4090", "BF16-native", 1024, 1024, 1);
  sglang.engine = InferenceEngine::sglang;
  const Estimate gddr = run(arch, sglang);
  REQUIRE(gddr.speed->served);
  CHECK(gddr.speed->basis.serving_rough_because ==
        "serving runs were measured on HBM datacenter GPUs only, none with GDDR memory like this device's");
  CHECK(gddr.speed->basis.serving_rough_because == gddr.speed->served->calibration_rough_because);
  const Estimate hbm = run(arch, served_scenario("h100-sxm", "BF16-native", 1024, 1024, 1));
  CHECK(hbm.speed->basis.serving_rough_because == hbm.speed->served->calibration_rough_because);
  CHECK(hbm.speed->basis.serving_rough_because.rfind("only ", 0) == 0);
  // llama.cpp is no serving engine: no serving row, no reason.
  Scenario local = served_scenario("rtx-4090", "BF16-native", 1024, 1024, 1);
  local.engine = InferenceEngine::llama_cpp;
  const Estimate own = run(arch, local);
  CHECK_FALSE(own.speed->basis.serving_factors);
  CHECK(own.speed->basis.serving_rough_because.empty());
}

TEST_CASE("a prompt pass's fixed cost, every layer's, is paid by the prompt and by the requests decoding beside it", "[served]") {
  // Llama 3.1 8B (32 layers) in BF16 on an H100 under SGLang, 16 in flight,
  // 1024 in and 1024 out: as above, 1 step in 64 is a prompt pass, and a
  // request's time per token sees the other 15's passes, 15 / 1024 of its
  // steps. At 100 us a layer, a pass costs 32 x 100 us = 3.2 ms more; the
  // decode steps (captured graphs) nothing. So TPOT grows by
  // 15 / 1024 x 3.2 ms = 46.875 us, the mean step by 3.2 ms / 64 = 50 us, and
  // the first token, which waits for its own pass, by at least 3.2 ms.
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  REQUIRE(arch.layers.size() == 32);
  Scenario s = served_scenario("h100-sxm", "BF16-native", 1024, 1024, 16);
  s.engine = InferenceEngine::sglang;
  s.served_factors = ServedFactors{};
  const Estimate plain = run(arch, s);
  s.served_factors->prompt_pass_layer_overhead_s = 100e-6;
  const Estimate paid = run(arch, s);
  const ServedEstimate& a = *plain.speed->served;
  const ServedEstimate& b = *paid.speed->served;
  REQUIRE(b.prefill_step_share == a.prefill_step_share);
  CHECK(b.decode_step_time.total_s == a.decode_step_time.total_s);
  CHECK_THAT(b.mixed_step_time.total_s - a.mixed_step_time.total_s, WithinRel(3.2e-3, 1e-9));
  CHECK_THAT(b.tpot_s - a.tpot_s, WithinRel(15.0 / 1024.0 * 3.2e-3, 1e-9));
  CHECK_THAT(16.0 / b.output_tokens_per_s - 16.0 / a.output_tokens_per_s, WithinRel(3.2e-3 / 64.0, 1e-9));
  CHECK(b.ttft_s - a.ttft_s >= 3.2e-3);
  // The same request alone (the Speed panel's figures): a 1024-token prompt
  // is one pass, its prefill 3.2 ms longer, and the basis names that cost.
  REQUIRE(plain.speed->prefill_work.passes == 1);
  CHECK_THAT(paid.speed->prefill_time.total_s - plain.speed->prefill_time.total_s, WithinRel(3.2e-3, 1e-9));
  CHECK_THAT(paid.speed->ttft_s - plain.speed->ttft_s, WithinRel(3.2e-3, 1e-9));
  CHECK_THAT(paid.speed->basis.serving_prompt_pass_overhead_s, WithinRel(3.2e-3, 1e-12));
}
