// Memory to fine-tune a model: weights, gradients, optimizer state and
// activations per GPU, for full fine-tuning, LoRA and QLoRA.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/json.hpp"

#include "llmsizer/architecture.hpp"
#include "llmsizer/catalog.hpp"
#include "llmsizer/result.hpp"

namespace llmsizer {

enum class FinetuneMethod { full, lora, qlora };
enum class OptimizerKind { adamw, adamw_8bit };

// LoRA target matrices, PEFT's names.
enum class LoraTarget { q, k, v, o, gate, up, down };

struct FinetuneRequest {
  FinetuneMethod method = FinetuneMethod::lora;
  std::int64_t sequence_tokens = 2048;
  std::int64_t micro_batch = 1;
  int gpus = 1;
  std::int64_t lora_rank = 16;
  std::vector<LoraTarget> targets = {LoraTarget::q, LoraTarget::k, LoraTarget::v, LoraTarget::o,
                                     LoraTarget::gate, LoraTarget::up, LoraTarget::down};
  OptimizerKind optimizer = OptimizerKind::adamw;
  bool gradient_checkpointing = false;
  bool flash_attention = true;
  int zero_stage = 0;  // DeepSpeed ZeRO / FSDP: 1 shards optimizer, 2 + gradients, 3 + weights
};

struct FinetuneEstimate {
  std::int64_t trainable_params = 0;
  std::int64_t frozen_params = 0;
  // Per GPU, after ZeRO sharding.
  std::int64_t weights_bytes = 0;
  std::int64_t gradients_bytes = 0;
  std::int64_t optimizer_bytes = 0;
  std::int64_t activations_bytes = 0;
  std::int64_t total_bytes = 0;
};

std::optional<FinetuneMethod> finetune_method_from_name(std::string_view name);
std::optional<OptimizerKind> optimizer_from_name(std::string_view name);
// "all" (attention and MLP, the QLoRA paper's choice), "attention" (q,k,v,o),
// or a comma-separated list of q, k, v, o, gate, up, down.
std::optional<std::vector<LoraTarget>> lora_targets_from_name(std::string_view name);

// Error id "finetune.bad_value" (names the input and its range).
Result<FinetuneEstimate> estimate_finetune(const Architecture& arch, const FinetuneRequest& request);

// The cheapest priced catalog device whose usable memory holds `bytes_per_gpu`;
// null when none does.
const Device* finetune_device(const Catalog& catalog, std::int64_t bytes_per_gpu);

Json finetune_to_json(const FinetuneEstimate& e, const Device* device);

}  // namespace llmsizer
