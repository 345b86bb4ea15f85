// Each suggestion is the best change of its kind whose own estimate fits:
// memory only falls as layers move to RAM, as the quantization gets smaller,
// as devices are added and as the context shrinks, so each search walks (or
// bisects) one monotone verdict and the answer is the estimate at its edge.
// The kinds are listed by what they cost the user, cheapest first.
#include "llmsizer/suggestions.hpp"

#include <algorithm>
#include <cmath>

#include "llmsizer/planner.hpp"
#include "llmsizer/units.hpp"
#include "planner_edge.hpp"
#include "planner_rules.hpp"

namespace llmsizer {
namespace {

bool fits(const Estimate& e) { return e.memory.fits.value_or(false); }

Suggestion suggestion_of(const Scenario& scenario, const Estimate& e, SuggestedChange change, const char* cost) {
  Suggestion s;
  s.scenario = scenario;
  s.estimate = e;
  s.change = std::move(change);
  s.cost = cost;
  s.fits = fits(e);
  s.required_bytes = e.memory.required_bytes;
  s.usable_bytes = e.memory.usable_bytes.value_or(0);
  s.utilization = e.memory.utilization.value_or(0.0);
  s.ram_required_bytes = e.memory.ram_required_bytes;
  s.offloaded_layers = e.memory.offloaded_layers;
  if (e.speed) {
    s.decode_tokens_per_s = e.speed->decode_tokens_per_s;
    s.decode_tokens_per_s_total = e.speed->decode_tokens_per_s_total;
    s.prefill_tokens_per_s = e.speed->prefill_tokens_per_s;
    s.ttft_s = e.speed->ttft_s;
  }
  return s;
}

std::optional<Suggestion> if_fits(const Estimator& estimate_fn, const Scenario& sc, SuggestedChange change,
                                  const char* cost) {
  auto e = estimate_fn(sc);
  if (!e || !fits(e.value())) return std::nullopt;
  return suggestion_of(sc, e.value(), std::move(change), cost);
}

// Equal cards under llama.cpp, one over and another with room: move layers.
// The split that fits with the lowest fullest card, by bisecting the fill
// that a greedy front-to-back placement needs (a layer's bytes: its weights
// and KV; a card's fixed bytes: what else it holds).
std::optional<Suggestion> layer_split_suggestion(const Architecture& arch, const Estimator& estimate_fn,
                                                 const Scenario& s, const Estimate& e) {
  const auto& cards = e.memory.per_gpu;
  // Whole layers in RAM (-ngl below the layer count) are left alone; experts
  // in RAM (--n-cpu-moe) keep every layer on a GPU, and the experts' layers
  // (the first ones) weigh less there: those are what make one card full.
  const bool whole_layers_in_ram = e.memory.offloaded_layers > 0 && !e.memory.offload_experts_only;
  if (!engine_is_llama_cpp_based(s.engine) || cards.size() < 2 || !s.cards.empty() || whole_layers_in_ram)
    return std::nullopt;
  const int n_layers = arch.decoder_layer_count();
  const int expert_layers_in_ram = e.memory.offload_experts_only ? e.memory.offloaded_layers : 0;
  std::vector<double> layer(static_cast<std::size_t>(n_layers));
  for (std::size_t i = 0; i < layer.size(); ++i)
    layer[i] = static_cast<double>(e.weights.layer_bytes[i] + e.kv.layer_bytes[i] -
                                   (static_cast<int>(i) < expert_layers_in_ram ? e.weights.layer_expert_bytes[i] : 0));
  std::vector<double> fixed, room;
  for (const GpuShare& g : cards) {
    double own = 0.0;
    for (int i = g.first_layer; i < g.last_layer; ++i) own += layer[static_cast<std::size_t>(i)];
    fixed.push_back(static_cast<double>(g.required_bytes) - own);
    room.push_back(static_cast<double>(g.usable_bytes));
  }
  auto place = [&](double fill) -> std::optional<std::vector<int>> {
    std::vector<int> counts(cards.size(), 0);
    std::size_t i = 0;
    for (std::size_t g = 0; g < cards.size(); ++g) {
      double used = fixed[g];
      // Every card takes at least one layer (llama.cpp's split gives each
      // one): a card leaves one for each card after it. Without this, a fill
      // with room to spare let the first cards take every layer (the few
      // heavy ones behind many whose experts are in RAM) and no split was
      // found where the balanced ones fit.
      const std::size_t last = layer.size() - std::min(layer.size(), cards.size() - g - 1);
      while (i < last && used + layer[i] <= fill * room[g]) used += layer[i++], ++counts[g];
      if (counts[g] == 0) return std::nullopt;
    }
    if (i < layer.size()) return std::nullopt;
    return counts;
  };
  if (!place(1.0)) return std::nullopt;
  double low = 0.0, high = 1.0;
  for (int step = 0; step < 40; ++step) {
    const double mid = (low + high) / 2;
    (place(mid) ? high : low) = mid;
  }
  Scenario sc = s;
  sc.layers_per_gpu = *place(high);
  SuggestedChange change;
  change.layer_split = sc.layers_per_gpu;
  return if_fits(estimate_fn, sc, change, "none");
}

// The longest context the model reads: its own maximum, or YaRN's where its
// publisher extends it; the scenario's when the model does not say.
std::int64_t context_cap_tokens(const Architecture& arch, const Scenario& s) {
  const std::int64_t most = arch.context_extension ? arch.context_extension->max_context_tokens : arch.max_context_tokens;
  return most > 0 ? std::min(s.context_tokens, most) : s.context_tokens;
}

// Below this a context is no longer a working chat (a system prompt, a few
// turns): a smaller quantization serves the user better than such a window.
constexpr std::int64_t kMinSuggestedContextTokens = 4096;

// A Mac short of memory even at the highest GPU limit the OS can leave: that
// limit with the longest context below the scenario's that fits under it, the
// weights at the chosen quantization (the other fix being a smaller one at the
// full context). None when no context of a useful length
// (kMinSuggestedContextTokens) fits, or when one fits at the default limit
// (context_suggestion's).
std::optional<Suggestion> gpu_limit_context_suggestion(const Architecture& arch, const Estimator& estimate_fn,
                                                       const Scenario& s, const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  if (!s.device || s.device->backend != Backend::metal || !m.unified_pool || m.per_gpu.empty()) return std::nullopt;
  const std::int64_t mib = static_cast<std::int64_t>(kMiB);
  const std::int64_t limit_bytes = (m.shared_pool_bytes - m.os_reserve_bytes) / mib * mib;
  if (limit_bytes <= 0 || limit_bytes <= usable_memory(*s.device, s.gpu_limit_bytes).capacity_bytes) return std::nullopt;
  Scenario raised = s;
  raised.gpu_limit_bytes = limit_bytes;
  // Fitting whole at that limit is gpu_limit_suggestion's (one estimate, not a search).
  if (auto whole = estimate_fn(raised); !whole || fits(whole.value())) return std::nullopt;
  auto solved = solve_max_context(estimate_fn, 0, raised, context_cap_tokens(arch, s));
  if (!solved || solved.value().context_tokens < kMinSuggestedContextTokens ||
      solved.value().context_tokens >= s.context_tokens)
    return std::nullopt;
  raised.context_tokens = solved.value().context_tokens;
  raised.prompt_tokens = std::min(s.prompt_tokens, raised.context_tokens);
  // The context alone, at the default limit, is context_suggestion's.
  Scenario default_limit = raised;
  default_limit.gpu_limit_bytes = s.gpu_limit_bytes;
  if (auto alone = estimate_fn(default_limit); alone && fits(alone.value())) return std::nullopt;
  SuggestedChange change;
  change.gpu_limit_mib = limit_bytes / mib;
  change.ctx = raised.context_tokens;
  return if_fits(estimate_fn, raised, change, "context");
}

// A Mac whose GPU share is over macOS's default wired limit but within what
// the OS can leave: raise the limit (sudo sysctl iogpu.wired_limit_mb=N) to the
// next whole GiB above the share.
std::optional<Suggestion> gpu_limit_suggestion(const Estimator& estimate_fn, const Scenario& s, const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  if (!s.device || s.device->backend != Backend::metal || !m.unified_pool || m.per_gpu.empty()) return std::nullopt;
  const UsableMemory u = usable_memory(*s.device, s.gpu_limit_bytes);
  const GpuShare& g = m.per_gpu.front();
  if (g.fits) return std::nullopt;
  const std::int64_t margin = u.capacity_bytes - u.reserved_bytes - g.usable_bytes;  // the engine's free margin
  const std::int64_t need = g.required_bytes + u.reserved_bytes + margin;
  const std::int64_t most = m.shared_pool_bytes - m.os_reserve_bytes;
  if (need > most) return std::nullopt;
  const std::int64_t gib = static_cast<std::int64_t>(kGiB);
  const std::int64_t limit = std::min((need + gib - 1) / gib * gib, most / static_cast<std::int64_t>(kMiB) * static_cast<std::int64_t>(kMiB));
  Scenario sc = s;
  sc.gpu_limit_bytes = limit;
  SuggestedChange change;
  change.gpu_limit_mib = limit / static_cast<std::int64_t>(kMiB);
  return if_fits(estimate_fn, sc, change, "none");
}

// An 8-bit KV cache: q8_0 under llama.cpp and Ollama (with flash attention, which
// a quantized V cache needs), FP8 under the paged engines.
std::optional<Suggestion> kv_suggestion(const Estimator& estimate_fn, const Scenario& s) {
  if (s.kv_type != KvType::f16 && s.kv_type != KvType::bf16) return std::nullopt;
  const KvType eight = engine_is_llama_cpp_based(s.engine) ? KvType::q8_0 : KvType::fp8;
  if (!engine_supports_kv_type(s.engine, eight)) return std::nullopt;
  Scenario sc = s;
  sc.kv_type = eight;
  if (eight == KvType::q8_0) sc.flash_attention = true;
  SuggestedChange change;
  change.kv = std::string(kv_type_name(eight));
  return if_fits(estimate_fn, sc, change, "kv_precision");
}

// The quantizations a suggestion chooses from, best quality first.
std::vector<std::string> quant_ladder(const Scenario& s) {
  if (!s.quant.is_gguf()) return checkpoint_quality_ladder(s.engine);
  std::vector<std::string> names;
  for (const QuantRung& q : gguf_quality_ladder()) names.emplace_back(q.name);
  return names;
}

bool starts(const Startable& startable, const Scenario& s, const Estimate& e) { return !startable || startable(s, e); }

// The best-quality quantization smaller than the scenario's that fits and that
// the engine starts; beside it, the best that fits but does not start (no
// checkpoint of it known), offered only when none starts.
struct QuantFixes {
  std::optional<Suggestion> starts;
  std::optional<Suggestion> does_not_start;
};

QuantFixes quant_suggestion(const Estimator& estimate_fn, const Startable& startable, const Scenario& s,
                             const Estimate& current) {
  QuantFixes out;
  for (const std::string& name : quant_ladder(s)) {
    auto quant = quant_scheme_from_name(name);
    if (!quant || quant.value().name == s.quant.name) continue;
    Scenario sc = s;
    sc.quant = quant.value();
    auto e = estimate_fn(sc);
    // Only smaller formats: a suggestion is a step down, the best that fits.
    if (!e || e.value().memory.weights_bytes >= current.memory.weights_bytes) continue;
    if (!fits(e.value())) continue;
    SuggestedChange change;
    change.quant = quant.value().name;
    if (starts(startable, sc, e.value())) {
      out.starts = suggestion_of(sc, e.value(), change, "quality");
      return out;
    }
    if (!out.does_not_start) out.does_not_start = suggestion_of(sc, e.value(), change, "quality");
  }
  return out;
}

// The fewest leading layers (or their experts) in RAM with which the GPUs hold
// the rest; a suggestion only when system RAM then holds the offloaded share.
// Experts in RAM on several equal cards: --n-cpu-moe empties the first
// layers, which llama.cpp's own split puts on the first card, so the last
// card stays full until far more experts are out than the cards' room needs;
// each count is judged with the layers split to balance the cards (a
// --tensor-split beside --n-cpu-moe), as layer_split_suggestion places them.
std::optional<Suggestion> offload_suggestion(const Architecture& arch, const Estimator& estimate_fn, Scenario s,
                                             OffloadMode mode, const EdgeProbe& at_zero) {
  const int n = arch.decoder_layer_count();
  if (n <= 0) return std::nullopt;
  s.offload_mode = mode;
  s.layers_per_gpu.clear();
  // The estimate for k layers' experts (or layers) in RAM, its layers split to
  // balance the cards where the default split leaves one over (whole layers
  // in RAM are not split again: layer_split_suggestion leaves them).
  auto placed = [&](std::int64_t k) -> Result<Suggestion> {
    Scenario sc = s;
    sc.offload_fraction = static_cast<double>(k) / n;
    return balanced_placement(arch, estimate_fn, sc);
  };
  // kept(j): j layers stay whole on the GPUs; fits only turns false as j grows.
  auto kept = [&](std::int64_t j) -> Result<EdgeProbe> {
    auto p = placed(n - j);
    if (!p) return p.error();
    return gpu_probe(p.value().estimate);
  };
  auto all_in_ram = kept(0);
  if (!all_in_ram || !all_in_ram.value().fits) return std::nullopt;
  auto edge = find_edge(0, all_in_ram.value(), n, at_zero, kept);
  if (!edge) return std::nullopt;
  auto chosen = placed(n - edge.value());
  if (!chosen || !fits(chosen.value().estimate)) return std::nullopt;
  SuggestedChange change;
  change.offload = chosen.value().scenario.offload_fraction;
  change.offload_mode = mode == OffloadMode::experts ? "experts" : "layers";
  change.layer_split = chosen.value().scenario.layers_per_gpu;
  return suggestion_of(chosen.value().scenario, chosen.value().estimate, change, "speed");
}

std::optional<Suggestion> offload_suggestions(const Architecture& arch, const Estimator& estimate_fn,
                                              const Scenario& scenario) {
  // From the scenario without offload: the least offload that fits, not a
  // change relative to whatever share the user had set.
  Scenario base = scenario;
  base.offload_fraction = 0.0;
  auto at_zero = estimate_fn(base);
  if (!at_zero) return std::nullopt;
  const EdgeProbe probe = gpu_probe(at_zero.value());
  if (probe.fits && fits(at_zero.value()) && scenario.offload_fraction > 0.0) {
    // The offload set was the trouble (RAM too small for it): none is needed.
    SuggestedChange change;
    change.offload = 0.0;
    return suggestion_of(base, at_zero.value(), change, "none");
  }
  if (probe.fits) return std::nullopt;
  std::optional<Suggestion> s;
  if (arch.is_moe()) s = offload_suggestion(arch, estimate_fn, base, OffloadMode::experts, probe);
  if (!s) s = offload_suggestion(arch, estimate_fn, base, OffloadMode::layers, probe);
  return s;
}

// Where no one change makes it fit under llama.cpp or Ollama: the best
// quantization smaller than the scenario's that fits with part of the model in
// system RAM, the least offload it needs (DeepSeek-R1 at Q4_K_M, 377 GiB, on
// four 24 GB cards and 256 GiB of RAM: no quantization alone fits the cards,
// no offload alone fits the RAM; IQ3 with most experts in RAM does, as people
// run it). A quantization whose weights exceed the GPUs' and RAM's room
// together is passed over without the offload search.
std::optional<Suggestion> quant_with_offload_suggestion(const Architecture& arch, const Estimator& estimate_fn,
                                                        const Scenario& s, const Estimate& current) {
  if (!s.quant.is_gguf() || !engine_is_llama_cpp_based(s.engine)) return std::nullopt;
  for (const QuantRung& rung : gguf_quality_ladder()) {
    auto quant = quant_scheme_from_name(rung.name);
    if (!quant || quant.value().name == s.quant.name) continue;
    Scenario sc = s;
    sc.quant = quant.value();
    sc.offload_fraction = 0.0;
    auto e = estimate_fn(sc);
    if (!e || e.value().memory.weights_bytes >= current.memory.weights_bytes) continue;
    const MemoryEstimate& m = e.value().memory;
    if (m.usable_bytes && m.required_bytes > *m.usable_bytes + m.system_ram_bytes) continue;
    auto offloaded = offload_suggestions(arch, estimate_fn, sc);
    if (!offloaded || !offloaded->change.offload || *offloaded->change.offload <= 0.0) continue;
    SuggestedChange change = offloaded->change;
    change.quant = quant.value().name;
    return suggestion_of(offloaded->scenario, offloaded->estimate, change, "quality");
  }
  return std::nullopt;
}

std::optional<Suggestion> count_suggestion(const Architecture& arch, const Estimator& estimate_fn, const Scenario& s) {
  const Device& d = *s.device;
  for (int count = s.gpu_count + 1; count <= practical_device_count(d); ++count) {
    if (!split_allowed(arch, d, s.engine, count)) continue;
    Scenario sc = s;
    sc.gpu_count = count;
    sc.layers_per_gpu.clear();
    SuggestedChange change;
    change.gpus = count;
    if (auto x = if_fits(estimate_fn, sc, change, "hardware")) return x;
  }
  return std::nullopt;
}

// Where no one change fits and no offload helps: the best quantization smaller
// than the scenario's, that the engine starts, at which a context of at least
// kMinSuggestedContextTokens fits, with the longest such context (Llama 3.3 70B
// at 32K on two RTX 4090s under vLLM: neither AWQ at 32K nor BF16 at any
// context fits; AWQ at about 10K does, as people run it).
std::optional<Suggestion> quant_with_context_suggestion(const Architecture& arch, const Estimator& estimate_fn,
                                                        const Startable& startable, const Scenario& s,
                                                        const Estimate& current) {
  for (const std::string& name : quant_ladder(s)) {
    auto quant = quant_scheme_from_name(name);
    if (!quant || quant.value().name == s.quant.name) continue;
    Scenario sc = s;
    sc.quant = quant.value();
    sc.context_tokens = std::min(s.context_tokens, kMinSuggestedContextTokens);
    sc.prompt_tokens = std::min(s.prompt_tokens, sc.context_tokens);
    // The shortest useful context first: one estimate rules a quantization out.
    auto shortest = estimate_fn(sc);
    if (!shortest || shortest.value().memory.weights_bytes >= current.memory.weights_bytes || !fits(shortest.value()) ||
        !starts(startable, sc, shortest.value()))
      continue;
    sc.context_tokens = s.context_tokens;
    auto solved = solve_max_context(estimate_fn, 0, sc, context_cap_tokens(arch, s));
    if (!solved || solved.value().context_tokens < kMinSuggestedContextTokens ||
        solved.value().context_tokens >= s.context_tokens)
      continue;
    sc.context_tokens = solved.value().context_tokens;
    sc.prompt_tokens = std::min(s.prompt_tokens, sc.context_tokens);
    auto e = estimate_fn(sc);
    if (!e || !fits(e.value())) continue;
    SuggestedChange change;
    change.quant = quant.value().name;
    change.ctx = sc.context_tokens;
    return suggestion_of(sc, e.value(), change, "quality");
  }
  return std::nullopt;
}

// The largest context below the scenario's that fits, as the planner solves
// it, and no longer than the model reads: a context past its own maximum (or
// YaRN's, where its publisher extends it) is no fix (Llama 3.1 8B asked for 1M
// tokens on an H100 was offered 439,776; it reads 131,072).
std::optional<Suggestion> context_suggestion(const Architecture& arch, const Estimator& estimate_fn, const Scenario& s) {
  auto solved = solve_max_context(estimate_fn, 0, s, context_cap_tokens(arch, s));
  if (!solved || solved.value().context_tokens <= 0 || solved.value().context_tokens >= s.context_tokens)
    return std::nullopt;
  Scenario chosen = s;
  chosen.context_tokens = solved.value().context_tokens;
  chosen.prompt_tokens = std::min(s.prompt_tokens, chosen.context_tokens);
  SuggestedChange change;
  change.ctx = chosen.context_tokens;
  return if_fits(estimate_fn, chosen, change, "context");
}

}  // namespace

std::optional<Suggestion> balanced_layer_split(const Architecture& arch, const Estimator& estimate_fn,
                                               const Scenario& scenario, const Estimate& estimate) {
  return layer_split_suggestion(arch, estimate_fn, scenario, estimate);
}

Result<Suggestion> balanced_placement(const Architecture& arch, const Estimator& estimate_fn, const Scenario& scenario) {
  auto e = estimate_fn(scenario);
  if (!e) return e.error();
  Suggestion out = suggestion_of(scenario, e.value(), SuggestedChange{}, "none");
  const bool equal_cards = scenario.gpu_count > 1 && scenario.cards.empty() && engine_is_llama_cpp_based(scenario.engine);
  if (!equal_cards || gpu_probe(e.value()).fits) return out;
  Scenario roomy = scenario;
  roomy.system_ram_bytes = std::int64_t{1} << 50;
  auto split = layer_split_suggestion(arch, estimate_fn, roomy, e.value());
  if (!split) return out;
  Scenario placed = scenario;
  placed.layers_per_gpu = split->scenario.layers_per_gpu;
  auto with_split = estimate_fn(placed);
  if (!with_split) return with_split.error();
  return suggestion_of(placed, with_split.value(), split->change, "none");
}

int quant_bits_class(const std::string& name) {
  for (const QuantRung& q : gguf_quality_ladder())
    if (name == q.name) return q.bits_class;
  return 4;  // checkpoint formats offered (BF16, FP8, AWQ) are 4 bits or more
}

const std::vector<QuantRung>& gguf_quality_ladder() {
  static const std::vector<QuantRung> ladder = {
      {"Q8_0", 8},   {"Q6_K", 6},   {"Q5_K_M", 5},  {"Q5_K_S", 5},  {"Q4_K_M", 4},  {"Q4_K_S", 4},  {"IQ4_XS", 4},
      {"Q3_K_L", 3}, {"IQ3_M", 3},  {"Q3_K_M", 3},  {"IQ3_S", 3},   {"IQ3_XS", 3},  {"Q3_K_S", 3},  {"IQ3_XXS", 3},
      {"Q2_K", 2},   {"IQ2_M", 2},  {"IQ2_S", 2},   {"IQ2_XS", 2},  {"IQ2_XXS", 2}, {"IQ1_M", 1},   {"IQ1_S", 1},
  };
  return ladder;
}

std::vector<std::string> checkpoint_quality_ladder(InferenceEngine engine) {
  std::vector<std::string> names = standard_quants(engine);
  // MLX runs its own 4- and 8-bit files, not GPTQ's.
  if (engine_uses_kv_pool(engine)) names.emplace_back("GPTQ-INT4");
  return names;
}

std::vector<Suggestion> suggest_fits(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                                     const Estimator& estimate_fn, const Startable& startable) {
  std::vector<Suggestion> out;
  if (!scenario.device || estimate.memory.fits.value_or(true)) return out;
  auto add = [&](std::optional<Suggestion> s) {
    if (s) out.push_back(std::move(*s));
  };
  add(layer_split_suggestion(arch, estimate_fn, scenario, estimate));
  add(gpu_limit_suggestion(estimate_fn, scenario, estimate));
  add(kv_suggestion(estimate_fn, scenario));
  QuantFixes quants = quant_suggestion(estimate_fn, startable, scenario, estimate);
  std::optional<Suggestion>& quant = quants.starts;
  const bool quant_keeps_class = quant && quant_bits_class(*quant->change.quant) >= std::min(4, quant_bits_class(scenario.quant.name));
  if (quant && quant_keeps_class) add(std::move(quant));
  if (engine_is_llama_cpp_based(scenario.engine)) add(offload_suggestions(arch, estimate_fn, scenario));
  if (quant && !quant_keeps_class) add(std::move(quant));
  add(context_suggestion(arch, estimate_fn, scenario));
  add(gpu_limit_context_suggestion(arch, estimate_fn, scenario, estimate));
  // One more card is a suggestion only for equal cards: of mixed ones, which?
  if (scenario.cards.empty()) add(count_suggestion(arch, estimate_fn, scenario));
  // Two changes together only where no one change makes it fit.
  if (out.empty()) add(quant_with_offload_suggestion(arch, estimate_fn, scenario, estimate));
  if (out.empty()) add(quant_with_context_suggestion(arch, estimate_fn, startable, scenario, estimate));
  // A quantization the engine cannot start (no checkpoint of it known): last,
  // and only where it starts no other.
  if (!quants.starts) add(std::move(quants.does_not_start));
  return out;
}

}  // namespace llmsizer
