// The embedded catalog parses and resolves ids; bad catalog text is refused;
// the embedded model facts are current.
#include "llmsizer/catalog.hpp"
#include "llmsizer/catalog_similar.hpp"

#include "llmsizer/sizer.hpp"
#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;

TEST_CASE("embedded catalog has the models and devices of the reference", "[catalog]") {
  const Catalog& c = test::catalog();
  CHECK(c.models.size() >= 90);
  CHECK(c.devices.size() >= 60);
  REQUIRE(c.find_model("glm-4.5") != nullptr);
  REQUIRE(c.find_device("h100-sxm") != nullptr);
  // H100 80GB: marketed 80 GB of HBM is 80 GiB; nvidia-smi shows 81559 MiB
  // (DESIGN.md, Units).
  const Device* h100 = c.find_device("h100-sxm");
  CHECK(h100->memory_bytes == 80LL * static_cast<std::int64_t>(kGiB));
  CHECK(h100->driver_memory_bytes == 81559LL * static_cast<std::int64_t>(kMiB));
  CHECK(c.find_model("no-such-model") == nullptr);
}

TEST_CASE("superseded ids resolve as aliases", "[catalog]") {
  // models_more.json: llama-3.3-70b-instruct supersedes llama-3.3-70b.
  const CatalogModel* m = test::catalog().find_model("llama-3.3-70b");
  REQUIRE(m != nullptr);
  CHECK(m->id == "llama-3.3-70b-instruct");
}

TEST_CASE("an id not in the catalog is answered with the ids it was likely meant for", "[catalog][errors]") {
  const Catalog& c = test::catalog();
  using V = std::vector<std::string>;
  // Another case or punctuation: the one id with the same letters and digits.
  CHECK(similar_model_ids(c, "Llama-3.1-8B") == V{"llama-3.1-8b"});
  CHECK(similar_model_ids(c, "gpt-oss-120B").front() == "gpt-oss-120b");
  // A shorter name the ids contain: the three H100 variants, the 4090 before its China-market D.
  const V h100 = similar_device_ids(c, "h100");
  CHECK(h100.size() == 3);
  for (const std::string& id : h100) CHECK(id.rfind("h100-", 0) == 0);
  CHECK(similar_device_ids(c, "4090").front() == "rtx-4090");
  CHECK(similar_model_ids(c, "qwen3-30b").front() == "qwen3-30b-a3b");
  // A size or suffix added to an id: the id without it.
  CHECK(similar_device_ids(c, "rtx-4060-8gb").front() == "rtx-4060");
  CHECK(similar_model_ids(c, "deepseek-r1-671b").front() == "deepseek-r1");
  // One letter missing: a typo away.
  CHECK(similar_model_ids(c, "llama-3-8b").front() == "llama-3.1-8b");
  // Nothing close, hostile text and a very long string: no ids, no failure.
  CHECK(similar_device_ids(c, "zzzz").empty());
  CHECK(similar_device_ids(c, "<script>alert(1)</script>").empty());
  CHECK(similar_model_ids(c, std::string(100000, 'q')).empty());
  CHECK(similar_model_ids(c, "").empty());
  CHECK(did_you_mean({}).empty());
  CHECK(did_you_mean({"a", "b", "c"}) == " (did you mean a, b or c?)");
  CHECK(did_you_mean({"a"}) == " (did you mean a?)");
}

