#include "llmsizer/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <tuple>

#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/runtime_support.hpp"
#include "llmsizer/speed.hpp"
#include "speculative_estimate.hpp"
#include "speed_rates.hpp"
#include "llmsizer/units.hpp"
#include "memory_verdict.hpp"

namespace llmsizer {
namespace {

// The bias bytes among a layer's expert bytes (WeightBreakdown::layer_expert_bias_bytes).
std::int64_t expert_bias_bytes(const WeightBreakdown& w, std::size_t layer) {
  return layer < w.layer_expert_bias_bytes.size() ? w.layer_expert_bias_bytes[layer] : 0;
}

// The speeds follow device figures the catalog holds only as estimates (a
// secondary source, a range's middle, a sibling's figure): say which.
std::string estimated_inputs_warning(const std::vector<std::string>& fields) {
  std::string names;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    const char* name = f == "bandwidth_gb_per_s" ? "memory bandwidth"
                       : f == "fp16_tflops"      ? "FP16 rate"
                       : f == "fp8_tflops"       ? "FP8 rate"
                       : f == "fp4_tflops"       ? "FP4 rate"
                       : f == "fp32_tflops"      ? "FP32 rate"
                                                 : f.c_str();
    names += (i == 0 ? "" : i + 1 == fields.size() ? " and " : ", ") + std::string(name);
  }
  const bool several = fields.size() > 1;
  return "the device's " + names + (several ? " are estimates, not vendor or measured figures"
                                            : " is an estimate, not a vendor or measured figure") +
         " (the device's notes give the source and its doubt): the speeds follow " + (several ? "them" : "it");
}


// Inputs past these bounds are rejected: they are beyond any real deployment
// and would push byte products toward 64-bit overflow.
constexpr std::int64_t kMaxContextTokens = std::int64_t{1} << 24;  // 16M tokens
constexpr std::int64_t kMaxSequences = 4096;
constexpr int kMaxGpus = 1024;

std::optional<Error> validate(const Scenario& s) {
  auto bad = [](const std::string& what) { return Error{"scenario.bad_value", what}; };
  if (s.context_tokens < 1 || s.context_tokens > kMaxContextTokens)
    return bad("context must be between 1 and 16777216 tokens, got " + std::to_string(s.context_tokens));
  if (s.sequences < 1 || s.sequences > kMaxSequences)
    return bad("batch must be between 1 and 4096 sequences, got " + std::to_string(s.sequences));
  if (s.gpu_count < 1 || s.gpu_count > kMaxGpus)
    return bad("GPU count must be between 1 and 1024, got " + std::to_string(s.gpu_count));
  if (!(s.offload_fraction >= 0.0 && s.offload_fraction <= 1.0))
    return bad("offload must be a fraction between 0 and 1");
  if (s.prompt_tokens < 1 || s.prompt_tokens > kMaxContextTokens)
    return bad("prompt must be between 1 and 16777216 tokens, got " + std::to_string(s.prompt_tokens));
  if (s.prefill_ubatch_tokens < 0 || s.prefill_ubatch_tokens > kMaxContextTokens)
    return bad("micro-batch must be between 0 (engine default) and 16777216 tokens");
  if (s.hourly_price_usd && !(*s.hourly_price_usd >= 0.0 && std::isfinite(*s.hourly_price_usd)))
    return bad("hourly price must be a finite, non-negative number of USD");
  if (s.purchase_price_usd && !(*s.purchase_price_usd >= 0.0 && std::isfinite(*s.purchase_price_usd)))
    return bad("purchase price must be a finite, non-negative number of USD");
  if (!(s.amortization_years > 0.0 && s.amortization_years <= 100.0))
    return bad("amortization must be between 0 and 100 years");
  if (!(s.hours_per_day > 0.0 && s.hours_per_day <= 24.0)) return bad("hours per day must be in (0, 24]");
  if (!(s.electricity_usd_per_kwh >= 0.0 && s.electricity_usd_per_kwh <= 100.0))
    return bad("electricity price must be between 0 and 100 USD per kWh");
  if (s.system_ram_bytes < 0 || s.system_ram_bytes > (std::int64_t{1} << 50))
    return bad("system RAM must be between 0 and 1 PiB");
  if (!(s.ram_bandwidth_bytes_per_s > 0.0 && std::isfinite(s.ram_bandwidth_bytes_per_s)))
    return bad("RAM bandwidth must be a positive, finite number");
  if (!(s.gpu_memory_utilization > 0.0 && s.gpu_memory_utilization <= 1.0))
    return bad("GPU memory utilization must be in (0, 1]");
  if (s.gpu_limit_bytes < 0 || (s.device && s.gpu_limit_bytes > s.device->memory_bytes))
    return bad("the GPU memory limit must be between 0 (the default) and the machine's memory");
  if (auto error = check_mixed_cards(s)) return error;
  if (s.device) {
    const Device& d = *s.device;
    if (d.memory_bytes <= 0 || d.memory_bytes > (std::int64_t{1} << 50))
      return bad("device memory must be positive and at most 1 PiB");
    if (!(d.bandwidth_bytes_per_s >= 0.0) || !std::isfinite(d.bandwidth_bytes_per_s) ||
        !(d.fp16_flops >= 0.0) || !std::isfinite(d.fp16_flops))
      return bad("device bandwidth and throughput must be finite and non-negative");
  }
  return std::nullopt;
}

bool uses_tensor_parallel(InferenceEngine e) { return engine_uses_kv_pool(e); }

// Which layers (and which MoE layers' experts) stay in system RAM.
struct OffloadPlan {
  int cpu_layers = 0;       // first layers run from RAM (-ngl)
  int cpu_expert_layers = 0;  // experts of the first MoE layers in RAM (--n-cpu-moe)
};

OffloadPlan plan_offload(const Architecture& arch, const Scenario& s) {
  OffloadPlan plan;
  if (s.offload_fraction <= 0.0) return plan;
  const int n_layers = arch.decoder_layer_count();
  const bool experts = s.offload_mode == OffloadMode::experts ||
                       (s.offload_mode == OffloadMode::automatic && arch.is_moe());
  const int count = static_cast<int>(std::lround(s.offload_fraction * n_layers));
  if (experts) plan.cpu_expert_layers = std::min(count, n_layers);
  else plan.cpu_layers = std::min(count, n_layers);
  return plan;
}

// KV bytes of the request in floating point, before any 64-bit integer product.
double kv_bytes_bound(const Architecture& arch, const Scenario& s) {
  double per_token = 0.0;
  for (const auto& layer : arch.layers) {
    const AttentionSpec& a = layer.attn;
    per_token += a.mla ? static_cast<double>(a.kv_lora_rank + a.qk_rope_dim)
                       : static_cast<double>(a.n_kv_heads) * static_cast<double>(a.head_dim_k + a.head_dim_v);
  }
  return per_token * 4.0 * static_cast<double>(s.context_tokens + 512) * static_cast<double>(s.sequences);
}

// Scenario::vision: the encoder and projector at F16 and one image's tokens
// in each sequence's context, with the assumptions stated.
void add_vision(const VisionEncoder& v, const Scenario& s, KvRequest& kv_request, Estimate& e) {
  e.memory.projector_params = count_vision_params(v);
  e.memory.projector_bytes = e.memory.projector_params.total * kProjectorBytesPerParam;
  e.memory.image_tokens = v.tokens_per_image;
  kv_request.context_tokens = s.context_tokens + v.tokens_per_image;
  e.warnings.push_back("vision: the " + v.model_type + " encoder (" + std::to_string(e.memory.projector_params.encoder) +
                       " parameters) and projector (" + std::to_string(e.memory.projector_params.projector) +
                       ") counted from the config at F16, as llama.cpp's mmproj files usually are; the KV cache holds " +
                       std::to_string(v.tokens_per_image) + " image tokens per sequence (" + v.tokens_basis +
                       ") beside the context; the encoder's compute buffer while it encodes is not counted");
}

// The runtime context card g of a mixed list keeps (its backend's).
// Mixed cards: llama.cpp splits the GPU layers by each card's free memory,
// the usable bytes it offers the model less its own buffers (compute buffer,
// logits on the last card, runtime context), so that weights and KV land in
// proportion to the room each card has. The first card also holds what sits
// outside the layers (the mmproj, extra parameters): `first_card_bytes`.
std::vector<std::pair<int, int>> mixed_card_layers(const Architecture& arch, const Scenario& s, RuntimeRequest rr,
                                                   int first_layer, int gpu_layers, std::int64_t first_card_bytes) {
  std::vector<double> free_bytes;
  for (std::size_t g = 0; g < s.cards.size(); ++g) {
    rr.holds_output = g + 1 == s.cards.size();
    const UsableMemory u = usable_memory(s.cards[g]);
    const std::int64_t buffers = compute_runtime(arch, rr).total_bytes + (g == 0 ? first_card_bytes : 0);
    free_bytes.push_back(static_cast<double>(usable_bytes_per_gpu(u, s) - buffers));
  }
  return layer_split_by_free_memory(free_bytes, first_layer, gpu_layers);
}

}  // namespace

