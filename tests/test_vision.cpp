// Vision projectors (issue 23): the vision tower and projector llama.cpp loads
// as an mmproj file, counted by hand from the configs' vision sections.
// ../shared/reference has no mmproj file size (gguf_sizes.json lists only the
// language models' files), so the counts are checked against the formulas.
#include "llmsizer/json_contract.hpp"
#include "llmsizer/launch_commands.hpp"
#include "test_support.hpp"

using namespace llmsizer;

TEST_CASE("Gemma 3 27B: SigLIP tower and projector counted from vision_config", "[vision]") {
  const Architecture arch = test::catalog_arch("gemma-3-27b-it");
  REQUIRE(arch.vision);
  // vision_config: hidden 1152, intermediate 4304, 27 layers, patch 14, image 896;
  // the language model's hidden size 5376.
  //   patch embedding (conv with bias): 3 x 14 x 14 x 1152 + 1152 =     678,528
  //   positions: (896 / 14)^2 = 4096 x 1152 =                         4,718,592
  //   per block: q, k, v, o 4 x (1152^2 + 1152) = 5,313,024
  //              fc1, fc2 2 x 1152 x 4304 + 4304 + 1152 = 9,921,872
  //              two LayerNorms 4 x 1152 = 4,608           -> 15,239,504
  //   27 blocks:                                                   411,466,608
  //   post LayerNorm 2 x 1152:                                           2,304
  //   encoder:                                                     416,866,032
  //   projector: soft-embedding RMSNorm 1152 + 1152 x 5376 =         6,194,304
  const VisionParams p = count_vision_params(*arch.vision);
  CHECK(p.encoder == 416'866'032);
  CHECK(p.projector == 6'194'304);
  CHECK(p.total == 423'060'336);
  CHECK(arch.vision->tokens_per_image == 256);  // mm_tokens_per_image

  Scenario s;
  s.quant = quant_scheme_from_name("Q4_K_M").value();
  s.context_tokens = 8192;
  s.device = test::device_of("rtx-3090");
  auto text = estimate(arch, s);
  s.vision = true;
  auto vision = estimate(arch, s);
  REQUIRE(text);
  REQUIRE(vision);
  // At F16: 423,060,336 x 2 = 846,120,672 bytes, on the (first) GPU.
  CHECK(vision.value().memory.projector_bytes == 846'120'672);
  CHECK(vision.value().memory.per_gpu.front().projector_bytes == 846'120'672);
  CHECK(text.value().memory.projector_bytes == 0);
  // 256 image tokens in the 10 full-attention layers of 62 (every sixth is
  // global; the sliding ones hold their window either way): 10 x 2 x 16 KV
  // heads x 128 x 2 bytes x 256 = 20,971,520.
  CHECK(vision.value().memory.image_kv_bytes == 20'971'520);
  CHECK(vision.value().memory.kv_cache_bytes - text.value().memory.kv_cache_bytes == 20'971'520);
  CHECK(vision.value().memory.required_bytes - text.value().memory.required_bytes == 846'120'672 + 20'971'520);
  bool stated = false;
  for (const auto& w : vision.value().warnings) stated = stated || w.find("at F16") != std::string::npos;
  CHECK(stated);

  // The llama.cpp command holds the image's tokens in -c and names no mmproj
  // file (the distribution data has none): -hf fetches the repo's own.
  SizedModel model;
  model.entry = test::catalog().find_model("gemma-3-27b-it");
  model.architecture = &arch;
  model.label = "gemma-3-27b-it";
  const LaunchCommand llama = launch_commands(model, s, vision.value()).front();
  REQUIRE_FALSE(llama.steps.empty());
  CHECK(llama.steps[0].find("-c 8448") != std::string::npos);
  CHECK(llama.steps[0].find("--mmproj") == std::string::npos);
  CHECK(llama.note.find("mmproj") != std::string::npos);
}

TEST_CASE("Qwen3.5 27B: Qwen3-VL tower and merger", "[vision]") {
  const Architecture arch = test::catalog_arch("qwen3.5-27b");
  REQUIRE(arch.vision);
  // hidden 1152, intermediate 4304, depth 27, patch 16, temporal patch 2,
  // 2304 learned positions, merge 2, out_hidden 5120.
  //   patch embedding (Conv3d with bias): 3 x 2 x 16 x 16 x 1152 + 1152 = 1,770,624
  //   positions 2304 x 1152 =                                            2,654,208
  //   per block: LayerNorms 4 x 1152 + qkv 3 x 1152^2 + 3 x 1152 + proj 1152^2 + 1152
  //              + fc1, fc2 2 x 1152 x 4304 + 4304 + 1152 = 15,239,504; x 27 = 411,466,608
  //   encoder:                                                         415,891,440
  //   merger: LayerNorm 2 x 1152 + 4608^2 + 4608 + 4608 x 5120 + 5120 = 44,838,656
  const VisionParams p = count_vision_params(*arch.vision);
  CHECK(p.encoder == 415'891'440);
  CHECK(p.projector == 44'838'656);
  // Assumed one 1024 x 1024 image: (1024 / 32)^2 = 1024 merged patches.
  CHECK(arch.vision->tokens_per_image == 1024);
}

TEST_CASE("vision asked of a model without a vision encoder", "[vision]") {
  const Sizer sizer(test::catalog());
  const auto none = nlohmann::json::parse(estimate_response(sizer, R"({"model": "llama-3.1-8b", "vision": true})"));
  CHECK(none["ok"] == false);
  CHECK(none["error"]["message"] == "model llama-3.1-8b has no vision encoder in its config");
  // A vision section the catalog copy holds only in part: said so, not guessed.
  const auto part = nlohmann::json::parse(
      estimate_response(sizer, R"({"model": "mistral-small-3.2-24b-instruct-2506", "vision": true})"));
  CHECK(part["ok"] == false);
  CHECK(part["error"]["message"].get<std::string>().find("vision_config.intermediate_size is not in the config") !=
        std::string::npos);
  const auto gemma = nlohmann::json::parse(
      estimate_response(sizer, R"({"model": "gemma-3-27b-it", "vision": true, "gpu": "rtx-3090"})"));
  REQUIRE(gemma["ok"] == true);
  CHECK(gemma["memory"]["projector_bytes"] == 846'120'672);
  CHECK(gemma["memory"]["projector_params"]["encoder"] == 416'866'032);
  CHECK(gemma["memory"]["image_tokens"] == 256);
  CHECK(gemma["scenario"]["vision"] == true);
}
