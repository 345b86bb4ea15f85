// Vision encoders of multimodal models: the ViT tower and the projector into
// the language model that llama.cpp loads as a separate mmproj file, sized by
// formula from the config's vision section, and the tokens one image adds to
// the context.
#pragma once
#include <cstdint>
#include <string>

#include "llmsizer/result.hpp"

namespace llmsizer {

struct Architecture;

enum class VisionFamily {
  siglip,      // Gemma 3: SigLIP tower, average-pooled, one linear projection
  pixtral,     // Mistral Small 3.x, Ministral 3: Pixtral tower, 2x2 patch merger, two-layer projector
  qwen2_5_vl,  // Qwen2.5-VL: RMSNorm, gated-MLP blocks, 2x2 merger MLP
  qwen3_vl,    // Qwen3-VL, Qwen3.5: LayerNorm, plain-MLP blocks, learned positions, 2x2 merger MLP
  llama4       // Llama 4: pixel-shuffle adapter, linear projector
};

struct VisionEncoder {
  VisionFamily family = VisionFamily::siglip;
  std::string model_type;            // vision_config.model_type, or the family's name
  std::int64_t hidden = 0;           // vision_config.hidden_size
  std::int64_t intermediate = 0;     // vision_config.intermediate_size
  std::int64_t layers = 0;           // num_hidden_layers (Qwen: depth)
  std::int64_t patch = 0;            // patch_size
  std::int64_t image_size = 0;       // image_size; 0 for dynamic-resolution towers (Qwen)
  std::int64_t channels = 3;         // num_channels / in_channels
  std::int64_t text_hidden = 0;      // the language model's hidden size (the projector's output)
  std::int64_t merge = 1;            // spatial_merge_size (Pixtral, Qwen)
  std::int64_t temporal_patch = 1;   // temporal_patch_size (Qwen's Conv3d patch embedding)
  std::int64_t out_hidden = 0;       // Qwen: out_hidden_size of the merger
  std::int64_t position_embeddings = 0;  // Qwen3-VL: num_position_embeddings
  std::int64_t projector_input = 0;  // Llama 4: projector_input_dim
  std::int64_t projector_output = 0; // Llama 4: projector_output_dim
  std::int64_t vision_output = 0;    // Llama 4: vision_output_dim
  double pixel_shuffle_ratio = 0.0;  // Llama 4
  bool projector_bias = false;       // Pixtral: multimodal_projector_bias
  std::int64_t tokens_per_image = 0;
  std::string tokens_basis;          // how tokens_per_image was found, for the estimate's basis
};

struct VisionParams {
  std::int64_t encoder = 0;    // the ViT: patch and position embeddings, blocks, final norms
  std::int64_t projector = 0;  // merger / adapter / projection into the language model
  std::int64_t total = 0;
};

// Parameters by formula from the config (each family's modules in
// transformers' modeling code; comments in vision_encoder.cpp).
VisionParams count_vision_params(const VisionEncoder& encoder);

// "model ID has no vision encoder in its config", or why its vision section
// cannot be sized: the error of an estimate asked for images (Scenario::vision)
// of a model without a vision encoder it can size.
Error no_vision_error(const Architecture& arch, const std::string& model_label);

// llama.cpp's converter writes the mmproj file at F16 by default (2 bytes per
// parameter, norms and biases included): the estimate's projector bytes.
constexpr std::int64_t kProjectorBytesPerParam = 2;

}  // namespace llmsizer
