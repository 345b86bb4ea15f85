// Parameter counts against hand sums and vendors' stated counts
// (../shared/reference/models.json official_params_*; copied into data/models.json).
#include "llmsizer/params.hpp"

#include "test_support.hpp"

using namespace llmsizer;
using Catch::Matchers::WithinRel;
using test::catalog_arch;

TEST_CASE("Llama-3.1-8B, counted by hand", "[params]") {
  // embed + head: 2 x 128256 x 4096 = 1,050,673,152
  // per layer: q 4096x4096 + k,v 2 x 4096x1024 + o 4096x4096 = 41,943,040
  //            MLP 3 x 4096 x 14336 = 176,160,768; two norms 8,192
  //            = 218,112,000 x 32 layers = 6,979,584,000
  // final norm 4,096  ->  8,030,261,248 (also the count HF shows for the repo)
  const ParamCounts p = count_params(catalog_arch("llama-3.1-8b"));
  CHECK(p.total == 8030261248LL);
  CHECK(p.active == p.total);
  CHECK(p.embedding == 525336576LL);  // 128256 x 4096
}

TEST_CASE("GLM-4-32B-0414, counted by hand: no q/k/v biases where attention_bias is false", "[params]") {
  // zai-org/GLM-4-32B-0414's config.json: 61 layers, hidden 6144, 48 heads of
  // 128, 2 KV heads, FFN 23040, vocab 151552, untied, attention_bias false.
  // embed + head: 2 x 151552 x 6144 = 1,862,270,976
  // per layer: q, o 2 x 6144x6144 + k, v 2 x 6144x256 = 78,643,200
  //            gate, up, down 3 x 6144 x 23040 = 424,673,280; four norms 24,576
  //            = 503,341,056 x 61 layers = 30,703,804,416
  // final norm 6,144  ->  32,566,081,536: llama.cpp's "32.57 B" for its GGUF,
  // whose 245 F32 tensors are the 61 x 4 norms and the final one, no biases.
  const ParamCounts p = count_params(catalog_arch("glm-4-32b-0414"));
  CHECK(p.total == 32566081536LL);
}

TEST_CASE("Mixtral 8x7B: active = everything but 6 of 8 experts", "[params][moe]") {
  // experts per layer: 8 x 3 x 4096 x 14336 = 1,409,286,144; 6/8 idle = 1,056,964,608
  // x 32 layers = 33,822,867,456 idle.  Total 46,702,792,704 (HF count).
  const ParamCounts p = count_params(catalog_arch("mixtral-8x7b"));
  CHECK(p.total == 46702792704LL);
  CHECK(p.active == 46702792704LL - 33822867456LL);
}

TEST_CASE("vendor counts stated precisely are met within 0.5%", "[params][reference]") {
  struct Case {
    const char* id;
    double total;
    double active;  // 0: dense
  };
  // Source: ../shared/reference/models.json official_params_total / _active
  // (model cards: Meta llama-models, Qwen, DeepSeek-V3, OpenAI gpt-oss).
  const Case cases[] = {
      {"llama-3.2-1b", 1.23e9, 0},   {"llama-3.2-3b", 3.21e9, 0},     {"qwen2.5-7b", 7.61e9, 0},
      {"qwen3-32b", 32.8e9, 0},      {"qwen3-30b-a3b", 30.5e9, 0},    {"qwen3-235b-a22b", 235e9, 0},
      {"deepseek-v3", 671e9, 0},     {"gpt-oss-120b", 117e9, 0},      {"gpt-oss-20b", 21e9, 0},
      {"qwen3-coder-480b-a35b", 480e9, 0}, {"hunyuan-a13b", 80e9, 0}, {"llama-3.1-405b", 405e9, 0},
      {"llama-4-maverick-17b-128e", 400e9, 0},
  };
  for (const Case& c : cases) {
    INFO(c.id);
    const ParamCounts p = count_params(catalog_arch(c.id));
    CHECK_THAT(static_cast<double>(p.total), WithinRel(c.total, 0.005));
  }
}

TEST_CASE("active counts of MoE models follow the vendors' figures", "[params][moe][reference]") {
  // Vendors differ on whether the embedding row is "active"; within 2% holds
  // for all of these. Source: models.json official_params_active.
  struct Case {
    const char* id;
    double active;
  };
  const Case cases[] = {{"deepseek-v3", 37e9},       {"qwen3-235b-a22b", 22e9}, {"qwen3-30b-a3b", 3.3e9},
                        {"hunyuan-a13b", 13e9},      {"ernie-4.5-300b-a47b", 47e9},
                        {"qwen3-coder-480b-a35b", 35e9}, {"llama-4-maverick-17b-128e", 17e9}};
  for (const Case& c : cases) {
    INFO(c.id);
    CHECK_THAT(static_cast<double>(count_params(catalog_arch(c.id)).active), WithinRel(c.active, 0.02));
  }
}

