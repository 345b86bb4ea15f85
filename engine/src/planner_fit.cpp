// What can I run: every catalog model x standard quantization on given hardware,
// with MoE experts moved to system RAM when that is what makes it fit.
#include <algorithm>
#include <cmath>

#include "llmsizer/planner.hpp"
#include "llmsizer/runtime_support.hpp"
#include "llmsizer/suggestions.hpp"
#include "planner_edge.hpp"

namespace llmsizer {
namespace {

struct Attempt {
  std::optional<Estimate> estimate;  // the fitting estimate at the requested context
  Scenario scenario;                 // with the offload that made it fit
};

// Fits at the requested context, first all on the GPUs, then (MoE under a
// llama.cpp-based engine, RAM given) with the experts of the fewest leading
// layers in RAM: fits(k layers' experts in RAM) only improves with k, so the
// edge search (planner_edge.hpp) over the layers kept whole on the GPUs finds
// the least k; RAM must then hold them and the host buffers.
// Equal cards split as llama.cpp does by default; where one is over and
// another has room, the layers split to balance them (a --tensor-split, as the
// fix suggestions give it) count as fitting too.
Attempt try_fit(const Sizer& sizer, const SizedModel& model, Scenario s, std::int64_t ram_bytes, int& estimates) {
  Attempt a;
  s.offload_fraction = 0.0;
  a.scenario = s;
  const Architecture& arch = model.arch();
  const Estimator estimate_fn = [&](const Scenario& sc) {
    ++estimates;
    return sizer.estimate(model, sc);
  };
  const bool rebalance = s.gpu_count > 1 && s.cards.empty() && engine_is_llama_cpp_based(s.engine);
  // The estimate of sc, or of sc with its layers balanced where that fits and the default split does not.
  auto placed = [&](const Scenario& sc) -> Result<Suggestion> {
    auto e = estimate_fn(sc);
    if (!e) return e.error();
    Suggestion out;
    out.scenario = sc;
    if (rebalance && !gpu_probe(e.value()).fits) {
      // The split is the GPUs' question: asked with RAM out of the way (the
      // per-GPU bytes do not depend on it), then estimated with the real RAM.
      Scenario roomy = sc;
      roomy.system_ram_bytes = std::int64_t{1} << 50;
      if (auto split = balanced_layer_split(arch, estimate_fn, roomy, e.value())) {
        out.scenario.layers_per_gpu = split->scenario.layers_per_gpu;
        e = estimate_fn(out.scenario);
        if (!e) return e.error();
      }
    }
    out.estimate = std::move(e).value();
    return out;
  };
  auto whole = placed(s);
  if (!whole) return a;
  if (whole.value().estimate.memory.fits.value_or(false)) {
    a.scenario = whole.value().scenario;
    a.estimate = std::move(whole.value().estimate);
    return a;
  }
  if (!arch.is_moe() || ram_bytes <= 0 || !engine_is_llama_cpp_based(s.engine)) return a;
  const int n = arch.decoder_layer_count();
  if (n <= 0) return a;
  s.offload_mode = OffloadMode::experts;
  auto with_experts_in_ram = [&](std::int64_t k) {
    Scenario sc = s;
    sc.offload_fraction = static_cast<double>(k) / n;
    return sc;
  };
  // kept(j): the scenario with j layers' experts left on the GPUs; the best
  // fitting estimate (most kept) is remembered, so the answer needs no rerun.
  // The search is on the GPUs' verdict, which only improves as experts leave
  // (RAM's only worsens): RAM is checked once, at the edge, as the fix
  // suggestions do. Requiring every expert in RAM to fit first (the search's
  // far end) left out models whose experts together exceed the RAM while the
  // few that must leave fit in it.
  std::optional<Suggestion> best;
  std::int64_t best_kept = -1;
  auto kept = [&](std::int64_t j) -> Result<EdgeProbe> {
    auto p = placed(with_experts_in_ram(n - j));
    if (!p) return p.error();
    const EdgeProbe probe = gpu_probe(p.value().estimate);
    if (probe.fits && j > best_kept) {
      best_kept = j;
      best = std::move(p).value();
    }
    return probe;
  };
  auto all_in_ram = kept(0);
  if (!all_in_ram || !all_in_ram.value().fits) return a;
  auto edge = find_edge(0, all_in_ram.value(), n, gpu_probe(whole.value().estimate), kept);
  // The balanced split's placement is greedy, so a probe past the edge may fit
  // too: the most experts kept on the GPUs among the probes that fit is the answer.
  if (!edge || best_kept < edge.value()) return a;
  // The estimate's RAM check: what stays in RAM within what the OS leaves.
  if (!best->estimate.memory.ram_fits || !best->estimate.memory.fits.value_or(false)) return a;
  a.estimate = std::move(best->estimate);
  a.scenario = best->scenario;
  return a;
}

// The checkpoint format a non-GGUF quantization names, lower case.
std::string checkpoint_format(const QuantScheme& q) {
  if (q.is_gguf()) return "gguf";
  std::string name = q.name;
  if (name.rfind("MLX", 0) == 0) return "mlx";
  if (const auto dash = name.find("-native"); dash != std::string::npos) name.erase(dash);
  if (name.rfind("GPTQ", 0) == 0) name = "GPTQ";
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return name;
}

// How far below 4 bits a quantization's weights are (0: 4 bits or more, 1:
// 3-bit, 2: 2-bit, 3: 1-bit), by the bits class the fix suggestions rank by.
int low_bit_tier(const QuantScheme& q) { return std::max(0, 4 - quant_bits_class(q.name)); }

}  // namespace

const char* fit_rank_name(FitRank rank) {
  switch (rank) {
    case FitRank::speed: return "speed";
    case FitRank::context: return "context";
    case FitRank::quality: break;
  }
  return "quality";
}

std::optional<FitRank> fit_rank_from_name(std::string_view name) {
  if (name == "quality") return FitRank::quality;
  if (name == "speed") return FitRank::speed;
  if (name == "context") return FitRank::context;
  return std::nullopt;
}

bool is_use_tag(std::string_view tag) {
  return tag == "coding" || tag == "reasoning" || tag == "chat" || tag == "vision";
}

FitSweep what_fits(const Sizer& sizer, const FitRequest& request) {
  FitSweep sweep;
  sweep.rank = request.rank;
  sweep.use = request.use;
  sweep.kv_type = default_kv_type(request.engine);
  sweep.min_tokens_per_s = request.min_tokens_per_s;
  const std::vector<std::string> quants = standard_quants(request.engine);
  std::vector<QuantScheme> schemes;
  for (const auto& name : quants) {
    auto q = quant_scheme_from_name(name);
    if (q) schemes.push_back(q.value());
  }
  Scenario base;
  base.device = request.device;
  base.gpu_count = request.gpu_count;
  base.cards = request.cards;
  base.machine_factors = request.machine_factors;
  base.engine = request.engine;
  base.kv_type = default_kv_type(request.engine);
  base.context_tokens = request.context_tokens;
  base.prompt_tokens = std::min<std::int64_t>(base.prompt_tokens, request.context_tokens);
  // The RAM given is the host's (0: no offload, the default RAM for host buffers).
  if (request.ram_bytes > 0) base.system_ram_bytes = request.ram_bytes;
  // A quantization the engine cannot run here is skipped; when none can, the sweep says why.
  std::vector<bool> runs(schemes.size(), true);
  std::size_t running = 0;
  for (std::size_t q = 0; q < schemes.size(); ++q) {
    Scenario s = base;
    s.quant = schemes[q];
    Architecture plain;  // the engine and device decide here; a checkpoint's own format is per model below
    if (auto why = runtime_unsupported(plain, s)) {
      runs[q] = false;
      sweep.refused = *why;
    }
    running += runs[q] ? 1 : 0;
  }
  if (running > 0) sweep.refused.clear();
  else return sweep;

  const Catalog& catalog = sizer.catalog();
  for (std::size_t i = 0; i < catalog.models.size(); ++i) {
    const Result<Architecture>& arch = sizer.catalog_architecture(i);
    if (!arch) continue;
    const CatalogModel& entry = catalog.models[i];
    if (!request.use.empty() &&
        std::find(entry.uses.begin(), entry.uses.end(), request.use) == entry.uses.end())
      continue;
    const bool ctx_known = arch.value().max_context_tokens > 0;
    const std::int64_t params_total = sizer.model_facts(i).params_total;
    const std::int64_t params_active = sizer.model_facts(i).params_active;
    // A model trained for fewer positions than asked does not answer the question.
    if (arch.value().max_context_tokens > 0 && arch.value().max_context_tokens < request.context_tokens) continue;
    SizedModel model;
    model.entry = &catalog.models[i];
    model.architecture = &arch.value();
    model.label = catalog.models[i].id;
    // Smallest quantization first: a model that does not fit at the smallest
    // does not fit at any larger one (same context, more bytes of weights), so
    // the catalog's giants cost one attempt instead of six.
    for (std::size_t q = schemes.size(); q-- > 0;) {
      Scenario s = base;
      s.quant = schemes[q];
      if (!runs[q] || runtime_unsupported(arch.value(), s)) continue;
      Attempt a = try_fit(sizer, model, s, request.ram_bytes, sweep.estimates);
      if (!a.estimate) break;
      FitResult r;
      r.model = model.label;
      r.quant = schemes[q].name;
      r.quant_rank = static_cast<int>(q);
      r.format = checkpoint_format(schemes[q]);
      r.native_format = entry.native_dtype;
      r.own_format = !schemes[q].is_gguf() && !entry.native_dtype.empty() && r.format == entry.native_dtype;
      r.uses = entry.uses;
      r.params_total = params_total;
      r.params_active = params_active > 0 ? params_active : params_total;
      r.dense_equivalent_params = std::sqrt(static_cast<double>(params_total) * static_cast<double>(r.params_active));
      r.low_bit_tier = low_bit_tier(schemes[q]);
      // Without the model's own maximum, a context above the one asked (which
      // fits) would be a number the model may never have been trained for.
      r.max_ctx = request.context_tokens;
      r.max_ctx_known = ctx_known;
      if (ctx_known) {
        auto solved = solve_max_context(sizer, model, a.scenario);
        if (solved) {
          sweep.estimates += solved.value().estimates;
          r.max_ctx = solved.value().context_tokens;
        }
      }
      r.decode_tokens_per_s = a.estimate->speed ? a.estimate->speed->decode_tokens_per_s : 0.0;
      r.usable_speed = reaches_usable_speed(r.decode_tokens_per_s, request.min_tokens_per_s);
      r.offload_bytes = a.estimate->memory.offload_bytes;
      r.offloaded_layers = a.estimate->memory.offloaded_layers;
      r.offload_fraction = a.scenario.offload_fraction;
      r.layer_split = a.scenario.layers_per_gpu;
      r.required_bytes = a.estimate->memory.required_bytes;
      sweep.results.push_back(std::move(r));
    }
  }
  // The request's order (FitRank); stable, so catalog order breaks the last ties.
  const auto better_quant = [](const FitResult& a, const FitResult& b) {
    if (a.quant_rank != b.quant_rank) return a.quant_rank < b.quant_rank;
    return a.decode_tokens_per_s > b.decode_tokens_per_s;
  };
  std::stable_sort(sweep.results.begin(), sweep.results.end(), [&](const FitResult& a, const FitResult& b) {
    switch (request.rank) {
      case FitRank::quality:
        // The best model that runs at a usable speed: usable rows first; then
        // 4 bits and up before 3 and 2 bits (a newer, larger model at a sane
        // quantization beats an old one squeezed to 2-3 bits); then the larger
        // dense equivalent (an MoE's sqrt(total x active)).
        if (a.usable_speed != b.usable_speed) return a.usable_speed;
        if (a.low_bit_tier != b.low_bit_tier) return a.low_bit_tier < b.low_bit_tier;
        if (a.dense_equivalent_params != b.dense_equivalent_params)
          return a.dense_equivalent_params > b.dense_equivalent_params;
        if (a.model != b.model) return a.model < b.model;  // same size: by id, each model's rows together
        break;
      case FitRank::speed:
        if (a.decode_tokens_per_s != b.decode_tokens_per_s) return a.decode_tokens_per_s > b.decode_tokens_per_s;
        break;
      case FitRank::context:
        if (a.max_ctx_known != b.max_ctx_known) return a.max_ctx_known;
        if (a.max_ctx != b.max_ctx) return a.max_ctx > b.max_ctx;
        break;
    }
    return better_quant(a, b);
  });
  return sweep;
}

}  // namespace llmsizer
