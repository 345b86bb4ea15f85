// Parameter counts of vision towers and projectors, module by module as
// transformers builds them (modeling_siglip.py with modeling_gemma3.py,
// modeling_pixtral.py with modeling_mistral3.py, modeling_qwen2_5_vl.py,
// modeling_qwen3_vl.py, modeling_llama4.py). h: hidden, i: intermediate,
// L: layers, p: patch, C: channels, T: the language model's hidden size.
#include "llmsizer/vision.hpp"

#include "llmsizer/architecture.hpp"

namespace llmsizer {
namespace {

// One ViT block with biased q, k, v, o, a two-matrix MLP with biases and two
// LayerNorms (weight and bias): SigLIP and Llama 4.
std::int64_t biased_block(std::int64_t h, std::int64_t i) {
  return 4 * (h * h + h) + (2 * h * i + i + h) + 4 * h;
}

}  // namespace

Error no_vision_error(const Architecture& arch, const std::string& label) {
  if (arch.vision_error.empty()) return Error{"scenario.no_vision", "model " + label + " has no vision encoder in its config"};
  return Error{"scenario.no_vision", "model " + label + " has a vision section in its config, but " + arch.vision_error};
}

VisionParams count_vision_params(const VisionEncoder& v) {
  const std::int64_t h = v.hidden, i = v.intermediate, L = v.layers, p = v.patch, C = v.channels, T = v.text_hidden;
  VisionParams out;
  switch (v.family) {
    case VisionFamily::siglip: {
      // Conv patch embedding with bias, learned positions for (S/p)^2
      // patches, L blocks, post LayerNorm (no pooling head: vision_use_head false).
      const std::int64_t patches = (v.image_size / p) * (v.image_size / p);
      out.encoder = C * p * p * h + h + patches * h + L * biased_block(h, i) + 2 * h;
      // Gemma3MultiModalProjector: soft-embedding RMSNorm (h) and the h x T
      // input projection; the 4x4 average pool has no parameters.
      out.projector = h + h * T;
      break;
    }
    case VisionFamily::pixtral: {
      // Conv patch embedding without bias, ln_pre RMSNorm; blocks of unbiased
      // q, k, v, o, a gated MLP (3 matrices) and two RMSNorms; 2D RoPE (no
      // learned positions).
      out.encoder = C * p * p * h + h + L * (4 * h * h + 3 * h * i + 2 * h);
      // Mistral3MultiModalProjector: RMSNorm (h), patch merger (h m^2 -> h),
      // linear_1 (h -> T) and linear_2 (T -> T), biased when the config says so.
      const std::int64_t m2 = v.merge * v.merge;
      out.projector = h + h * m2 * h + h * T + T * T + (v.projector_bias ? 2 * T : 0);
      break;
    }
    case VisionFamily::qwen2_5_vl: {
      // Conv3d patch embedding without bias; blocks of two RMSNorms, fused
      // qkv and proj with biases, a gated MLP with biases.
      out.encoder = C * v.temporal_patch * p * p * h +
                    L * (2 * h + (3 * h * h + 3 * h) + (h * h + h) + (3 * h * i + 2 * i + h));
      // Merger: RMSNorm (h), then h m^2 -> h m^2 -> out_hidden with biases.
      const std::int64_t wide = h * v.merge * v.merge;
      out.projector = h + wide * wide + wide + wide * v.out_hidden + v.out_hidden;
      break;
    }
    case VisionFamily::qwen3_vl: {
      // Conv3d patch embedding with bias, learned positions; blocks of two
      // LayerNorms, fused qkv and proj with biases, a plain MLP with biases.
      out.encoder = C * v.temporal_patch * p * p * h + h + v.position_embeddings * h +
                    L * (4 * h + (3 * h * h + 3 * h) + (h * h + h) + (2 * h * i + i + h));
      // Merger: LayerNorm (h), then h m^2 -> h m^2 -> out_hidden with biases
      // (no deepstack mergers: deepstack_visual_indexes is empty in these configs).
      const std::int64_t wide = h * v.merge * v.merge;
      out.projector = 2 * h + wide * wide + wide + wide * v.out_hidden + v.out_hidden;
      break;
    }
    case VisionFamily::llama4: {
      // Unfolded patch embedding (C p^2 -> h, no bias), class embedding,
      // positions for the patches and the class token, LayerNorms before and
      // after, L biased blocks.
      const std::int64_t patches = (v.image_size / p) * (v.image_size / p);
      out.encoder = C * p * p * h + h + (patches + 1) * h + 4 * h + L * biased_block(h, i);
      // Pixel-shuffle adapter MLP (i -> projector_input, projector_output ->
      // projector_output, no biases) and the linear projector (vision_output -> T).
      out.projector = i * v.projector_input + v.projector_output * v.projector_output + v.vision_output * T;
      break;
    }
  }
  out.total = out.encoder + out.projector;
  return out;
}

}  // namespace llmsizer