TEST_CASE("malformed catalog text is an error with its path", "[catalog][errors]") {
  CHECK(parse_catalog("{", R"({"devices": []})").error().id == "catalog.not_json");
  auto bad = parse_catalog(R"({"models": [{"id": 3}]})", R"({"devices": []})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "/models/0/id must be a string");
  auto no_memory = parse_catalog(R"({"models": []})", R"({"devices": [{"id": "x"}]})");
  CHECK(no_memory.error().message == "/devices/0/memory_gb_marketed must be a positive number");
}

TEST_CASE("the embedded model facts are what the engine reads from each config", "[catalog][facts]") {
  // data/embedded/model_facts.json spares the page's startup reading a hundred
  // configs; it must say exactly what reading them says.
  auto with_facts = embedded_catalog(EmbeddedFacts::use);
  auto without = embedded_catalog(EmbeddedFacts::ignore);
  REQUIRE(with_facts.ok());
  REQUIRE(without.ok());
  const Sizer fresh(std::move(without).value());
  const Catalog& c = with_facts.value();
  REQUIRE(c.models.size() == fresh.catalog().models.size());
  for (std::size_t i = 0; i < c.models.size(); ++i) {
    INFO(c.models[i].id << ": run scripts/catalog/model_facts.sh to refresh data/embedded/model_facts.json");
    CHECK_FALSE(fresh.catalog().models[i].facts.has_value());
    REQUIRE(c.models[i].facts.has_value());
    CHECK(*c.models[i].facts == fresh.model_facts(i));
  }
  // GLM-4.5 by hand from its config: MoE, no MLA, 131072 positions.
  const Sizer sizer(c);
  const CatalogModel* glm = c.find_model("glm-4.5");
  REQUIRE(glm != nullptr);
  const ModelFacts f = sizer.model_facts(static_cast<std::size_t>(glm - c.models.data()));
  CHECK(f.sizable);
  CHECK(f.moe);
  CHECK_FALSE(f.mla);
  CHECK(f.max_context_tokens == 131072);
  CHECK(f.params_active < f.params_total);
}

TEST_CASE("facts that do not parse are read from the config instead", "[catalog][facts]") {
  const std::string models = R"({"models": [{"id": "m", "config": {"model_type": "llama", "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128}}]})";
  const std::string devices = R"({"devices": []})";
  for (const char* facts : {"{", R"({"models": 3})", R"({"models": [{"id": "m", "sizable": true}]})",
                            R"({"models": [{"id": "other", "sizable": true, "params_total": 1, "params_active": 1, "max_context_tokens": 1}]})"}) {
    INFO(facts);
    auto c = parse_catalog(models, devices, facts);
    REQUIRE(c.ok());
    CHECK_FALSE(c.value().models[0].facts.has_value());
    const Sizer sizer(c.value());
    CHECK(sizer.model_facts(0).sizable);
    CHECK(sizer.model_facts(0).params_total > 0);
  }
  // A well-formed entry is taken as given (the build's checked copy).
  auto c = parse_catalog(models, devices,
                         R"({"models": [{"id": "m", "sizable": true, "params_total": 7, "params_active": 5, "moe": true, "max_context_tokens": 9}]})");
  REQUIRE(c.ok());
  REQUIRE(c.value().models[0].facts.has_value());
  CHECK(c.value().models[0].facts->params_total == 7);
  CHECK(c.value().models[0].facts->moe);
}

TEST_CASE("configs given as TSV text are parsed when a model is first asked for", "[catalog][configs]") {
  const std::string models = R"({"models": [{"id": "a"}, {"id": "b", "config": {"model_type": "llama", "hidden_size": 64,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128}}]})";
  const std::string devices = R"({"devices": []})";
  const std::string config_a = R"({"model_type": "llama", "hidden_size": 128, "num_hidden_layers": 3, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 256})";
  // "b" has its config inline: its TSV line is ignored.
  auto c = parse_catalog(models, devices, {}, "a\t" + config_a + "\nb\t{}\n");
  REQUIRE(c.ok());
  CHECK(c.value().models[0].config.is_null());
  CHECK(c.value().models[0].config_text == config_a);
  CHECK(c.value().models[1].config_text.empty());
  auto a = model_config(c.value().models[0]);
  REQUIRE(a.ok());
  CHECK(a.value()["hidden_size"] == 128);
  const Sizer sizer(c.value());
  REQUIRE(sizer.catalog_architecture(0).ok());
  CHECK(sizer.catalog_architecture(0).value().layers.size() == 3);
  CHECK(sizer.catalog_architecture(1).value().layers.size() == 2);

  // A model with neither an inline config nor a line is refused at parse time,
  // with its path; a line that is not a JSON object when it is read.
  CHECK(parse_catalog(models, devices).error().message == "/models/0/config must be an object");
  auto broken = parse_catalog(models, devices, {}, "a\t{not json\n");
  REQUIRE(broken.ok());
  const Sizer broken_sizer(broken.value());
  REQUIRE_FALSE(broken_sizer.catalog_architecture(0).ok());
  CHECK(broken_sizer.catalog_architecture(0).error().id == "catalog.bad_entry");
  CHECK(broken_sizer.model_facts(0).error == "the config of a is not a JSON object");
}

