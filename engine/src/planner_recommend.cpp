// Recommendations for one scenario: the cheapest hardware of each kind that
// holds it. Each question sorts its candidates by what it minimises and stops
// at the first that fits, so it costs as many estimates as candidates it
// rejects. "Fits" is the estimate's own verdict, the one the page shows.
#include <algorithm>
#include <tuple>

#include "llmsizer/launch_commands.hpp"
#include "llmsizer/planner.hpp"
#include "planner_experts.hpp"
#include "planner_rules.hpp"

namespace llmsizer {
namespace {

struct Candidate {
  const Device* device;
  int count;
  int servers = 1;  // machines alike the count is spread over (HardwareChoice::servers)
};

// The price of `count` devices as a buyer pays it: whole servers where the
// catalog has a sourced server price and count fills them, else count times
// the device's figure.
std::optional<PriceInfo> price_of(const Device& d, int count) {
  if (bought_as_servers(d, count)) {
    PriceInfo p;
    p.usd = purchase_usd(d, count).value();
    p.kind = "server_system";
    p.as_of = d.server_price_as_of;
    p.machine = (count / d.server_gpus > 1 ? std::to_string(count / d.server_gpus) + " x " : std::string()) + d.server_name;
    return p;
  }
  if (!d.price_usd) return std::nullopt;
  PriceInfo p;
  // Modules sold only on baseboards: the boards that hold count are what one
  // pays for (one 8-GPU board for a single MI355X), said with the figure.
  // Whole cards: one GPU of a two-GPU card costs the card.
  int paid = (count + d.package_gpus - 1) / d.package_gpus * d.package_gpus;
  if (!d.server_board_gpus.empty() &&
      std::find(d.server_board_gpus.begin(), d.server_board_gpus.end(), count) == d.server_board_gpus.end()) {
    const int largest = *std::max_element(d.server_board_gpus.begin(), d.server_board_gpus.end());
    int board = largest;
    for (int n : d.server_board_gpus)
      if (n >= count && n < board) board = n;
    paid = count <= largest ? board : (count + largest - 1) / largest * largest;
    p.board_gpus = board;
  }
  p.usd = *d.price_usd * paid;
  count = paid;
  p.kind = d.price_kind;
  p.as_of = d.price_as_of;
  if (d.price_low_usd) p.low_usd = *d.price_low_usd * count;
  if (d.price_high_usd) p.high_usd = *d.price_high_usd * count;
  p.machine = d.price_machine;
  p.server_board = !d.server_board_gpus.empty();
  p.low_confidence = d.price_low_confidence;
  p.sold_new_until = d.sold_new_until;
  if (d.launch_price_usd) p.launch_usd = *d.launch_price_usd * count;
  return p;
}

// Whether a count of devices may run copies of the model side by side, each
// with a share of the users (a served load), or only one copy over them all.
enum class Copies { one, several };

class Trier {
 public:
  // min_tokens_per_s_per_user: a speed each sequence must reach; `usable`:
  // the usable speed's line (reaches_usable_speed), else the exact target.
  Trier(const Sizer& sizer, const SizedModel& model, const Scenario& scenario, double min_tokens_per_s_per_user = 0.0,
        bool usable = false)
      : sizer_(sizer), model_(model), scenario_(scenario), min_tokens_per_s_per_user_(min_tokens_per_s_per_user),
        usable_(usable) {}

