// Hub names, file lists and the plan of which files to read (hub_files.hpp).
// Repo layouts follow the Hub's: unsloth's GGUF repos name the quantization in
// the file (Qwen3-8B-Q4_K_M.gguf) or a folder of split parts
// (Q4_K_M/GLM-4.5-Q4_K_M-00001-of-00005.gguf), vision repos add mmproj files.
#include <catch2/catch.hpp>

#include "llmsizer/hub_files.hpp"

using namespace llmsizer;
using Catch::Matchers::Contains;

namespace {

HubName name(const std::string& text) {
  auto n = parse_hub_name(text);
  REQUIRE(n);
  return n.value();
}

std::vector<HubRepoFile> files(std::initializer_list<const char*> paths) {
  std::vector<HubRepoFile> out;
  for (const char* p : paths) out.push_back({p, 1000});
  return out;
}

}  // namespace

TEST_CASE("a Hub name: owner/repo, a quantization, or a huggingface.co link", "[hub]") {
  CHECK(name("Qwen/Qwen3-8B").repo == "Qwen/Qwen3-8B");
  const HubName q = name("unsloth/GLM-4.5-GGUF:Q4_K_M");
  CHECK(q.repo == "unsloth/GLM-4.5-GGUF");
  CHECK(q.quant == "Q4_K_M");
  const HubName blob = name("https://huggingface.co/unsloth/Qwen3-8B-GGUF/blob/main/Qwen3-8B-Q4_K_M.gguf");
  CHECK(blob.repo == "unsloth/Qwen3-8B-GGUF");
  CHECK(blob.file == "Qwen3-8B-Q4_K_M.gguf");
  CHECK(name("https://huggingface.co/unsloth/GLM-4.5-GGUF/tree/main/Q4_K_M").file == "Q4_K_M");
  CHECK(name("huggingface.co/Qwen/Qwen3-8B/").repo == "Qwen/Qwen3-8B");
  for (const char* bad : {"", "Qwen", "../../etc/passwd", "a/b<script>", "a/b/c", "a/..", "a/b:Q4 K", "https://evil.example/a/b",
                          "a/b/blob/dev/x.gguf"}) {
    INFO(bad);
    auto n = parse_hub_name(bad);
    REQUIRE_FALSE(n);
    CHECK(n.error().id == "hub.bad_name");
  }
}

TEST_CASE("the quantization a GGUF path names", "[hub]") {
  CHECK(gguf_quant_in_path("Qwen3-8B-Q4_K_M.gguf") == "Q4_K_M");
  CHECK(gguf_quant_in_path("Qwen3-30B-A3B-UD-Q4_K_XL.gguf") == "UD-Q4_K_XL");
  CHECK(gguf_quant_in_path("Q4_K_M/GLM-4.5-Q4_K_M-00001-of-00005.gguf") == "Q4_K_M");
  CHECK(gguf_quant_in_path("UD-Q2_K_XL/Kimi-K2-00001-of-00008.gguf") == "UD-Q2_K_XL");
  CHECK(gguf_quant_in_path("gpt-oss-20b-MXFP4.gguf") == "MXFP4");
  CHECK(gguf_quant_in_path("Llama-3.2-1B-Instruct-bf16.gguf") == "BF16");
  CHECK(gguf_quant_in_path("Phi-4-IQ2_XXS.gguf") == "IQ2_XXS");
  // "Qwen3" and "A3B" are not quantizations; nor is a file that names none.
  CHECK(gguf_quant_in_path("Qwen3-8B.gguf").empty());
}

TEST_CASE("the file list: real sizes of LFS files, directories dropped, a malformed answer refused", "[hub]") {
  auto tree = read_hub_tree(R"([{"type":"directory","path":"Q4_K_M","size":0},
    {"type":"file","path":"config.json","size":1234},
    {"type":"file","path":"Q4_K_M/x-Q4_K_M-00001-of-00002.gguf","size":134,"lfs":{"size":49000000000}}])");
  REQUIRE(tree);
  REQUIRE(tree.value().size() == 2);
  CHECK(tree.value()[1].size == 49000000000);
  CHECK_FALSE(read_hub_tree("{\"error\":\"x\"}"));
  CHECK_FALSE(read_hub_tree("not json"));
  CHECK(hub_tree_path("a/b") == "/api/models/a/b/tree/main?recursive=true");
  CHECK(hub_file_path("a/b", "Q4_K_M/x y.gguf") == "/a/b/resolve/main/Q4_K_M/x%20y.gguf");
}

