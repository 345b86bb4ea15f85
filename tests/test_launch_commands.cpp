// Launch commands (issue 18): every command runs as printed for the estimate's
// scenario, with a name its distribution lists, or a note says why there is none.
#include "llmsizer/launch_commands.hpp"

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

#include "llmsizer/distribution.hpp"
#include "llmsizer/sizer.hpp"
#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

namespace {

const Sizer& sizer() {
  static const Sizer s(embedded_catalog().value());
  return s;
}

// A hand-made index for two catalog models (a dense one and a MoE one), where
// the right answers are known.
const char* const kIndex = R"({"models":[
 {"id":"llama-3.1-8b",
  "gguf":[{"repo":"someone/untagged-GGUF","quants":[]},
          {"repo":"someone/listed-GGUF","quants":["Q8_0","q4_k_m","Q6_K"]}],
  "ollama":[{"tag":"m:8b-q8_0","quant":"Q8_0"},{"tag":"m:cloud","cloud":true},
            {"tag":"m:8b-moved","quant":"Q4_K_M","moved_to":"M-2"},{"tag":"m:8b-q4_K_M","quant":"Q4_K_M"}],
  "mlx":[{"repo":"mlx-community/M-4bit","bits":4,"format":"affine"},
         {"repo":"mlx-community/M-nvfp4","bits":4,"format":"nvfp4"}],
  "serve_repo":"org/M-Instruct",
  "checkpoints":{"BF16":"org/M-Instruct","AWQ":"org/M-AWQ"}},
 {"id":"qwen3-30b-a3b",
  "gguf":[{"repo":"someone/moe-GGUF","quants":["Q4_K_M"]}]}
]})";

const DistributionIndex& index() {
  static const DistributionIndex i = parse_distribution(kIndex).value();
  return i;
}

struct Run {
  SizerRequest request;
  std::vector<LaunchCommand> commands;
  Estimate estimate;

  const LaunchCommand& of(const std::string& engine) const {
    for (const LaunchCommand& c : commands)
      if (c.engine == engine) return c;
    FAIL("no " << engine << " entry");
    return commands.front();
  }
  // The engine's only command ("" when none).
  std::string step(const std::string& engine) const {
    const LaunchCommand& c = of(engine);
    return c.steps.empty() ? std::string() : c.steps.front();
  }
};

struct Sized {
  SizedModel model;
  Scenario scenario;
  Result<Estimate> estimate;
};

Sized sized(const SizerRequest& r) {
  auto model = sizer().model_for(r);
  REQUIRE(model);
  auto s = sizer().scenario_for(r);
  REQUIRE(s);
  return {model.value(), s.value(), sizer().estimate(model.value(), s.value())};
}

Run run(SizerRequest r, const DistributionIndex* names = &index()) {
  if (r.gpu_id.empty()) r.gpu_id = "rtx-4090";
  const Sized x = sized(r);
  REQUIRE(x.estimate);
  const Estimate& e = x.estimate.value();
  Run out{r, names ? launch_commands(x.model, x.scenario, e, *names) : launch_commands(x.model, x.scenario, e), e};
  return out;
}

SizerRequest request(const char* model, const char* quant) {
  SizerRequest r;
  r.model_id = model;
  r.quant = quant;
  return r;
}

// A checkpoint format llama.cpp does not load, sized for vLLM (whose commands,
// and every other engine's, the estimate still lists).
SizerRequest served(SizerRequest r) {
  r.engine = "vllm";
  return r;
}

// Text that stands for a name the user would have to fill in: a capitalized
// word of its own (not VLLM_ALLOW_LONG_MAX_MODEL_LEN), a <slot> or {slot}
// (not a JSON argument's braces), an elided path.
const std::regex kPlaceholder(R"(\bMODEL\b|\bREPO\b|path/to|[<>]|\{[a-z_]+\}|\.\.\.)");

// The .gguf files the steps read that no earlier step writes (as --outfile,
// llama-quantize's output or llama-gguf-split's merged file). A find pattern
// ('*-00001-of-*.gguf') is a search of downloaded parts, not a name.
std::vector<std::string> unmade_files(const std::vector<std::string>& steps) {
  std::vector<std::string> made, unmade;
  const std::regex name(R"([A-Za-z0-9_.\-]+\.gguf)");
  for (const std::string& step : steps) {
    std::vector<std::string> words;
    std::istringstream in(step);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<std::string> writes;
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] == "--outfile" && i + 1 < words.size()) writes.push_back(words[i + 1]);
      if (words[i] == "llama-quantize" && i + 2 < words.size()) writes.push_back(words[i + 2]);
      if (words[i] == "--merge" && !words.empty()) writes.push_back(words.back());
    }
    const std::string searched = std::regex_replace(step, std::regex(R"('[^']*')"), "");
    for (auto it = std::sregex_iterator(searched.begin(), searched.end(), name); it != std::sregex_iterator(); ++it) {
      const std::string file = it->str();
      const bool written_here = std::find(writes.begin(), writes.end(), file) != writes.end();
      if (!written_here && std::find(made.begin(), made.end(), file) == made.end()) unmade.push_back(file);
    }
    made.insert(made.end(), writes.begin(), writes.end());
  }
  return unmade;
}

}  // namespace