TEST_CASE("devices carry their purchase price with its kind, date and spread", "[catalog][prices]") {
  const Catalog& c = test::catalog();
  std::size_t priced = 0;
  for (const Device& d : c.devices) {
    if (!d.price_usd) continue;
    ++priced;
    INFO(d.id);
    CHECK_FALSE(d.price_kind.empty());
    if (d.price_low_usd) CHECK(*d.price_low_usd <= *d.price_usd);
    if (d.price_high_usd) CHECK(*d.price_high_usd >= *d.price_usd);
    if (d.vendor == "apple") CHECK_FALSE(d.price_machine.empty());
  }
  // device_prices.json (61 devices, 76 records) with the earlier gpus.json /
  // gpus_more.json prices: 92 of the catalog's devices. The other Apple memory
  // sizes have no price in the reference (its notes say "not sourced").
  CHECK(priced >= 90);

  // device_prices.json h100-sxm: analyst_estimate 27500 (midpoint of the
  // most-cited $25-30k), 22000 used (runlocalai, Q1 2026) .. 40000 (Northflank), as of 2025.
  const Device* h100 = c.find_device("h100-sxm");
  REQUIRE(h100 != nullptr);
  REQUIRE(h100->price_usd);
  CHECK(*h100->price_usd == 27500.0);
  CHECK(h100->price_kind == "analyst_estimate");
  CHECK(h100->price_as_of == "2025");
  CHECK(h100->price_low_usd == 22000.0);
  CHECK(h100->price_high_usd == 40000.0);
  CHECK(h100->price_machine.empty());

  // device_prices.json mi300x: analyst_estimate 12500 (Citi $10-15k ASP) is
  // preferred over gpus.json's 'MSRP $15k' (HF community page).
  const Device* mi300x = c.find_device("mi300x");
  REQUIRE(mi300x != nullptr);
  CHECK(mi300x->price_usd == 12500.0);
  CHECK(mi300x->price_kind == "analyst_estimate");

  // device_prices.json mac-studio-m3-ultra-512gb / apple-m3-ultra 512GB:
  // launch_msrp 9499, 2025-03, Mac Studio (2025) M3 Ultra 32c/80c, 512GB, 1TB;
  // the machine id resolves to the chip-and-size device. Apple no longer
  // sells it new (sourced_superseded_7b.json: the line replaced 2026-08-25),
  // so the launch price is kept as such and the price is the used asking
  // range, $20,000-$21,999 (2026-08-28), doubted: a single private listing.
  const Device* m3u = c.find_device("mac-studio-m3-ultra-512gb");
  REQUIRE(m3u != nullptr);
  CHECK(m3u->id == "mac-m3-ultra-512gb");
  CHECK(m3u->launch_price_usd == 9499.0);
  CHECK(m3u->price_usd == 20000.0);
  CHECK(m3u->price_kind == "street_used");
  CHECK(m3u->price_as_of == "2026-08-28");
  CHECK(m3u->price_low_usd == 20000.0);
  CHECK(m3u->price_high_usd == 21999.0);
  CHECK(m3u->price_low_confidence);
  // The M5 Max Mac Studio, sold new in 2026, keeps its list price.
  const Device* m5max = c.find_device("mac-m5-max-128gb");
  REQUIRE(m5max != nullptr);
  CHECK(m5max->price_kind == "list");
  CHECK_FALSE(m5max->price_low_confidence);
  // Superseded in 2023 with no used price sourced: the launch price stays, doubted.
  const Device* m1max = c.find_device("mac-m1-max-64gb");
  REQUIRE(m1max != nullptr);
  CHECK(m1max->price_kind == "launch_msrp");
  CHECK(m1max->price_low_confidence);

  // device_prices.json apple-m1 16GB: 899 = $699 base + $200 (DERIVED, mutepc rule).
  const Device* m1 = c.find_device("mac-m1-16gb");
  REQUIRE(m1 != nullptr);
  CHECK(m1->price_usd == 899.0);

  // rtx-3090: NVIDIA's store stopped selling RTX 30 Founders Editions in
  // 2023-03 (purepc.pl); a new card listed in 2026 is old stock at $1,510.20,
  // while "You can buy one used for $500-800" and one was "purchased used:
  // $700" (local-llm.net, 2026): the used $700 is the price, labelled used.
  const Device* rtx3090 = c.find_device("rtx-3090");
  REQUIRE(rtx3090 != nullptr);
  CHECK(rtx3090->price_usd == 700.0);
  CHECK(rtx3090->price_kind == "street_used");
  CHECK(rtx3090->price_low_usd == 500.0);
  CHECK(rtx3090->price_high_usd == 800.0);
  CHECK_FALSE(rtx3090->price_low_confidence);
  CHECK(rtx3090->sold_new_until == "2023-03");

  // rtx-4090: production ended in 2024-10 (a Board Channels report via
  // techmehow.com, sourced_superseded_8a.json); new old stock was $2,755 in
  // 2026-09 and $3,395 on Newegg on 2026-03-03, while the same September 2026
  // note gives "used $1,500-2,268": the used price is what a buyer pays, at the
  // low end of its range, $1,500 (GPU Poet's eBay figures, $1,850 in March and
  // $2,470 in April, are older). The $1,599 of 2022-10-12 (gpus.json) is its
  // launch price, kept beside it.
  const Device* rtx4090 = c.find_device("rtx-4090");
  REQUIRE(rtx4090 != nullptr);
  CHECK(rtx4090->sold_new_until == "2024-10");
  CHECK(rtx4090->price_usd == 1500.0);
  CHECK(rtx4090->price_kind == "street_used");
  CHECK(rtx4090->price_as_of == "2026-09");
  CHECK(rtx4090->price_low_usd == 1500.0);
  CHECK(rtx4090->price_high_usd == 2268.0);
  CHECK(rtx4090->launch_price_usd == 1599.0);
  // rtx-4060: last deliveries 2025-02 (hi-tech.ua); GPU Poet's eBay and Amazon
  // average of the three cheapest was $207 in May 2026. Its $300 list price
  // stays the launch price, not the $419.99 Newegg listing of 2026-03 that
  // came between them.
  const Device* rtx4060 = c.find_device("rtx-4060");
  REQUIRE(rtx4060 != nullptr);
  CHECK(*rtx4060->price_usd == 207.0);
  CHECK(rtx4060->price_kind == "street_used");
  CHECK(rtx4060->sold_new_until == "2025-02");
  CHECK(rtx4060->launch_price_usd == 300.0);

  // A Strix Halo 128 GB machine in 2026 (sourced_prices_8c.json): the cheapest
  // of the newest month's offers, the Bosgame M5 at $2,999 (2026-09-19), not
  // Framework's $1,999 of 2025 (it was $2,459 in January 2026, ~$3,449 by
  // September); the DGX Spark at $4,999.99 on Amazon US (2026-09-21), above
  // NVIDIA's $4,699 list of 2026-02-25 with its own shop out of stock.
  const Device* strix = c.find_device("ryzen-ai-max-plus-395");
  REQUIRE(strix != nullptr);
  CHECK(*strix->price_usd == 2999.0);
  CHECK(strix->price_as_of == "2026-09-19");
  CHECK(strix->price_machine.find("Bosgame M5") != std::string::npos);
  CHECK(*c.find_device("dgx-spark-gb10")->price_usd == Approx(4999.99));

  // Launch-time prices more than 3 years older than the catalog's newest price
  // (2026-09-29, so before 2023-09) with nothing later are doubted: the Quadro
  // RTX 8000's $10,000 of 2018-08-14, the MI250X's 2021-12-06 release estimate
  // (halved per GCD: $14,500 / 2), the T4's $1,880 launch price (a 2018 part;
  // GPU Poet's eBay average of the 3 cheapest was $543 in January 2026). The
  // RTX 6000 Ada's 2022 launch price is not: a March 2026 listing at $6,956
  // shows it still sold new.
  for (const char* id : {"nvidia-quadro-rtx-8000", "mi250x", "tesla-t4", "nvidia-a10"}) {
    const Device* stale = c.find_device(id);
    REQUIRE(stale != nullptr);
    CHECK(stale->price_low_confidence);
  }
  CHECK(*c.find_device("mi250x")->price_usd == 7250.0);
  const Device* ada = c.find_device("rtx-6000-ada");
  REQUIRE(ada != nullptr);
  CHECK(*ada->price_usd == 6956.0);
  CHECK(ada->price_kind == "street_new");
  CHECK_FALSE(ada->price_low_confidence);
  // h100-sxm: sold in 8-GPU servers; the newest dated whole-server quote is
  // Thinkmate's 8x H100 SXM node at $317,000 (2024-08).
  const Device* h100_server = c.find_device("h100-sxm");
  REQUIRE(h100_server != nullptr);
  CHECK(h100_server->server_price_usd == 317000.0);
  CHECK(h100_server->server_gpus == 8);
  CHECK(h100_server->server_price_as_of == "2024-08");

  // device_prices.json tesla-v100: "LOW CONFIDENCE (AI-written guide). 32GB
  // SXM2 used range": flagged; the H100 SXM's analyst range is not.
  const Device* v100 = c.find_device("tesla-v100");
  REQUIRE(v100 != nullptr);
  CHECK(v100->price_low_confidence);
  CHECK_FALSE(h100->price_low_confidence);

  // A desktop priced from parts pays today's RAM: the 128 GB DDR5 kit was
  // $299.99 in 2025-07 (PCPartPicker) and EUR 1,799 at the cheapest on
  // Geizhals on 2026-08-21 (sourced_prices_7a.json), at 0.88168 EUR per USD
  // (2026-06-25): 1799 / 0.88168 = 2040.42, $2040; with the 7950X's $699 and
  // the $159.99 board, $2898.99 (it was $1158.98, which made it the "best
  // single device" for gpt-oss-120b at 12.6 tok/s).
  const Device* ryzen_7950x = c.find_device("ryzen-9-7950x-128gb-ddr5-3600");
  REQUIRE(ryzen_7950x != nullptr);
  REQUIRE(ryzen_7950x->price_usd);
  CHECK(*ryzen_7950x->price_usd == Approx(699.0 + 159.99 + 2040.0));
  CHECK(ryzen_7950x->price_as_of == "2026-08-21");
  CHECK_FALSE(ryzen_7950x->price_low_confidence);
  // The 192 GB and DDR4 machines have only mid-2025 RAM prices: doubted, so
  // no purchase answer names them.
  for (const char* id : {"ryzen-7-7800x3d-192gb-ddr5-6000", "ryzen-9-5900x-128gb-ddr4-3600"}) {
    const Device* stale = c.find_device(id);
    REQUIRE(stale != nullptr);
    CHECK(stale->price_low_confidence);
  }

  // SXM modules come on 4- or 8-GPU HGX boards (Wikipedia, SXM (socket)); the
  // MI300X's OAM modules on AMD's 8-GPU UBB (ServeTheHome); a PCIe card has none.
  CHECK(h100->server_board_gpus == std::vector<int>{4, 8});
  CHECK(mi300x->server_board_gpus == std::vector<int>{8});
  // The H20 "comes in an 8-way configuration in an HGX solution" (xfastest.com,
  // 2024): five loose H20s are no purchase (recommend once bought 5 for DeepSeek-V3).
  REQUIRE(c.find_device("h20-96gb") != nullptr);
  CHECK(c.find_device("h20-96gb")->server_board_gpus == std::vector<int>{8});
  REQUIRE(c.find_device("h100-pcie") != nullptr);
  CHECK(c.find_device("h100-pcie")->server_board_gpus.empty());
  CHECK(rtx4090->server_board_gpus.empty());

  // An MI250X module is two GCDs, each "enumerated as an independent GPU by
  // ROCm tools", "64 GB per GCD", "up to 1.6 TB/s" (AMD's MI250 acceptance
  // guide): the catalog device is the GCD, so 4 modules are the 8 GPUs vLLM's
  // -tp and llama.cpp's split count. 128 GB / 2 = 64 GiB; 3200 GB/s / 2 =
  // 1600 GB/s; 383 TFLOPS FP16 / 2 = 191.5; nodes of 4 or 8 modules (the same
  // guide) are 8 or 16 GPUs.
  const Device* mi250x = c.find_device("mi250x");
  REQUIRE(mi250x != nullptr);
  CHECK(mi250x->memory_bytes == 64LL * 1024 * 1024 * 1024);
  CHECK(mi250x->bandwidth_bytes_per_s == Approx(1600e9));
  CHECK(mi250x->fp16_flops == Approx(191.5e12));
  CHECK(mi250x->server_board_gpus == std::vector<int>{8, 16});
  CHECK(mi250x->name.find("GCD") != std::string::npos);
  CHECK(c.find_device("mi250x-gcd") == mi250x);
  CHECK(mi250x->package_gpus == 2);
  // An Atlas 300I Duo card "has two Ascend AI processors", scheduled one by
  // one (Huawei's MindCluster guide), with "two 48GB" LPDDR4X memories: the
  // device is one 310P, 96 / 2 = 48 GiB at 408 / 2 = 204 GB/s, sold two to a
  // card ($1,937 / 2 = $968.50 each).
  const Device* atlas = c.find_device("atlas-300i-duo-96gb");
  REQUIRE(atlas != nullptr);
  CHECK(atlas->memory_bytes == 48LL * 1024 * 1024 * 1024);
  CHECK(atlas->bandwidth_bytes_per_s == Approx(204e9));
  CHECK(atlas->package_gpus == 2);
  CHECK(*atlas->price_usd == Approx(968.5));
  CHECK(c.find_device("rtx-4090")->package_gpus == 1);

  // No price in any source: null, not zero.
  const Device* unpriced = c.find_device("alibaba-ppu-zw810e");
  REQUIRE(unpriced != nullptr);
  CHECK_FALSE(unpriced->price_usd.has_value());
  CHECK(unpriced->price_kind.empty());
}