TEST_CASE("MTP layers are counted apart from the decoder", "[params][mtp]") {
  // DeepSeek-V3: 671B decoder; the HF checkpoint's 685B adds the MTP module
  // (reference: "671B (HF checkpoint 685B incl. 14B MTP module)"). The MTP
  // block is one MoE layer plus eh_proj: about 11.6B without its copies of
  // the embedding and head.
  const ParamCounts p = count_params(catalog_arch("deepseek-v3"));
  CHECK_THAT(static_cast<double>(p.mtp), WithinRel(11.6e9, 0.01));
  CHECK(count_params(catalog_arch("llama-3.1-8b")).mtp == 0);
}

TEST_CASE("hybrid stacks count their Mamba and linear-attention layers", "[params][hybrid]") {
  // Nemotron 3 Super: 120B (per name), latent MoE; Nemotron 3 Ultra 550B.
  CHECK_THAT(static_cast<double>(count_params(catalog_arch("nemotron-3-super-120b-a12b")).total), WithinRel(120e9, 0.01));
  CHECK_THAT(static_cast<double>(count_params(catalog_arch("nemotron-3-ultra-550b-a55b")).total), WithinRel(550e9, 0.01));
  // Qwen3-Next-80B-A3B and Qwen3.5-397B-A17B (per name).
  CHECK_THAT(static_cast<double>(count_params(catalog_arch("qwen3-next-80b-a3b-instruct")).total), WithinRel(80e9, 0.01));
  CHECK_THAT(static_cast<double>(count_params(catalog_arch("qwen3.5-397b-a17b")).total), WithinRel(397e9, 0.01));
}

TEST_CASE("Gemma 4 12B (gemma4_unified): the decoder counted by hand, and the header count reconciled",
          "[params][gemma4]") {
  // Config: /work/shared/reference/seed_models.json 'Gemma 4 12B IT' (hidden 3840, 48 layers,
  // FFN 15360, 16 heads; sliding layers 8 KV heads x 256; full layers (5, 11, ..., 47) one KV
  // head of 512 with K = V; vocab 262144 tied).
  //   embedding 262144 x 3840                                   = 1,006,632,960
  //   MLP 3 x 3840 x 15360 = 176,947,200; four norms 4 x 3840   =        15,360
  //   sliding attention: q 3840x4096 + k,v 2 x 3840x2048 + o 4096x3840 + q/k norms 2 x 256
  //                                                             =    47,186,432
  //   full attention: q 3840x8192 + k 3840x512 (no v) + o 8192x3840 + q/k norms 2 x 512
  //                                                             =    64,881,664
  //   40 x 224,148,992 + 8 x 241,844,224 + final norm 3,840     = 10,900,717,312
  //   total                                                     = 11,907,350,272
  // The source counts 11,959,730,224 from the safetensors header; the difference is the
  // encoder-free embedders transformers' Gemma4UnifiedVisionEmbedder and
  // Gemma4UnifiedMultimodalEmbedder hold (class defaults: 48-pixel patches, mm_embed_dim 3840,
  // mm_posemb_size 1120, audio_embed_dim 640): LayerNorm 6912 (13,824) + Linear 6912x3840 with
  // bias (26,545,920) + LayerNorm 3840 (7,680) + positions 1120x2x3840 (8,601,600) + LayerNorm
  // 3840 (7,680) + vision projection 3840x3840 (14,745,600) + audio projection 640x3840
  // (2,457,600) + 48 layer_scalar buffers = 52,379,952. The catalog counts the text model, as for
  // every model whose vision encoder is counted only with --vision.
  const ParamCounts p = count_params(catalog_arch("gemma-4-12b-it"));
  CHECK(p.total == 11907350272LL);
  CHECK(p.embedding == 1006632960LL);
}