TEST_CASE("distribution names parse, and a bad entry is named by its JSON path", "[commands]") {
  const auto& m = *index().find("llama-3.1-8b");
  REQUIRE(m.gguf.size() == 2);
  CHECK(m.gguf[0].quants.empty());
  CHECK(m.ollama[1].cloud);
  CHECK(m.ollama[2].moved_to == "M-2");
  CHECK(*m.checkpoint("AWQ") == "org/M-AWQ");
  CHECK(m.checkpoint("GPTQ") == nullptr);
  CHECK(index().find("glm-4.5") == nullptr);

  auto not_json = parse_distribution("{\"models\": 3}");
  REQUIRE_FALSE(not_json);
  CHECK(not_json.error().id == "distribution.not_json");
  auto bad = parse_distribution(R"({"models":[{"id":"a","gguf":[{"repo":"x","quants":[]},{"quants":[]}]}]})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().id == "distribution.bad_entry");
  CHECK_THAT(bad.error().message, Contains("/models/0/gguf/1/repo"));
  auto bits = parse_distribution(R"({"models":[{"id":"a","mlx":[{"repo":"x","bits":"4"}]}]})");
  REQUIRE_FALSE(bits);
  CHECK_THAT(bits.error().message, Contains("/models/0/mlx/0/bits"));
  auto block = parse_distribution(R"({"models":[{"id":"a","weight_blocks":{"org/A-FP8":"128"}}]})");
  REQUIRE_FALSE(block);
  CHECK_THAT(block.error().message, Contains("/models/0/weight_blocks/org/A-FP8"));
  auto blocks = parse_distribution(R"({"models":[{"id":"a","weight_blocks":{"org/A-FP8":128}}]})");
  REQUIRE(blocks);
  CHECK(blocks.value().models[0].weight_block("org/A-FP8") == 128);
  CHECK(blocks.value().models[0].weight_block("org/A") == 0);
  // The embedded copy has every catalog model.
  auto embedded = embedded_distribution();
  REQUIRE(embedded);
  const Catalog catalog = embedded_catalog().value();
  for (const auto& model : catalog.models) CHECK(embedded.value().find(model.id) != nullptr);
}

TEST_CASE("llama.cpp pulls a GGUF repo that lists the quant, else says what exists", "[commands]") {
  // Listed (in another case): that repo, with its spelling of the tag.
  const Run listed = run(request("llama-3.1-8b", "Q4_K_M"));
  CHECK_THAT(listed.step("llama.cpp"), StartsWith("llama-server -hf someone/listed-GGUF:q4_k_m \\\n  -c 8192 \\\n  -np 1"));
  CHECK_THAT(listed.step("llama.cpp"), Contains("-ngl 999") && Contains("-fa on"));
  CHECK(listed.of("llama.cpp").note.empty());
  // Not listed anywhere, but a repo's tags were not sourced: that one, with a note.
  const Run unsourced = run(request("llama-3.1-8b", "Q5_K_M"));
  CHECK_THAT(unsourced.step("llama.cpp"), StartsWith("llama-server -hf someone/untagged-GGUF:Q5_K_M"));
  CHECK_THAT(unsourced.of("llama.cpp").note, Contains("not checked"));
  // Repos with tag lists only, none with this quant: their quants named, and
  // the steps that make this one from the model's Hugging Face files.
  const Run missing = run(request("qwen3-30b-a3b", "Q8_0"));
  CHECK_THAT(missing.of("llama.cpp").note, Contains("someone/moe-GGUF (Q4_K_M)"));
  CHECK(missing.of("llama.cpp").steps.at(1) == "hf download Qwen/Qwen3-30B-A3B --local-dir qwen3-30b-a3b-hf");
  CHECK_THAT(missing.of("llama.cpp").steps.back(), StartsWith("llama-server -m qwen3-30b-a3b-Q8_0.gguf"));
  const DistributionIndex two_quants =
      parse_distribution(R"({"models":[{"id":"llama-3.1-8b","gguf":[{"repo":"a/b-GGUF","quants":["Q8_0","Q6_K"]}]}]})").value();
  const Run listing = run(request("llama-3.1-8b", "Q4_K_M"), &two_quants);
  CHECK_THAT(listing.of("llama.cpp").note, Contains("a/b-GGUF (Q8_0, Q6_K)"));
  CHECK(listing.of("llama.cpp").steps.at(3) == "llama-quantize llama-3.1-8b-BF16.gguf llama-3.1-8b-Q4_K_M.gguf Q4_K_M");
  // No GGUF repo at all: steps that make the file from the catalog's HF repo,
  // every file name one an earlier step writes, then the server on it.
  DistributionIndex empty;
  const Run none = run(request("llama-3.1-8b", "Q4_K_M"), &empty);
  const std::vector<std::string> made = none.of("llama.cpp").steps;
  REQUIRE(made.size() == 5);
  CHECK(made[0] == "git clone https://github.com/ggml-org/llama.cpp && pip install -r llama.cpp/requirements.txt");
  CHECK(made[1] == "hf download meta-llama/Llama-3.1-8B --local-dir llama-3.1-8b-hf");
  CHECK(made[2] == "python llama.cpp/convert_hf_to_gguf.py llama-3.1-8b-hf --outtype bf16 --outfile llama-3.1-8b-BF16.gguf");
  CHECK(made[3] == "llama-quantize llama-3.1-8b-BF16.gguf llama-3.1-8b-Q4_K_M.gguf Q4_K_M");
  CHECK_THAT(made[4], StartsWith("llama-server -m llama-3.1-8b-Q4_K_M.gguf \\\n  -c 8192"));
  CHECK_THAT(none.of("llama.cpp").note, Contains("No public GGUF of meta-llama/Llama-3.1-8B at Q4_K_M"));
  // llama-quantize refuses IQ2_XXS without an importance matrix, and UD-Q4_K_XL
  // is an uploader's mix: no steps for those, a note saying why.
  const Run imatrix = run(request("llama-3.1-8b", "IQ2_XXS"), &empty);
  CHECK(imatrix.of("llama.cpp").steps.empty());
  CHECK_THAT(imatrix.of("llama.cpp").note, Contains("only with an importance matrix"));
  const Run mix = run(request("llama-3.1-8b", "UD-Q4_K_XL"), &empty);
  CHECK(mix.of("llama.cpp").steps.empty());
  CHECK_THAT(mix.of("llama.cpp").note, Contains("not a type llama-quantize makes"));
  // Ollama makes the same file, then a model of it.
  const std::vector<std::string> ollama_made = none.of("ollama").steps;
  REQUIRE(ollama_made.size() == 8);
  CHECK_THAT(ollama_made[0], EndsWith("ollama serve"));
  CHECK(ollama_made[4] == made[3]);
  CHECK(ollama_made[5] == "echo \"FROM ./llama-3.1-8b-Q4_K_M.gguf\" | tee llama-3.1-8b-Q4_K_M.gguf.Modelfile");
  CHECK(ollama_made[6] == "ollama create llama-3.1-8b-q4_k_m -f llama-3.1-8b-Q4_K_M.gguf.Modelfile");
  CHECK(ollama_made[7] == "ollama run llama-3.1-8b-q4_k_m");
  // A native checkpoint format sized for another engine: llama.cpp's entry is a
  // note, not a command; asked of llama.cpp itself, the estimate is refused.
  for (const char* quant : {"AWQ", "FP8", "MLX-4bit", "GPTQ-INT4"}) {
    const Run native = run(served(request("llama-3.1-8b", quant)));
    CHECK(native.of("llama.cpp").steps.empty());
    CHECK_THAT(native.of("llama.cpp").note, Contains("GGUF"));
    SizerRequest asked = request("llama-3.1-8b", quant);
    asked.engine = "llama.cpp";
    asked.gpu_id = "rtx-4090";
    const Sized refused = sized(asked);
    REQUIRE_FALSE(refused.estimate);
    CHECK(refused.estimate.error().id == "runtime.unsupported");
    CHECK_THAT(refused.estimate.error().message, Contains("llama.cpp loads GGUF files"));
  }
  // 16-bit weights convert to a GGUF of the same size: sized, with the steps in a note.
  const Run bf16 = run(request("llama-3.1-8b", "BF16-native"));
  CHECK(bf16.of("llama.cpp").steps.empty());
  CHECK_THAT(bf16.of("llama.cpp").note, Contains("GGUF"));
}

TEST_CASE("llama.cpp's flags follow the estimate: slots, KV type, offload, split", "[commands]") {
  SizerRequest r = request("llama-3.1-8b", "Q4_K_M");
  r.sequences = 4;
  r.context_tokens = 4096;
  r.kv_type = "q8_0";
  r.flash_attention = false;
  const std::string slots = run(r).step("llama.cpp");
  CHECK_THAT(slots, Contains("-c 16384 \\") && Contains("-np 4 \\") && Contains("-fa off") &&
                        Contains("-ctk q8_0 -ctv q8_0"));

  // MoE experts in RAM: --n-cpu-moe with the estimate's layer count, all layers on the GPU.
  SizerRequest experts = request("qwen3-30b-a3b", "Q4_K_M");
  experts.gpu_id = "rtx-4060-ti-16gb";
  experts.offload_fraction = 0.5;
  const Run moe = run(experts);
  REQUIRE(moe.estimate.memory.offload_experts_only);
  REQUIRE(moe.estimate.memory.offloaded_layers > 0);
  CHECK_THAT(moe.step("llama.cpp"),
             Contains("-ngl 999") && Contains("--n-cpu-moe " + std::to_string(moe.estimate.memory.offloaded_layers) + " \\"));

  // Layers in RAM: -ngl counts the layers left on the GPU and the output
  // layer, which llama.cpp offloads first: 32 - 8 + 1 = 25 slots, so
  // i_gpu_start = 33 - 25 = 8 and layers 0-7 stay in RAM.
  SizerRequest layers = request("llama-3.1-8b", "Q4_K_M");
  layers.offload_fraction = 0.25;
  layers.offload_mode = "layers";
  const Run dense = run(layers);
  REQUIRE(dense.estimate.memory.offloaded_layers == 8);
  CHECK_FALSE(dense.estimate.memory.output_in_ram);
  CHECK_THAT(dense.step("llama.cpp"), Contains("-ngl 25 \\"));
  // Every layer in RAM: -ngl 0, the head with them.
  layers.offload_fraction = 1.0;
  const Run all_ram = run(layers);
  CHECK(all_ram.estimate.memory.output_in_ram);
  CHECK_THAT(all_ram.step("llama.cpp"), Contains("-ngl 0 \\"));
  CHECK_THAT(dense.step("llama.cpp"), !Contains("--n-cpu-moe"));

  // Two equal GPUs, no split chosen: llama.cpp's own. Llama 3.1 8B has 32
  // layers and the output layer is slot 32 of 33; llama.cpp sends slot i to
  // the first GPU whose cumulative share (0.5, 1) exceeds i/33, so slots
  // 0..16 (16/33 = 0.485 < 0.5 <= 17/33 = 0.515) to the first: 17 layers, and
  // 15 with the output on the second. The command needs no --tensor-split.
  SizerRequest two = request("llama-3.1-8b", "Q4_K_M");
  two.gpu_count = 2;
  const Run split = run(two);
  REQUIRE(split.estimate.memory.per_gpu.size() == 2);
  CHECK(split.estimate.memory.per_gpu[0].last_layer == 17);
  CHECK(split.estimate.memory.per_gpu[1].first_layer == 17);
  CHECK_THAT(split.step("llama.cpp"), !Contains("--tensor-split"));
  // A split set by hand (10 and 22 layers): weights 19 and 2*23+1 = 47.
  two.layer_split = "10,22";
  const Run uneven = run(two);
  CHECK(uneven.estimate.memory.per_gpu[0].last_layer == 10);
  CHECK_THAT(uneven.step("llama.cpp"), Contains("--tensor-split 19,47"));
  CHECK_THAT(run(request("llama-3.1-8b", "Q4_K_M")).step("llama.cpp"), !Contains("--tensor-split"));
}

TEST_CASE("llama.cpp on a CPU-only machine: no layer to a GPU, nothing offloaded", "[commands][cpu]") {
  SizerRequest r = request("llama-3.1-8b", "Q4_K_M");
  r.gpu_id = "ryzen-9-7950x-128gb-ddr5-3600";
  r.offload_fraction = 0.5;  // asked for, but there is no GPU to keep the rest on
  const Run cpu = run(r);
  CHECK(cpu.estimate.memory.offloaded_layers == 0);
  CHECK(cpu.estimate.memory.host_bytes == 0);  // the embedding is in the same RAM as the rest
  const std::string step = cpu.step("llama.cpp");
  CHECK_THAT(step, Contains("-ngl 0 \\"));
  CHECK_THAT(step, !Contains("-ngl 999") && !Contains("--n-cpu-moe") && !Contains("--tensor-split"));
}

TEST_CASE("Ollama: a local tag of that quant, its server and client as two steps", "[commands]") {
  SizerRequest r = request("llama-3.1-8b", "Q4_K_M");
  r.sequences = 2;
  r.kv_type = "q8_0";
  const LaunchCommand q4 = run(r).of("ollama");
  REQUIRE(q4.steps.size() == 2);
  CHECK(q4.steps[0] ==
        "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=2 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve");
  CHECK(q4.steps[1] == "ollama run m:8b-q4_K_M");  // not the tag that moved to a newer release
  CHECK_THAT(q4.note, Contains("second shell"));
  CHECK(run(request("llama-3.1-8b", "Q8_0")).of("ollama").steps.at(1) == "ollama run m:8b-q8_0");
  // No tag of this quant, a GGUF repo that has it: Ollama pulls it from Hugging Face.
  CHECK(run(request("llama-3.1-8b", "Q6_K")).of("ollama").steps.at(1) == "ollama run hf.co/someone/listed-GGUF:Q6_K");
  // Neither: the tags there are named, and the file made locally and created.
  const LaunchCommand none = run(request("qwen3-30b-a3b", "Q8_0")).of("ollama");
  CHECK_THAT(none.note, Contains("No known GGUF repo of Qwen/Qwen3-30B-A3B has Q8_0"));
  CHECK(none.steps.back() == "ollama run qwen3-30b-a3b-q8_0");
  const LaunchCommand awq = run(served(request("llama-3.1-8b", "AWQ"))).of("ollama");
  CHECK(awq.steps.empty());
  // A KV type Ollama lacks: no command.
  SizerRequest q5 = request("llama-3.1-8b", "Q4_K_M");
  q5.kv_type = "q5_0";
  CHECK(run(q5).of("ollama").steps.empty());
}

TEST_CASE("Ollama: a library tag listed larger than the GGUF sized says how much more it holds", "[commands]") {
  // The embedded distribution data. ollama.com lists gemma3:4b at 3.3GB (the
  // scrape the reference quotes); the estimate sizes Gemma 3 4B's text weights
  // at Q4_K_M, 2.49 GB: 0.8 GB apart, past the listing's rounding (0.05 GB)
  // and 3% of 2.49 (0.07): Ollama's tag bundles the SigLIP vision encoder
  // (~0.4 B parameters at 16 bits, ~0.85 GB). llama3.1:8b is listed at 4.9GB
  // against 4.92 GB sized: the same file, no note.
  SizerRequest gemma = request("gemma-3-4b", "Q4_K_M");
  gemma.engine = "ollama";
  const LaunchCommand tagged = run(gemma, nullptr).of("ollama");
  CHECK(tagged.steps.back() == "ollama run gemma3:4b");
  CHECK_THAT(tagged.note, Contains("ollama.com lists gemma3:4b at 3.3 GB, the estimate sizes 2.5 GB of weights") &&
                              Contains("about 0.8 GB more in memory"));
  SizerRequest llama = request("llama-3.1-8b", "Q4_K_M");
  llama.engine = "ollama";
  const LaunchCommand same = run(llama, nullptr).of("ollama");
  CHECK(same.steps.back() == "ollama run llama3.1:8b");
  CHECK_THAT(same.note, !Contains("ollama.com lists"));
}

TEST_CASE("SGLang on an AMD GPU its kernels are not built for: the reason instead of an install that fails", "[commands]") {
  SizerRequest radeon = request("llama-3.1-8b", "native");
  radeon.engine = "sglang";
  radeon.gpu_id = "rx-7900-xtx";
  const Run r = run(radeon);
  CHECK(r.of("sglang").steps.empty());
  CHECK_THAT(r.of("sglang").note, Contains("gfx942 and gfx950") && Contains("gfx1100"));
  CHECK_FALSE(r.of("vllm").steps.empty());  // vLLM's ROCm build covers the RX 7900 series
  SizerRequest instinct = radeon;
  instinct.gpu_id = "mi300x";
  CHECK_THAT(run(instinct).step("sglang"), StartsWith("python -m sglang.launch_server"));
}

TEST_CASE("MLX: the repo of those bits, on a Mac only", "[commands]") {
  SizerRequest mac = request("llama-3.1-8b", "MLX-4bit");
  mac.gpu_id = "mac-m1-max-64gb";
  mac.engine = "mlx";
  const Run apple = run(mac);
  CHECK(apple.of("mlx").steps == std::vector<std::string>{"mlx_lm.server --model mlx-community/M-4bit"});
  CHECK(apple.of("vllm").steps.empty());
  CHECK_THAT(apple.of("vllm").note, Contains("Metal"));
  CHECK(apple.of("sglang").steps.empty());
  // No 8-bit build listed: a note.
  mac.quant = "MLX-8bit";
  CHECK(run(mac).of("mlx").steps.empty());
  // The same scenario on an NVIDIA card: no MLX command.
  // The same scenario on an NVIDIA card: MLX-LM has no CUDA build, so there
  // is nothing to size or launch; one message says why and what runs there.
  SizerRequest nvidia = request("llama-3.1-8b", "MLX-4bit");
  nvidia.engine = "mlx";
  nvidia.gpu_id = "rtx-4090";
  const Result<Estimate> e = sized(nvidia).estimate;
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "runtime.unsupported");
  // Prose names the device as people know it, not by its catalog id.
  CHECK_THAT(e.error().message, Contains("MLX-LM has no build for CUDA, which the NVIDIA GeForce RTX 4090 needs") && Contains("NVIDIA GeForce RTX 4090") &&
                                    !Contains("rtx-4090"));
  // With llama.cpp on the card, the MLX line says where MLX runs.
  SizerRequest llama = request("llama-3.1-8b", "Q4_K_M");
  const LaunchCommand off = run(llama).of("mlx");
  CHECK(off.steps.empty());
  CHECK_THAT(off.note, Contains("Apple"));
  CHECK_THAT(off.note, Contains("not on the NVIDIA GeForce RTX 4090") || Contains("not on the RTX 4090"));
  CHECK_THAT(off.note, !Contains("rtx-4090"));
}