TEST_CASE("host RAM kinds of system_ram.json reach the engine, the default among them", "[catalog][ram]") {
  const Catalog& c = test::catalog();
  REQUIRE(c.ram_profiles.size() >= 10);
  for (std::size_t i = 1; i < c.ram_profiles.size(); ++i)
    CHECK(c.ram_profiles[i - 1].bandwidth_bytes_per_s <= c.ram_profiles[i].bandwidth_bytes_per_s);
  auto find = [&](const std::string& id) -> const RamProfile* {
    for (const RamProfile& p : c.ram_profiles)
      if (p.id == id) return &p;
    return nullptr;
  };
  // Channels x 8 bytes x MT/s: DDR4-3200 dual channel 2 x 8 x 3200 = 51.2 GB/s;
  // EPYC 9004, 12 x 8 x 4800 = 460.8 GB/s per socket.
  REQUIRE(find("ddr4-3200-2ch") != nullptr);
  CHECK(find("ddr4-3200-2ch")->bandwidth_bytes_per_s == Approx(51.2e9));
  REQUIRE(find("ddr5-4800-12ch") != nullptr);
  CHECK(find("ddr5-4800-12ch")->bandwidth_bytes_per_s == Approx(460.8e9));
  // The estimate's default (dual-channel DDR5-5600, 2 x 8 x 5600 = 89.6 GB/s)
  // is one of them, so the page can name it.
  const RamProfile* ddr5 = find("ddr5-5600-2ch");
  REQUIRE(ddr5 != nullptr);
  CHECK(ddr5->bandwidth_bytes_per_s == Approx(Scenario{}.ram_bandwidth_bytes_per_s));
}

