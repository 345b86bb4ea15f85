// Fine-tuning memory. Bytes per parameter follow mixed-precision AdamW
// (bf16 weights 2 + bf16 gradients 2 + fp32 master copy 4 + two fp32 moments 8
// = 16; an 8-bit optimizer keeps its two moments in 1 byte each). Activations
// follow Korthikanti et al. 2022 (reference README, "Facts for fine-tuning memory").
#include "llmsizer/finetune.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "llmsizer/device.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/weights.hpp"

namespace llmsizer {
namespace {

constexpr std::int64_t kBf16Bytes = 2;
constexpr std::int64_t kFp32Bytes = 4;
// Korthikanti et al., Table 2: bytes per layer = s*b*h*(34 + 5*a*s/h) without
// recomputation; FlashAttention never stores the a*s*s score matrices.
constexpr std::int64_t kActivationBytesPerTokenHidden = 34;
constexpr std::int64_t kAttentionScoreBytes = 5;  // per head per (query, key) pair
// Full checkpointing keeps each layer's bf16 input (2*s*b*h) and recomputes one layer at a time.
constexpr std::int64_t kCheckpointBytesPerTokenHidden = 2;

Error bad(const std::string& what) { return Error{"finetune.bad_value", what}; }

// LoRA adds A (r x d_in) and B (d_out x r) beside a frozen d_out x d_in matrix.
std::int64_t adapter(std::int64_t rank, std::int64_t d_in, std::int64_t d_out) { return rank * (d_in + d_out); }

std::int64_t adapter_params(const Architecture& arch, const FinetuneRequest& r) {
  const std::int64_t h = arch.hidden_size;
  std::int64_t total = 0;
  for (const LayerSpec& layer : arch.layers) {
    if (layer.is_mtp) continue;
    const AttentionSpec& a = layer.attn;
    const bool attention = a.kind == AttentionKind::full || a.kind == AttentionKind::sliding ||
                           a.kind == AttentionKind::chunked;
    const FfnSpec& f = layer.ffn;
    for (LoraTarget t : r.targets) {
      if (attention) {
        if (t == LoraTarget::q) total += adapter(r.lora_rank, h, a.n_heads * a.head_dim_k);
        if (t == LoraTarget::k) total += adapter(r.lora_rank, h, a.n_kv_heads * a.head_dim_k);
        if (t == LoraTarget::v && !a.k_eq_v) total += adapter(r.lora_rank, h, a.n_kv_heads * a.head_dim_v);
        if (t == LoraTarget::o) total += adapter(r.lora_rank, a.n_heads * a.head_dim_v, h);
      }
      const bool mlp = t == LoraTarget::gate || t == LoraTarget::up || t == LoraTarget::down;
      if (!mlp || (t == LoraTarget::gate && !f.gated)) continue;
      // gate/up map hidden -> width, down maps back: the same adapter size either way.
      if (f.kind == FfnKind::dense) total += adapter(r.lora_rank, h, f.intermediate);
      if (f.kind == FfnKind::moe) {
        // PEFT matches the module name in every expert.
        total += f.n_experts * adapter(r.lora_rank, h, f.expert_intermediate);
        if (f.shared_intermediate > 0) total += adapter(r.lora_rank, h, f.shared_intermediate);
      }
    }
  }
  return total;
}

std::int64_t activation_bytes(const Architecture& arch, const FinetuneRequest& r) {
  const std::int64_t s = r.sequence_tokens, b = r.micro_batch, h = arch.hidden_size;
  std::int64_t heads = 0;
  for (const LayerSpec& layer : arch.layers) heads = std::max(heads, layer.attn.n_heads);
  const std::int64_t per_layer = s * b * h * kActivationBytesPerTokenHidden +
                                 (r.flash_attention ? 0 : kAttentionScoreBytes * heads * s * s * b);
  const std::int64_t layers = arch.decoder_layer_count();
  const std::int64_t body = r.gradient_checkpointing
                                ? layers * kCheckpointBytesPerTokenHidden * s * b * h + per_layer
                                : layers * per_layer;
  // The loss needs the logits: s*b*vocab in fp32 (HF upcasts them for cross-entropy).
  const std::int64_t logits = s * b * arch.vocab_size * kFp32Bytes;
  return body + logits;
}

std::int64_t weight_bytes_at(const Architecture& arch, const char* quant) {
  auto scheme = quant_scheme_from_name(quant);
  return scheme ? compute_weights(arch, scheme.value()).tensor_bytes : 0;
}

}  // namespace

std::optional<FinetuneMethod> finetune_method_from_name(std::string_view name) {
  if (name == "full") return FinetuneMethod::full;
  if (name == "lora") return FinetuneMethod::lora;
  if (name == "qlora") return FinetuneMethod::qlora;
  return std::nullopt;
}

std::optional<OptimizerKind> optimizer_from_name(std::string_view name) {
  if (name == "adamw") return OptimizerKind::adamw;
  if (name == "adamw8bit" || name == "adamw_8bit") return OptimizerKind::adamw_8bit;
  return std::nullopt;
}

std::optional<std::vector<LoraTarget>> lora_targets_from_name(std::string_view name) {
  using T = LoraTarget;
  if (name == "all") return std::vector<T>{T::q, T::k, T::v, T::o, T::gate, T::up, T::down};
  if (name == "attention") return std::vector<T>{T::q, T::k, T::v, T::o};
  std::vector<T> out;
  while (!name.empty()) {
    const std::size_t comma = name.find(',');
    const std::string_view item = name.substr(0, comma);
    if (item == "q") out.push_back(T::q);
    else if (item == "k") out.push_back(T::k);
    else if (item == "v") out.push_back(T::v);
    else if (item == "o") out.push_back(T::o);
    else if (item == "gate") out.push_back(T::gate);
    else if (item == "up") out.push_back(T::up);
    else if (item == "down") out.push_back(T::down);
    else return std::nullopt;
    if (comma == std::string_view::npos) break;
    name.remove_prefix(comma + 1);
    if (name.empty()) return std::nullopt;  // a trailing comma
  }
  if (out.empty()) return std::nullopt;
  return out;
}

Result<FinetuneEstimate> estimate_finetune(const Architecture& arch, const FinetuneRequest& r) {
  if (r.sequence_tokens < 1 || r.sequence_tokens > (1 << 20)) return bad("sequence length must be in [1, 1048576]");
  if (r.micro_batch < 1 || r.micro_batch > 4096) return bad("micro-batch must be in [1, 4096]");
  if (r.gpus < 1 || r.gpus > 4096) return bad("GPU count must be in [1, 4096]");
  if (r.lora_rank < 1 || r.lora_rank > 65536) return bad("LoRA rank must be in [1, 65536]");
  if (r.zero_stage < 0 || r.zero_stage > 3) return bad("ZeRO stage must be 0, 1, 2 or 3");

  const ParamCounts params = count_params(arch);
  const std::int64_t moments_bytes = r.optimizer == OptimizerKind::adamw ? 2 * kFp32Bytes : 2;
  FinetuneEstimate e;
  if (r.method == FinetuneMethod::full) {
    e.trainable_params = params.total;
    e.weights_bytes = kBf16Bytes * params.total;
    e.gradients_bytes = kBf16Bytes * params.total;
    e.optimizer_bytes = (kFp32Bytes + moments_bytes) * params.total;  // fp32 master + moments
  } else {
    // Adapters train in fp32 (PEFT/LLaMA-Factory upcast trainable parameters):
    // 4 bytes of weight, 4 of gradient, and the moments; no master copy needed.
    const std::int64_t a = adapter_params(arch, r);
    e.trainable_params = a;
    e.frozen_params = params.total;
    const std::int64_t base = r.method == FinetuneMethod::qlora ? weight_bytes_at(arch, "NF4")
                                                                 : weight_bytes_at(arch, "BF16-native");
    e.weights_bytes = base + kFp32Bytes * a;
    e.gradients_bytes = kFp32Bytes * a;
    e.optimizer_bytes = moments_bytes * a;
  }
  // ZeRO / FSDP: each stage shards one more state over the data-parallel GPUs.
  const std::int64_t n = r.gpus;
  if (r.zero_stage >= 1) e.optimizer_bytes = (e.optimizer_bytes + n - 1) / n;
  if (r.zero_stage >= 2) e.gradients_bytes = (e.gradients_bytes + n - 1) / n;
  if (r.zero_stage >= 3) e.weights_bytes = (e.weights_bytes + n - 1) / n;
  e.activations_bytes = activation_bytes(arch, r);
  e.total_bytes = e.weights_bytes + e.gradients_bytes + e.optimizer_bytes + e.activations_bytes;
  return e;
}

const Device* finetune_device(const Catalog& catalog, std::int64_t bytes_per_gpu) {
  const Device* best = nullptr;
  for (const Device& d : catalog.devices) {
    // A price the catalog calls low confidence ranks nothing (as recommend's buyable counts).
    if (!d.price_usd || d.price_low_confidence || usable_memory(d).usable_bytes < bytes_per_gpu) continue;
    // Training runs on CUDA/ROCm datacenter and desktop parts, where PyTorch,
    // PEFT and bitsandbytes (the stack these figures model) train; not on CPUs,
    // inference NPUs (the Atlas 300I Duo, an Ascend 310P card) or other backends.
    if (d.kind == DeviceKind::cpu || (d.backend != Backend::cuda && d.backend != Backend::rocm)) continue;
    if (best == nullptr || *d.price_usd < *best->price_usd) best = &d;
  }
  return best;
}

Json finetune_to_json(const FinetuneEstimate& e, const Device* device) {
  Json j;
  j["weights_bytes"] = e.weights_bytes;
  j["gradients_bytes"] = e.gradients_bytes;
  j["optimizer_bytes"] = e.optimizer_bytes;
  j["activations_bytes"] = e.activations_bytes;
  j["total_bytes"] = e.total_bytes;
  j["trainable_params"] = e.trainable_params;
  j["frozen_params"] = e.frozen_params;
  j["device"] = device ? Json(device->id) : Json(nullptr);
  return j;
}

}  // namespace llmsizer