TEST_CASE("vLLM and SGLang serve the repo of the chosen checkpoint format", "[commands]") {
  SizerRequest r = request("llama-3.1-8b", "AWQ");
  r.engine = "vllm";
  r.gpu_count = 2;
  r.gpu_id = "rtx-3090";
  r.kv_type = "fp8";
  const Run awq = run(r);
  CHECK_THAT(awq.step("vllm"), StartsWith("vllm serve org/M-AWQ \\\n  --max-model-len 8192"));
  CHECK_THAT(awq.step("vllm"), Contains("--tensor-parallel-size 2") && Contains("--kv-cache-dtype fp8") &&
                                   Contains("--gpu-memory-utilization 0.90") && Contains("--max-num-seqs 1"));
  CHECK_THAT(awq.step("sglang"), StartsWith("python -m sglang.launch_server --model-path org/M-AWQ") &&
                                     Contains("--tp 2") && Contains("--kv-cache-dtype fp8_e5m2") &&
                                     Contains("--mem-fraction-static 0.88") && Contains("--context-length 8192"));
  CHECK(awq.of("llama.cpp").steps.empty());  // fp8 KV: llama.cpp has none
  // No AWQ repo: a note, never the BF16 weights under the AWQ label.
  const Run none = run(served(request("qwen3-30b-a3b", "AWQ")));
  CHECK(none.of("vllm").steps.empty());
  CHECK_THAT(none.of("vllm").note, Contains("AWQ"));
  // GPTQ unknown here too.
  CHECK(run(served(request("llama-3.1-8b", "GPTQ-INT4"))).of("vllm").steps.empty());
  // The published checkpoint: the repo people serve (instruct), not the base.
  CHECK_THAT(run(request("llama-3.1-8b", "native")).step("vllm"), StartsWith("vllm serve org/M-Instruct \\"));
  // FP8 with no FP8 repo: the BF16 repo cast as it loads.
  CHECK_THAT(run(served(request("llama-3.1-8b", "FP8"))).step("vllm"),
             StartsWith("vllm serve org/M-Instruct \\") && Contains("--quantization fp8"));
  // A GGUF quantization: a note (vLLM's GGUF support is experimental).
  const LaunchCommand gguf = run(request("llama-3.1-8b", "Q4_K_M")).of("vllm");
  CHECK(gguf.steps.empty());
  CHECK_THAT(gguf.note, Contains("experimental"));
}