  // The choice when `count` devices hold the scenario and, when asked, decode
  // each sequence at the speed asked for. With `copies` above 1 the devices
  // run that many copies of the model side by side, each on count / copies
  // of them with its share of the sequences (rounded up): how a served load
  // grows past what one copy decodes (vLLM's --data-parallel-size,
  // docs.vllm.ai/en/latest/serving/data_parallel_deployment; SGLang's --dp,
  // docs.sglang.io/docs/advanced_features/server_arguments; a llama-server per
  // card behind a load balancer).
  // With `servers` above 1 the count is that many machines alike, each
  // running the same copies on its own devices (no copy spans two).
  std::optional<HardwareChoice> fit(const Device& device, int count, int copies = 1, int servers = 1) const {
    const int per_copy = count / copies;
    if (copies < 1 || count % copies != 0 || per_copy % std::max(device.package_gpus, 1) != 0) return std::nullopt;
    if (servers < 1 || count % servers != 0 || copies % servers != 0 || (count / servers) % per_copy != 0) return std::nullopt;
    if (!split_allowed(model_.arch(), device, scenario_.engine, per_copy)) return std::nullopt;
    Scenario s = scenario_;
    move_to_device(s, device);
    s.gpu_count = per_copy;
    const std::int64_t sequences = std::max<std::int64_t>(scenario_.sequences, 1);
    s.sequences = (sequences + copies - 1) / copies;
    auto e = sizer_.estimate(model_, s);
    // One machine of one memory (a Mac, a Strix Halo, a DGX Spark) need not
    // hold an MoE model within its GPU's limit: the experts of some layers sit
    // in the CPU's share of the same memory (--n-cpu-moe), as "what can I run"
    // places them, the estimate checking the whole pool. A 16 GB Mac runs
    // gpt-oss-20b so (ml-explore/mlx-lm#644).
    if (e && !e.value().memory.fits.value_or(false) && per_copy == 1 && servers == 1 && has_shared_pool(device)) {
      int estimates = 0;
      ExpertsFit moved = fit_moving_experts(sizer_, model_, s, device.memory_bytes, estimates);
      if (moved.estimate) {
        s = moved.scenario;
        e = std::move(*moved.estimate);
      }
    }
    if (!e || !e.value().memory.fits.value_or(false) || !e.value().memory.usable_bytes) return std::nullopt;
    const MemoryEstimate& m = e.value().memory;
    HardwareChoice c;
    c.gpu = device.id;
    c.name = device.name;
    c.count = count;
    c.copies = copies;
    c.sequences_per_copy = s.sequences;
    c.servers = servers;
    c.machines = networked_machines(s);
    c.price = price_of(device, count);
    c.required_bytes = m.required_bytes;
    c.usable_bytes = *m.usable_bytes;
    c.utilization = m.utilization.value_or(0.0);
    if (s.offload_mode == OffloadMode::experts && m.offloaded_layers > 0) {
      c.experts_in_ram_layers = m.offloaded_layers;
      c.offload_bytes = m.offload_bytes;
    }
    const std::optional<SpeedEstimate>& speed = e.value().speed;
    if (speed && speed->served) {
      // Users sending requests (Scenario::output_tokens): the served figures,
      // with prompts arriving among the decoding and the first token's wait.
      c.tokens_per_s_total = speed->served->output_tokens_per_s;
      c.tokens_per_s_per_user = speed->served->tokens_per_s_per_user;
      c.ttft_s = speed->served->ttft_s;
      if (speed->prefill_tokens_per_s > 0.0) c.prefill_tokens_per_s = speed->prefill_tokens_per_s;
    } else {
      if (speed && device.bandwidth_bytes_per_s > 0.0 && speed->decode_tokens_per_s_total > 0.0) {
        c.tokens_per_s_total = speed->decode_tokens_per_s_total;
        c.tokens_per_s_per_user = speed->decode_tokens_per_s_total / static_cast<double>(std::max<std::int64_t>(s.sequences, 1));
      }
      if (speed && speed->prefill_tokens_per_s > 0.0) {
        c.prefill_tokens_per_s = speed->prefill_tokens_per_s;
        c.ttft_s = speed->ttft_s;
      }
    }
    if (min_tokens_per_s_per_user_ > 0.0) {
      const double per_user = c.tokens_per_s_per_user.value_or(0.0);
      if (usable_ ? !reaches_usable_speed(per_user, min_tokens_per_s_per_user_) : per_user < min_tokens_per_s_per_user_)
        return std::nullopt;
      // Users served at a speed are users running at once: where the KV pool
      // holds fewer, the rest queue for their first token (4 x RTX 4090 D had
      // answered "10 users at 20 tok/s" with 7 running, 3 waiting).
      if (speed && speed->served && speed->served->admitted_concurrency < speed->served->concurrency) return std::nullopt;
    }
    // Every copy's users at the slowest copy's speed (the one given the rounded-up share).
    if (copies > 1 && c.tokens_per_s_per_user)
      c.tokens_per_s_total = *c.tokens_per_s_per_user * static_cast<double>(sequences);
    return c;
  }