TEST_CASE("device specs of device_specs.json reach the engine", "[catalog][specs]") {
  const Catalog& c = test::catalog();
  // device_specs.json mac-m2-ultra-64gb: 800 GB/s; FP32 21.47 TFLOPS (hmc-tech,
  // base 60-core GPU at 1398 MHz).
  const Device* m2u = c.find_device("mac-m2-ultra-64gb");
  REQUIRE(m2u != nullptr);
  CHECK(m2u->bandwidth_bytes_per_s == Approx(800e9));
  CHECK(m2u->fp32_flops == Approx(21.47e12));
  // device_specs.json gh200-96gb: 4000 GB/s HBM3, dense FP16 989 (FP32 accumulate).
  const Device* gh200 = c.find_device("gh200-96gb");
  REQUIRE(gh200 != nullptr);
  CHECK(gh200->bandwidth_bytes_per_s == Approx(4000e9));
  CHECK(gh200->fp16_flops == Approx(989e12));
  // device_specs.json rtx-5060-ti-16gb: vector FP32 23.7, no stated dense FP16
  // (the notes' AI-TOPS derivation is not used).
  const Device* r5060 = c.find_device("rtx-5060-ti-16gb");
  REQUIRE(r5060 != nullptr);
  CHECK(r5060->fp32_flops == Approx(23.7e12));
  CHECK(r5060->fp16_flops == 0.0);
}

