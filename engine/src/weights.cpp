#include "llmsizer/weights.hpp"

#include "llmsizer/tensors.hpp"

namespace llmsizer {
namespace {

// Bits per weight of native (safetensors) formats, per tensor class.
// FP8 block: 1 byte + one fp32 scale per 128x128 block.
// AWQ/GPTQ int4 group 128: 4 bits + fp16 scale + 4-bit zero per 128 weights.
// bitsandbytes NF4 with double quantization: 4 bits + 8-bit absmax per 64 +
// fp32 per 256 absmax blocks. MLX: 4 or 8 bits + fp16 scale and bias per 64.
// NVFP4: 4 bits + fp8 scale per 16.  MXFP4: 4 bits + 8-bit scale per 32.
double native_bits(SchemeKind kind, const TensorInfo& t, const Architecture& arch) {
  const NativeFormat format = arch.native_format;
  const bool edge = t.role == TensorRole::token_embd || t.role == TensorRole::output;
  const bool expert = t.is_routed_expert();
  if (tensor_stays_f32(t.role)) return kind == SchemeKind::native && format == NativeFormat::fp32 ? 32.0 : 32.0;
  switch (kind) {
    case SchemeKind::bf16:
    case SchemeKind::fp16: return 16.0;
    case SchemeKind::fp8_block: return edge ? 16.0 : 8.0 + 32.0 / (128.0 * 128.0);
    case SchemeKind::mxfp4:
      // A model published in MXFP4 keeps its own layout (gpt-oss: the routed
      // experts, the rest bf16). Any other model's MXFP4 checkpoints are AMD
      // Quark's, every linear layer in MXFP4 but the head: "Weight
      // quantization: OCP MXFP4" with "--quant_scheme w_mxfp4_a_mxfp4"
      // (huggingface.co/amd/Llama-3.1-405B-Instruct-MXFP4-Preview README),
      // '--exclude_layers "*lm_head"' (amd/DeepSeek-R1-MXFP4 README, d39da30).
      if (format == NativeFormat::mxfp4_experts) return expert ? 4.25 : 16.0;
      return edge ? 16.0 : 4.25;
    case SchemeKind::nvfp4: return edge ? 16.0 : 4.0 + 8.0 / 16.0;
    case SchemeKind::awq_int4:
    case SchemeKind::gptq_int4: return edge ? 16.0 : 4.0 + (16.0 + 4.0) / 128.0;
    case SchemeKind::nf4: return edge ? 16.0 : 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
    case SchemeKind::mlx_4bit: return 4.0 + 32.0 / 64.0;
    case SchemeKind::mlx_8bit: return 8.0 + 32.0 / 64.0;
    default: break;
  }
  // The checkpoint as published.
  switch (format) {
    case NativeFormat::fp32: return 32.0;
    case NativeFormat::fp8_block: return edge ? 16.0 : 8.0 + 32.0 / (128.0 * 128.0);
    case NativeFormat::mxfp4_experts: return expert ? 4.25 : 16.0;
    case NativeFormat::nvfp4: return edge ? 16.0 : 4.0 + 8.0 / 16.0;
    case NativeFormat::fp4_experts_fp8:
      // DeepSeek V4.1's Engram tables: F8_E4M3 with an E8M0 scale per 32
      // columns, 264 bytes per 256-wide row (colibri docs/deepseek-v41-delta.md).
      if (t.role == TensorRole::per_layer_embd) return 8.0 + 8.0 / 32.0;
      return expert ? 4.25 : edge ? 16.0 : 8.0 + 32.0 / (128.0 * 128.0);
    case NativeFormat::int4: return edge ? 16.0 : arch.native_int4_bits;
    case NativeFormat::int4_experts: return expert ? arch.native_int4_bits : 16.0;
    default: return 16.0;
  }
}

// GGUF metadata is dominated by the tokenizer: token strings, scores and types
// (about 23 bytes per token in SentencePiece files: Mistral-7B 735 KB for 32000
// tokens, Gemma-2-9B 6.06 MB for 256000) plus BPE merges where the tokenizer has
// them (Llama 3: 7.84 MB for 128256 tokens, 61 bytes per token). The type is not
// in config.json, so 32 bytes per token splits the difference; the error is below
// 0.1% of any file. Measured as file size minus tensor bytes (gguf_sizes.json).
std::int64_t gguf_metadata_bytes(const Architecture& arch) { return arch.vocab_size * 32 + 65536; }

}  // namespace

WeightBreakdown compute_weights(const Architecture& arch, const QuantScheme& scheme) {
  return compute_weights(arch, list_tensors(arch), scheme);
}

WeightBreakdown compute_weights(const Architecture& arch, const std::vector<TensorInfo>& tensors, const QuantScheme& scheme) {
  WeightBreakdown w;
  const bool gguf = scheme.is_gguf();
  std::vector<GgmlType> types;
  if (gguf) types = gguf_tensor_types(arch, tensors, scheme);

  w.layer_bytes.assign(arch.layers.size(), 0);
  w.layer_expert_bytes.assign(arch.layers.size(), 0);
  std::int64_t params_in_files = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = tensors[i];
    if (t.is_mtp && gguf && !arch.mtp_in_gguf) continue;
    std::int64_t bytes = 0;
    if (gguf) {
      bytes = tensor_bytes(types[i], t.row_elements, t.rows);
    } else {
      const double bits = native_bits(scheme.kind, t, arch);
      bytes = static_cast<std::int64_t>(static_cast<double>(t.elements()) * bits / 8.0 + 0.5);
    }
    params_in_files += t.elements();
    w.tensor_bytes += bytes;
    if (t.role == TensorRole::token_embd || t.role == TensorRole::per_layer_embd) w.token_embd_bytes += bytes;
    // Every other global tensor (the head, its norm or Qwen3.8's final hyper-connection
    // mixer) runs with the head: read for every token.
    else if (t.layer < 0) w.output_bytes += bytes;
    if (t.layer >= 0) {
      w.layer_bytes[static_cast<std::size_t>(t.layer)] += bytes;
      if (t.is_routed_expert()) {
        w.layer_expert_bytes[static_cast<std::size_t>(t.layer)] += bytes;
        if (!t.is_mtp) w.routed_expert_bytes += bytes;
      } else if (t.role == TensorRole::ffn_expert_bias) {
        // llama.cpp's --n-cpu-moe pattern, blk\.N\.ffn_(up|down|gate)_(ch|)exps,
        // is searched in the name, so the experts' biases (gpt-oss's
        // ffn_gate_exps.bias ...) go to RAM with them: log 12's CUDA0 buffer is
        // 24 x 3 x 2880 x 32 x 4 B = 25.3 MiB under a count that kept them.
        w.layer_expert_bytes[static_cast<std::size_t>(t.layer)] += bytes;
        w.layer_expert_bias_bytes.resize(arch.layers.size(), 0);
        w.layer_expert_bias_bytes[static_cast<std::size_t>(t.layer)] += bytes;
      }
      if (t.is_mtp) w.mtp_bytes += bytes;
      else {
        if (t.is_mixer()) w.mixer_bytes += bytes;
        if (t.is_tp_replicated()) {
          w.tp_replicated_bytes += bytes;
          w.tp_replicated_params += t.elements();
          if (t.is_mixer()) {
            w.tp_replicated_mixer_bytes += bytes;
            w.tp_replicated_mixer_params += t.elements();
          }
        }
      }
    }
  }
  // Parameters outside the layer model are stored at 16 bits.
  w.tensor_bytes += arch.extra_params * 2;
  w.token_embd_bytes += arch.extra_params * 2;
  params_in_files += arch.extra_params;
  w.metadata_bytes = gguf ? gguf_metadata_bytes(arch) : 0;
  w.total_bytes = w.tensor_bytes + w.metadata_bytes;
  w.bits_per_weight = params_in_files > 0
                          ? static_cast<double>(w.tensor_bytes) * 8.0 / static_cast<double>(params_in_files)
                          : 0.0;
  return w;
}

std::int64_t tp_whole_bytes(const WeightBreakdown& w, bool attention_data_parallel) {
  return attention_data_parallel ? w.tp_replicated_bytes - w.tp_replicated_mixer_bytes + w.mixer_bytes
                                 : w.tp_replicated_bytes;
}

}  // namespace llmsizer