  // `count` devices as one copy of the model or as several side by side,
  // whichever layout reaches the speed asked with the fastest speed per
  // sequence (at a tie, fewer copies): the price is the same.
  // Over `servers` machines alike, every machine runs the same number of copies.
  std::optional<HardwareChoice> fit_copies(const Device& device, int count, int servers = 1) const {
    std::optional<HardwareChoice> best;
    for (int copies = servers; copies <= count && copies <= std::max<std::int64_t>(scenario_.sequences, 1);
         copies += servers) {
      auto c = fit(device, count, copies, servers);
      if (!c || !c->tokens_per_s_per_user) continue;
      if (!best || *c->tokens_per_s_per_user > *best->tokens_per_s_per_user) best = std::move(c);
    }
    return best;
  }

  // The first candidate, in the given order, that fits and has a speed to
  // show; with `copies`, as one copy of the model or several (fit_copies).
  template <typename Less>
  std::optional<HardwareChoice> first_fit(std::vector<Candidate> candidates, Less less, Copies copies = Copies::one) const {
    std::stable_sort(candidates.begin(), candidates.end(), less);
    for (const Candidate& c : candidates)
      if (auto choice = copies == Copies::several ? fit_copies(*c.device, c.count, c.servers) : fit(*c.device, c.count);
          choice && choice->tokens_per_s_per_user)
        return choice;
    return std::nullopt;
  }

  Scenario& scenario() { return scenario_; }

