#include "vision_config.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "config_view.hpp"

namespace llmsizer {
namespace {

// Dynamic-resolution towers (Qwen) have no fixed image size: one image of
// this many pixels a side is the assumption their image tokens are counted for.
constexpr std::int64_t kAssumedImageSide = 1024;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Reads the fields every tower needs; names the first one missing.
struct VisionFields {
  const Json& vc;
  std::string missing;

  std::int64_t need(const char* key, const char* alternative = nullptr) {
    std::int64_t v = json_int_or(vc, key, 0);
    if (v <= 0 && alternative != nullptr) v = json_int_or(vc, alternative, 0);
    if (v <= 0 && missing.empty()) missing = std::string("vision_config.") + key;
    return v;
  }
};

}  // namespace

void read_vision_config(const Json& config, Architecture& arch) {
  if (!config.is_object()) return;
  const auto it = config.find("vision_config");
  if (it == config.end() || !it->is_object()) return;
  const Json& vc = *it;
  VisionEncoder v;
  v.model_type = json_string_or(vc, "model_type", "");
  v.text_hidden = arch.hidden_size;
  const std::string top = json_string_or(config, "model_type", arch.model_type);
  VisionFields f{vc, {}};

  if (v.model_type == "siglip_vision_model" && starts_with(top, "gemma3")) {
    v.family = VisionFamily::siglip;
    v.image_size = f.need("image_size");
    // Gemma3Config's default: 256 soft tokens per image (a 4x4 pool of 64x64 patches).
    v.tokens_per_image = json_int_or(config, "mm_tokens_per_image", 256);
    v.tokens_basis = "mm_tokens_per_image: " + std::to_string(v.tokens_per_image) + " tokens per image";
  } else if (v.model_type == "pixtral" || starts_with(top, "mistral3")) {
    v.family = VisionFamily::pixtral;
    if (v.model_type.empty()) v.model_type = "pixtral";
    v.image_size = f.need("image_size");
    v.merge = json_int_or(config, "spatial_merge_size", 2);
    v.projector_bias = json_bool_or(config, "multimodal_projector_bias", false);
  } else if (starts_with(top, "qwen2_5_vl") || starts_with(top, "qwen3_vl") || starts_with(top, "qwen3_5")) {
    // Qwen3-VL and Qwen3.5 learn position embeddings; Qwen2.5-VL uses RoPE only.
    v.position_embeddings = json_int_or(vc, "num_position_embeddings", 0);
    v.family = v.position_embeddings > 0 ? VisionFamily::qwen3_vl : VisionFamily::qwen2_5_vl;
    if (v.model_type.empty()) v.model_type = top + "_vision";
    v.merge = json_int_or(vc, "spatial_merge_size", 2);
    v.temporal_patch = json_int_or(vc, "temporal_patch_size", 2);
    v.out_hidden = f.need("out_hidden_size");
  } else if (v.model_type == "llama4_vision_model") {
    v.family = VisionFamily::llama4;
    v.image_size = f.need("image_size");
    v.projector_input = f.need("projector_input_dim");
    v.projector_output = f.need("projector_output_dim");
    v.vision_output = f.need("vision_output_dim");
    v.pixel_shuffle_ratio = json_number_or(vc, "pixel_shuffle_ratio", 0.5);
  } else {
    arch.vision_error = "its vision encoder (" + (v.model_type.empty() ? top : v.model_type).substr(0, 64) +
                        ") is not one llm-sizer sizes (Gemma 3, Llama 4, Mistral Small 3.x / Pixtral, Qwen2.5-VL, "
                        "Qwen3-VL / Qwen3.5)";
    return;
  }
  v.hidden = f.need("hidden_size");
  v.intermediate = f.need("intermediate_size");
  v.layers = f.need("num_hidden_layers", "depth");
  v.patch = f.need("patch_size");
  v.channels = json_int_or(vc, "num_channels", json_int_or(vc, "in_channels", 3));
  if (!f.missing.empty()) {
    arch.vision_error = "its vision encoder cannot be sized: " + f.missing + " is not in the config";
    return;
  }
  // Beyond any tower, and keeping every product within 64 bits: (h m^2)^2 <=
  // 2^52, (S/p)^2 h <= 2^52, image tokens within the context's own bound.
  const std::int64_t limit = std::int64_t{1} << 20;
  if (v.hidden > limit || v.intermediate > limit || v.layers > 4096 || v.patch > 4096 || v.image_size > 65536 ||
      v.merge < 1 || v.merge > 8 || v.temporal_patch < 1 || v.temporal_patch > 64 || v.channels < 1 ||
      v.channels > 64 || v.out_hidden > limit || v.position_embeddings > limit || v.projector_input > limit ||
      v.projector_output > limit || v.vision_output > limit || !(v.pixel_shuffle_ratio >= 0.0 && v.pixel_shuffle_ratio <= 1.0)) {
    arch.vision_error = "its vision encoder cannot be sized: a vision_config field is out of range";
    return;
  }
  switch (v.family) {
    case VisionFamily::pixtral: {
      // The largest image (image_size a side): (S/p/m)^2 merged patches plus
      // an [IMG_BREAK] or [IMG_END] token closing each row.
      const std::int64_t side = v.image_size / v.patch / v.merge;
      v.tokens_per_image = side * (side + 1);
      v.tokens_basis = "one image of " + std::to_string(v.image_size) + "x" + std::to_string(v.image_size) +
                       " pixels (the largest): " + std::to_string(side) + " rows of " + std::to_string(side) +
                       " merged patches and a row-break token";
      break;
    }
    case VisionFamily::qwen2_5_vl:
    case VisionFamily::qwen3_vl: {
      // The processor resizes to a multiple of patch x merge a side.
      const std::int64_t unit = v.patch * v.merge;
      const std::int64_t side = std::max<std::int64_t>(1, (kAssumedImageSide + unit / 2) / unit);
      v.tokens_per_image = side * side;
      v.tokens_basis = "one image of " + std::to_string(kAssumedImageSide) + "x" + std::to_string(kAssumedImageSide) +
                       " pixels (dynamic resolution: more pixels, more tokens): " + std::to_string(side) + "x" +
                       std::to_string(side) + " merged patches";
      break;
    }
    case VisionFamily::llama4: {
      // One tile of image_size a side: (S/p)^2 patches, pixel-shuffled by the ratio squared.
      const std::int64_t patches = (v.image_size / v.patch) * (v.image_size / v.patch);
      v.tokens_per_image = static_cast<std::int64_t>(std::llround(static_cast<double>(patches) * v.pixel_shuffle_ratio *
                                                                  v.pixel_shuffle_ratio));
      v.tokens_basis = "one tile of " + std::to_string(v.image_size) + "x" + std::to_string(v.image_size) +
                       " pixels (larger images take several tiles)";
      break;
    }
    case VisionFamily::siglip:
      break;
  }
  if (v.tokens_per_image < 1 || v.tokens_per_image > limit) {
    arch.vision_error = "its vision encoder cannot be sized: " + std::to_string(v.tokens_per_image) +
                        " tokens per image is out of range";
    return;
  }
  if (v.text_hidden <= 0) {
    arch.vision_error = "its vision encoder cannot be sized: the language model's hidden size is unknown";
    return;
  }
  arch.vision = v;
}

}  // namespace llmsizer