int networked_machines(const Scenario& s) {
  if (!s.cards.empty() || s.gpu_count <= 1 || !s.device || !is_whole_machine(*s.device)) return 0;
  return s.gpu_count;
}

std::int64_t fit_margin_bytes_per_gpu(const Scenario& s) {
  // llama.cpp keeps --fit-target 1024 MiB free per device by default when it
  // fits a model (reference README, "Facts for runtime memory"). Devices with
  // memory of their own only: on a CPU it fits nothing ("if (nd == 0) {
  // LLAMA_LOG_INFO("%s: no devices with dedicated memory found\n", __func__);
  // return; }", llama.cpp src/llama.cpp, llama_params_fit_impl; a CPU-only
  // server's log prints that line).
  const bool cpu = s.device && (s.device->kind == DeviceKind::cpu || s.device->backend == Backend::cpu);
  return s.engine == InferenceEngine::llama_cpp && !cpu ? std::int64_t{1024} * static_cast<std::int64_t>(kMiB) : 0;
}

std::int64_t usable_bytes_per_gpu(const UsableMemory& usable, const Scenario& s) {
  if (!engine_uses_kv_pool(s.engine))
    return std::max<std::int64_t>(0, usable.usable_bytes - fit_margin_bytes_per_gpu(s));
  // Paged engines may use utilization x capacity; llama.cpp all of it.
  const double utilization_cap = s.engine == InferenceEngine::sglang ? 0.88 : s.gpu_memory_utilization;
  return static_cast<std::int64_t>(utilization_cap * static_cast<double>(usable.capacity_bytes));
}

KvRequest kv_request_for(const Scenario& s, std::int64_t context_tokens) {
  KvRequest r;
  r.context_tokens = context_tokens;
  r.sequences = s.sequences;
  r.type = s.kv_type;
  r.engine = s.engine;
  r.unified = s.kv_unified;
  // llama.cpp's -ub (512 unless set): its compute buffer and the sliding-window
  // cache's extra cells are per micro-batch.
  const std::int64_t ubatch = s.prefill_ubatch_tokens > 0 ? s.prefill_ubatch_tokens : 512;
  r.ubatch_tokens = std::min<std::int64_t>(ubatch, s.context_tokens * s.sequences);
  return r;
}