 private:
  const Sizer& sizer_;
  const SizedModel& model_;
  Scenario scenario_;
  double min_tokens_per_s_per_user_;
  bool usable_;
};

double total_price(const Candidate& c) { return price_of(*c.device, c.count)->usd; }
double total_memory(const Candidate& c) { return static_cast<double>(c.device->memory_bytes) * c.count; }

int max_count(const Device& d, int max_gpus) {
  if (is_unified(d) || d.kind == DeviceKind::cpu) return 1;
  return max_gpus > 0 ? max_gpus : practical_device_count(d);
}

// The counts a buyer can buy at the catalog's price: none when the price is
// unknown or one the reference calls weak; a module (SXM, OAM) only as the
// baseboards it comes on; a card or a machine one at a time up to the cap.
std::vector<int> buyable_counts(const Device& d, int max_gpus) {
  const int cap = max_count(d, max_gpus);
  std::vector<int> counts;
  // A sourced whole server: that is what one buys.
  if (d.server_price_usd && d.server_gpus > 0) {
    if (d.server_gpus <= cap) counts.push_back(d.server_gpus);
    return counts;
  }
  if (!d.price_usd || d.price_low_confidence) return {};
  if (!d.server_board_gpus.empty()) {
    for (int n : d.server_board_gpus)
      if (n <= cap) counts.push_back(n);
    return counts;
  }
  // A card of several GPUs (an Atlas 300I Duo's two 310Ps) comes whole.
  for (int n = d.package_gpus; n <= cap; n += d.package_gpus) counts.push_back(n);
  return counts;
}

// The users plan's copies may run on several machines alike, bought or rented
// (held to one machine, 100 users of Llama 3.1 8B FP8 at 40 tok/s under vLLM
// were two H100 NVLs at $70,000; two one-GPU instances rent for $2.98/h):
// each copy within one machine, every machine the same. Up to this many; a
// buyer's extra computers are unpriced, said with the answer.
constexpr int kMaxServers = 4;

// With `copies`, an instance's GPUs may run several copies of the model
// (fit_copies), and with Copies::several up to kMaxServers instances of an
// offer side by side.
std::optional<CloudChoice> cheapest_offer(const Sizer& sizer, const Trier& trier, const std::vector<const CloudOffer*>& offers,
                                          Copies copies = Copies::one) {
  struct Rental {
    const CloudOffer* offer;
    int instances;
    double usd_per_hour() const { return offer->usd_per_hour * instances; }
  };
  std::vector<Rental> rentals;
  for (const CloudOffer* o : offers)
    for (int n = 1; n <= (copies == Copies::several ? kMaxServers : 1); ++n) rentals.push_back({o, n});
  // Cheapest first; at one price, fewer GPUs.
  std::stable_sort(rentals.begin(), rentals.end(), [](const Rental& a, const Rental& b) {
    return std::make_tuple(a.usd_per_hour(), a.offer->device_count * a.instances) <
           std::make_tuple(b.usd_per_hour(), b.offer->device_count * b.instances);
  });
  for (const Rental& r : rentals) {
    const CloudOffer* o = r.offer;
    const Device* d = sizer.catalog().find_device(o->device_id);
    if (d == nullptr) continue;
    const int count = o->device_count * r.instances;
    auto held = copies == Copies::several ? trier.fit_copies(*d, count, r.instances) : trier.fit(*d, count);
    if (!held || !held->tokens_per_s_per_user) continue;
    CloudChoice c;
    c.provider = o->provider;
    c.instance = o->instance;
    c.gpu = d->id;
    c.name = d->name;
    c.count = count;
    c.copies = held->copies;
    c.sequences_per_copy = held->sequences_per_copy;
    c.instances = r.instances;
    c.usd_per_hour = r.usd_per_hour();
    c.billing = o->billing;
    c.required_bytes = held->required_bytes;
    c.usable_bytes = held->usable_bytes;
    c.utilization = held->utilization;
    c.tokens_per_s_per_user = *held->tokens_per_s_per_user;
    c.tokens_per_s_total = *held->tokens_per_s_total;
    c.prefill_tokens_per_s = held->prefill_tokens_per_s;
    c.ttft_s = held->ttft_s;
    // USD per million tokens = hourly price / (tokens per second x 3600) x 10^6 (DESIGN.md, Cost).
    if (c.tokens_per_s_per_user > 0.0) c.usd_per_million_tokens = c.usd_per_hour / (c.tokens_per_s_per_user * 3600.0) * 1e6;
    return c;
  }
  return std::nullopt;
}

// Cheapest first; for a tie, fewer devices.
bool by_price(const Candidate& a, const Candidate& b) {
  return std::make_tuple(total_price(a), a.count) < std::make_tuple(total_price(b), b.count);
}

// What a buyer can choose from: each device at the counts it is sold in, from
// `min_count` cards up (a two-GPU card counts once).
std::vector<Candidate> priced_multiples(const Catalog& catalog, int min_count, int max_gpus) {
  std::vector<Candidate> out;
  for (const Device& d : catalog.devices)
    for (int n : buyable_counts(d, max_gpus))
      if (n >= min_count * d.package_gpus) out.push_back({&d, n});
  return out;
}

// The same machines two to kMaxServers times over: each the largest count
// one machine is bought with, every one running the same copies.
std::vector<Candidate> priced_servers(const Catalog& catalog, int max_gpus) {
  std::vector<Candidate> out;
  for (const Device& d : catalog.devices) {
    const std::vector<int> counts = buyable_counts(d, max_gpus);
    if (counts.empty()) continue;
    for (int servers = 2; servers <= kMaxServers; ++servers) out.push_back({&d, counts.back() * servers, servers});
  }
  return out;
}

// Every rentable instance (per-GPU offers at each size the provider rents),
// and those billed on demand.
struct OfferLists {
  std::vector<CloudOffer> instances;
  std::vector<const CloudOffer*> on_demand, any;
};

OfferLists offer_lists(const std::vector<CloudOffer>& offers) {
  OfferLists lists;
  lists.instances = rentable_instances(offers);
  for (const CloudOffer& o : lists.instances) {
    lists.any.push_back(&o);
    if (o.billing == "on-demand") lists.on_demand.push_back(&o);
  }
  return lists;
}

Error bad_max_gpus() { return Error{"planner.bad_value", "max GPUs must be between 0 (practical counts) and 64"}; }

}  // namespace

std::vector<std::string> standard_quants(InferenceEngine engine) {
  if (engine_is_llama_cpp_based(engine)) return {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K"};
  if (engine == InferenceEngine::mlx) return {"MLX-8bit", "MLX-4bit"};
  return {"BF16-native", "FP8", "AWQ"};
}

Result<Recommendation> recommend(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                 const std::vector<CloudOffer>& offers, const RecommendOptions& options) {
  if (options.max_gpus < 0 || options.max_gpus > 64) return bad_max_gpus();
  Trier trier(sizer, model, scenario);
  const Catalog& catalog = sizer.catalog();
  std::vector<Candidate> multiples, priced_singles, unified, networked, macs;
  for (const Device& d : catalog.devices) {
    for (int n = 1; n <= max_count(d, options.max_gpus); ++n) multiples.push_back({&d, n});
    const std::vector<int> counts = buyable_counts(d, options.max_gpus);
    // One card (a two-GPU card is one device to its buyer), sold alone.
    if (counts.empty() || counts.front() != d.package_gpus) continue;
    priced_singles.push_back({&d, d.package_gpus});
    // One machine; several over llama.cpp's RPC are tried apart (below).
    if (is_unified(d)) {
      unified.push_back({&d, 1});
      for (int n = 2; n <= networked_machine_limit(d, scenario.engine); ++n) networked.push_back({&d, n});
    }
    if (d.vendor == "apple") macs.push_back({&d, 1});
  }
  Recommendation r;
  r.max_gpus = options.max_gpus;
  r.min_tokens_per_s = options.min_tokens_per_s;
  // The cheapest of each kind at the usable speed, else the cheapest that holds it.
  const Trier usable(sizer, model, scenario, options.min_tokens_per_s, true);
  const auto cheapest = [&](const std::vector<Candidate>& candidates) {
    std::optional<HardwareChoice> c = usable.first_fit(candidates, by_price);
    if (!c && (c = trier.first_fit(candidates, by_price))) c->below_usable_speed = true;
    return c;
  };
  r.single = cheapest(priced_singles);
  r.value = cheapest(priced_multiples(catalog, 2, options.max_gpus));
  // Several machines on a network (two 128 GB Strix Halos for a 235B MoE) only
  // where no one machine holds it: each boundary costs every token a network
  // hop, and nobody networks two laptops for what one desktop holds.
  r.unified = cheapest(unified);
  if (!r.unified) r.unified = cheapest(networked);
  // "Can I run it on a Mac?" asks whether one holds it: the cheapest that does,
  // marked where it decodes below the usable speed (the unified answer then
  // names the machine that reaches it).
  r.mac = trier.first_fit(macs, by_price);
  if (r.mac) r.mac->below_usable_speed = !reaches_usable_speed(r.mac->tokens_per_s_per_user.value_or(0.0), options.min_tokens_per_s);
  // Several cards are the value answer only when no single device that holds
  // it as well costs as little: two small cards never beat one card at their
  // price (a single device below the usable speed does not beat a set above it).
  if (r.value && r.single && r.single->price && r.value->price && r.single->price->usd <= r.value->price->usd &&
      (r.value->below_usable_speed || !r.single->below_usable_speed)) {
    r.value.reset();
    r.value_beaten_by_single = true;
  }

  const OfferLists lists = offer_lists(offers);
  const auto cheapest_rent = [&](const std::vector<const CloudOffer*>& list) {
    std::optional<CloudChoice> c = cheapest_offer(sizer, usable, list);
    if (!c && (c = cheapest_offer(sizer, trier, list))) c->below_usable_speed = true;
    return c;
  };
  r.cloud = cheapest_rent(lists.on_demand);
  r.cloud_any = cheapest_rent(lists.any);

  // Devices that hold it alone with no price to rank them by, the smallest
  // first: none sourced, or one the catalog doubts (a Mac no longer sold new,
  // at a used asking price); a reader who owns or can source one must see it,
  // with the doubted price where there is one.
  std::vector<const Device*> unpriced;
  for (const Device& d : catalog.devices)
    if ((!d.price_usd && !d.server_price_usd) || (d.price_usd && d.price_low_confidence && !d.server_price_usd))
      unpriced.push_back(&d);
  std::stable_sort(unpriced.begin(), unpriced.end(),
                   [](const Device* a, const Device* b) { return a->memory_bytes < b->memory_bytes; });
  for (const Device* d : unpriced) {
    if (r.unpriced.size() >= options.unpriced_listed) break;
    if (auto c = trier.fit(*d, 1)) r.unpriced.push_back(std::move(*c));
  }

  // Hardware per quantization, by the answers' rule: the cheapest set at the
  // usable speed, else the cheapest that holds it (marked). Ordered by least
  // memory instead, a 106B MoE had its Q6_K on 3 x A100 40GB ($15,000) and its
  // Q8_0 on a $959 PC with 128 GB, which holds Q6_K too. Where no priced
  // hardware holds it, the lightest unpriced set does, so a row still names one.
  auto by_memory = [](const Candidate& a, const Candidate& b) {
    return std::make_tuple(total_memory(a), a.count) < std::make_tuple(total_memory(b), b.count);
  };
  const std::vector<std::string> per_quant_names =
      options.per_quant_names.empty() ? standard_quants(scenario.engine) : options.per_quant_names;
  const std::vector<Candidate> buyable = priced_multiples(catalog, 1, options.max_gpus);
  for (const std::string& name : per_quant_names) {
    auto quant = quant_scheme_from_name(name);
    if (!quant) return quant.error();
    Trier holds(sizer, model, scenario);
    holds.scenario().quant = quant.value();
    Trier fast(sizer, model, scenario, options.min_tokens_per_s, true);
    fast.scenario().quant = quant.value();
    std::optional<HardwareChoice> c = fast.first_fit(buyable, by_price);
    if (!c && (c = holds.first_fit(buyable, by_price))) c->below_usable_speed = true;
    if (!c && (c = holds.first_fit(multiples, by_memory)))
      c->below_usable_speed = !reaches_usable_speed(c->tokens_per_s_per_user.value_or(0.0), options.min_tokens_per_s);
    // Startable or not is the model's and the engine's, not the hardware's
    // (the row names other hardware than the scenario's): judged without a
    // device, at this quantization.
    Scenario plain = holds.scenario();
    plain.device.reset();
    plain.cards.clear();
    plain.gpu_count = 1;
    auto anywhere = sizer.estimate(model, plain);
    const bool starts = !anywhere || engine_starts(model, plain, anywhere.value());
    r.per_quant.push_back({name, std::move(c), starts});
  }

  const std::optional<HardwareChoice>& chosen = r.single ? r.single : r.value ? r.value : r.unified;
  if (chosen) {
    Scenario s = scenario;
    move_to_device(s, *catalog.find_device(chosen->gpu));
    s.gpu_count = chosen->count;
    r.max_ctx_gpu = chosen->gpu;
    r.max_ctx_gpu_count = chosen->count;
    // Without the model's own maximum, a context above the one asked (which
    // fits) would be a number the model may never have been trained for.
    r.max_ctx_known = model.arch().max_context_tokens > 0;
    r.max_ctx = scenario.context_tokens;
    if (r.max_ctx_known) {
      auto solved = solve_max_context(sizer, model, s);
      if (!solved) return solved.error();
      r.max_ctx = solved.value().context_tokens;
    }
  }
  return r;
}

Result<TargetPlan> plan_for_target(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                   const std::vector<CloudOffer>& offers, const ServingTarget& target,
                                   const RecommendOptions& options) {
  if (options.max_gpus < 0 || options.max_gpus > 64) return bad_max_gpus();
  if (target.users < 1 || target.users > 4096)
    return Error{"planner.bad_value", "concurrent users must be between 1 and 4096"};
  if (!(target.tokens_per_s_per_user > 0.0 && target.tokens_per_s_per_user <= 100000.0))
    return Error{"planner.bad_value", "tokens per second per user must be above 0 and at most 100000"};
  Scenario s = scenario;
  s.sequences = target.users;
  // Users under load: requests of the scenario's prompt and, unless it says,
  // a chat reply's 1024 tokens out (serve's default mix), served as such.
  if (s.output_tokens <= 0) s.output_tokens = 1024;
  Trier trier(sizer, model, s, target.tokens_per_s_per_user);
  TargetPlan plan;
  plan.target = target;
  plan.input_tokens = s.prompt_tokens;
  plan.output_tokens = s.output_tokens;
  // Many users may be served by copies of the model side by side (50 users of
  // Llama 3.3 70B at 20 tok/s: no one llama-server reaches it on any GPU count,
  // one per H100 with its share of the users does).
  std::vector<Candidate> machines = priced_multiples(sizer.catalog(), 1, options.max_gpus);
  const std::vector<Candidate> more = priced_servers(sizer.catalog(), options.max_gpus);
  machines.insert(machines.end(), more.begin(), more.end());
  plan.buy = trier.first_fit(machines, by_price, Copies::several);
  const OfferLists lists = offer_lists(offers);
  plan.rent = cheapest_offer(sizer, trier, lists.on_demand, Copies::several);
  plan.rent_any = cheapest_offer(sizer, trier, lists.any, Copies::several);
  return plan;
}

}  // namespace llmsizer
