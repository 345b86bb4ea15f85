// Speed over mixed cards under llama.cpp's layer split. The whole model's work
// of a pass (speed_work.cpp) is divided among the cards by the share of the
// bytes each reads; each card's part takes its time at that card's own rates
// (speed.cpp's step_time), and the cards run one after another: a decode step
// is the sum of their times plus the hand-off at each boundary. Prefill feeds
// micro-batches through the cards as a pipeline, whose pace is the slowest card.
#include <algorithm>

#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/speed_work.hpp"
#include "speed_rates.hpp"

namespace llmsizer {
namespace {

// Weight bytes a pass of `tokens` tokens reads from the layers [first, last)
// on the GPU (routed experts: the share those tokens touch; experts kept in RAM
// by --n-cpu-moe are not the card's), plus the output head on the last card.
double card_weight_reads(const Architecture& arch, const Estimate& e, const GpuShare& card, std::int64_t tokens,
                         bool holds_output) {
  const int cpu_expert_layers = e.memory.offload_experts_only ? e.memory.offloaded_layers : 0;
  double bytes = 0.0;
  for (int i = card.first_layer; i < card.last_layer; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    const FfnSpec& f = arch.layers[idx].ffn;
    const double experts = static_cast<double>(e.weights.layer_expert_bytes[idx]);
    bytes += static_cast<double>(e.weights.layer_bytes[idx]) - experts;
    if (i >= cpu_expert_layers) bytes += experts * expert_touched_share(f.n_experts, f.n_experts_used, tokens);
  }
  if (holds_output) bytes += static_cast<double>(e.weights.output_bytes);
  return bytes;
}

int moe_layers_in(const Architecture& arch, int first, int last) {
  int n = 0;
  for (int i = first; i < last; ++i) n += arch.layers[static_cast<std::size_t>(i)].ffn.n_experts > 0 ? 1 : 0;
  return n;
}

// Each card's part of a whole-model pass: its shares of the GPU bytes and of
// the FLOPs (in proportion to the weights it multiplies), its layers' fixed
// cost. The first card also carries what runs from RAM (the offloaded first
// layers come before it); the boundaries are counted once, by the caller.
std::vector<StepWork> card_works(const Architecture& arch, const Estimate& e, const StepWork& whole,
                                 std::int64_t tokens) {
  const std::vector<GpuShare>& cards = e.memory.per_gpu;
  std::vector<double> reads;
  double reads_sum = 0.0;
  double kv_sum = 0.0;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    reads.push_back(card_weight_reads(arch, e, cards[i], tokens, i + 1 == cards.size() && !e.memory.output_in_ram));
    reads_sum += reads.back();
    kv_sum += static_cast<double>(cards[i].kv_cache_bytes);
  }
  std::vector<StepWork> out;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const double weight_share = reads_sum > 0.0 ? reads[i] / reads_sum : 1.0 / static_cast<double>(cards.size());
    const double kv_share = kv_sum > 0.0 ? static_cast<double>(cards[i].kv_cache_bytes) / kv_sum : weight_share;
    StepWork w = whole;
    w.gpu_weight_bytes *= weight_share;
    w.gpu_kv_bytes *= kv_share;
    w.flops *= weight_share;
    w.expert_flops *= weight_share;
    const int first = i == 0 ? 0 : cards[i].first_layer;  // the RAM layers' fixed cost with the first card
    w.layers = cards[i].last_layer - first;
    w.moe_layers = moe_layers_in(arch, first, cards[i].last_layer);
    if (i != 0) {
      w.ram_bytes = 0.0;
      w.host_to_gpu_bytes = 0.0;
    }
    w.layer_split_gpus = 1;
    w.pipeline_stages = 1;
    w.boundary_bytes = 0.0;
    out.push_back(w);
  }
  return out;
}

// The hand-off at each of the cards' boundaries, as speed.cpp charges it.
double boundary_seconds(const StepWork& whole, std::size_t cards) {
  const SpeedConstants& k = speed_constants();
  if (cards < 2) return 0.0;
  const double per_boundary = static_cast<double>(whole.passes) * k.layer_split_hop_s +
                              (whole.boundary_bytes > 0.0 ? whole.boundary_bytes / k.pcie_bytes_per_s : 0.0);
  return static_cast<double>(cards - 1) * per_boundary;
}

StepTime sum_times(const std::vector<StepTime>& times) {
  StepTime t;
  for (const StepTime& x : times) {
    t.weights_s += x.weights_s;
    t.kv_s += x.kv_s;
    t.ram_s += x.ram_s;
    t.host_to_gpu_s += x.host_to_gpu_s;
    t.compute_s += x.compute_s;
    t.interconnect_s += x.interconnect_s;
    t.overhead_s += x.overhead_s;
    t.total_s += x.total_s;
  }
  return t;
}

// A card's GPU seconds of a pass (memory or compute, whichever is longer, and
// its fixed cost): what the pipeline overlaps.
double gpu_seconds(const StepTime& t) { return t.total_s - t.ram_s - t.host_to_gpu_s - t.interconnect_s; }

struct CardRates {
  std::vector<EffectiveRates> rates;
  std::vector<double> gemm_factor;  // prefill: the weight format's factor on each card's kernel path
};