TEST_CASE("the M5 Pro's two GPU parts are two devices: the Mac mini's 16-core part has its own price", "[catalog][specs]") {
  // The reference keeps one M5 Pro (GPU options 16/20, 307 GB/s); device_specs.json's
  // FP32 11.4 TFLOPS assumes 20 cores. Apple sells the Mac mini (2026) with the
  // 16-core part at $2,699 for 64 GB (2026-08): that price was doubted while the
  // device was the 20-core one, and the unified-memory answer for a 20 GB model
  // was a $5,099 M5 Max. By hand: 11.4 x 16 / 20 = 9.12 TFLOPS, the same 307 GB/s.
  const Catalog& c = test::catalog();
  const Device* part16 = c.find_device("mac-m5-pro-16c-64gb");
  const Device* part20 = c.find_device("mac-m5-pro-20c-64gb");
  REQUIRE(part16 != nullptr);
  REQUIRE(part20 != nullptr);
  CHECK(part16->fp32_flops == Approx(9.12e12));
  CHECK(part20->fp32_flops == Approx(11.4e12));
  CHECK(part16->bandwidth_bytes_per_s == Approx(307e9));
  CHECK(part20->bandwidth_bytes_per_s == Approx(307e9));
  REQUIRE(part16->price_usd);
  CHECK(*part16->price_usd == Approx(2699.0));
  CHECK_FALSE(part16->price_low_confidence);
  // The id links used before the parts were told apart still find the 20-core part.
  CHECK(c.find_device("mac-m5-pro-64gb") == part20);
}

