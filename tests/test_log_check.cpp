// A llama.cpp load log beside the estimate (issue 34): the log's lines read in
// the formats llama.cpp has printed since 2023, and each buffer against the
// estimate for the log's own settings. Fixtures are public logs
// (tests/fixtures/load_logs/sources.json names each source).
#include <cmath>
#include <fstream>
#include <sstream>

#include "llmsizer/load_log.hpp"
#include "llmsizer/log_check.hpp"
#include "test_support.hpp"

using Catch::Matchers::WithinAbs;
using namespace llmsizer;

namespace {

std::string fixture(const std::string& name) { return test::fixture_text("load_logs/" + name); }

const Sizer& sizer() { return test::sizer(); }

constexpr double kMiB = 1024.0 * 1024.0;

const LogBuffer* buffer(const LoadLog& log, const std::string& device, const std::string& kind) {
  for (const LogBuffer& b : log.buffers)
    if (b.device == device && b.kind == kind) return &b;
  return nullptr;
}

const LogCheckLine* line(const LogCheck& c, const std::string& item) {
  for (const LogCheckLine& l : c.lines)
    if (l.item == item) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("A current log: buffers per device, the context's settings, the model it read") {
  auto parsed = parse_load_log(fixture("03-rtx3090ti-glm-z1-32b-iq4_xs-fa-32k.txt"));
  REQUIRE(parsed);
  const LoadLog& log = parsed.value();
  REQUIRE(buffer(log, "CUDA0", "model"));
  CHECK(buffer(log, "CUDA0", "model")->bytes == std::llround(16303.48 * kMiB));
  CHECK(buffer(log, "CPU_Mapped", "model")->bytes == std::llround(471.75 * kMiB));
  CHECK(buffer(log, "CUDA0", "kv")->bytes == std::llround(1952.00 * kMiB));
  CHECK(buffer(log, "CUDA0", "compute")->bytes == std::llround(353.00 * kMiB));
  CHECK(buffer(log, "CUDA_Host", "compute")->bytes == std::llround(76.01 * kMiB));
  CHECK(log.kv_total_bytes == std::llround(1952.00 * kMiB));
  CHECK(log.n_ctx == 32768);
  CHECK(log.n_ubatch == 512);
  CHECK(log.flash_attn == 1);
  CHECK(log.type_k == "f16");
  CHECK(log.offloaded_layers == 62);
  CHECK(log.offloadable_layers == 62);
  CHECK(log.file_type == "IQ4_XS - 4.25 bpw");
  CHECK(log.arch == "glm4");
  CHECK(log.model_params == 32570000000);
  REQUIRE(log.devices_named.size() == 1);
  CHECK(log.devices_named[0] == "NVIDIA GeForce RTX 3090 Ti");
}

TEST_CASE("The first logs' lines (llm_load_tensors, KV self size) and llama_memory_breakdown_print") {
  auto old = parse_load_log(fixture("01-rtxa6000-glm4-32b-q4_0-iklcpp-old.txt"));
  REQUIRE(old);
  CHECK(buffer(old.value(), "CUDA0", "model")->bytes == std::llround(17284.05 * kMiB));
  CHECK(buffer(old.value(), "CPU", "model")->bytes == std::llround(499.50 * kMiB));
  CHECK(old.value().kv_total_bytes == std::llround(1952.00 * kMiB));
  CHECK(old.value().flash_attn == 0);
  CHECK(!old.value().from_breakdown);

  // Whole MiB per device: model, context, compute (total = free + (self = model
  // + context + compute) + unaccounted).
  auto breakdown = parse_load_log(fixture("04-2xradeonprovii-gptoss20b-rocm-breakdown.txt"));
  REQUIRE(breakdown);
  const LoadLog& b = breakdown.value();
  CHECK(b.from_breakdown);
  CHECK(buffer(b, "ROCm0", "model")->bytes == 5613 * 1048576LL);
  CHECK(buffer(b, "ROCm0", "context")->bytes == 56 * 1048576LL);
  CHECK(buffer(b, "ROCm1", "compute")->bytes == 461 * 1048576LL);
  CHECK(buffer(b, "Host", "model")->bytes == 586 * 1048576LL);
  CHECK(buffer(b, "Host", "compute")->bytes == 42 * 1048576LL);
}

TEST_CASE("Text that is no load log, and hostile text: one message") {
  auto none = parse_load_log("hello\nllama-bench | t/s |\n");
  REQUIRE(!none);
  CHECK(none.error().id == "log.empty");
  CHECK(parse_load_log(std::string(kMaxLogTextBytes + 1, 'x')).error().id == "log.too_large");
  auto hostile = parse_load_log("load_tensors: <script>\x01CUDA0 model buffer size = 1e999 MiB\n"
                                "load_tensors:        CUDA0 model buffer size = 100.00 MiB\n");
  REQUIRE(hostile);
  for (const LogBuffer& b : hostile.value().buffers) CHECK(b.device.find('\x01') == std::string::npos);
}

TEST_CASE("GLM-Z1-32B IQ4_XS on an RTX 3090 Ti at 32K: the log's KV, compute and host buffers agree") {
  auto parsed = parse_load_log(fixture("03-rtx3090ti-glm-z1-32b-iq4_xs-fa-32k.txt"));
  REQUIRE(parsed);
  auto checked = check_load_log(sizer(), parsed.value(), SizerRequest{});
  if (!checked) FAIL(checked.error().message);
  const LogCheck& c = checked.value();
  // Sized as the catalog model with the log's 32.57 B parameters and file type,
  // on the GPU it names, at its own settings.
  CHECK(c.model == "glm-4-32b-0414");
  CHECK(c.quant == "IQ4_XS");
  CHECK(c.device == "rtx-3090-ti");
  CHECK(c.context_tokens == 32768);
  CHECK(c.flash_attention);
  // KV: 61 layers x (K + V) x 2 KV heads x 128 x 2 bytes x 32768 cells =
  // 2,046,820,352 bytes = 1952.00 MiB, the log's figure exactly.
  const LogCheckLine* kv = line(c, "CUDA0 KV buffer");
  REQUIRE(kv);
  REQUIRE(kv->estimate_mib);
  CHECK_THAT(*kv->estimate_mib, WithinAbs(1952.0, 1e-9));
  CHECK(!kv->differs);
  // The token embedding stays in host memory: 151552 x 6144 = 931,135,488
  // values at IQ4_XS's 136 bytes per 256 = 494,665,728 bytes = 471.75 MiB, the
  // log's CPU_Mapped buffer.
  const LogCheckLine* host = line(c, "CPU_Mapped model buffer (weights in system RAM)");
  REQUIRE(host);
  REQUIRE(host->estimate_mib);
  CHECK_THAT(*host->estimate_mib, WithinAbs(471.75, 0.005));
  const LogCheckLine* compute = line(c, "CUDA0 compute buffer");
  REQUIRE(compute);
  CHECK(!compute->differs);
  // The host's compute buffer holds one ubatch of embedded rows and the KQ
  // mask, both f32: 512 x (6144 + 32768) x 4 B = 79,691,776 B = 76.00 MiB;
  // the log prints 76.01.
  const LogCheckLine* host_compute = line(c, "CUDA_Host compute buffer");
  REQUIRE(host_compute);
  REQUIRE(host_compute->estimate_mib);
  CHECK_THAT(*host_compute->estimate_mib, WithinAbs(76.0, 1e-9));
  CHECK(!host_compute->differs);
}

TEST_CASE("A log of another model than the one chosen is refused; the estimate follows the log's -ub") {
  auto parsed = parse_load_log(fixture("03-rtx3090ti-glm-z1-32b-iq4_xs-fa-32k.txt"));
  REQUIRE(parsed);
  SizerRequest other;
  other.model_id = "qwen2.5-7b";
  auto refused = check_load_log(sizer(), parsed.value(), other);
  REQUIRE(!refused);
  CHECK(refused.error().id == "log.other_model");

  // The same log with -ub 2048: llama.cpp's compute buffer holds a micro-batch's
  // activations and logits, four times the -ub 512 one (353 MiB logged, so
  // 1412); the estimate is made at the log's -ub, four times its own -ub 512 figure.
  auto c512 = check_load_log(sizer(), parsed.value(), SizerRequest{});
  REQUIRE(c512);
  const LogCheckLine* compute512 = line(c512.value(), "CUDA0 compute buffer");
  REQUIRE(compute512);
  REQUIRE(compute512->estimate_mib);
  std::string text = fixture("03-rtx3090ti-glm-z1-32b-iq4_xs-fa-32k.txt");
  text.replace(text.find("n_ubatch      = 512"), 19, "n_ubatch      = 2048");
  text.replace(text.find("CUDA0 compute buffer size =   353.00 MiB"), 40, "CUDA0 compute buffer size =  1412.00 MiB");
  auto ub = parse_load_log(text);
  REQUIRE(ub);
  auto c = check_load_log(sizer(), ub.value(), SizerRequest{});
  REQUIRE(c);
  const LogCheckLine* compute = line(c.value(), "CUDA0 compute buffer");
  REQUIRE(compute);
  REQUIRE(compute->estimate_mib);
  CHECK(*compute->estimate_mib == Approx(4.0 * *compute512->estimate_mib).margin(1.0));
  CHECK(compute->differs == compute512->differs);
}

TEST_CASE("Two GPUs from llama_memory_breakdown_print: llama.cpp's layer split, each GPU's model buffer agrees; unstated settings follow the buffers") {
  // gpt-oss-20b MXFP4 on two Radeon Pro VII (16 GB): ROCm0 5613 MiB + ROCm1
  // 5336 MiB = 10949 MiB of weights. The breakdown prints neither n_ctx nor
  // flash attention. llama.cpp splits the 24 layers and the output slot (25
  // slots) at half: slots 0..12 (12/25 = 0.48 < 0.5) on ROCm0, 13 layers;
  // 11 and the output head on ROCm1 (a split of 12 and 12 would put 5181
  // and 5768 MiB: 432 MiB, one layer, off on each).
  auto parsed = parse_load_log(fixture("04-2xradeonprovii-gptoss20b-rocm-breakdown.txt"));
  REQUIRE(parsed);
  SizerRequest r;
  r.model_id = "gpt-oss-20b";
  r.quant = "MXFP4_MOE";
  r.gpu_id = "radeon-pro-vii";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  CHECK(c.value().gpu_count == 2);
  const LogCheckLine* all = line(c.value(), "model buffers, all GPUs");
  REQUIRE(all);
  CHECK(all->log_mib == 10949.0);
  CHECK(!all->differs);
  for (const char* gpu : {"ROCm0 model buffer", "ROCm1 model buffer"}) {
    const LogCheckLine* model = line(c.value(), gpu);
    REQUIRE(model);
    REQUIRE(model->estimate_mib);
    CHECK(std::abs(*model->estimate_mib - model->log_mib) < 1.0);
    CHECK(!model->differs);
  }
  // The context columns hold 56 + 54 = 110 MiB. gpt-oss-20b's KV per token is
  // 8 KV heads x 64 x (K + V) x 2 B = 2 KiB a layer: at 4096 cells the 12
  // full-attention layers hold 96 MiB and the 12 sliding ones (128 x 1 + 512
  // cells, padded to 768) 18 MiB, 114 MiB; 2048 would give 66, 8192 210.
  CHECK(c.value().context_tokens == 4096);
  // With flash attention off the KQ scores (4096 cells x 512 x 64 heads x 4 B
  // = 512 MiB) would be in a compute buffer; the log's are 150 and 461 MiB.
  CHECK(c.value().flash_attention);
  int inferred = 0;
  for (const std::string& w : c.value().warnings)
    inferred += (w.find("sized at 4096 tokens, the context whose KV cache is the log's") != std::string::npos) +
                (w.find("sized with it on, as its compute buffers are") != std::string::npos);
  CHECK(inferred == 2);
}

TEST_CASE("The first log style, GLM-Z1-Rumination on an RTX A6000: weights agree, its KV is the variant's own") {
  // ik_llama.cpp's log (llm_load_tensors, KV self size) of GLM-Z1-Rumination-
  // 32B-0414 Q4_0 at n_ctx 8192, flash attention off. Rumination has GLM-4-32B's
  // layers with 8 KV heads instead of 2: 61 x (K + V) x 8 x 128 x 2 bytes x 8192
  // = 1952 MiB, four times the catalog model's 488 MiB. The check says so;
  // the weights (Q4_0, 17284.05 MiB on the GPU, the Q4_0 token embedding's
  // 499.50 MiB on the host: 151552 x 6144 x 18/32 bytes) agree.
  auto parsed = parse_load_log(fixture("01-rtxa6000-glm4-32b-q4_0-iklcpp-old.txt"));
  REQUIRE(parsed);
  SizerRequest r;
  r.model_id = "glm-4-32b-0414";
  r.quant = "Q4_0";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  CHECK(!c.value().flash_attention);
  CHECK(c.value().device == "rtx-a6000");
  const LogCheckLine* kv = line(c.value(), "KV cache, all devices");
  REQUIRE(kv);
  REQUIRE(kv->estimate_mib);
  CHECK_THAT(*kv->estimate_mib, WithinAbs(488.0, 1e-9));
  CHECK(kv->differs);
  CHECK(kv->hint.find("other KV heads") != std::string::npos);
  const LogCheckLine* host = line(c.value(), "CPU model buffer (weights in system RAM)");
  REQUIRE(host);
  CHECK_THAT(*host->estimate_mib, WithinAbs(499.50, 0.005));
  const LogCheckLine* gpu = line(c.value(), "CUDA0 model buffer");
  REQUIRE(gpu);
  CHECK(!gpu->differs);
}

TEST_CASE("A log with no buffer lines (0 of 35 layers offloaded, 2023) says what it needs") {
  auto parsed = parse_load_log(fixture("06-2xrtx3090-llava-2023-kvself-oldest.txt"));
  REQUIRE(!parsed);
  CHECK(parsed.error().id == "log.empty");
}

TEST_CASE("Current logs: split and unified caches, sliding-window caches, mapped Metal buffers") {
  struct Case {
    const char* file;
    const char* gpu;          // "" where the log names it
    double kv_mib;            // the log's KV, worked out by hand below
    bool weights_agree;
  };
  // 08 Qwen3-Coder-30B-A3B Q8_0, A100 40GB, n_ctx 65536 in one unified cache:
  //    48 layers x (K + V) x 4 KV heads x 128 x 2 bytes = 98,304 B a cell
  //    x 65536 = 6144 MiB.
  // 09 Qwen3-14B Q6_K, RX 7900 XTX, 4 sequences of 512 (n_ctx 2048):
  //    40 x 2 x 8 x 128 x 2 = 163,840 B x 2048 = 320 MiB.
  // 07 gpt-oss-20b, Apple M5 (Metal), n_ctx 131072 unified over 4 slots: the
  //    12 full layers 12 x 2 x 8 x 64 x 2 = 24,576 B x 131072 = 3072 MiB, and
  //    the 12 sliding-window layers' own cache of 1024 cells (window 128 x 4
  //    sequences + the 512-token micro-batch) 24 MiB: 3096 MiB.
  //    Metal wraps the mapped file in one buffer: MTL0_Mapped holds the GPU's
  //    10694.12 MiB and the 379.71 MiB token embedding the CPU reads,
  //    11073.83 MiB, as logged (one copy of the bytes, counted in both lines).
  const Case cases[] = {
      {"08-a100pcie40-qwen3coder30b-q8_0-cuda-64k.txt", "", 6144.0, true},
      {"09-rx7900xtx-qwen3-14b-q6k-rocm-win-crash.txt", "", 320.0, true},
      {"07-m5-gptoss20b-q4km-metal-iswa-breakdown.txt", "mac-m5-24gb", 3096.0, true},
  };
  for (const Case& k : cases) {
    INFO(k.file);
    auto parsed = parse_load_log(fixture(k.file));
    REQUIRE(parsed);
    CHECK(parsed.value().kv_total_bytes == std::llround(k.kv_mib * 1048576.0));
    SizerRequest r;
    r.gpu_id = k.gpu;
    auto c = check_load_log(sizer(), parsed.value(), r);
    if (!c) FAIL(c.error().message);
    CHECK(c.value().gpu_count == 1);
    const LogCheckLine* kv = line(c.value(), "KV cache, all devices");
    REQUIRE(kv);
    REQUIRE(kv->estimate_mib);
    CHECK_THAT(*kv->estimate_mib, WithinAbs(k.kv_mib, 1e-9));
    for (const LogCheckLine& l : c.value().lines) {
      // The GPU's weights (the host's, the token embedding, agree in all three).
      if (l.item.find("model buffer") == std::string::npos || l.item.find("system RAM") != std::string::npos ||
          !l.estimate_mib)
        continue;
      INFO(l.item);
      CHECK(l.differs == !k.weights_agree);
      if (l.differs) CHECK(l.hint.find("another mix of types") == 0);
    }
  }
}

TEST_CASE("A command line's -ot expert overrides and -c, where the log's own lines leave them out") {
  // llama-fit-params' answer for Qwen3-30B-A3B F16 on an RTX 4090: -c 4096 and
  // the experts of blk 14 to 47 (34 of its 48 MoE layers) on the CPU.
  auto parsed = parse_load_log(fixture("02-rtx4090-qwen3-30b-a3b-f16-fit-breakdown.txt"));
  REQUIRE(parsed);
  CHECK(parsed.value().expert_layers_on_cpu == 34);
  CHECK(parsed.value().command_ctx == 4096);
  SizerRequest r;
  r.model_id = "qwen3-30b-a3b";
  r.quant = "F16";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  CHECK(c.value().context_tokens == 4096);
  CHECK_THAT(c.value().offload_fraction, WithinAbs(34.0 / 48.0, 1e-12));
  // Its cache: 48 layers x (K + V) x 4 KV heads x 128 x 2 bytes x 4096 = 384 MiB,
  // the breakdown's CUDA0 context.
  const LogCheckLine* context = line(c.value(), "CUDA0 context (KV and outputs)");
  REQUIRE(context);
  CHECK_THAT(*context->estimate_mib, WithinAbs(384.0, 1e-9));
  // mmap: the host buffer is the file's span between CPU tensors, said as such.
  const LogCheckLine* host = line(c.value(), "Host model buffer (weights in system RAM)");
  REQUIRE(host);
  CHECK(host->differs);
  CHECK(host->hint.find("mmap") != std::string::npos);
}

TEST_CASE("A current build's log (10644): the n-cpu-moe it leaves out, a cache stream per sequence, a logits row per sequence") {
  // gpt-oss-20b MXFP4 on an RTX 3060 12 GB, -np 8 (kv_unified = false),
  // n_ctx 16384, -ub 256, experts of 20 layers in RAM (the command line is not
  // in the log).
  auto parsed = parse_load_log(fixture("13-rtx3060-gptoss20b-mxfp4-cuda-ncmoe20-np8-ub256.txt"));
  REQUIRE(parsed);
  CHECK(parsed.value().build_number == 10644);
  CHECK(parsed.value().kv_unified == false);
  CHECK(!parsed.value().expert_layers_on_cpu);
  SizerRequest r;
  r.gpu_id = "rtx-3060-12gb";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  // The GPU's 2859.92 MiB of weights are those left by the first 20 of 24
  // layers' experts.
  CHECK_THAT(c.value().offload_fraction, WithinAbs(20.0 / 24.0, 1e-12));
  const LogCheckLine* gpu = line(c.value(), "CUDA0 model buffer");
  REQUIRE(gpu);
  CHECK(!gpu->differs);
  // KV: 12 full-attention layers x 16384 cells x 8 KV heads x 64 x (K + V) x
  // 2 B = 384 MiB, and 12 sliding layers x 8 streams of pad(128 + 256, 256) =
  // 512 cells: 96 MiB; 480 MiB as logged ("SWA KV cache, size = 512 cells ... 8/8 seqs").
  const LogCheckLine* kv = line(c.value(), "KV cache, all devices");
  REQUIRE(kv);
  CHECK_THAT(*kv->estimate_mib, WithinAbs(480.0, 1e-9));
  // Compute: 256 x (3 x 11520 MLP rows + 2880) x 4 B = 38,338,560, 8 logits
  // rows (one per sequence, llama.cpp#23861) 201088 x 8 x 4 = 6,434,816, and
  // one expert tensor kept in RAM copied for the prompt's products, 2880 x
  // 2880 x 32 MXFP4 values at 17 bytes per 32 = 141,004,800: 177.17 MiB
  // beside 169.67 logged.
  const LogCheckLine* compute = line(c.value(), "CUDA0 compute buffer");
  REQUIRE(compute);
  CHECK_THAT(*compute->estimate_mib, WithinAbs((38338560.0 + 6434816.0 + 141004800.0) / 1048576.0, 0.005));
  CHECK(std::fabs(compute->difference_pct) < 5.0);
}

TEST_CASE("Metal with -ub 2048: the mapped model buffer and the host buffer's two masks") {
  auto parsed = parse_load_log(fixture("11-m5-gptoss20b-mxfp4-metal-ub2048.txt"));
  REQUIRE(parsed);
  SizerRequest r;
  r.gpu_id = "mac-m5-24gb";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  // Host: 2048 x (2880 embedded + 131072 cells + 2304 window cells,
  // pad(128 + 2048, 256)) x 4 B = 1064.5 MiB; 1064.59 logged.
  const LogCheckLine* host = line(c.value(), "CPU compute buffer");
  REQUIRE(host);
  CHECK_THAT(*host->estimate_mib, WithinAbs(2048.0 * (2880 + 131072 + 2304) * 4 / 1048576.0, 1e-9));
  CHECK(!host->differs);
  // Metal maps the whole file: the GPU tensors and the token embedding.
  const LogCheckLine* model = line(c.value(), "Metal model buffer");
  REQUIRE(model);
  CHECK(!model->differs);
}

TEST_CASE("--n-cpu-moe moves the experts' biases with them: gpt-oss-20b on an RTX 3070, every layer's experts in RAM") {
  // llama.cpp's pattern for --n-cpu-moe, blk\.N\.ffn_(up|down|gate)_(ch|)exps,
  // is searched in the tensor's name, so ffn_gate_exps.bias and its up and down
  // siblings go to the CPU too: 24 layers x 3 x 32 experts x 2880 x 4 B =
  // 26,542,080 B = 25.31 MiB the GPU does not hold. The log's CUDA0 model
  // buffer is 1242.03 MiB; counting the biases on the GPU gave 1267.32.
  auto parsed = parse_load_log(fixture("12-rtx3070-gptoss20b-mxfp4-cuda-ncpumoe-128k.txt"));
  REQUIRE(parsed);
  SizerRequest r;
  r.model_id = "gpt-oss-20b";
  r.quant = "MXFP4_MOE";
  auto c = check_load_log(sizer(), parsed.value(), r);
  if (!c) FAIL(c.error().message);
  const LogCheckLine* gpu = line(c.value(), "CUDA0 model buffer");
  REQUIRE(gpu);
  REQUIRE(gpu->estimate_mib);
  CHECK_THAT(*gpu->estimate_mib, WithinAbs(1242.03, 0.1));
  CHECK(!gpu->differs);
}