Result<Estimate> estimate(const Architecture& arch, const Scenario& s) {
  return estimate(arch, s, ModelWeights{compute_weights(arch, s.quant), count_params(arch)});
}

Result<Estimate> estimate(const Architecture& arch, const Scenario& s, const ModelWeights& weights) {
  if (auto error = validate(s)) return *error;
  // A pair the engine cannot run has no figures to give (runtime_support.hpp).
  if (auto why = runtime_unsupported(arch, s)) return Error{"runtime.unsupported", *why};
  if (!(kv_bytes_bound(arch, s) < 1e18))
    return Error{"scenario.bad_value", "this context and batch would need more than an exabyte of KV cache"};
  // Every per-layer figure below indexes these by layer.
  if (weights.weights.layer_bytes.size() != arch.layers.size() ||
      weights.weights.layer_expert_bytes.size() != arch.layers.size())
    return Error{"scenario.bad_value", "the weights list " + std::to_string(weights.weights.layer_bytes.size()) +
                                           " layers but the architecture has " + std::to_string(arch.layers.size())};
  Estimate e;
  e.params = weights.params;
  e.weights = weights.weights;
  e.warnings = arch.warnings;
  if (s.quant.approximate)
    e.warnings.push_back(s.quant.name + " is a third-party mix; its size is an approximation of the recipe");
  if (!engine_supports_kv_type(s.engine, s.kv_type))
    e.warnings.push_back(std::string(engine_name(s.engine)) + " has no KV cache type " +
                         std::string(kv_type_name(s.kv_type)) + "; sized as requested anyway");
  const bool llama = engine_is_llama_cpp_based(s.engine);
  if (llama && !s.quant.is_gguf())
    e.warnings.push_back("llama.cpp and Ollama load GGUF files; " + s.quant.name + " is a checkpoint format");
  if (!llama && s.quant.is_gguf() && s.engine != InferenceEngine::mlx)
    e.warnings.push_back(std::string(engine_name(s.engine)) + " serves safetensors checkpoints; GGUF " +
                         s.quant.name + " support there is experimental");
  // The figures stand (AMD's own Radeon image runs it); the command is a note.
  if (s.engine == InferenceEngine::sglang && s.device)
    if (auto why = sglang_rocm_unbuilt(*s.device)) e.warnings.push_back(*why);
  if (s.engine == InferenceEngine::vllm && s.device)
    if (auto why = vllm_rocm_unlisted(*s.device)) e.warnings.push_back(*why);
  if (llama && s.kv_type != KvType::f16 && s.kv_type != KvType::bf16 && !s.flash_attention)
    e.warnings.push_back("llama.cpp needs flash attention (-fa on) for a quantized V cache");
  if (arch.max_context_tokens > 0 && s.context_tokens > arch.max_context_tokens) {
    const auto& x = arch.context_extension;
    if (x && s.context_tokens <= x->max_context_tokens)
      e.warnings.push_back("context " + std::to_string(s.context_tokens) + " is past the model's own " +
                           std::to_string(arch.max_context_tokens) + " tokens: its publisher extends it with YaRN to " +
                           std::to_string(x->max_context_tokens) + " (RoPE scaling over its " +
                           std::to_string(x->original_context_tokens) +
                           " pretraining tokens; the launch commands set it), advised only for long contexts");
    else
      e.warnings.push_back("context " + std::to_string(s.context_tokens) + " exceeds the model's maximum of " +
                           std::to_string(x ? x->max_context_tokens : arch.max_context_tokens) + " tokens" +
                           (x ? " (with YaRN)" : ""));
  }

  KvRequest kv_request = kv_request_for(s, s.context_tokens);
  if (s.vision) {
    if (!arch.vision)
      return Error{"scenario.no_vision", arch.vision_error.empty() ? "the model has no vision encoder in its config"
                                                                   : "the model's config has a vision section, but " +
                                                                         arch.vision_error};
    add_vision(*arch.vision, s, kv_request, e);
  }
  e.kv = compute_kv_cache(arch, kv_request);
  if (s.vision) {
    // The image's share of the cache: the same request without its tokens.
    KvRequest text_only = kv_request;
    text_only.context_tokens = s.context_tokens;
    e.memory.image_kv_bytes = e.kv.total_bytes - compute_kv_cache(arch, text_only).total_bytes;
  }
  e.memory.kv_cache_bytes_by_type.reserve(5);
  for (KvType type : {KvType::f16, KvType::bf16, KvType::fp8, KvType::q8_0, KvType::q4_0}) {
    if (!engine_supports_kv_type(s.engine, type)) continue;
    e.memory.kv_cache_bytes_by_type.emplace_back(type, kv_bytes_as(e.kv, type));
  }

  const int n_gpus = s.gpu_count;
  const int n_layers = arch.decoder_layer_count();
  const bool tp = uses_tensor_parallel(s.engine) && n_gpus > 1;
  if (tp && !s.layers_per_gpu.empty())
    e.warnings.push_back("a layer split applies to llama.cpp and Ollama; tensor parallel splits every layer");
  if (s.engine == InferenceEngine::mlx && n_gpus > 1)
    e.warnings.push_back("MLX runs on one machine; the GPU count was ignored");
  if (tp && networked_machines(s) > 0)
    // No served run over a network is in the fit: the all-reduces are timed as over PCIe.
    e.warnings.push_back(std::string(engine_name(s.engine)) + " over " + std::to_string(n_gpus) +
                         " machines all-reduces every layer across the network: its speeds assume a link as fast as "
                         "PCIe, and no measurement over a network backs them");
  bool routed_experts = false;
  for (const LayerSpec& l : arch.layers) routed_experts = routed_experts || l.ffn.n_experts > 0;
  const bool attention_dp = s.attention_data_parallel && tp && routed_experts;
  if (s.attention_data_parallel && !tp)
    e.warnings.push_back("attention data parallel applies to vLLM, SGLang and TensorRT-LLM on more than one GPU; ignored");
  else if (s.attention_data_parallel && !routed_experts)
    e.warnings.push_back("attention data parallel splits a mixture-of-experts model's experts across the GPUs; "
                         "this model has none (data parallel would be whole replicas): ignored");
  const int devices = s.engine == InferenceEngine::mlx ? 1 : n_gpus;

  // Offload: layers or experts in system RAM.
  // A CPU-only machine: model, cache and engine sit in the one system RAM its
  // memory stands for, and there is nothing to offload to.
  const bool cpu_only = s.device && s.device->kind == DeviceKind::cpu;
  const OffloadPlan plan = cpu_only ? OffloadPlan{} : plan_offload(arch, s);
  if (cpu_only && s.offload_fraction > 0.0)
    e.warnings.push_back("a CPU-only machine keeps the whole model in its RAM; the offload setting was ignored");
  else if (!llama && s.offload_fraction > 0.0)
    e.warnings.push_back(std::string(engine_name(s.engine)) +
                         " keeps the model on the GPUs; offload applies to llama.cpp and Ollama");
  const OffloadPlan effective = llama ? plan : OffloadPlan{};
  std::int64_t ram_weight_bytes = 0;
  std::int64_t ram_kv_bytes = 0;
  std::int64_t ram_expert_tensor_bytes = 0;  // the largest routed-expert tensor in RAM (op offload copies it)
  for (int i = 0; i < n_layers; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (i < effective.cpu_layers) {
      ram_weight_bytes += e.weights.layer_bytes[idx];
      ram_kv_bytes += e.kv.layer_bytes[idx];
    } else if (i < effective.cpu_expert_layers) {
      ram_weight_bytes += e.weights.layer_expert_bytes[idx];
    }
    // A layer's experts are three tensors of one size: gate, up and down.
    if (i < std::max(effective.cpu_layers, effective.cpu_expert_layers))
      ram_expert_tensor_bytes =
          std::max(ram_expert_tensor_bytes, (e.weights.layer_expert_bytes[idx] - expert_bias_bytes(e.weights, idx)) / 3);
  }
  e.memory.offloaded_layers = std::max(effective.cpu_layers, effective.cpu_expert_layers);
  e.memory.offload_experts_only = effective.cpu_expert_layers > 0;
  // Whole layers in RAM: llama.cpp counts the output layer among -ngl's N and
  // offloads it first (i_gpu_start = n_layer + 1 - N, the output the last
  // slot: a 28-layer model at -ngl 1 puts only its output layer on the GPU,
  // gpustack/gguf-parser-go#42, 2026-08, quoting llama-model.cpp), so the
  // head stays on the GPU with the first layers in RAM; older builds
  // (ggml-org/llama.cpp@00342301: n_layer - N) left it in RAM. A CPU-only
  // machine, and -ngl 0 (every layer in RAM), keep everything in RAM.
  const bool output_in_ram =
      effective.cpu_layers > 0 && (cpu_only || !llama || effective.cpu_layers >= n_layers);
  e.memory.output_in_ram = output_in_ram;
  if (output_in_ram) ram_weight_bytes += e.weights.output_bytes;
  e.memory.offload_bytes = ram_weight_bytes + ram_kv_bytes;
  // llama.cpp keeps the input embedding in host memory (its lookup runs on the
  // CPU); with tied embeddings the output head is a copy on the GPU, unless the
  // head sits in RAM with offloaded layers.
  e.memory.host_bytes = llama && !cpu_only ? e.weights.token_embd_bytes : 0;
  e.memory.ram_required_bytes = e.memory.offload_bytes + e.memory.host_bytes;
  // vLLM and SGLang skip a checkpoint's MTP layers when loading the model
  // unless speculative decoding drafts with them (vLLM deepseek_v2.py
  // load_weights: "skip spec decode layers for main model",
  // vllm-project/vllm@b863fe5b; SGLang deepseek_v2.py load_weights skips
  // model.layers.N for N >= num_hidden_layers when not NextN,
  // sgl-project/sglang@3e4a39ee).
  const bool paged = s.engine == InferenceEngine::vllm || s.engine == InferenceEngine::sglang;
  const std::int64_t skipped_mtp_bytes = paged && !(s.draft && s.draft->use_mtp) ? e.weights.mtp_bytes : 0;
  // GGUF metadata is not a GPU tensor.
  const std::int64_t gpu_weight_total =
      e.weights.tensor_bytes - skipped_mtp_bytes - ram_weight_bytes - e.memory.host_bytes +
      (llama && arch.tied_embeddings && !cpu_only && !output_in_ram ? e.weights.token_embd_bytes : 0);
  e.memory.weights_bytes = e.weights.total_bytes - skipped_mtp_bytes;
  if (e.weights.file_bytes >= 0) {
    e.memory.weights_bytes = e.weights.tensor_bytes - skipped_mtp_bytes;
    e.memory.file_bytes = e.weights.file_bytes;
  }
  e.memory.kv_cache_bytes = e.kv.total_bytes;
  e.memory.kv_state_bytes = e.kv.state_bytes;

  std::optional<UsableMemory> usable;
  if (s.device) usable = usable_memory(*s.device, s.gpu_limit_bytes);
  if (s.gpu_limit_bytes > 0 && !(usable && usable->shared_pool_bytes > 0))
    e.warnings.push_back("a GPU memory limit applies to unified-memory machines; ignored for this device");

  // Per-GPU shares.
  RuntimeRequest rr;
  rr.engine = s.engine;
  rr.flash_attention = s.flash_attention;
  rr.kv_cells = e.kv.cells;
  rr.swa_cells = e.kv.swa_cells;
  rr.kv_streams = s.kv_unified ? 1 : std::max<std::int64_t>(1, s.sequences);
  // llama-server reserves one logits row per sequence from build 9300 on
  // (ggml-org/llama.cpp#23861, merged 2026-05-29, a week after the build
  // 9272 of its issue #23527); a load log of an older build, one per token.
  constexpr int kOutputRowsPerSequenceFromBuild = 9300;
  if (s.llama_cpp_build == 0 || s.llama_cpp_build >= kOutputRowsPerSequenceFromBuild) rr.output_rows = s.sequences;
  rr.ram_tensor_bytes = llama && !cpu_only ? ram_expert_tensor_bytes : 0;
  rr.ubatch_tokens = kv_request.ubatch_tokens;
  rr.kv_type = s.kv_type;
  rr.tensor_parallel = tp ? n_gpus : 1;
  rr.gpu_link = s.device && s.device->interconnect_bytes_per_s > 0.0;
  // llama.cpp's host compute buffer sits in system RAM beside the embedding
  // (on a CPU-only machine its inputs are in the one compute buffer).
  if (llama && !cpu_only) {
    e.memory.host_compute_bytes = compute_runtime(arch, rr).host_compute_bytes;
    e.memory.ram_required_bytes += e.memory.host_compute_bytes;
  }
  DraftMemory draft;
  if (s.draft) {
    if (s.draft->arch && !(kv_bytes_bound(*s.draft->arch, s) < 1e18))
      return Error{"scenario.bad_value", "this context and batch would need more than an exabyte of the draft's KV cache"};
    auto d = draft_memory(arch, s, kv_request, rr, e);
    if (!d) return d.error();
    draft = d.value();
    e.memory.draft_weights_bytes = draft.weights_bytes;
    e.memory.draft_kv_cache_bytes = draft.kv_cache_bytes;
    e.memory.draft_runtime_bytes = draft.runtime_bytes;
    e.warnings.push_back(
        s.draft->use_mtp && llama
            ? std::string("draft: the model's MTP layers (weights with the output head) and their KV cache on the last GPU")
        : s.draft->use_mtp
            ? "draft: the model's MTP layers (weights with the output head), their KV cache on the last GPU; "
              "the speed-up assumes each of " + std::to_string(s.draft->drafted_tokens) + " drafted tokens accepted with probability 0.6 to 0.8"
            : "draft: " + s.draft->label + " at " + s.quant.name + " with its KV cache at the same context and its compute "
              "buffer on the first GPU; the speed-up assumes each of " + std::to_string(s.draft->drafted_tokens) +
              " drafted tokens accepted with probability 0.6 to 0.8 and a verifying step as long as one decode step");
    if (!s.draft->use_mtp && s.draft->arch && s.draft->arch->vocab_size != arch.vocab_size)
      e.warnings.push_back("the draft's vocabulary (" + std::to_string(s.draft->arch->vocab_size) +
                           " tokens) differs from the model's (" + std::to_string(arch.vocab_size) +
                           "): llama.cpp refuses a draft whose vocabulary does not match");
  }
  e.memory.per_gpu.resize(static_cast<std::size_t>(devices));
  // A GPU's runtime context is charged on it; a CPU machine's OS reserve is
  // already outside its usable bytes (device.cpp), so it is not charged twice.
  // The runtime's context (CUDA/ROCm/Metal) is charged once: usable_memory()
  // takes it out of what a device offers, so the buffers here do not hold it
  // again (they did, 457 MiB per CUDA GPU counted twice).
  if (tp) {
    // Tensor parallel: every GPU holds 1/TP of each weight. KV heads split too,
    // until TP exceeds them: then each GPU keeps one head (replicated). MLA's
    // latent is replicated on every GPU.
    rr.holds_output = true;
    const RuntimeBreakdown rt = compute_runtime(arch, rr);
    std::int64_t kv_per_gpu = 0;
    std::int64_t kv_heads = 0;
    bool mla = false;
    for (const auto& layer : arch.layers) {
      kv_heads = std::max(kv_heads, layer.attn.n_kv_heads);
      mla = mla || layer.attn.mla;
    }
    // 1/TP of each matrix, but the tensors the engines keep whole on every
    // GPU (MLA's down-projections, the router; with attention data parallel
    // every attention weight) in full.
    const std::int64_t whole_bytes = std::min(tp_whole_bytes(e.weights, attention_dp), gpu_weight_total);
    const std::int64_t weights_per_gpu = (gpu_weight_total - whole_bytes) / n_gpus + whole_bytes;
    if (attention_dp) {
      // Attention data parallel: a GPU holds the whole cache of its share of
      // the sequences (the largest share: sequences / GPUs rounded up).
      e.memory.attention_ranks = n_gpus;
      const std::int64_t own = (s.sequences + n_gpus - 1) / n_gpus;
      kv_per_gpu = e.kv.total_bytes / std::max<std::int64_t>(s.sequences, 1) * own;
    } else if (mla) kv_per_gpu = e.kv.total_bytes;
    else if (kv_heads >= n_gpus) kv_per_gpu = e.kv.total_bytes / n_gpus;
    else kv_per_gpu = kv_heads > 0 ? e.kv.total_bytes / kv_heads : e.kv.total_bytes / n_gpus;
    if (!attention_dp && !mla && kv_heads > 0 && kv_heads < n_gpus)
      e.warnings.push_back("tensor parallel " + std::to_string(n_gpus) + " exceeds the " +
                           std::to_string(kv_heads) + " KV heads: each GPU keeps a replicated head");
    for (auto& g : e.memory.per_gpu) {
      g.projector_bytes = e.memory.projector_bytes / n_gpus;  // the tower's matrices split like the model's
      g.weights_bytes = weights_per_gpu;
      g.kv_cache_bytes = kv_per_gpu;
      g.runtime_bytes = rt.total_bytes;
      g.first_layer = 0;
      g.last_layer = n_layers;
    }
    e.runtime = rt;
  } else {
    // Layer split (llama.cpp default): contiguous layer ranges, the output head
    // on the last GPU; offloaded layers are the first ones. llama.cpp splits
    // by free memory: mixed cards in proportion to the room each has; equal
    // cards in equal shares of its n_layer + 1 slots, the output head being
    // the last slot, so the first GPU takes the odd layer (ggml-org/llama.cpp
    // @00342301:src/llama-model.cpp, load_tensors; gpt-oss-20b's 24 layers on
    // two Radeon Pro VIIs: 13 and 11 + the head, load log 04).
    // Other engines' pipeline stages get equal runs of layers.
    const int gpu_layers = n_layers - effective.cpu_layers;
    std::vector<std::pair<int, int>> mixed_ranges =
        has_mixed_cards(s) ? mixed_card_layers(arch, s, rr, effective.cpu_layers, gpu_layers,
                                             e.memory.projector_bytes + arch.extra_params * 2 +
                                                 (draft.on_last_gpu ? 0 : draft.total()))
        : llama ? layer_split_by_free_memory(std::vector<double>(static_cast<std::size_t>(devices), 1.0),
                                             effective.cpu_layers, gpu_layers)
                : std::vector<std::pair<int, int>>{};
    if (!s.layers_per_gpu.empty()) {
      if (has_mixed_cards(s) || static_cast<int>(s.layers_per_gpu.size()) != devices)
        return Error{"scenario.bad_value", "a layer split needs one count per GPU of equal cards"};
      mixed_ranges.clear();
      int first = effective.cpu_layers, total = 0;
      for (int count : s.layers_per_gpu) {
        if (count < 1) return Error{"scenario.bad_value", "each GPU of a layer split runs at least one layer"};
        mixed_ranges.emplace_back(first, first + count);
        first += count;
        total += count;
      }
      if (total != gpu_layers)
        return Error{"scenario.bad_value", "the layer split counts " + std::to_string(total) + " layers; the GPUs run " +
                                               std::to_string(gpu_layers)};
    }
    for (int g = 0; g < devices; ++g) {
      GpuShare& share = e.memory.per_gpu[static_cast<std::size_t>(g)];
      share.first_layer = effective.cpu_layers + static_cast<int>(static_cast<std::int64_t>(gpu_layers) * g / devices);
      share.last_layer = effective.cpu_layers + static_cast<int>(static_cast<std::int64_t>(gpu_layers) * (g + 1) / devices);
      if (!mixed_ranges.empty()) std::tie(share.first_layer, share.last_layer) = mixed_ranges[static_cast<std::size_t>(g)];
      for (int i = share.first_layer; i < share.last_layer; ++i) {
        const auto idx = static_cast<std::size_t>(i);
        share.weights_bytes += e.weights.layer_bytes[idx] -
                               (i < effective.cpu_expert_layers ? e.weights.layer_expert_bytes[idx] : 0);
        share.kv_cache_bytes += e.kv.layer_bytes[idx];
      }
      const bool last = g == devices - 1;
      if (last) {
        // Output head and norm (unless in RAM with the offloaded layers); MTP
        // layers kept in the file sit with the output.
        share.weights_bytes += (output_in_ram ? 0 : e.weights.output_bytes) +
                               (s.quant.is_gguf() && !arch.mtp_in_gguf ? 0 : e.weights.mtp_bytes);
        // The embedding: in host RAM under llama.cpp (a GPU copy when tied to
        // a head on the GPU); on the device for the others and on a CPU-only machine.
        if (!llama || cpu_only || (arch.tied_embeddings && !output_in_ram)) share.weights_bytes += e.weights.token_embd_bytes;
      }
      // The logits buffer stays on the last GPU even with the head in RAM: for
      // prompt batches llama.cpp's op offload runs the head's matmul on a GPU.
      rr.holds_output = last;
      const RuntimeBreakdown rt = compute_runtime(arch, rr);
      share.runtime_bytes = rt.total_bytes;
      if (last) e.runtime = rt;
    }
    // Parameters stored outside the layer model sit on the first GPU; so does
    // llama.cpp's mmproj (the main GPU's).
    if (!e.memory.per_gpu.empty()) {
      e.memory.per_gpu.front().weights_bytes += arch.extra_params * 2;
      e.memory.per_gpu.front().projector_bytes = e.memory.projector_bytes;
    }
  }

  if (s.draft && !e.memory.per_gpu.empty()) {
    if (tp) {
      // Tensor parallel splits the draft like the model: its weights evenly,
      // its KV as the model's (replicated heads and MLA latents kept whole).
      const double kv_share = e.kv.total_bytes > 0 ? static_cast<double>(e.memory.per_gpu.front().kv_cache_bytes) /
                                                         static_cast<double>(e.kv.total_bytes)
                                                   : 1.0 / n_gpus;
      for (auto& g : e.memory.per_gpu)
        g.draft_bytes = draft.weights_bytes / n_gpus + draft.runtime_bytes +
                        static_cast<std::int64_t>(static_cast<double>(draft.kv_cache_bytes) * kv_share);
    } else {
      (draft.on_last_gpu ? e.memory.per_gpu.back() : e.memory.per_gpu.front()).draft_bytes = draft.total();
    }
  }
  std::int64_t runtime_sum = 0;
  for (auto& g : e.memory.per_gpu) {
    g.required_bytes = g.weights_bytes + g.kv_cache_bytes + g.runtime_bytes + g.projector_bytes + g.draft_bytes;
    runtime_sum += g.runtime_bytes;
  }
  e.memory.runtime_bytes = runtime_sum;
  judge_memory(s, usable, e);

  e.speed = has_mixed_cards(s) ? estimate_mixed_card_speed(arch, s, e) : estimate_speed(arch, s, e);
  // A device whose memory bandwidth nobody states (the catalog's Alibaba PPU)
  // gets no speed: say so rather than leave the speed section silently empty.
  if (!e.speed && s.device && !has_mixed_cards(s) && !(s.device->bandwidth_bytes_per_s > 0.0))
    e.warnings.push_back("the device has no sourced memory bandwidth: decode, prefill, TTFT and the cost per token "
                         "are not estimated");
  // A backend nobody measured this engine family on (llama.cpp on an Ascend's
  // CANN, a Moore Threads card's MUSA): its speeds come from another backend's
  // fitted efficiencies (speed_calibration.cpp's lookup), which the basis names.
  if (e.speed && e.memory.fits.value_or(false) && s.device && !has_mixed_cards(s) &&
      runtime_calibration(engine_family(s.engine), calibration_backend(*s.device), "").backend != s.device->backend) {
    const bool backend_fitted =
        runtime_calibration(engine_family(s.engine), s.device->backend, "").backend == s.device->backend;
    e.warnings.push_back(
        backend_fitted
            // llama.cpp's SYCL rows stand on Arc Pro B60/B70 runs (speed.cpp, calibration_backend).
            ? "no " + std::string(engine_name(s.engine)) + " run on " + backend_label(s.device->backend) +
                  " of a GPU older than Battlemage, like the " + s.device->name +
                  ", is in the fit: decode and prefill use the " + e.speed->basis.runtime +
                  " efficiencies, a rough figure (SYCL's own, fitted on Arc Pro B60 and B70 runs, put three Arc "
                  "A770s at three times the 18.2 tokens/s they decoded Qwen3.5-35B-A3B Q8_0 at, ggml-org/llama.cpp#22066)"
            : "no measured speed of " + std::string(engine_name(s.engine)) + " on " +
                  backend_label(s.device->backend) + " is in the fit: decode and prefill use the " +
                  e.speed->basis.runtime + " efficiencies on the " + s.device->name +
                  "'s own bandwidth and FLOPS, a rough figure");
  }
  // llama.cpp and Ollama cannot draft with a model's MTP layers (the launch
  // commands say so): no speed-up where none would happen.
  const bool mtp_unsupported = s.draft && s.draft->use_mtp && llama;
  if (mtp_unsupported)
    e.warnings.push_back(std::string(engine_name(s.engine)) + " has no MTP drafting: decode is without speculation "
                         "(vLLM and SGLang draft with the MTP layers)");
  if (e.speed && s.draft && !mtp_unsupported) e.speed->speculative = estimate_speculation(arch, s, e);
  const bool cpu_iquant = cpu_only && e.speed && e.speed->basis.weight_family == "iquant";
  if (e.speed && s.prefill_speed && e.speed->prefill_tokens_per_s <= 0.0 && cpu_iquant)
    e.warnings.push_back(
        "llama.cpp has no fast CPU matrix kernel for i-quants: an IQ3_S prompt measured at a sixth of Q4_0's rate on "
        "the same Ryzen 9 7950X (docs/accuracy.md), too far from the fitted CPU efficiency to estimate; prefill and "
        "TTFT are not given (Q4_0 and Q4_K_M prefill much faster on a CPU)");
  else if (e.speed && s.prefill_speed && e.speed->prefill_tokens_per_s <= 0.0)
    e.warnings.push_back(cpu_only ? "no matrix throughput of this CPU is sourced: prefill, TTFT and the compute bound "
                                    "of batched decode are not estimated (decode is from its RAM bandwidth)"
                                  : "the device has no dense throughput figure: prefill, TTFT and the compute bound of "
                                    "batched decode are not estimated");
  // Where the FP32 rate was scaled by a backend's fitted factor (Metal's is 1:
  // its efficiency is fitted against Apple's FP32 figures), the CLI's rule.
  const SpeedBasis* basis = e.speed ? &e.speed->basis : nullptr;
  if (basis && e.speed->prefill_tokens_per_s > 0.0 && cpu_only) {
    e.warnings.push_back(
        "prefill and TTFT are from the CPU's FP32 FMA peak (cores x base clock x FLOPs per cycle) times an "
        "efficiency fitted on a few prompt rates measured on Ryzen CPUs, one for cores with AVX-512 and one for "
        "AVX2-only cores (docs/accuracy.md): rougher than where a matrix rate is stated");
  } else if (basis && e.speed->prefill_tokens_per_s > 0.0 && basis->flops_basis == "fp32_vector" &&
             basis->peak_flops != basis->vector_fp32_flops)
    e.warnings.push_back(
        std::string("prefill and TTFT are from the device's vector FP32 rate, the only throughput its vendor states, "
                    "times ") +
        (basis->runtime == "llama.cpp/sycl"
             // fit.py ASSUMED_ROWS: no SYCL prompt of such a card is measured.
             ? "8, the Arc Pro B60's ratio of its XMX FP16 rate to its FP32 rate on the same Battlemage chip"
             : "a factor fitted on measured prompt speeds of such devices") +
        " (docs/accuracy.md): rougher than where a dense FP16 rate is stated");
  if (basis && !basis->estimated_inputs.empty()) e.warnings.push_back(estimated_inputs_warning(basis->estimated_inputs));
  // Intel's kernels for Q2_K and IQ3_XS read a third of what its K-quant
  // kernels do (Llama 3.1 70B on an Arc Pro B70, build 9739: Q2_K 5.63 and
  // IQ3_XS 4.16 tok/s under SYCL, 3.39 and 3.58 under Vulkan; Wesley-Jakob-
  // Gilbert/Intel-Arc-GPU-Benchmarks, results/b70-solo): records.py leaves
  // those rows out of the fit, and the estimate says how far it may be off.
  if (e.speed && llama && s.device && intel_gpu_under_sycl_or_vulkan(*s.device) &&
      (s.quant.name == "Q2_K" || s.quant.name == "IQ3_XS"))
    e.warnings.push_back("llama.cpp on Intel GPUs decodes Q2_K and IQ3_XS far slower than these figures: Llama 3.1 "
                         "70B at them ran at 5.6 and 4.2 tokens/s on an Arc Pro B70 (SYCL, 2026), about a third of "
                         "such an estimate; at Q4_K_M or Q8_0 these cards ran at the modelled rate");
  if (e.speed && llama && s.device && arch.is_moe() && intel_gpu_under_sycl_or_vulkan(*s.device)) {
    const MoeTimeFactors f = intel_moe_time_factors(calibration_backend(*s.device));
    std::ostringstream text;
    text << std::fixed << std::setprecision(2)
         << "llama.cpp on Intel GPUs: MoE models measured on Arc Pro B60 and B70 cards (2026 builds, "
         << "scripts/speed/sourced_intel_sycl.json) ran from about half to 1.6 times these figures by model and weight "
         << "format (gpt-oss's MXFP4 slower, Qwen3-30B-A3B faster)";
    if (f.prompt != 1.0)
      text << "; under Vulkan their prompts took " << f.prompt << " times the modelled time, which these figures include";
    e.warnings.push_back(text.str());
  }
  if (e.speed && llama && qwen3next_graph(arch)) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << "llama.cpp decodes Qwen3-Next models (its qwen3next graph) slower than "
         << "their bytes and layers give: decode here takes " << qwen3next_decode_time_factor() << " times the "
         << "modelled time, measured after ggml-org/llama.cpp#19375 (M2 Ultra, Metal; Radeon 8060S, Vulkan); builds "
         << "before it decoded 25-35% slower still";
    e.warnings.push_back(text.str());
  }
  // Qwen3.5's MoE graph on CUDA: one card's current-build rows (docs/accuracy.md,
  // tenth pass) ran well below the model, where Intel's backends ran as
  // modelled; one card cannot say whether the gap is CUDA's or the card's, so
  // it is said beside the figures, not folded into them.
  if (e.speed && s.engine == InferenceEngine::llama_cpp && s.device && s.device->backend == Backend::cuda &&
      qwen35moe_graph(arch))
    e.warnings.push_back(
        "llama.cpp on CUDA ran Qwen3.5's MoE models (its qwen35moe graph) below these figures: Qwen3.5-35B-A3B on "
        "an RTX 4090 (build 8720, jia.je/kb/software/llm_local_serving.html) decoded 16-17% slower with an empty "
        "cache and 29% slower at 32K tokens of context, and read prompts 21-24% slower; on one Arc Pro B70 "
        "(SYCL, Vulkan) it ran as estimated");
  // BF16 weights under llama.cpp on AMD GPUs: the one measurement ran far below
  // F16's rates, the Vulkan path most (kyuz0/amd-strix-halo-toolboxes@765cc5c7,
  // Qwen3-30B-A3B-BF16 logs); such rows are left out of the fit (records.py).
  const bool bf16_weights = s.quant.kind == SchemeKind::bf16 ||
                            (s.quant.is_gguf() && s.quant.ftype == LlamaFtype::BF16) ||
                            (s.quant.kind == SchemeKind::native && arch.native_format == NativeFormat::bf16);
  if (e.speed && llama && s.device && s.device->vendor == "amd" && bf16_weights &&
      (s.device->backend == Backend::vulkan || s.device->backend == Backend::rocm))
    e.warnings.push_back(
        "BF16 weights under llama.cpp on AMD GPUs: the one measurement (Qwen3-30B-A3B BF16 on a Radeon 8060S, "
        "builds 6735-6736) decoded at 9.3 tokens/s under Vulkan and 25.8 under ROCm, prompts at 166 and 481 "
        "tokens/s; the speeds here are F16's rates and may be well above what BF16 gets (most under Vulkan): "
        "an F16 or Q8_0 file avoids it");
  // Ollama runs GGUF models on upstream llama.cpp's llama-server from 0.30
  // (ollama/ollama#16031, merged May 2026); before, MoE models ran on its own
  // Go engine, measured slower on the same GPU (scripts/speed/sourced_ollama_engine.json).
  if (e.speed && s.engine == InferenceEngine::ollama && arch.is_moe())
    e.warnings.push_back(
        "Ollama: these are llama.cpp's speeds, which Ollama runs from 0.30 (its llama-server runner, "
        "ollama/ollama#16031); Ollama 0.11 to 0.29 ran MoE models on its own engine, measured at 0.3 to 0.8 of "
        "llama.cpp's decode on the same discrete GPU (RTX 5090: qwen3.5:35b-a3b 75 against 223 tokens/s, "
        "qwen3:30b-a3b 210 against 331, ollama/ollama#16031; L40s: Qwen3.6-35B-A3B 115.5 against 144.7, "
        "ollama/ollama#14861): an older Ollama decodes this model that much slower");
  e.cost = estimate_cost(s, e);
  if (e.cost.basis == "owned" && e.cost.purchase_low_confidence && s.device)
    e.warnings.push_back("the owned cost rests on a price the catalog doubts (" + s.device->name + ": " +
                         s.device->price_kind + (s.device->price_as_of.empty() ? "" : ", " + s.device->price_as_of) +
                         "); give the price you paid (--purchase-price) for your own figure");
  return e;
}

}  // namespace llmsizer