TEST_CASE("a GGUF repo: the named quantization's file or every part of its split set", "[hub]") {
  const auto repo = files({"README.md", "mmproj-F16.gguf", "GLM-4.5-Q8_0.gguf", "Q4_K_M/GLM-4.5-Q4_K_M-00002-of-00003.gguf",
                           "Q4_K_M/GLM-4.5-Q4_K_M-00001-of-00003.gguf", "Q4_K_M/GLM-4.5-Q4_K_M-00003-of-00003.gguf"});
  auto split = plan_hub_files(name("unsloth/GLM-4.5-GGUF:Q4_K_M"), repo);
  REQUIRE(split);
  CHECK(split.value().kind == HubKind::gguf);
  CHECK(split.value().label == "unsloth/GLM-4.5-GGUF:Q4_K_M");
  REQUIRE(split.value().headers.size() == 3);
  CHECK(split.value().headers[0].path == "Q4_K_M/GLM-4.5-Q4_K_M-00001-of-00003.gguf");
  // mmproj (the vision projector) is not a quantization of the model.
  CHECK(split.value().quants == std::vector<std::string>{"Q4_K_M", "Q8_0"});
  // Lower case as typed: the same set.
  CHECK(plan_hub_files(name("unsloth/GLM-4.5-GGUF:q8_0"), repo).value().headers.size() == 1);
  // Two quantizations and none named: which.
  auto choose = plan_hub_files(name("unsloth/GLM-4.5-GGUF"), repo);
  REQUIRE_FALSE(choose);
  CHECK(choose.error().id == "hub.choose_quant");
  CHECK_THAT(choose.error().message, Contains("Q4_K_M, Q8_0") && Contains("unsloth/GLM-4.5-GGUF:Q4_K_M"));
  auto missing = plan_hub_files(name("unsloth/GLM-4.5-GGUF:Q2_K"), repo);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().id == "hub.no_such_quant");
  // A link to a folder names the quantization.
  CHECK(plan_hub_files(name("https://huggingface.co/unsloth/GLM-4.5-GGUF/tree/main/Q4_K_M"), repo).value().headers.size() == 3);
}

TEST_CASE("a checkpoint repo: config, index and shards; a config alone; nothing to size", "[hub]") {
  auto st = plan_hub_files(name("Qwen/Qwen3-8B"), files({"config.json", "model.safetensors.index.json",
                                                          "model-00001-of-00002.safetensors",
                                                          "model-00002-of-00002.safetensors", "README.md"}));
  REQUIRE(st);
  CHECK(st.value().kind == HubKind::safetensors);
  CHECK(st.value().config);
  CHECK(st.value().index_path == "model.safetensors.index.json");
  CHECK(st.value().headers.size() == 2);
  // An MLX repo: its config and its one model.safetensors.
  auto mlx = plan_hub_files(name("mlx-community/Qwen3-8B-4bit"), files({"config.json", "model.safetensors", "tokenizer.json"}));
  REQUIRE(mlx);
  CHECK(mlx.value().headers.size() == 1);
  auto config = plan_hub_files(name("a/b"), files({"config.json", "pytorch_model.bin"}));
  REQUIRE(config);
  CHECK(config.value().kind == HubKind::config);
  auto none = plan_hub_files(name("a/b"), files({"README.md"}));
  REQUIRE_FALSE(none);
  CHECK(none.error().id == "hub.no_weights");
  // A quantization asked of a repo without GGUF files.
  CHECK(plan_hub_files(name("Qwen/Qwen3-8B:Q4_K_M"), files({"config.json", "model.safetensors"})).error().id ==
        "hub.no_such_quant");
}