// Decode of `batch` sequences: the cards one after another.
// `cache`: another cache than the estimate's (the prompt's), holding `cached` tokens.
StepTime decode_time(const Architecture& arch, const Scenario& s, const Estimate& e, const CardRates& r,
                     std::int64_t batch, StepWork& whole, std::vector<double>* per_card_s,
                     const KvBreakdown* cache = nullptr, std::int64_t cached = 0) {
  whole = cache ? decode_step_work(arch, s, e, batch, *cache, cached) : decode_step_work(arch, s, e, batch);
  const std::vector<StepWork> works = card_works(arch, e, whole, batch);
  std::vector<StepTime> times;
  for (std::size_t i = 0; i < works.size(); ++i) {
    times.push_back(step_time(works[i], r.rates[i], 1.0, 1.0));
    if (per_card_s != nullptr) per_card_s->push_back(times.back().total_s);
  }
  StepTime t = sum_times(times);
  const double hops = boundary_seconds(whole, works.size());
  t.interconnect_s += hops;
  t.total_s += hops;
  return t;
}

// A prompt: each batch of M micro-batches fills the pipeline of G cards once
// and then advances at the slowest card, so its GPU time is ideally the sum of
// one micro-batch's stage times plus (M - 1) times the slowest stage; cards
// without peer access realize a share of that saving.
StepTime prefill_time(const Architecture& arch, const Scenario& s, const Estimate& e, const CardRates& r,
                      StepWork& whole) {
  whole = prefill_work(arch, s, e);
  const std::int64_t chunk = std::min<std::int64_t>(s.prefill_ubatch_tokens > 0 ? s.prefill_ubatch_tokens : 512,
                                                    s.prompt_tokens);
  const std::vector<StepWork> works = card_works(arch, e, whole, chunk);
  std::vector<StepTime> times;
  double stage_sum = 0.0;
  double slowest_stage = 0.0;
  const double m = static_cast<double>(std::max(whole.passes, 1));
  const double b = static_cast<double>(std::max(whole.batches, 1));
  for (std::size_t i = 0; i < works.size(); ++i) {
    times.push_back(step_time(works[i], r.rates[i], r.gemm_factor[i], 1.0));
    const double stage = gpu_seconds(times.back()) / m;
    stage_sum += stage;
    slowest_stage = std::max(slowest_stage, stage);
  }
  StepTime t = sum_times(times);
  const double sequential = gpu_seconds(t);
  const double ideal = b * stage_sum + std::max(0.0, m - b) * slowest_stage;
  // Cards without peer access realize only part of the overlap (speed.cpp).
  double overlap = 1.0;
  for (const EffectiveRates& card : r.rates) overlap = std::min(overlap, card.pipeline_overlap);
  const double pipelined = sequential - overlap * (sequential - ideal);
  // Shown as less of each GPU part in proportion, so the parts still add up.
  const double f = sequential > 0.0 ? pipelined / sequential : 1.0;
  t.weights_s *= f;
  t.kv_s *= f;
  t.compute_s *= f;
  t.overhead_s *= f;
  const double hops = boundary_seconds(whole, works.size());
  t.interconnect_s += hops;
  t.total_s = pipelined + t.ram_s + t.host_to_gpu_s + t.interconnect_s;
  return t;
}

}  // namespace

std::optional<SpeedEstimate> estimate_mixed_card_speed(const Architecture& arch, const Scenario& s, const Estimate& e) {
  if (!s.device || e.memory.per_gpu.size() != s.cards.size() || s.cards.empty()) return std::nullopt;
  const EngineFamily engine = engine_family(s.engine);
  const WeightFamily weights = weight_family(s.quant, arch.native_format);
  const WeightCalibration& wc = weight_calibration(weights);
  CardRates r;
  bool prefill_known = true;
  for (const Device& card : s.cards) {
    if (!(card.bandwidth_bytes_per_s > 0.0)) return std::nullopt;
    Scenario one = s;
    one.device = card;
    r.rates.push_back(effective_rates(arch, one, e, engine, weights, fp4_products(s.quant, arch.native_format)));
    r.gemm_factor.push_back(quantized_mma(card, engine) ? wc.prefill_factor_mma : wc.prefill_factor);
    prefill_known = prefill_known && r.rates.back().matrix_flops > 0.0;
  }

  SpeedEstimate sp;
  sp.basis = r.rates.front().basis;  // the first card's; each card ran at its own
  // Peer access between the cards: only where every card has it.
  sp.basis.peer_access = std::all_of(r.rates.begin(), r.rates.end(),
                                     [](const EffectiveRates& card) { return card.basis.peer_access; });
  sp.decode_single_time = decode_time(arch, s, e, r, 1, sp.decode_single_work, &sp.decode_seconds_per_gpu);
  if (s.sequences == 1) {
    sp.decode_batch_work = sp.decode_single_work;
    sp.decode_batch_time = sp.decode_single_time;
  } else {
    sp.decode_batch_time = decode_time(arch, s, e, r, s.sequences, sp.decode_batch_work, nullptr);
  }
  if (sp.decode_single_time.total_s <= 0.0 || sp.decode_batch_time.total_s <= 0.0) return std::nullopt;
  sp.decode_tokens_per_s = 1.0 / sp.decode_single_time.total_s;
  sp.decode_tokens_per_s_total = static_cast<double>(s.sequences) / sp.decode_batch_time.total_s;
  sp.decode_tokens_per_s_per_sequence = 1.0 / sp.decode_batch_time.total_s;

  if (!s.prefill_speed) return sp;
  set_decode_after_prompt(sp, arch, s, e, [&](const KvBreakdown& cache, std::int64_t cached, StepWork& work) {
    return decode_time(arch, s, e, r, 1, work, nullptr, &cache, cached);
  });
  if (!prefill_known) return sp;
  sp.prefill_time = prefill_time(arch, s, e, r, sp.prefill_work);
  if (sp.prefill_time.total_s <= 0.0) return sp;
  sp.prefill_tokens_per_s = static_cast<double>(s.prompt_tokens) / sp.prefill_time.total_s;
  sp.ttft_s = sp.prefill_time.total_s + sp.decode_after_prompt_time.total_s;
  return sp;
}

}  // namespace llmsizer