TEST_CASE("Qwen3.8 Flash Next counted by hand; its n-gram table is not active", "[params][hybrid]") {
  // Shapes: scripts/catalog/sourced_arch_facts_qwen38_dsv41.json (llama.cpp qwen4exp.cpp, candle §12.2).
  // Every layer: two hyper-connection mixers, each norm 10240 + down 320x10240 + up 10240x320
  //   + inject 4x10240 = 6,604,800                                        -> 13,209,600
  //   MoE: router 2560x512 1,310,720 + experts 512 x 3 x 2560x640 2,516,582,400
  //   + shared expert 3 x 2560x640 4,915,200 + its gate 2,560          -> 2,522,810,880
  //   x 48 layers                                                       = 121,728,983,040
  // 36 delta-net layers: qkvz 2560x16384 41,943,040 + beta/alpha 2560x96 245,760 + conv 4x10240
  //   40,960 + dt bias, A 48 + 48 + norm 128 + out 6144x2560 15,728,640 = 57,958,624 x 36 = 2,086,510,464
  // 12 QSA layers: q 2560x12288 31,457,280 + k, v 2 x 2560x512 2,621,440 + o 6144x2560 15,728,640
  //   + q/k norms 512 + indexer q 2560x512 1,310,720, k 2560x128 327,680, norms 256
  //                                                   = 51,446,528 x 12 = 617,358,336
  // PLE layer: ple_key 2560x10240 26,214,400 + ple_value 2560x2560 6,553,600 + three norms
  //   30,720 + conv 4x10240 40,960                                      = 32,839,680
  // embedding and head 2 x 248320x2560 1,271,398,400; final mixer 10240 + 2 x 3,276,800 = 6,563,840
  // trunk                                                               = 125,743,653,760
  // n-gram table 320,001,536 x 160                                      =  51,200,245,760
  const ParamCounts p = count_params(catalog_arch("qwen3.8-flash-next"));
  CHECK(p.lookup == 51200245760LL);
  CHECK(p.total == 125743653760LL + 51200245760LL);
  CHECK(p.embedding == 635699200LL);
  // Active: experts 10/512 of 2,516,582,400 = 49,152,000 per layer; the rest of each layer
  // 19,438,080; (49,152,000 + 19,438,080) x 48 = 3,292,323,840, plus delta-net, QSA, PLE,
  // embedding, head and final mixer as above                           = 7,306,994,560.
  CHECK(p.active == 7306994560LL);
  // The vendor states "125B main model + 51B N-gram embeddings, 6B activated" (QwenLM README):
  // the trunk is 0.6% above 125B; 6B is the active count without the embedding and the head
  // (7,306,994,560 - 1,271,398,400 = 6,035,596,160), which this engine counts for every model.
  CHECK_THAT(static_cast<double>(p.total - p.lookup), WithinRel(125e9, 0.01));
  CHECK_THAT(static_cast<double>(p.lookup), WithinRel(51e9, 0.01));
  CHECK_THAT(static_cast<double>(p.active - 2 * p.embedding), WithinRel(6e9, 0.01));
}

TEST_CASE("DeepSeek V4.1 Flash counted by hand; its Engram tables are not active", "[params][moe]") {
  // Shapes: sourced_arch_facts_qwen38_dsv41.json (colibri docs/deepseek-v41-delta.md).
  // Per layer: q_a 5120x1280 6,553,600 + its norm 1,280 + q_b 1280x32768 41,943,040
  //   + kv 5120x512 2,621,440 + o_a 32768x1024 33,554,432 + o_b 8192x5120 41,943,040
  //   + two norms 10,240 + router 5120x384 1,966,080 + its bias 384
  //   + experts 384 x 3 x 5120x2304 13,589,544,960 + shared 3 x 5120x2304 35,389,440
  //                                                   = 13,753,527,936 x 40 = 550,141,117,440
  // Engram layers 1 and 14: q, k 2 x 4x5120 + wkv 6144x25600 = 157,327,360 x 2 = 314,654,720
  // embedding and head 2 x 129280x5120 1,323,827,200 + final norm 5,120
  // backbone                                                           = 551,779,604,480
  // Engram tables (384,006,168 + 384,016,682) x 256                     = 196,613,849,600
  const ParamCounts p = count_params(catalog_arch("deepseek-v4.1-flash"));
  CHECK(p.lookup == 196613849600LL);
  CHECK(p.total == 551779604480LL + 196613849600LL);
  // Active: 6/384 of the experts, 212,336,640 per layer, and the other 163,982,976 of each
  // layer: 376,319,616 x 40 = 15,052,784,640 + Engram projections + embedding, head, norm
  //                                                                     = 16,691,271,680
  CHECK(p.active == 16691271680LL);
  // The tech report: "552B backbone parameters and 196B Engram parameters, activating 8B
  // parameters per token during prefill and 16B during decode". 16B is the active count
  // without the input embedding (16,029,358,080); the Engram tables are outside 552B.
  CHECK_THAT(static_cast<double>(p.total - p.lookup), WithinRel(552e9, 0.005));
  CHECK_THAT(static_cast<double>(p.lookup), WithinRel(196e9, 0.005));
  CHECK_THAT(static_cast<double>(p.active - p.embedding), WithinRel(16e9, 0.005));
}
