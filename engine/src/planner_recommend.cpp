// Recommendations for one scenario: the cheapest hardware of each kind that
// holds it. Each question sorts its candidates by what it minimises and stops
// at the first that fits, so it costs as many estimates as candidates it rejects.
#include <algorithm>
#include <tuple>

#include "llmsizer/planner.hpp"

namespace llmsizer {
namespace {

bool is_unified(const Device& d) {
  return d.unified_memory || d.kind == DeviceKind::unified || d.kind == DeviceKind::apu;
}

// Whether the engine can spread the model over `count` of these devices.
// Macs and APUs are one box each; tensor parallel (vLLM, SGLang, TensorRT-LLM)
// splits attention heads, so the count must divide the query heads, and the KV
// heads must divide evenly or be replicated (vLLM's rule).
bool split_allowed(const Architecture& arch, const Device& d, InferenceEngine engine, int count) {
  if (count == 1) return true;
  if (is_unified(d) || d.kind == DeviceKind::cpu) return false;
  if (!engine_uses_kv_pool(engine)) return true;  // llama.cpp splits by layers
  for (const auto& layer : arch.layers) {
    const AttentionSpec& a = layer.attn;
    if (layer.is_mtp || a.n_heads <= 0) continue;
    if (a.n_heads % count != 0) return false;
    if (a.n_kv_heads > 0 && a.n_kv_heads % count != 0 && count % a.n_kv_heads != 0) return false;
    return true;
  }
  return true;
}

struct Candidate {
  const Device* device;
  int count;
};

class Trier {
 public:
  Trier(const Sizer& sizer, const SizedModel& model, const Scenario& scenario, const RecommendOptions& options,
        double min_tokens_per_s_per_user = 0.0)
      : sizer_(sizer), model_(model), scenario_(scenario), options_(options),
        min_tokens_per_s_per_user_(min_tokens_per_s_per_user) {}

  // The choice when `count` devices hold the scenario with the headroom asked
  // for and decode each sequence at the speed asked for.
  std::optional<HardwareChoice> fit(const Device& device, int count) const {
    if (!split_allowed(model_.arch(), device, scenario_.engine, count)) return std::nullopt;
    Scenario s = scenario_;
    s.device = device;
    s.gpu_count = count;
    auto e = sizer_.estimate(model_, s);
    if (!e || !e.value().memory.fits.value_or(false) || !e.value().memory.usable_bytes) return std::nullopt;
    const MemoryEstimate& m = e.value().memory;
    const double free_bytes = static_cast<double>(*m.usable_bytes - m.required_bytes);
    if (free_bytes < options_.min_headroom_fraction * static_cast<double>(*m.usable_bytes)) return std::nullopt;
    const std::optional<SpeedEstimate>& speed = e.value().speed;
    const double total = speed ? speed->decode_tokens_per_s_total : 0.0;
    const double per_user = total / static_cast<double>(std::max<std::int64_t>(s.sequences, 1));
    if (min_tokens_per_s_per_user_ > 0.0 && !(per_user >= min_tokens_per_s_per_user_)) return std::nullopt;
    HardwareChoice c;
    c.tokens_per_s_per_user = per_user;
    c.tokens_per_s_total = total;
    c.gpu = device.id;
    c.count = count;
    if (device.price_usd) c.price_usd = *device.price_usd * count;
    c.required_bytes = m.required_bytes;
    c.usable_bytes = *m.usable_bytes;
    return c;
  }

  // The first candidate, in the given order, that fits.
  template <typename Less>
  std::optional<HardwareChoice> first_fit(std::vector<Candidate> candidates, Less less) const {
    std::stable_sort(candidates.begin(), candidates.end(), less);
    for (const Candidate& c : candidates)
      if (auto choice = fit(*c.device, c.count)) return choice;
    return std::nullopt;
  }

  Scenario& scenario() { return scenario_; }

