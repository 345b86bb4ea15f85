// Fine-tuning memory: the byte-per-parameter rules by hand, then the published
// framework figures (tests/golden/finetune_reference.json) within stated tolerances.
#include "llmsizer/finetune.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/units.hpp"
#include "test_support.hpp"

using namespace llmsizer;

TEST_CASE("full fine-tuning: 16 bytes per parameter with AdamW, 10 with 8-bit moments") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  const std::int64_t p = count_params(arch).total;
  FinetuneRequest r;
  r.method = FinetuneMethod::full;
  auto e = estimate_finetune(arch, r);
  REQUIRE(e.ok());
  CHECK(e.value().weights_bytes == 2 * p);
  CHECK(e.value().gradients_bytes == 2 * p);
  CHECK(e.value().optimizer_bytes == 12 * p);  // fp32 master 4 + two fp32 moments 8
  CHECK(e.value().total_bytes == 16 * p + e.value().activations_bytes);
  r.optimizer = OptimizerKind::adamw_8bit;
  CHECK(estimate_finetune(arch, r).value().optimizer_bytes == 6 * p);  // master 4 + moments 2

  SECTION("ZeRO shards optimizer, then gradients, then weights over the GPUs") {
    r.optimizer = OptimizerKind::adamw;
    r.gpus = 4;
    r.zero_stage = 1;
    auto z1 = estimate_finetune(arch, r).value();
    CHECK(z1.optimizer_bytes == 3 * p);
    CHECK(z1.gradients_bytes == 2 * p);
    r.zero_stage = 3;
    auto z3 = estimate_finetune(arch, r).value();
    CHECK(z3.gradients_bytes == p / 2);
    CHECK(z3.weights_bytes == p / 2);
  }
}

TEST_CASE("LoRA adapters: rank x (d_in + d_out) per adapted matrix") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  FinetuneRequest r;
  r.method = FinetuneMethod::lora;
  r.lora_rank = 16;
  // Llama-3.1-8B per layer, h 4096, 32 x 128 query, 8 x 128 KV, intermediate 14336:
  // q 16*(4096+4096) + k 16*(4096+1024) + v the same + o 16*(4096+4096)
  // + gate, up, down 3 * 16*(4096+14336) = 131072 + 81920*2 + 131072 + 884736 = 1310720;
  // x 32 layers = 41,943,040 (PEFT prints 41,943,040 trainable for r=16, all linear layers).
  auto e = estimate_finetune(arch, r);
  REQUIRE(e.ok());
  CHECK(e.value().trainable_params == 41943040);
  CHECK(e.value().gradients_bytes == 4 * 41943040);
  CHECK(e.value().optimizer_bytes == 8 * 41943040);
  r.targets = {LoraTarget::q, LoraTarget::v};
  CHECK(estimate_finetune(arch, r).value().trainable_params == 32 * (131072 + 81920));
}

TEST_CASE("activations: Korthikanti per layer, FlashAttention and checkpointing") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  FinetuneRequest r;
  r.sequence_tokens = 1024;
  r.micro_batch = 2;
  const std::int64_t s = 1024, b = 2, h = 4096, a = 32, L = 32, logits = s * b * 128256 * 4;
  auto flash = estimate_finetune(arch, r).value();
  CHECK(flash.activations_bytes == L * 34 * s * b * h + logits);
  r.flash_attention = false;
  auto plain = estimate_finetune(arch, r).value();
  CHECK(plain.activations_bytes == L * (34 * s * b * h + 5 * a * s * s * b) + logits);
  r.flash_attention = true;
  r.gradient_checkpointing = true;
  auto ckpt = estimate_finetune(arch, r).value();
  CHECK(ckpt.activations_bytes == L * 2 * s * b * h + 34 * s * b * h + logits);
}

TEST_CASE("bad inputs are error values") {
  const Architecture arch = test::catalog_arch("llama-3.1-8b");
  FinetuneRequest r;
  r.zero_stage = 4;
  CHECK(estimate_finetune(arch, r).error().id == "finetune.bad_value");
  r.zero_stage = 0;
  r.sequence_tokens = 0;
  CHECK(estimate_finetune(arch, r).error().id == "finetune.bad_value");
  CHECK_FALSE(finetune_method_from_name("dora"));
}

TEST_CASE("fine-tuning memory lands within the frameworks' published figures") {
  const auto golden = test::golden("finetune_reference.json");
  for (const auto& c : golden["cases"]) {
    INFO(c["name"].get<std::string>() << " (" << c["source"].get<std::string>() << ")");
    const Architecture arch = test::catalog_arch(c["model"].get<std::string>());
    FinetuneRequest r;
    r.method = finetune_method_from_name(c["method"].get<std::string>()).value();
    r.sequence_tokens = c["seq"].get<std::int64_t>();
    r.micro_batch = c["micro_batch"].get<std::int64_t>();
    r.gradient_checkpointing = c["checkpointing"].get<bool>();
    auto e = estimate_finetune(arch, r);
    REQUIRE(e.ok());
    const std::string field = c["field"].get<std::string>();
    const std::int64_t ours = field == "weights_bytes" ? e.value().weights_bytes : e.value().total_bytes;
    const double expected = c.contains("expected_gb") ? c["expected_gb"].get<double>() * kGB
                                                      : c["expected_gib"].get<double>() * static_cast<double>(kGiB);
    CHECK_THAT(static_cast<double>(ours), Catch::Matchers::WithinRel(expected, c["tolerance_rel"].get<double>()));
  }
}

TEST_CASE("the cheapest device to fine-tune on trains with PyTorch: CUDA or ROCm, never an inference NPU or a CPU") {
  // 84.5 GiB (Qwen3-30B-A3B LoRA at 4K) was answered with the Atlas 300I Duo,
  // an Ascend 310P inference card; 7.7 GiB (Llama 3.1 8B QLoRA) with an Intel
  // Arc B580, where bitsandbytes' NF4 is not the stack these figures model.
  const Catalog& catalog = test::catalog();
  for (const std::int64_t gib : {8, 24, 85, 150}) {
    const std::int64_t bytes = gib * kGiB;
    const Device* d = finetune_device(catalog, bytes);
    REQUIRE(d != nullptr);
    CHECK((d->backend == Backend::cuda || d->backend == Backend::rocm));
    CHECK(d->kind != DeviceKind::cpu);
    CHECK(!d->price_low_confidence);
    CHECK(usable_memory(*d).usable_bytes >= bytes);
    // No priced CUDA or ROCm device that holds it costs less.
    for (const Device& other : catalog.devices) {
      if (!other.price_usd || other.price_low_confidence || other.kind == DeviceKind::cpu) continue;
      if (other.backend != Backend::cuda && other.backend != Backend::rocm) continue;
      if (usable_memory(other).usable_bytes < bytes) continue;
      CHECK(*other.price_usd >= *d->price_usd);
    }
  }
}
