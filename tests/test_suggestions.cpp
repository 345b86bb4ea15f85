// Suggestions for a scenario that does not fit, on a hand-made catalog: each
// must fit by its own estimate and be the least change of its kind (one step
// less does not fit).
#include "llmsizer/suggestions.hpp"

#include "llmsizer/planner.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;

namespace {

Device card(const std::string& id, double memory_gib) {
  Device d;
  d.id = id;
  d.name = id;
  d.vendor = "nvidia";
  d.backend = Backend::cuda;
  d.kind = DeviceKind::consumer;
  d.memory_bytes = static_cast<std::int64_t>(memory_gib * static_cast<double>(kGiB));
  d.bandwidth_bytes_per_s = 500e9;
  d.fp16_flops = 100e12;
  return d;
}

struct Fixture {
  Sizer sizer;
  SizedModel model;
  Scenario scenario;
  Estimator estimate_fn;
};

Fixture fixture(const std::string& model_id, const std::string& quant, double memory_gib) {
  Catalog c;
  c.models.push_back(*test::catalog().find_model(model_id));
  c.devices.push_back(card("card", memory_gib));
  Fixture f{Sizer(std::move(c)), {}, {}, {}};
  SizerRequest r;
  r.model_id = model_id;
  f.model = f.sizer.model_for(r).value();
  f.scenario.quant = quant_scheme_from_name(quant).value();
  f.scenario.context_tokens = 8192;
  f.scenario.device = *f.sizer.catalog().find_device("card");
  return f;
}

// DeepSeek-R1 at a quantization on four 24 GiB cards at 16K, with this much RAM.
Fixture deepseek_r1_on_four_24gib_cards(const std::string& quant, int ram_gib) {
  Fixture f = fixture("deepseek-r1", quant, 24.0);
  f.scenario.gpu_count = 4;
  f.scenario.context_tokens = 16384;
  f.scenario.system_ram_bytes = ram_gib * static_cast<std::int64_t>(kGiB);
  return f;
}

// The scenario with every layer's routed experts in system RAM.
Scenario every_layer_experts_in_ram(Scenario s) {
  s.offload_mode = OffloadMode::experts;
  s.offload_fraction = 1.0;
  return s;
}

// Whether DeepSeek-R1's scenario with one layer's experts fewer in RAM fits
// as llama.cpp splits it, or with any split that balances the cards.
bool fits_one_layer_fewer_in_ram(const Fixture& f, const Scenario& placed) {
  Scenario fewer = placed;
  fewer.offload_fraction -= 1.0 / 61;
  fewer.layers_per_gpu.clear();
  auto e = f.sizer.estimate(f.model, fewer);
  REQUIRE(e.ok());
  if (e.value().memory.fits.value_or(false)) return true;
  return balanced_layer_split(f.model.arch(), f.estimate_fn, fewer, e.value()).has_value();
}

bool fits(const Fixture& f, const Scenario& s) {
  auto e = f.sizer.estimate(f.model, s);
  REQUIRE(e.ok());
  return e.value().memory.fits.value_or(false);
}

const Suggestion* find(const std::vector<Suggestion>& all, bool (*pick)(const SuggestedChange&)) {
  for (const Suggestion& s : all)
    if (pick(s.change)) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("a dense model too big for the card: layers to RAM, a smaller quant, two cards, no shorter context") {
  // Llama-3.1-8B at Q8_0 is ~8.0 GB (7.95 GiB) of weights, more than an 8 GiB card
  // offers after the 457 MiB CUDA context and llama.cpp's 1024 MiB margin (6.55 GiB):
  // no context is short enough, so no ctx suggestion.
  Fixture f = fixture("llama-3.1-8b", "Q8_0", 8.0);
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  const auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  REQUIRE(all.size() >= 3);
  for (const Suggestion& s : all) {
    CHECK(s.fits);
    CHECK(fits(f, s.scenario));
    CHECK(s.decode_tokens_per_s > 0.0);
  }
  CHECK_FALSE(find(all, [](const SuggestedChange& c) { return c.ctx.has_value(); }));

  const Suggestion* offload = find(all, [](const SuggestedChange& c) { return c.offload.has_value(); });
  REQUIRE(offload);
  CHECK(offload->change.offload_mode.value() == "layers");  // dense: whole layers (-ngl)
  const int n = f.model.arch().decoder_layer_count();
  const int k = offload->offloaded_layers;
  CHECK(*offload->change.offload == Approx(static_cast<double>(k) / n));
  Scenario one_less = offload->scenario;
  one_less.offload_fraction = static_cast<double>(k - 1) / n;
  CHECK_FALSE(fits(f, one_less));  // the least number of layers
  // Speed falls with layers read from RAM at 89.6 GB/s instead of the card's 500 GB/s.
  Scenario on_gpu = f.scenario;
  Device big = card("big", 24.0);
  on_gpu.device = big;
  auto all_on_gpu = f.sizer.estimate(f.model, on_gpu);
  REQUIRE(all_on_gpu.ok());
  REQUIRE(*all_on_gpu.value().memory.fits);
  CHECK(offload->decode_tokens_per_s < all_on_gpu.value().speed->decode_tokens_per_s);

  const Suggestion* quant = find(all, [](const SuggestedChange& c) { return c.quant.has_value(); });
  REQUIRE(quant);
  // The best of the smaller standard quants that fits; the ones above it do not.
  const auto quants = standard_quants(InferenceEngine::llama_cpp);
  bool above = true;
  for (const std::string& q : quants) {
    if (q == "Q8_0") continue;
    if (q == *quant->change.quant) {
      above = false;
      continue;
    }
    if (!above) continue;
    Scenario s = f.scenario;
    s.quant = quant_scheme_from_name(q).value();
    INFO("quant " << q);
    CHECK_FALSE(fits(f, s));
  }

  const Suggestion* gpus = find(all, [](const SuggestedChange& c) { return c.gpus.has_value(); });
  REQUIRE(gpus);
  CHECK(*gpus->change.gpus == 2);  // two 8 GiB cards: ~13 GiB usable for ~9.2 GiB
}

TEST_CASE("an MoE model: experts to RAM, within the RAM there is") {
  // Qwen3-30B-A3B at Q4_K_M is ~17.3 GiB of weights, most of them routed experts.
  Fixture f = fixture("qwen3-30b-a3b", "Q4_K_M", 12.0);
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  const Suggestion* offload = find(all, [](const SuggestedChange& c) { return c.offload.has_value(); });
  REQUIRE(offload);
  CHECK(offload->change.offload_mode.value() == "experts");  // --n-cpu-moe
  CHECK(offload->ram_required_bytes <= f.scenario.system_ram_bytes);

  SECTION("with too little RAM for the experts, no offload is offered, and an offload beyond it does not fit") {
    Scenario small = f.scenario;
    small.system_ram_bytes = std::int64_t{2} << 30;  // 2 GiB: less than the experts to move
    auto e2 = f.sizer.estimate(f.model, small);
    REQUIRE(e2.ok());
    auto none = suggest_fits(f.model.arch(), small, e2.value(), f.estimate_fn, {});
    CHECK_FALSE(find(none, [](const SuggestedChange& c) { return c.offload.has_value(); }));
    Scenario forced = offload->scenario;
    forced.system_ram_bytes = small.system_ram_bytes;
    auto e3 = f.sizer.estimate(f.model, forced);
    REQUIRE(e3.ok());
    CHECK_FALSE(e3.value().memory.ram_fits);
    CHECK_FALSE(*e3.value().memory.fits);  // GPUs hold their share, RAM does not: no green verdict
  }
}

TEST_CASE("experts in RAM on two cards: an uneven split comes first, the offload kept") {
  // Qwen3-30B-A3B Q4_K_M (~17.3 GiB, 48 layers, mostly routed experts) on two
  // 8 GiB cards with the first 24 layers' experts in RAM (--n-cpu-moe 24):
  // ~9.3 GiB stay on the GPUs, less than the two cards' ~13 GiB usable, but an
  // even 24/24 split gives card 1 the 24 expert-less layers (~0.7 GiB) and
  // card 2 every full layer (~9.4 GiB). Moving full layers to card 1 fits at
  // no cost, so that is the first fix, with the offload as it was.
  Fixture f = fixture("qwen3-30b-a3b", "Q4_K_M", 8.0);
  f.scenario.gpu_count = 2;
  f.scenario.offload_fraction = 0.5;
  f.scenario.offload_mode = OffloadMode::experts;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  const auto& cards = e.value().memory.per_gpu;
  REQUIRE(cards.size() == 2);
  REQUIRE(cards[0].fits);
  REQUIRE_FALSE(cards[1].fits);
  REQUIRE(cards[0].required_bytes + cards[1].required_bytes < cards[0].usable_bytes + cards[1].usable_bytes);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  REQUIRE_FALSE(all.empty());
  const Suggestion& first = all.front();
  REQUIRE_FALSE(first.change.layer_split.empty());
  CHECK(first.cost == "none");
  REQUIRE(first.scenario.layers_per_gpu.size() == 2);
  CHECK(first.scenario.layers_per_gpu[0] > 24);  // full layers moved to card 1
  CHECK(first.scenario.offload_fraction == 0.5);
  CHECK(fits(f, first.scenario));
}

TEST_CASE("a context too long: the largest that fits, in llama.cpp's 256-token steps") {
  // Llama-3.1-8B Q4_K_M at 131072 tokens needs 16 GiB of f16 KV; a 12 GiB card does not hold it.
  Fixture f = fixture("llama-3.1-8b", "Q4_K_M", 12.0);
  f.scenario.context_tokens = 131072;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  const Suggestion* ctx = find(all, [](const SuggestedChange& c) { return c.ctx.has_value(); });
  REQUIRE(ctx);
  CHECK(*ctx->change.ctx % 256 == 0);
  Scenario longer = ctx->scenario;
  longer.context_tokens += 256;
  CHECK_FALSE(fits(f, longer));
  // By hand: 12 GiB less the CUDA context and llama.cpp's 1 GiB fit target,
  // ~10.55 GiB usable - 4.30 GiB of weights on the GPU (the embedding stays in
  // RAM) - 0.09 GiB of compute buffer = ~6.16 GiB of KV at 128 KiB per token:
  // ~50k tokens.
  CHECK(*ctx->change.ctx > 45000);
  CHECK(*ctx->change.ctx < 55000);
}

TEST_CASE("a context past the model's own: no longer one than the model reads") {
  // Llama-3.1-8B Q4_K_M asked for 1,000,000 tokens on an 80 GiB card: 128 KiB of
  // f16 KV a token (32 layers x 8 KV heads x 128 x 2 x 2 B) is ~122 GiB. The
  // memory's edge is ~(80 - 1 - 0.5 - 4.4 GiB) / 128 KiB = ~600k tokens, but the
  // model reads 131,072 (its config's max_position_embeddings): 16 GiB of KV, fits.
  Fixture f = fixture("llama-3.1-8b", "Q4_K_M", 80.0);
  f.scenario.context_tokens = 1000000;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  REQUIRE(f.model.arch().max_context_tokens == 131072);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  const Suggestion* ctx = find(all, [](const SuggestedChange& c) { return c.ctx.has_value(); });
  REQUIRE(ctx);
  CHECK(*ctx->change.ctx == 131072);
  CHECK(ctx->utilization < 0.5);
}

TEST_CASE("a scenario that fits, or has no device, gets no suggestions") {
  Fixture f = fixture("llama-3.1-8b", "Q4_K_M", 24.0);
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE(*e.value().memory.fits);
  CHECK(suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {}).empty());
  f.scenario.device.reset();
  auto none = f.sizer.estimate(f.model, f.scenario);
  CHECK(suggest_fits(f.model.arch(), f.scenario, none.value(), f.estimate_fn, {}).empty());
}

TEST_CASE("an MoE model over two cards, no offload set: the experts to RAM come with the split that balances the cards") {
  // Qwen3-30B-A3B Q4_K_M (~17.3 GiB, 48 layers) on two 6 GiB cards: ~11 GiB of
  // usable room for ~17.6 GiB. --n-cpu-moe empties the FIRST layers, which
  // llama.cpp's default split puts on card 1; with that split card 2 stays
  // full until its own layers' experts go too. Judged with the layers moved
  // to balance the cards (a --tensor-split beside --n-cpu-moe), fewer
  // layers' experts need to leave: the suggestion carries both changes, and
  // the same count under the default split does not fit.
  Fixture f = fixture("qwen3-30b-a3b", "Q4_K_M", 6.0);
  f.scenario.gpu_count = 2;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  const Suggestion* offload = find(all, [](const SuggestedChange& c) { return c.offload.has_value(); });
  REQUIRE(offload);
  CHECK(offload->change.offload_mode.value() == "experts");
  REQUIRE(offload->change.layer_split.size() == 2);
  CHECK(offload->change.layer_split == offload->scenario.layers_per_gpu);
  CHECK(offload->cost == "speed");
  CHECK(fits(f, offload->scenario));
  // The default split at that count: card 2 over.
  Scenario plain = offload->scenario;
  plain.layers_per_gpu.clear();
  CHECK_FALSE(fits(f, plain));
  // One layer's experts fewer in RAM fits with no split either (the least offload).
  Scenario fewer = offload->scenario;
  fewer.offload_fraction -= 1.0 / 48;
  for (int first = 1; first < 48; ++first) {
    fewer.layers_per_gpu = {first, 48 - first};
    CHECK_FALSE(fits(f, fewer));
  }
}

TEST_CASE("a Mac short of memory even at the highest GPU limit: that limit with the longest context, beside a smaller quantization") {
  // Qwen3-30B-A3B Q4_K_M at 32K on an M4 Pro with 24 GB: 17.1 GiB of weights on
  // the GPU and 3 GiB of KV exceed even the 20 GiB macOS can leave the GPU
  // (24 GiB less the 4 GiB the engine keeps for the OS), so raising the wired
  // limit alone is no fix. By hand, at a 20480 MiB limit: usable = 20480 MiB
  // less Metal's 512 MiB context and llama.cpp's 1 GiB fit target = 18944 MiB
  // = 19,864,223,744 B; the GPU holds 18,375,686,144 B of weights and
  // 42,550,784 B of compute buffer, which leaves 1,445,986,816 B for KV at
  // 48 layers x 4 KV heads x 128 x 2 (K, V) x 2 B = 98,304 B a token:
  // 14,709 tokens, 14,592 in llama.cpp's 256-token steps.
  Catalog c;
  c.models.push_back(*test::catalog().find_model("qwen3-30b-a3b"));
  c.devices.push_back(*test::catalog().find_device("mac-m4-pro-24gb"));
  Sizer sizer(std::move(c));
  SizerRequest r;
  r.model_id = "qwen3-30b-a3b";
  const SizedModel model = sizer.model_for(r).value();
  Scenario s;
  s.quant = quant_scheme_from_name("Q4_K_M").value();
  s.context_tokens = 32768;
  s.device = *sizer.catalog().find_device("mac-m4-pro-24gb");
  const Estimator estimate_fn = [&](const Scenario& x) { return sizer.estimate(model, x); };
  auto e = sizer.estimate(model, s);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  const auto all = suggest_fits(model.arch(), s, e.value(), estimate_fn, {});
  const Suggestion* raised = find(all, [](const SuggestedChange& x) { return x.gpu_limit_mib.has_value(); });
  REQUIRE(raised);
  CHECK(*raised->change.gpu_limit_mib == 20480);
  REQUIRE(raised->change.ctx);
  CHECK(*raised->change.ctx == 14592);
  CHECK_FALSE(raised->change.quant);
  CHECK(raised->usable_bytes == 19864223744);
  // 256 tokens more do not fit under that limit; the context alone, at the
  // default limit, does not fit at any length (the weights exceed it).
  Scenario longer = raised->scenario;
  longer.context_tokens += 256;
  CHECK_FALSE(estimate_fn(longer).value().memory.fits.value_or(true));
  CHECK_FALSE(find(all, [](const SuggestedChange& x) { return x.ctx.has_value() && !x.gpu_limit_mib.has_value(); }));
  // The other way to fit keeps the context and lowers the quantization below
  // 4 bits: a quality cost, listed before the context's.
  REQUIRE(all.size() >= 2);
  CHECK(all[0].change.quant);
  CHECK(&all[1] == raised);
}

TEST_CASE("experts of the last few layers on four cards: the split spreads those layers, no card left without one") {
  // DeepSeek-R1 at IQ3_M (61 layers) on four 24 GiB cards with the first 54
  // layers' experts in RAM (--n-cpu-moe 54): the 7 layers that keep theirs
  // hold 256 experts x 3 x 7168 x 2048 = 11.27 G weights each, ~4.55 GiB at
  // IQ3_M's ~3.5 bits: ~32 GiB, more than one card's ~22.5 GiB usable and
  // less than the four's ~90 GiB. llama.cpp's even split gives the last card
  // layers 46-61, all 7 of them: over. A split that spreads the 7 over two
  // or more cards fits at no cost. The placement once let the first cards
  // take every layer at a loose fill (the 54 light ones and the heavy ones
  // after them) and so found no split at all.
  Fixture f = deepseek_r1_on_four_24gib_cards("IQ3_M", 256);
  f.scenario.offload_fraction = 54.0 / 61.0;
  f.scenario.offload_mode = OffloadMode::experts;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE(e.value().memory.offloaded_layers == 54);
  const auto& cards = e.value().memory.per_gpu;
  REQUIRE(cards.size() == 4);
  REQUIRE_FALSE(cards[3].fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  REQUIRE_FALSE(all.empty());
  const Suggestion& first = all.front();
  REQUIRE(first.change.layer_split.size() == 4);
  CHECK(first.cost == "none");
  int total = 0;
  for (int layers : first.change.layer_split) {
    CHECK(layers >= 1);
    total += layers;
  }
  CHECK(total == 61);
  CHECK(first.change.layer_split[3] < 7);  // the last card no longer holds every heavy layer
  CHECK(first.scenario.offload_fraction == f.scenario.offload_fraction);
  CHECK(fits(f, first.scenario));
}

TEST_CASE("nothing one change can do: a smaller quantization with experts in RAM, the best that fits") {
  // DeepSeek-R1 at Q4_K_M (376.7 GiB of weights) on four 24 GiB cards (~90
  // GiB usable) with 256 GiB of RAM (252 GiB left by the OS): with every
  // expert in RAM the RAM would need ~368 GiB, so no offload alone; the
  // smallest GGUF type (IQ1_S, ~1.6 bits: ~125 GiB) is still more than the
  // cards, so no quantization alone; nor a shorter context or an 8-bit cache
  // (the weights are the problem). A smaller quantization with part of the
  // experts in RAM is what people run: the best one that fits is offered as
  // one suggestion carrying both changes, at the least offload it needs.
  Fixture f = deepseek_r1_on_four_24gib_cards("Q4_K_M", 256);
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  REQUIRE(all.size() == 1);
  const Suggestion& both = all.front();
  REQUIRE(both.change.quant);
  REQUIRE(both.change.offload);
  CHECK(both.change.offload_mode.value() == "experts");
  CHECK(both.cost == "quality");
  CHECK(fits(f, both.scenario));
  CHECK(both.ram_required_bytes <= 252 * static_cast<std::int64_t>(kGiB));
  // The best that fits: every better rung below Q4_K_M (larger files) does
  // not fit even with every layer's experts in RAM ...
  bool below_current = false;
  for (const QuantRung& rung : gguf_quality_ladder()) {
    if (rung.name == std::string("Q4_K_M")) { below_current = true; continue; }
    if (!below_current) continue;
    if (rung.name == *both.change.quant) break;
    Scenario all_in_ram = every_layer_experts_in_ram(f.scenario);
    all_in_ram.quant = quant_scheme_from_name(rung.name).value();
    INFO(rung.name);
    CHECK_FALSE(fits(f, all_in_ram));
  }
  // ... and one layer's experts fewer in RAM does not fit (the least offload),
  // whatever the split.
  CHECK_FALSE(fits_one_layer_fewer_in_ram(f, both.scenario));
}

TEST_CASE("experts in RAM judged apart from RAM: a split found for the cards even where RAM is short at that count") {
  // DeepSeek-R1 at Q5_K_S on four 24 GiB cards with 384 GiB of RAM (380 left
  // by the OS): experts of every layer in RAM would need more than 380 GiB;
  // with about 54 of 61 layers' experts there RAM holds them and the cards
  // hold the rest once the 7 layers that keep theirs are spread over the
  // cards. The search over the count judged each count's split by the whole
  // verdict, RAM included, so counts where RAM was short found no split, the
  // cards looked over at every count, and whole layers went to RAM instead
  // (54 layers, 3.0 tok/s against 5.1 with experts).
  Fixture f = deepseek_r1_on_four_24gib_cards("Q5_K_S", 384);
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.sizer.estimate(f.model, f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  // Every expert in RAM: more than RAM holds.
  auto all_in_ram = f.sizer.estimate(f.model, every_layer_experts_in_ram(f.scenario));
  REQUIRE(all_in_ram.ok());
  REQUIRE_FALSE(all_in_ram.value().memory.ram_fits);
  auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  const Suggestion* offload = find(all, [](const SuggestedChange& c) { return c.offload.has_value(); });
  REQUIRE(offload);
  CHECK(offload->change.offload_mode.value() == "experts");
  CHECK(offload->change.layer_split.size() == 4);
  CHECK(fits(f, offload->scenario));
  // The least count: one layer's experts fewer in RAM fits no split of the cards.
  CHECK_FALSE(fits_one_layer_fewer_in_ram(f, offload->scenario));
}

TEST_CASE("a quantization the engine cannot start is no fix while another is: GPTQ-INT4 for an AWQ nobody published") {
  // Qwen3-30B-A3B in BF16 under vLLM on a 24 GiB card: 30.5 B parameters x 2 B
  // = 61 GB of weights, no context short enough. At 4 bits (about 0.53 B a
  // parameter with its scales, ~16 GB) it fits. AWQ comes before GPTQ-INT4 on
  // the checkpoint ladder; when the engine cannot start AWQ (no checkpoint
  // known), GPTQ-INT4 is the fix, and AWQ is not listed at all.
  Fixture f = fixture("qwen3-30b-a3b", "BF16-native", 24.0);
  f.scenario.engine = InferenceEngine::vllm;
  f.scenario.kv_type = KvType::bf16;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.estimate_fn(f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  const auto quant_of = [](const std::vector<Suggestion>& all) -> std::vector<std::string> {
    std::vector<std::string> out;
    for (const Suggestion& s : all)
      if (s.change.quant) out.push_back(*s.change.quant);
    return out;
  };
  const auto every = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  CHECK(quant_of(every) == std::vector<std::string>{"AWQ"});

  const Startable no_awq = [](const Scenario& s, const Estimate&) { return s.quant.name != "AWQ"; };
  const auto without_awq = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, no_awq);
  CHECK(quant_of(without_awq) == std::vector<std::string>{"GPTQ-INT4"});
  for (const Suggestion& s : without_awq) CHECK(s.fits);

  // Neither 4-bit format starts: AWQ, the best that fits, is still listed
  // (a checkpoint one can make), but after every change that starts.
  const Startable sixteen_bits_only = [](const Scenario& s, const Estimate&) {
    return s.quant.name != "AWQ" && s.quant.name != "GPTQ-INT4";
  };
  const auto neither = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, sixteen_bits_only);
  REQUIRE(neither.size() >= 2);  // one more card fits BF16 too
  CHECK(neither.back().change.quant == std::optional<std::string>("AWQ"));
  CHECK(quant_of(neither) == std::vector<std::string>{"AWQ"});
}

TEST_CASE("no one change fits under vLLM: the best quantization that starts with the longest context that fits at it") {
  // Llama 3.3 70B in BF16 at 32K under vLLM on two 24 GiB cards. By hand:
  // BF16 is 70.6 B x 2 B = 141 GB against 48 GiB: no context fits, nor more
  // cards (tensor parallel over 3 does not divide 64 heads; 4, the most of a
  // consumer card the planner adds, hold 96 GiB = 103 GB); AWQ is ~37.5 GB, 18.7 GB a card,
  // and 32K of KV is 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 327,680 B
  // a token, 163,840 B a card at TP 2: 5.4 GB a card at 32,768 tokens, more
  // than the ~3 GB vLLM's 0.9 of 24 GiB leaves after the weights and its
  // buffers, so AWQ alone does not fit either. AWQ with a shorter context does.
  Fixture f = fixture("llama-3.3-70b-instruct", "BF16-native", 24.0);
  f.scenario.engine = InferenceEngine::vllm;
  f.scenario.kv_type = KvType::bf16;
  f.scenario.gpu_count = 2;
  f.scenario.context_tokens = 32768;
  f.scenario.prompt_tokens = 4096;
  f.estimate_fn = [&](const Scenario& s) { return f.sizer.estimate(f.model, s); };
  auto e = f.estimate_fn(f.scenario);
  REQUIRE(e.ok());
  REQUIRE_FALSE(*e.value().memory.fits);
  const auto all = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, {});
  REQUIRE(all.size() == 1);
  const Suggestion& both = all.front();
  CHECK(both.change.quant == std::optional<std::string>("AWQ"));
  REQUIRE(both.change.ctx);
  const std::int64_t ctx = *both.change.ctx;
  CHECK(ctx >= 4096);
  CHECK(ctx < 32768);
  CHECK(ctx % 16 == 0);  // vLLM's 16-token KV blocks
  CHECK(both.fits);
  // The least change of its kind: AWQ at the full context does not fit, nor
  // one 16-token block more; the per-card KV the hand count gives fits in what
  // a card has left at that context.
  Scenario awq = both.scenario;
  awq.context_tokens = 32768;
  CHECK_FALSE(fits(f, awq));
  awq.context_tokens = ctx + 16;
  CHECK_FALSE(fits(f, awq));
  CHECK(both.scenario.context_tokens == ctx);
  CHECK(both.scenario.quant.name == "AWQ");
  // With AWQ not startable, the next 4-bit format that is: GPTQ-INT4.
  const Startable no_awq = [](const Scenario& s, const Estimate&) { return s.quant.name != "AWQ"; };
  const auto gptq = suggest_fits(f.model.arch(), f.scenario, e.value(), f.estimate_fn, no_awq);
  REQUIRE(gptq.size() == 1);
  CHECK(gptq.front().change.quant == std::optional<std::string>("GPTQ-INT4"));
  CHECK(gptq.front().change.ctx.has_value());
}

TEST_CASE("the checkpoint ladder: GPTQ-INT4 only for the engines that load it") {
  // vLLM, SGLang and TensorRT-LLM load GPTQ INT4 checkpoints (Qwen publishes
  // GPTQ-Int4 builds of models it has no AWQ of); MLX-LM runs its own files
  // only (mlx_lm.convert's 4 and 8 bits): no GPTQ fix is offered there.
  for (const auto engine : {InferenceEngine::vllm, InferenceEngine::sglang, InferenceEngine::tensorrt_llm})
    CHECK(checkpoint_quality_ladder(engine) == std::vector<std::string>{"BF16-native", "FP8", "AWQ", "GPTQ-INT4"});
  CHECK(checkpoint_quality_ladder(InferenceEngine::mlx) == std::vector<std::string>{"MLX-8bit", "MLX-4bit"});
}
