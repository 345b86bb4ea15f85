// What can I run: every catalog model x standard quantization on given hardware,
// with MoE experts moved to system RAM when that is what makes it fit.
#include <algorithm>
#include <cmath>

#include "llmsizer/launch_commands.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/runtime_support.hpp"
#include "llmsizer/suggestions.hpp"
#include "planner_edge.hpp"
#include "planner_experts.hpp"

namespace llmsizer {
namespace {

// The longest context a model and quantization runs at on the hardware, and
// the placement it needs.
struct LongestContext {
  std::int64_t tokens = 0;
  Scenario scenario;               // at that context: the experts it keeps in RAM
  std::int64_t offload_bytes = 0;  // MoE experts in RAM at that context
};

// Where experts may live in RAM (an MoE under a llama.cpp-based engine, RAM
// given), a context longer than the row's own placement holds is reached by
// moving more of them there, as llama.cpp's --fit (or a larger --n-cpu-moe)
// does for a longer -c. Solving the context at the row's placement alone made
// a quantization that keeps more experts on the GPUs answer a shorter "largest
// context" than a larger one that had to move them (Qwen3-Coder-Next on a
// 24 GB card: Q5_K_M 9,728 tokens, Q6_K 26,624). The GPUs' room only grows
// with the experts moved and RAM's only shrinks: the context is solved with as
// many layers' experts in RAM as it holds, then the fewest that context needs
// are found, so the answer says what the longest context costs in RAM.
Result<LongestContext> longest_context(const Sizer& sizer, const SizedModel& model, const ExpertsFit& a,
                                       std::int64_t ram_bytes, int& estimates) {
  const Architecture& arch = model.arch();
  const Estimator estimate_fn = [&](const Scenario& sc) {
    ++estimates;
    return sizer.estimate(model, sc);
  };
  auto placed = [&](const Scenario& sc) { return balanced_placement(arch, estimate_fn, sc); };
  LongestContext out;
  out.scenario = a.scenario;
  out.offload_bytes = a.estimate->memory.offload_bytes;
  const int n = arch.decoder_layer_count();
  const bool experts_move = arch.is_moe() && ram_bytes > 0 && engine_is_llama_cpp_based(a.scenario.engine) && n > 0;
  const std::int64_t own_in_ram =
      a.scenario.offload_mode == OffloadMode::experts ? std::llround(a.scenario.offload_fraction * n) : 0;

  // The most layers' experts RAM holds at the requested context (the KV cache
  // stays on the GPUs; RAM's share grows only a little with the context, below).
  std::int64_t most_in_ram = own_in_ram;
  Scenario roomiest = a.scenario;
  if (experts_move && own_in_ram < n) {
    std::optional<Suggestion> most;
    auto in_ram = [&](std::int64_t k) -> Result<EdgeProbe> {
      auto p = placed(with_experts_in_ram(a.scenario, k, n));
      if (!p) return p.error();
      const EdgeProbe probe = ram_probe(p.value().estimate);
      if (probe.fits && (!most || k > most_in_ram)) {
        most_in_ram = k;
        most = std::move(p).value();
      }
      return probe;
    };
    auto all = in_ram(n);
    if (!all) return all.error();
    if (!all.value().fits) {
      auto edge = find_edge(own_in_ram, ram_probe(*a.estimate), n, all.value(), in_ram);
      if (!edge) return edge.error();
    }
    if (most) roomiest = most->scenario;
  }
  // RAM's own share grows a little with the context (host compute buffers),
  // so where RAM is nearly full at the most experts it holds, one layer's
  // experts fewer there can hold the longer context: the context is solved
  // down from the most in RAM while that gives a longer one (one layer's
  // experts are worth far more RAM than a context step, so this stops after
  // one or two solves).
  auto solve_at = [&](const Scenario& sc) -> Result<std::int64_t> {
    auto solved = solve_max_context(sizer, model, sc);
    if (!solved) return solved.error();
    estimates += solved.value().estimates;
    return solved.value().context_tokens;
  };
  auto best = solve_at(roomiest);
  if (!best) return best.error();
  out.tokens = best.value();
  std::int64_t found_in_ram = most_in_ram;  // the experts in RAM the longest context was solved with
  for (std::int64_t k = most_in_ram - 1; k >= own_in_ram; --k) {
    const Scenario fewer = k == own_in_ram ? a.scenario : with_experts_in_ram(roomiest, k, n);
    auto tokens = solve_at(fewer);
    if (!tokens) return tokens.error();
    if (tokens.value() <= out.tokens) break;
    out.tokens = tokens.value();
    found_in_ram = k;
  }
  if (found_in_ram == own_in_ram || out.tokens <= 0) return out;

  // The fewest layers' experts in RAM for that context: kept(j) leaves j
  // layers' experts on the GPUs; the row's own placement is the upper end.
  Scenario longest = a.scenario;
  longest.context_tokens = out.tokens;
  longest.prompt_tokens = std::min(a.scenario.prompt_tokens, out.tokens);
  KeptSearch<decltype(placed)> kept{placed, longest, n, edge_probe, std::nullopt, -1};
  auto own = kept(n - own_in_ram);
  if (!own) return own.error();
  if (!own.value().fits) {
    auto found = kept(n - found_in_ram);
    if (!found) return found.error();
    if (found.value().fits) {
      auto edge = find_edge(n - found_in_ram, found.value(), n - own_in_ram, own.value(), kept);
      if (!edge) return edge.error();
    }
  }
  if (kept.best) {
    out.scenario = kept.best->scenario;
    out.offload_bytes = kept.best->estimate.memory.offload_bytes;
  }
  return out;
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
  // The 4-bit checkpoint tried where AWQ does not start: GPTQ-INT4, for the
  // engines whose fix ladder has it (checkpoint_quality_ladder's rule).
  std::optional<QuantScheme> gptq;
  if (engine_uses_kv_pool(request.engine))
    if (auto g = quant_scheme_from_name("GPTQ-INT4")) gptq = g.value();
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
  // An AMD GPU whose ROCm build the engine does not list (vLLM on an MI100,
  // SGLang on a Radeon): its commands give none there, whatever is published,
  // so no row, and that is the reason given (not a missing checkpoint).
  for (const Device& d : request.cards.empty() ? std::vector<Device>{request.device} : request.cards) {
    const std::optional<std::string> unbuilt = request.engine == InferenceEngine::vllm     ? vllm_rocm_unlisted(d)
                                               : request.engine == InferenceEngine::sglang ? sglang_rocm_unbuilt(d)
                                                                                           : std::nullopt;
    if (unbuilt) {
      sweep.refused = *unbuilt;
      return sweep;
    }
  }

  // Experts may leave the GPU's share for the RAM given, or on one memory (a
  // Mac, a Strix Halo) for the CPU's share of it: there --n-cpu-moe moves
  // them out of the GPU's limit (macOS's wired limit, the GTT), and the
  // estimate checks the one pool, whatever RAM the request names.
  if (has_shared_pool(request.device)) sweep.unified_memory_bytes = request.device.memory_bytes;
  const std::int64_t offload_ram = request.ram_bytes > 0              ? request.ram_bytes
                                   : has_shared_pool(request.device) ? request.device.memory_bytes
                                                                      : 0;
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
      // A release of another catalog model in another format (GLM-4.5-FP8):
      // its GGUF, MLX or 16-bit build is that model's, listed under it.
      if (!entry.release_of.empty() && checkpoint_format(schemes[q]) != entry.native_dtype) continue;
      ExpertsFit a = fit_moving_experts(sizer, model, s, offload_ram, sweep.estimates);
      if (!a.estimate) break;
      // An answer is one the user can start: vLLM at AWQ for a model nobody
      // published an AWQ build of is not (a larger format may still be).
      // The 4-bit row is then the model's own 4-bit checkpoint (gpt-oss's
      // MXFP4, NVIDIA's NVFP4 releases), else GPTQ-INT4 where that starts
      // (Qwen publishes GPTQ-Int4 builds of models it has no AWQ of).
      QuantScheme quant = schemes[q];
      if (!engine_starts(model, a.scenario, *a.estimate)) {
        std::vector<QuantScheme> instead;
        if (quant.kind == SchemeKind::awq_int4) {
          const std::string& own = entry.native_dtype;
          if (!own.empty() && own != "bf16" && own != "fp16" && own != "fp8")
            if (auto native = quant_scheme_from_name("native")) instead.push_back(native.value());
          if (gptq) instead.push_back(*gptq);
        }
        bool found = false;
        for (const QuantScheme& other : instead) {
          Scenario g = s;
          g.quant = other;
          ExpertsFit b = fit_moving_experts(sizer, model, g, offload_ram, sweep.estimates);
          if (!b.estimate || !engine_starts(model, b.scenario, *b.estimate)) continue;
          a = std::move(b);
          quant = other;
          found = true;
          break;
        }
        if (!found) {
          ++sweep.left_out_no_checkpoint;
          continue;
        }
      }
      FitResult r;
      r.model = model.label;
      r.quant = quant.name;
      r.quant_rank = static_cast<int>(q);
      r.format = quant.kind == SchemeKind::native ? entry.native_dtype : checkpoint_format(quant);
      r.native_format = entry.native_dtype;
      r.own_format = !quant.is_gguf() && !entry.native_dtype.empty() && r.format == entry.native_dtype;
      r.uses = entry.uses;
      r.params_total = params_total;
      r.params_active = params_active > 0 ? params_active : params_total;
      r.dense_equivalent_params = std::sqrt(static_cast<double>(params_total) * static_cast<double>(r.params_active));
      r.low_bit_tier = low_bit_tier(quant);
      // Without the model's own maximum, a context above the one asked (which
      // fits) would be a number the model may never have been trained for.
      r.max_ctx = request.context_tokens;
      r.max_ctx_known = ctx_known;
      r.max_ctx_offload_bytes = a.estimate->memory.offload_bytes;
      r.max_ctx_offload_fraction = a.scenario.offload_fraction;
      if (ctx_known) {
        auto longest = longest_context(sizer, model, a, offload_ram, sweep.estimates);
        if (longest) {
          r.max_ctx = longest.value().tokens;
          r.max_ctx_offload_bytes = longest.value().offload_bytes;
          r.max_ctx_offload_fraction = longest.value().scenario.offload_fraction;
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