TEST_CASE("seed-page models of seed_models.json are sized within 1% of the vendor's count", "[catalog][seed]") {
  const Sizer sizer(test::catalog());
  const Catalog& c = sizer.catalog();
  // seed_models.json: Qwen3-Coder-30B-A3B-Instruct (verbatim config) 30.5B total;
  // Qwen3.8-2.4T-A95B (verbatim) 2.4T; Step-3.5-Flash (derived) 196.81B;
  // DeepSeek-V3-0324 (same_as deepseek-ai/DeepSeek-V3) 671B.
  const std::pair<const char*, double> stated[] = {{"qwen3-coder-30b-a3b-instruct", 30.5e9},
                                                   {"qwen3.8-2.4t-a95b", 2.4e12},
                                                   {"step-3.5-flash", 196.81e9},
                                                   {"deepseek-v3-0324", 671e9}};
  for (const auto& [id, total] : stated) {
    INFO(id);
    const CatalogModel* m = c.find_model(id);
    REQUIRE(m != nullptr);
    const ModelFacts f = sizer.model_facts(static_cast<std::size_t>(m - c.models.data()));
    REQUIRE(f.sizable);
    CHECK(static_cast<double>(f.params_total) == Approx(total).epsilon(0.01));
  }
  // A same_as re-release keeps its own id and repository.
  const CatalogModel* r1 = c.find_model("deepseek-r1-0528");
  REQUIRE(r1 != nullptr);
  CHECK(r1->hf_repo == "deepseek-ai/DeepSeek-R1-0528");
}