 private:
  const Sizer& sizer_;
  const SizedModel& model_;
  Scenario scenario_;
  const RecommendOptions& options_;
  double min_tokens_per_s_per_user_;
};

double total_price(const Candidate& c) { return *c.device->price_usd * c.count; }
double total_memory(const Candidate& c) { return static_cast<double>(c.device->memory_bytes) * c.count; }

std::optional<CloudChoice> cheapest_offer(const Sizer& sizer, const Trier& trier, std::vector<const CloudOffer*> offers) {
  std::stable_sort(offers.begin(), offers.end(),
                   [](const CloudOffer* a, const CloudOffer* b) { return a->usd_per_hour < b->usd_per_hour; });
  for (const CloudOffer* o : offers) {
    const Device* d = sizer.catalog().find_device(o->device_id);
    if (d == nullptr) continue;
    auto held = trier.fit(*d, o->device_count);
    if (!held) continue;
    return CloudChoice{o->provider,      o->instance, d->id, o->device_count, o->usd_per_hour, o->billing,
                      held->tokens_per_s_per_user, held->tokens_per_s_total};
  }
  return std::nullopt;
}

// Cheapest first; for a tie, fewer devices.
bool by_price(const Candidate& a, const Candidate& b) {
  return std::make_tuple(total_price(a), a.count) < std::make_tuple(total_price(b), b.count);
}

// Priced devices, 1 to max_gpus of each: what a buyer can choose from.
std::vector<Candidate> priced_multiples(const Catalog& catalog, int max_gpus) {
  std::vector<Candidate> out;
  for (const Device& d : catalog.devices)
    if (d.price_usd)
      for (int n = 1; n <= max_gpus; ++n) out.push_back({&d, n});
  return out;
}

struct OfferLists {
  std::vector<const CloudOffer*> on_demand, any;
};

OfferLists offer_lists(const std::vector<CloudOffer>& offers) {
  OfferLists lists;
  for (const CloudOffer& o : offers) {
    lists.any.push_back(&o);
    if (o.billing == "on-demand") lists.on_demand.push_back(&o);
  }
  return lists;
}

}  // namespace

std::vector<std::string> standard_quants(InferenceEngine engine) {
  if (engine_is_llama_cpp_based(engine)) return {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K"};
  if (engine == InferenceEngine::mlx) return {"MLX-8bit", "MLX-4bit"};
  return {"BF16-native", "FP8", "AWQ"};
}

Result<Recommendation> recommend(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                 const std::vector<CloudOffer>& offers, const RecommendOptions& options) {
  if (options.max_gpus < 1 || options.max_gpus > 64)
    return Error{"planner.bad_value", "max GPUs must be between 1 and 64"};
  Trier trier(sizer, model, scenario, options);
  const auto& devices = sizer.catalog().devices;
  std::vector<Candidate> multiples, priced_singles, unified;
  for (const Device& d : devices) {
    for (int n = 1; n <= options.max_gpus; ++n) multiples.push_back({&d, n});
    if (!d.price_usd) continue;
    priced_singles.push_back({&d, 1});
    if (is_unified(d)) unified.push_back({&d, 1});
  }
  Recommendation r;
  r.single = trier.first_fit(priced_singles, by_price);
  r.value = trier.first_fit(priced_multiples(sizer.catalog(), options.max_gpus), by_price);
  r.unified = trier.first_fit(unified, by_price);

  const OfferLists lists = offer_lists(offers);
  r.cloud = cheapest_offer(sizer, trier, lists.on_demand);
  r.cloud_any = cheapest_offer(sizer, trier, lists.any);

  // Smallest hardware per quantization: least total memory, then least price
  // (unpriced last), so the answer is the lightest machine that runs it.
  auto by_memory = [](const Candidate& a, const Candidate& b) {
    const double pa = a.device->price_usd ? total_price(a) : 1e300;
    const double pb = b.device->price_usd ? total_price(b) : 1e300;
    return std::make_tuple(total_memory(a), a.count, pa) < std::make_tuple(total_memory(b), b.count, pb);
  };
  for (const std::string& name : standard_quants(scenario.engine)) {
    auto quant = quant_scheme_from_name(name);
    if (!quant) return quant.error();
    Trier per(sizer, model, scenario, options);
    per.scenario().quant = quant.value();
    r.per_quant.push_back({name, per.first_fit(multiples, by_memory)});
  }

  const std::optional<HardwareChoice>& chosen = r.single ? r.single : r.value ? r.value : r.unified;
  if (chosen) {
    Scenario s = scenario;
    s.device = *sizer.catalog().find_device(chosen->gpu);
    s.gpu_count = chosen->count;
    auto solved = solve_max_context(sizer, model, s);
    if (!solved) return solved.error();
    r.max_ctx_gpu = chosen->gpu;
    r.max_ctx_gpu_count = chosen->count;
    r.max_ctx = solved.value().context_tokens;
  }
  return r;
}


Result<TargetPlan> plan_for_target(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                   const std::vector<CloudOffer>& offers, const ServingTarget& target,
                                   const RecommendOptions& options) {
  if (options.max_gpus < 1 || options.max_gpus > 64)
    return Error{"planner.bad_value", "max GPUs must be between 1 and 64"};
  if (target.users < 1 || target.users > 4096)
    return Error{"planner.bad_value", "concurrent users must be between 1 and 4096"};
  if (!(target.tokens_per_s_per_user > 0.0 && target.tokens_per_s_per_user <= 100000.0))
    return Error{"planner.bad_value", "tokens per second per user must be above 0 and at most 100000"};
  Scenario s = scenario;
  s.sequences = target.users;
  Trier trier(sizer, model, s, options, target.tokens_per_s_per_user);
  TargetPlan plan;
  plan.target = target;
  plan.buy = trier.first_fit(priced_multiples(sizer.catalog(), options.max_gpus), by_price);
  const OfferLists lists = offer_lists(offers);
  plan.rent = cheapest_offer(sizer, trier, lists.on_demand);
  plan.rent_any = cheapest_offer(sizer, trier, lists.any);
  return plan;
}

}  // namespace llmsizer