TEST_CASE("Ollama cannot pull a split GGUF from the Hub: the parts are downloaded, merged and created", "[commands]") {
  // A source shows Q4_K_M in two parts: llama.cpp's -hf fetches both; Ollama's
  // hf.co/ pull refuses split files (ollama/ollama#5245), so the steps merge them.
  const DistributionIndex two_parts = parse_distribution(
      R"({"models":[{"id":"qwen3-30b-a3b","gguf":[{"repo":"a/moe-GGUF","quants":["Q4_K_M"],"parts":{"Q4_K_M":2}}]}]})").value();
  const Run split = run(request("qwen3-30b-a3b", "Q4_K_M"), &two_parts);
  CHECK_THAT(split.step("llama.cpp"), StartsWith("llama-server -hf a/moe-GGUF:Q4_K_M"));
  const std::vector<std::string> steps = split.of("ollama").steps;
  REQUIRE(steps.size() == 6);
  CHECK_THAT(steps[0], EndsWith("ollama serve"));
  CHECK(steps[1] == "hf download a/moe-GGUF --include \"*Q4_K_M*\" --local-dir qwen3-30b-a3b-Q4_K_M-parts");
  CHECK(steps[2] == "llama-gguf-split --merge \"$(find qwen3-30b-a3b-Q4_K_M-parts -name '*Q4_K_M*-00001-of-*.gguf' | head -n 1)\" "
                    "qwen3-30b-a3b-Q4_K_M.gguf");
  CHECK(steps[4] == "ollama create qwen3-30b-a3b-q4_k_m -f qwen3-30b-a3b-Q4_K_M.gguf.Modelfile");
  CHECK(steps[5] == "ollama run qwen3-30b-a3b-q4_k_m");
  CHECK_THAT(split.of("ollama").note, Contains("holds Q4_K_M in parts, which Ollama cannot pull"));
  CHECK(unmade_files(steps).empty());

  // No source on the parts, but DeepSeek V3 at Q4_K_M is ~400 GB: over the
  // Hub's 50 GB per file it cannot be one file, so the same merge.
  const DistributionIndex big = parse_distribution(
      R"({"models":[{"id":"deepseek-v3","gguf":[{"repo":"a/ds-GGUF","quants":["Q4_K_M"]}]}]})").value();
  SizerRequest r = request("deepseek-v3", "Q4_K_M");
  r.gpu_id = "mac-m3-ultra-512gb";
  const Run inferred = run(r, &big);
  REQUIRE(inferred.estimate.memory.weights_bytes > 50'000'000'000);
  CHECK_THAT(inferred.of("ollama").steps.at(1), StartsWith("hf download a/ds-GGUF --include"));
  CHECK_THAT(inferred.of("ollama").note, Contains("over the Hub's 50 GB per file"));
  // A source showing one file wins over the size rule: a plain pull.
  const DistributionIndex one_file = parse_distribution(
      R"({"models":[{"id":"deepseek-v3","gguf":[{"repo":"a/ds-GGUF","quants":["Q4_K_M"],"parts":{"Q4_K_M":1}}]}]})").value();
  const Run single = run(r, &one_file);
  CHECK(single.of("ollama").steps.back() == "ollama run hf.co/a/ds-GGUF:Q4_K_M");
  // A small model with no parts sourced: pulled as one file.
  CHECK(run(request("llama-3.1-8b", "Q4_K_M")).of("ollama").steps.back() == "ollama run m:8b-q4_K_M");
  // Bad parts are refused with the path.
  auto bad = parse_distribution(R"({"models":[{"id":"x","gguf":[{"repo":"a/b","quants":[],"parts":{"Q4_K_M":0}}]}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Contains("/parts/Q4_K_M"));
}

TEST_CASE("every catalog model: no placeholder in a command; a listed GGUF repo gets -hf at Q4_K_M", "[commands][catalog]") {
  const Catalog catalog = embedded_catalog().value();
  const DistributionIndex names = embedded_distribution().value();
  int estimates = 0, with_hf = 0, runnable = 0, runnable_q4 = 0;
  for (const CatalogModel& model : catalog.models) {
    if (model.facts && !model.facts->sizable) continue;
    const ModelDistribution* dist = names.find(model.id);
    REQUIRE(dist != nullptr);
    for (const char* quant : {"Q4_K_M", "Q8_0", "AWQ", "FP8", "MLX-4bit"}) {
      for (const char* gpu : {"h100-sxm", "mac-m3-ultra-512gb"}) {
        SizerRequest r = request(model.id.c_str(), quant);
        r.gpu_id = gpu;
        // Each format under an engine that loads it (the commands cover all six).
        if (quant[0] != 'Q') r.engine = std::string(quant) == "MLX-4bit" ? "mlx" : "vllm";
        auto m = sizer().model_for(r);
        auto s = sizer().scenario_for(r);
        if (!m || !s) continue;
        auto e = sizer().estimate(m.value(), s.value());
        if (!e) continue;
        ++estimates;
        const auto commands = launch_commands(m.value(), s.value(), e.value());
        REQUIRE(commands.size() == 6);
        for (const LaunchCommand& c : commands) {
          INFO(model.id << " " << quant << " " << gpu << " " << c.engine);
          CHECK((c.steps.empty() ? !c.note.empty() : true));  // no command: a reason
          // A file name is one an earlier step writes, never a Hub file's name guessed.
          CHECK(unmade_files(c.steps).empty());
          for (const std::string& step : c.steps) {
            ++runnable;
            CHECK_FALSE(std::regex_search(step, kPlaceholder));
            // One command: lines break only as continuations.
            for (std::size_t at = step.find('\n'); at != std::string::npos; at = step.find('\n', at + 1))
              CHECK((at > 0 && step[at - 1] == '\\'));
          }
          if (c.engine == "mlx" && std::string(gpu) == "h100-sxm") CHECK(c.steps.empty());
          if ((c.engine == "vllm" || c.engine == "sglang") && std::string(gpu) != "h100-sxm") CHECK(c.steps.empty());
          if ((c.engine == "vllm" || c.engine == "sglang") && std::string(quant) == "Q4_K_M") CHECK(c.steps.empty());
          if (c.engine == "llama.cpp" && std::string(quant) == "Q4_K_M") {
            bool usable = false;  // a repo lists Q4_K_M or has no sourced tag list
            for (const GgufRepo& g : dist->gguf) {
              bool has = g.quants.empty();
              for (const std::string& q : g.quants) has = has || q == "Q4_K_M";
              usable = usable || has;
            }
            // A repo that has it: pulled; none: made here from the model's Hugging Face
            // files, unless they are FP8 or FP4, which llama.cpp's converter does not read,
            // or llama.cpp has no runtime for the model at all (the catalog says why).
            if (!model.llama_cpp_unsupported.empty()) {
              CHECK(c.steps.empty());
              CHECK_THAT(c.note, Contains(model.llama_cpp_unsupported));
            } else if (usable) CHECK_FALSE(c.steps.empty());
            else if (!c.steps.empty()) CHECK_THAT(c.steps[0], StartsWith("git clone"));
            else CHECK_THAT(c.note, Contains("converter does not read"));
            if (!c.steps.empty() && std::string(gpu) == "h100-sxm") ++runnable_q4;
            if (usable && !c.steps.empty()) {
              bool named = false;
              for (const GgufRepo& g : dist->gguf)
                named = named || c.steps[0].rfind("llama-server -hf " + g.repo + ":", 0) == 0;
              CHECK(named);
              if (std::string(gpu) == "h100-sxm") ++with_hf;
            }
          }
        }
      }
    }
  }
  CHECK(estimates > 500);
  CHECK(runnable > 300);
  CHECK(with_hf >= 80);
  UNSCOPED_INFO("models with a llama.cpp command at Q4_K_M: " << runnable_q4 << ", pulled with -hf: " << with_hf);
  CHECK(runnable_q4 >= 110);
}

TEST_CASE("a serving engine's scenario: llama.cpp's note names the GGUF type to take, Ollama runs the 16-bit cache as f16", "[commands]") {
  // gpt-oss-120b's MXFP4 checkpoint under vLLM on an H100: llama.cpp's
  // equivalent is the GGUF file type MXFP4_MOE (the estimate's own refusal
  // says so), not "Q4_K_M or Q8_0"; vLLM's bf16 KV cache is 16 bits a value,
  // which Ollama calls f16: its command runs, with no KV type to set.
  SizerRequest r = request("gpt-oss-120b", "MXFP4");
  r.gpu_id = "h100-sxm";
  r.engine = "vllm";
  const Run served = run(r, nullptr);  // the embedded distribution data: Ollama's gpt-oss:120b tag
  CHECK(sized(r).scenario.kv_type == KvType::bf16);
  CHECK_THAT(served.of("llama.cpp").note, Contains("MXFP4_MOE"));
  CHECK(served.step("llama.cpp").empty());
  const std::string ollama = served.step("ollama");
  CHECK_THAT(ollama, Contains("ollama serve") && !Contains("OLLAMA_KV_CACHE_TYPE"));
  CHECK(served.of("ollama").steps.back() == "ollama run gpt-oss:120b");
}

TEST_CASE("a Qwen3 context past its config's 40,960 tokens: the commands carry the YaRN its card documents", "[commands]") {
  // Qwen3-32B: max_position_embeddings 40,960; "Context Length: 32,768 natively
  // and 131,072 tokens with YaRN" (its card); the factor the context needs in
  // half steps ("set factor as 2.0" for 65,536 tokens): 65,536 / 32,768 = 2.
  SizerRequest r = request("qwen3-32b", "native");
  r.engine = "vllm";
  r.gpu_id = "h100-sxm";
  r.gpu_count = 2;
  r.context_tokens = 65536;
  const Run two = run(r, nullptr);
  CHECK_THAT(two.step("vllm"),
             Contains("--max-model-len 65536") &&
                 EndsWith("--hf-overrides '{\"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": 2.0, "
                          "\"original_max_position_embeddings\": 32768, \"rope_theta\": 1000000}}'"));
  CHECK_THAT(two.step("sglang"), StartsWith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server") &&
                                     EndsWith("--json-model-override-args '{\"rope_scaling\": {\"rope_type\": \"yarn\", "
                                              "\"factor\": 2.0, \"original_max_position_embeddings\": 32768}}'"));
  CHECK_THAT(two.of("vllm").note, Contains("YaRN factor 2 over the model's 32768 pretraining tokens reaches 65536"));
  bool warned = false;
  for (const std::string& w : two.estimate.warnings) warned = warned || w.find("extends it with YaRN to 131072") != std::string::npos;
  CHECK(warned);
  // 50,000 tokens: 50,000 / 32,768 = 1.53, up to the half step 2 (1.5 x 32,768 = 49,152 is short).
  r.context_tokens = 50000;
  CHECK_THAT(run(r, nullptr).step("vllm"), Contains("\"factor\": 2.0"));
  // llama-server at 131,072 tokens (Q4_K_M on two H100s): the card's own flags, factor 4.
  SizerRequest g = request("qwen3-32b", "Q4_K_M");
  g.gpu_id = "h100-sxm";
  g.gpu_count = 2;
  g.context_tokens = 131072;
  const Run four = run(g, nullptr);
  CHECK_THAT(four.step("llama.cpp"), EndsWith("--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"));
  CHECK_THAT(four.of("ollama").note, Contains("Ollama has no YaRN setting"));
  // Within the config's own 40,960 tokens: nothing added.
  g.context_tokens = 40960;
  const Run own = run(g, nullptr);
  CHECK(own.step("llama.cpp").find("rope") == std::string::npos);
  // Past even 131,072: no YaRN to set; vLLM starts only when allowed, and says why.
  r.context_tokens = 262144;
  const Run past = run(r, nullptr);
  CHECK_THAT(past.step("vllm"), StartsWith("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve"));
  CHECK(past.step("vllm").find("rope") == std::string::npos);
  CHECK_THAT(past.of("vllm").note, Contains("past the model's maximum of 131072 (with YaRN)"));
}

TEST_CASE("TensorRT-LLM: trtllm-serve with the estimate's KV pool, pre-quantized checkpoints only", "[commands]") {
  // Llama 3.1 8B in BF16 on one H100 under TensorRT-LLM. The estimate's pool
  // is 0.9 x the card less the weights and buffers (vLLM's rule); trtllm-serve
  // gives its KV cache a fraction of the memory free after them, so the
  // fraction printed is pool / (card - the rest), two decimals rounded down.
  SizerRequest r = request("llama-3.1-8b", "BF16-native");
  r.engine = "tensorrt-llm";
  r.gpu_id = "h100-sxm";
  const Run bf16 = run(r);
  const std::string step = bf16.step("tensorrt-llm");
  CHECK_THAT(step, StartsWith("trtllm-serve org/M-Instruct \\\n  --max_seq_len 8192 \\\n  --max_batch_size 1"));
  const GpuShare& g = bf16.estimate.memory.per_gpu.front();
  const double capacity = static_cast<double>(usable_memory(test::device_of("h100-sxm")).capacity_bytes);
  const double rest = static_cast<double>(g.required_bytes - g.kv_cache_bytes);
  const double fraction = std::floor(100.0 * (static_cast<double>(g.usable_bytes) - rest) / (capacity - rest)) / 100.0;
  char flag[64];
  std::snprintf(flag, sizeof flag, "--kv_cache_free_gpu_memory_fraction %.2f", fraction);
  CHECK_THAT(step, Contains(flag));
  CHECK(fraction > 0.8);  // 0.9 of the card less 16 GB of weights: most of what is free
  // By hand: the H100 SXM's driver capacity 81,559 MiB = 85,520,809,984 B
  // (devices.json); the rest is the BF16 weights 2 x 8,030,261,248 =
  // 16,060,522,496 B, vLLM's activation peak 8192 x (4 x 14336 + 6 x 4096) x 2
  // = 1,342,177,280 B and its non-torch 1.79 GiB on NVLinked H100s
  // (vllm-project/vllm#10511) = 1,921,997,864 B: 19,324,697,640 B. The
  // estimate's pool is 0.9 x 85,520,809,984 - 19,324,697,640; over the free
  // 66,196,112,344 B that is 0.8708: 0.87.
  CHECK_THAT(step, Contains("--kv_cache_free_gpu_memory_fraction 0.87"));
  CHECK(fraction < 0.9);
  CHECK(step.find("--tp_size") == std::string::npos);
  // No FP8 checkpoint known: trtllm-serve does not quantize as it loads.
  r.quant = "FP8";
  const LaunchCommand fp8 = run(r).of("tensorrt-llm");
  CHECK(fp8.steps.empty());
  CHECK_THAT(fp8.note, Contains("does not quantize as it loads"));
  // FP8 KV cache: an LLM API option, written to the YAML file the server reads.
  r.quant = "BF16-native";
  r.kv_type = "fp8";
  r.gpu_count = 2;
  const Run kv = run(r);
  REQUIRE(kv.of("tensorrt-llm").steps.size() == 2);
  CHECK(kv.of("tensorrt-llm").steps[0] == "printf 'kv_cache_config:\\n  dtype: fp8\\n' > trtllm-options.yml");
  CHECK_THAT(kv.of("tensorrt-llm").steps[1], Contains("--tp_size 2") && EndsWith("--extra_llm_api_options trtllm-options.yml"));
  // Not on a Mac, not on AMD.
  r.kv_type = "";
  r.gpu_count = 1;
  r.gpu_id = "mi300x";
  r.engine = "vllm";
  CHECK_THAT(run(r).of("tensorrt-llm").note, Contains("NVIDIA GPUs only"));
}

// A vLLM scenario of that model and quantization on `gpus` of `gpu`, at 32K.
static SizerRequest served_on(const char* model, const char* quant, const char* gpu, int gpus) {
  SizerRequest r = served(request(model, quant));
  r.gpu_id = gpu;
  r.gpu_count = gpus;
  r.context_tokens = 32768;
  return r;
}

TEST_CASE("vLLM and a block-scaled FP8 checkpoint: every GPU's share must be whole 128-wide blocks", "[commands]") {
  // Qwen3-235B-A22B-Instruct-2507-FP8 ("fine-grained fp8 quantization with
  // block size of 128", its card): experts are moe_intermediate_size 1536
  // wide. At TP8 a GPU's share is 1536 / 8 = 192 = 1.5 blocks, the
  // "output_size ... = 192 is not divisible by weight quantization block_n =
  // 128" of vllm-project/vllm#17569; expert parallel keeps experts whole.
  // Its attention: 64 heads x 128 / 8 = 1024 = 8 blocks, and 4 KV heads
  // under 8 GPUs leave one whole 128-wide head each: no other share breaks.
  SizerRequest r = served_on("qwen3-235b-a22b-instruct-2507", "FP8", "h100-sxm", 8);
  const Run eight = run(r, nullptr);
  CHECK_THAT(eight.step("vllm"), StartsWith("vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8") &&
                                     Contains("--tensor-parallel-size 8 \\\n  --enable-expert-parallel"));
  CHECK_THAT(eight.of("vllm").note, Contains("The experts are 1536 wide"));
  // TP4: 1536 / 4 = 384 = 3 blocks; nothing added.
  r.gpu_count = 4;
  CHECK(run(r, nullptr).step("vllm").find("expert-parallel") == std::string::npos);
  // Qwen3-Next-80B-A3B FP8 at TP8: its shared expert, 512 wide, is cut into
  // 512 / 8 = 64, half a block, and expert parallel does not keep it whole:
  // the BF16 weights cast to FP8 as they load (one scale per tensor).
  SizerRequest next = served_on("qwen3-next-80b-a3b-instruct", "FP8", "h100-sxm", 8);
  const Run cast = run(next, nullptr);
  CHECK_THAT(cast.step("vllm"), StartsWith("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \\") &&
                                    EndsWith("--quantization fp8"));
  CHECK_THAT(cast.of("vllm").note, Contains("the shared expert (512 / 8)"));
  // At TP4 the shared expert's share is 128, one block: the FP8 checkpoint serves.
  next.gpu_count = 4;
  CHECK_THAT(run(next, nullptr).step("vllm"), StartsWith("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct-FP8"));
  // MiMo-V2-Flash (FP8 as published, weight_block_size [128, 128]): 4 KV
  // heads of 192 on 4 GPUs leave 192 per GPU, 1.5 blocks (the qkv partition
  // vllm-project/vllm#52997 names); no BF16 checkpoint is known: no command.
  SizerRequest mimo = served_on("mimo-v2-flash", "native", "h200-sxm", 4);
  const Run refused = run(mimo, nullptr);
  CHECK(refused.of("vllm").steps.empty());
  CHECK_THAT(refused.of("vllm").note, Contains("the key/value heads (768 / 4) is not whole blocks"));
  // DeepSeek-R1 at TP8: experts 2048 / 8 = 256, two blocks; MLA's heads are
  // 128 x 192 / 8 = 3072: plain tensor parallel.
  SizerRequest r1 = served_on("deepseek-r1", "native", "h200-sxm", 8);
  const Run plain = run(r1, nullptr);
  CHECK_THAT(plain.step("vllm"), Contains("--tensor-parallel-size 8"));
  CHECK(plain.step("vllm").find("expert-parallel") == std::string::npos);
}

TEST_CASE("several whole machines get commands that span them, or say why not", "[commands]") {
  // Two Strix Halo machines hold Qwen3-30B-A3B as two computers: llama-server
  // alone would load it on one. llama.cpp's RPC (tools/rpc/README.md): an
  // rpc-server listening on the network on the other machine, and --rpc on
  // this one; Ollama has no such thing.
  SizerRequest r = request("qwen3-30b-a3b", "Q4_K_M");
  r.gpu_id = "ryzen-ai-max-plus-395";
  r.gpu_count = 2;
  const Run halo = run(r);
  const LaunchCommand& cpp = halo.of("llama.cpp");
  REQUIRE(cpp.steps.size() == 2);
  CHECK(cpp.steps[0] == "# on the other machine\nrpc-server -H 0.0.0.0 -p 50052 -c");
  CHECK_THAT(cpp.steps[1], StartsWith("# on this machine (the first)\nllama-server -hf someone/moe-GGUF:Q4_K_M"));
  CHECK_THAT(cpp.steps[1], EndsWith("--rpc \"${RPC_SERVERS:?set RPC_SERVERS to the other machines, host:50052 each, comma-separated}\""));
  CHECK_THAT(cpp.note, Contains("-DGGML_RPC=ON") && Contains("the other one"));
  CHECK(halo.of("ollama").steps.empty());
  CHECK_THAT(halo.of("ollama").note, Contains("one machine"));

  // Two DGX Sparks under vLLM: a Ray cluster (head here, the other joins),
  // then tensor parallel 2 over it; SGLang: one command per machine.
  SizerRequest v = served(request("llama-3.1-8b", "native"));
  v.gpu_id = "dgx-spark-gb10";
  v.gpu_count = 2;
  const Run spark = run(v);
  const LaunchCommand& vllm = spark.of("vllm");
  REQUIRE(vllm.steps.size() == 3);
  CHECK(vllm.steps[0] == "# on this machine (the first)\nray start --head --port=6379");
  CHECK(vllm.steps[1] == "# on the other machine\nray start --address=\"${HEAD_IP:?set HEAD_IP to the address of the first machine}:6379\"");
  CHECK_THAT(vllm.steps[2], StartsWith("# on this machine (the first)\nvllm serve org/M-Instruct"));
  CHECK_THAT(vllm.steps[2], Contains("--tensor-parallel-size 2") && EndsWith("--distributed-executor-backend ray"));
  const LaunchCommand& sglang = spark.of("sglang");
  REQUIRE(sglang.steps.size() == 2);
  CHECK_THAT(sglang.steps[0], Contains("--tp 2") && Contains("--nnodes 2 --node-rank 0 --dist-init-addr"));
  CHECK_THAT(sglang.steps[1], StartsWith("# on machine 2\n") && Contains("--nnodes 2 --node-rank 1 --dist-init-addr"));
  CHECK(spark.of("tensorrt-llm").steps.empty());

  // Two cards in one host stay one machine: no RPC, no Ray.
  SizerRequest cards = request("qwen3-30b-a3b", "Q4_K_M");
  cards.gpu_count = 2;
  const Run host = run(cards);
  CHECK(host.of("llama.cpp").steps.size() == 1);
  CHECK_THAT(host.step("llama.cpp"), !Contains("--rpc"));
  CHECK_FALSE(host.of("ollama").steps.empty());
}

TEST_CASE("Ollama over several machines is refused with the engine that can", "[commands]") {
  SizerRequest r = request("qwen3-30b-a3b", "Q4_K_M");
  r.gpu_id = "mac-m4-max-128gb";
  r.gpu_count = 2;
  r.engine = "ollama";
  const Sized x = sized(r);
  REQUIRE_FALSE(x.estimate);
  CHECK(x.estimate.error().id == "runtime.unsupported");
  CHECK_THAT(x.estimate.error().message, Contains("one machine") && Contains("RPC"));
  // One Mac under Ollama is still sized.
  r.gpu_count = 1;
  CHECK(sized(r).estimate);
}

TEST_CASE("Kimi's own tokenizer code: vLLM, SGLang and TensorRT-LLM are told to trust the repository", "[commands]") {
  // Moonshot's Kimi repos tokenize with tokenization_kimi.py (tiktoken): the
  // engines load it only with --trust-remote-code (trtllm-serve:
  // --trust_remote_code), as Moonshot's deploy guide, vLLM's recipe and
  // NVIDIA's Kimi K2 Thinking guide pass it. A Llama needs no code of its repo.
  SizerRequest r = request("kimi-k2-thinking", "native");
  r.engine = "vllm";
  r.gpu_id = "b200";
  r.gpu_count = 8;
  const Run kimi = run(r, nullptr);
  CHECK_THAT(kimi.step("vllm"), Contains("--trust-remote-code"));
  CHECK_THAT(kimi.step("sglang"), Contains("--trust-remote-code"));
  CHECK_THAT(kimi.step("tensorrt-llm"), Contains("--trust_remote_code"));
  SizerRequest llama = request("llama-3.1-8b", "BF16-native");
  llama.engine = "vllm";
  llama.gpu_id = "h100-sxm";
  const Run plain = run(llama, nullptr);
  REQUIRE_FALSE(plain.step("vllm").empty());
  CHECK_THAT(plain.step("vllm"), !Contains("trust"));
  CHECK_THAT(plain.step("sglang"), !Contains("trust"));
  CHECK_THAT(plain.step("tensorrt-llm"), !Contains("trust"));
}

TEST_CASE("copies side by side: each copy on its own GPUs and port, or the engine's own data parallel", "[commands][copies]") {
  // The users plan's layout (three copies of Llama 3.1 8B, one H100 and eight
  // users each). vLLM: --data-parallel-size 3 replicates a dense model, one
  // engine per copy with its own --max-num-seqs (docs.vllm.ai
  // data_parallel_deployment); SGLang: its router's launcher with --dp-size 3
  // (dp_dpa_smg_guide.md), each server with its own --max-running-requests.
  SizerRequest dense = served(request("llama-3.1-8b", "native"));
  dense.gpu_id = "h100-sxm";
  dense.sequences = 8;
  const Run one = run(dense);
  dense.copies = 3;
  const Run three = run(dense);
  REQUIRE(three.of("vllm").steps.size() == 1);
  CHECK(three.step("vllm") == one.step("vllm") + " \\\n  --data-parallel-size 3");
  CHECK_THAT(three.step("vllm"), Contains("--max-num-seqs 8"));
  CHECK_THAT(three.of("vllm").note, Contains("3 copies, 1 GPU and up to 8 users each"));
  REQUIRE(three.of("sglang").steps.size() == 1);
  CHECK_THAT(three.step("sglang"), StartsWith("python -m sglang_router.launch_server --model-path org/M-Instruct"));
  CHECK_THAT(three.step("sglang"), Contains("--max-running-requests 8") && EndsWith("--dp-size 3"));
  // TensorRT-LLM has no such flag: a trtllm-serve per copy, GPU i on port 8000 + i.
  const LaunchCommand& trt = three.of("tensorrt-llm");
  REQUIRE(trt.steps.size() == 3);
  CHECK_THAT(trt.steps[0], StartsWith("# copy 1 of 3\nCUDA_VISIBLE_DEVICES=0 trtllm-serve ") && EndsWith("--port 8000"));
  CHECK_THAT(trt.steps[2], StartsWith("# copy 3 of 3\nCUDA_VISIBLE_DEVICES=2 trtllm-serve ") && EndsWith("--port 8002"));

  // llama.cpp: a llama-server per copy on its two cards (-dev, ggml's names
  // CUDA0..CUDA3) and its own port; Ollama cannot hold two copies in one server.
  SizerRequest cards = request("llama-3.1-8b", "Q8_0");
  cards.gpu_count = 2;
  cards.sequences = 4;
  cards.copies = 2;
  const Run two = run(cards);
  const LaunchCommand& cpp = two.of("llama.cpp");
  REQUIRE(cpp.steps.size() == 2);
  CHECK_THAT(cpp.steps[0], StartsWith("# copy 1 of 2\nllama-server -hf someone/listed-GGUF:Q8_0"));
  CHECK_THAT(cpp.steps[0], Contains("-np 4") && EndsWith("-dev CUDA0,CUDA1 --port 8080"));
  CHECK_THAT(cpp.steps[1], EndsWith("-dev CUDA2,CUDA3 --port 8081"));
  CHECK(two.of("ollama").steps.empty());
  CHECK_THAT(two.of("ollama").note, Contains("OLLAMA_HOST") && Contains("2 copies"));
  // On an AMD card ggml's HIP build names its devices ROCm0, ROCm1.
  cards.gpu_id = "mi300x";
  cards.gpu_count = 1;
  const Run amd = run(cards);
  REQUIRE(amd.of("llama.cpp").steps.size() == 2);
  CHECK_THAT(amd.of("llama.cpp").steps[1], EndsWith("-dev ROCm1 --port 8081"));

  // An MoE model: vLLM's data parallel would split its experts over all the
  // GPUs, so a vllm serve per copy on its own pair of GPUs and port.
  SizerRequest moe = served(request("qwen3-30b-a3b", "native"));
  moe.gpu_id = "h100-sxm";
  moe.gpu_count = 2;
  moe.copies = 2;
  const Run moe_copies = run(moe);
  const LaunchCommand& vllm = moe_copies.of("vllm");
  REQUIRE(vllm.steps.size() == 2);
  CHECK_THAT(vllm.steps[0], StartsWith("# copy 1 of 2\nCUDA_VISIBLE_DEVICES=0,1 vllm serve ") && EndsWith("--port 8000"));
  CHECK_THAT(vllm.steps[1], StartsWith("# copy 2 of 2\nCUDA_VISIBLE_DEVICES=2,3 vllm serve ") && EndsWith("--port 8001"));
  CHECK_THAT(vllm.steps[1], Contains("--tensor-parallel-size 2") && !Contains("--data-parallel-size"));
  // Each copy itself attention data parallel: SGLang's servers from GPUs 0
  // and 2 on ports 31000 and 31001, then its router over both.
  moe.engine = "sglang";
  moe.attention_data_parallel = true;
  const Run dp_copies = run(moe);
  const LaunchCommand& sglang = dp_copies.of("sglang");
  REQUIRE(sglang.steps.size() == 3);
  CHECK_THAT(sglang.steps[0], Contains("--dp 2 --enable-dp-attention") && EndsWith("--base-gpu-id 0 --port 31000"));
  CHECK_THAT(sglang.steps[1], EndsWith("--base-gpu-id 2 --port 31001"));
  CHECK(sglang.steps[2] == "# the router, once the copies are up\npython -m sglang_router.launch_router --worker-urls "
                           "http://127.0.0.1:31000 http://127.0.0.1:31001 --port 30000");

  // Whole machines: a copy is a machine, which runs the same steps.
  SizerRequest sparks = served(request("llama-3.1-8b", "native"));
  sparks.gpu_id = "dgx-spark-gb10";
  sparks.copies = 2;
  const Run spark = run(sparks);
  REQUIRE(spark.of("vllm").steps.size() == 1);
  CHECK_THAT(spark.step("vllm"), StartsWith("# on each of the 2 machines\nvllm serve org/M-Instruct"));
  CHECK_THAT(spark.step("vllm"), !Contains("--data-parallel-size"));

  // Copies of mixed cards are not laid out: one copy's commands start each.
  SizerRequest mixed = request("llama-3.1-8b", "Q8_0");
  mixed.gpu_id = "rtx-4090,rtx-3090";
  mixed.copies = 2;
  const Run uneven = run(mixed);
  CHECK(uneven.of("llama.cpp").steps.empty());
  CHECK_THAT(uneven.of("llama.cpp").note, Contains("mixed cards"));
}

TEST_CASE("engine_starts: the scenario's own engine has a command, from the compiled distribution names") {
  // GLM-4.5 Air at AWQ under vLLM: cyankiwi/GLM-4.5-Air-AWQ-4bit is a sourced
  // checkpoint (scripts/catalog/sourced_checkpoints.json), so vLLM starts it.
  // Kimi K2 Instruct has no AWQ checkpoint known and vLLM makes none as it
  // loads: no command, only the note. A model given as config.json names no
  // checkpoints, so nothing rules a quantization out.
  const auto starts = [](SizerRequest r) {
    r.gpu_id = "h100-sxm";
    r.gpu_count = 8;
    const Sized x = sized(r);
    REQUIRE(x.estimate);
    return engine_starts(x.model, x.scenario, x.estimate.value());
  };
  CHECK(starts(served(request("glm-4.5-air", "AWQ"))));
  CHECK_FALSE(starts(served(request("kimi-k2-instruct", "AWQ"))));
  CHECK(starts(served(request("kimi-k2-instruct", "FP8"))));
  // MLX makes its own files (mlx_lm.convert, in the note where no MLX build
  // of Phi-4 at 8 bits is known): that starts on the user's Mac.
  SizerRequest mlx = request("phi-4", "MLX-8bit");
  mlx.engine = "mlx";
  mlx.gpu_id = "mac-m4-max-128gb";
  const Sized phi = sized(mlx);
  REQUIRE(phi.estimate);
  CHECK(engine_starts(phi.model, phi.scenario, phi.estimate.value()));
  SizerRequest config = served(request("glm-4.5-air", "AWQ"));
  const Sized glm = sized(config);
  SizedModel no_entry = glm.model;
  no_entry.entry = nullptr;
  CHECK(engine_starts(no_entry, glm.scenario, glm.estimate.value()));
}
