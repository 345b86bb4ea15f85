#include "planner_commands.hpp"

#include "calibrate_command.hpp"
#include "output.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

#include "llmsizer/catalog_similar.hpp"
#include "llmsizer/finetune.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/serve.hpp"
#include "llmsizer/planner_responses.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/suggestions.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer::cli {
namespace {

int fail(const Error& error) {
  std::cerr << "llm-sizer: " << error.message << "\n";
  return 2;
}

std::string gib(std::int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB (%.2f GB)", static_cast<double>(bytes) / static_cast<double>(kGiB),
                static_cast<double>(bytes) / kGB);
  return text;
}

// The flags shared with `estimate`, in the Sizer's vocabulary.
Result<SizerRequest> sizer_request(const Command& c) {
  SizerRequest r;
  if (c.gguf_path || c.safetensors_path || c.hf_name)
    return Error{"cli.bad_argument", "the planner takes --model ID or --config FILE"};
  if (c.config_path) {
    std::ifstream in(*c.config_path, std::ios::binary);
    if (!in) return Error{"cli.file", "cannot open '" + c.config_path->substr(0, 200) + "'"};
    std::ostringstream text;
    text << in.rdbuf();
    r.config_json = text.str();
  }
  if (c.model_id) r.model_id = *c.model_id;
  if (c.quant) r.quant = *c.quant;
  if (c.ctx) r.context_tokens = *c.ctx;
  if (c.batch) r.sequences = *c.batch;
  if (c.kv_type) r.kv_type = *c.kv_type;
  if (c.engine) r.engine = *c.engine;
  if (c.gpu_id) r.gpu_id = *c.gpu_id;
  if (c.gpu_memory_gib)
    r.custom_gpu = CustomDevice{*c.gpu_memory_gib, c.gpu_bandwidth_gbs.value_or(0.0), c.gpu_tflops.value_or(0.0),
                                c.gpu_vendor.value_or("nvidia")};
  if (c.gpus) {
    if (*c.gpus < 1 || *c.gpus > 1024) return Error{"cli.bad_argument", "--gpus must be between 1 and 1024"};
    r.gpu_count = static_cast<int>(*c.gpus);
  }
  if (c.copies) r.copies = static_cast<int>(*c.copies);
  if (c.offload) r.offload_fraction = *c.offload;
  if (c.offload_mode) r.offload_mode = *c.offload_mode;
  if (c.prompt) r.prompt_tokens = *c.prompt;
  if (c.output_tokens) {  // served requests (recommend --users, serve)
    if (*c.output_tokens < 1 || *c.output_tokens > (1 << 24))
      return Error{"cli.bad_argument", "--output-tokens must be between 1 and 16777216"};
    r.output_tokens = *c.output_tokens;
  }
  r.flash_attention = !c.no_flash_attention;
  r.attention_data_parallel = c.attention_dp;
  r.vision = c.vision;
  if (c.draft) r.draft = *c.draft;
  if (c.draft_tokens) r.draft_tokens = static_cast<int>(*c.draft_tokens);
  if (c.hourly_price_usd) r.hourly_price_usd = *c.hourly_price_usd;
  if (c.purchase_price_usd) r.purchase_price_usd = *c.purchase_price_usd;
  if (c.amortization_years) r.amortization_years = *c.amortization_years;
  if (c.hours_per_day) r.hours_per_day = *c.hours_per_day;
  if (c.electricity_usd_per_kwh) r.electricity_usd_per_kwh = *c.electricity_usd_per_kwh;
  if (c.ram_bandwidth_gbs) r.ram_bandwidth_gb_per_s = *c.ram_bandwidth_gbs;
  if (c.ram_gib) r.system_ram_gib = *c.ram_gib;
  if (c.gpu_limit_mib) r.gpu_limit_mib = *c.gpu_limit_mib;
  if (c.layer_split) r.layer_split = *c.layer_split;
  if (c.backend) r.backend = *c.backend;
  if (c.calibration_path) {
    auto calibration = read_calibration_file(*c.calibration_path);
    if (!calibration) return calibration.error();
    if (c.backend && !calibration.value().backend.empty() && *c.backend != calibration.value().backend)
      return Error{"cli.bad_argument", "--calibration was measured on the " + calibration.value().backend + " backend, not " + c.backend->substr(0, 16)};
    if (!calibration.value().backend.empty()) r.backend = calibration.value().backend;
    r.machine_factors = calibration.value().factors;
  }
  return r;
}

// The estimate flags resolved against the catalog: the model and its scenario.
struct Resolved {
  SizedModel model;
  Scenario scenario;
};

Result<Resolved> resolve(const Command& c, const Sizer& sizer) {
  auto request = sizer_request(c);
  if (!request) return request.error();
  auto model = sizer.model_for(request.value());
  if (!model) return model.error();
  // Unasked, the context is the default or the model's whole window if that
  // is shorter (Llama 2's 4096), as estimate and the page's slider do.
  const std::int64_t window = model.value().arch().max_context_tokens;
  if (!c.ctx && window > 0) request.value().context_tokens = std::min(request.value().context_tokens, window);
  auto scenario = sizer.scenario_for(request.value());
  if (!scenario) return scenario.error();
  return Resolved{std::move(model).value(), std::move(scenario).value()};
}

// --users and --tokens-per-s: the serving target, when the speed is given.
Result<std::optional<ServingTarget>> serving_target(const Command& c, const Scenario& s) {
  if (!c.tokens_per_s) {
    if (c.users) return Error{"cli.bad_argument", "--users needs --tokens-per-s (the speed each user needs)"};
    return std::optional<ServingTarget>{};
  }
  ServingTarget t;
  t.users = c.users.value_or(s.sequences);
  t.tokens_per_s_per_user = *c.tokens_per_s;
  return std::optional<ServingTarget>{t};
}

std::string money(double usd) {
  char text[32];
  std::snprintf(text, sizeof text, usd >= 100.0 ? "$%.0f" : "$%.2f", usd);
  return text;
}

// "RunPod: 2 x AMD Instinct MI300X" and the instance type where the listing names one.
std::string rented(const std::string& provider, const std::string& instance, int count, const std::string& name) {
  return provider + ": " + std::to_string(count) + " x " + name + (instance.empty() ? "" : " (" + instance + ")");
}

void print_offers(const std::vector<OfferCost>& rows, double hours_per_day) {
  std::printf("\ncloud offers that hold it, at %.0f h/day:\n", hours_per_day);
  std::printf("  %-30s %-30s %-11s %8s %9s %10s %8s %12s\n", "provider", "GPUs (instance)", "billing", "$/h", "$/month",
              "decode t/s", "$/M tok", "buying pays");
  int shown = 0;
  for (const OfferCost& r : rows) {
    if (!r.fits) continue;
    ++shown;
    std::string payback = "-";
    if (r.break_even_months) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f months", *r.break_even_months);
      payback = text;
    }
    char speed[32] = "-";
    if (r.decode_tokens_per_s > 0.0) std::snprintf(speed, sizeof speed, "%.1f", r.decode_tokens_per_s);
    const std::string what = std::to_string(r.offer.device_count) + " x " + r.offer.device_id +
                             (r.offer.instance.empty() ? "" : " (" + r.offer.instance + ")");
    std::printf("  %-30s %-30s %-11s %8s %9s %10s %8s %12s\n", r.offer.provider.c_str(), what.c_str(),
                r.offer.billing.c_str(), money(r.offer.usd_per_hour).c_str(), money(r.usd_per_month).c_str(), speed,
                r.usd_per_million_tokens ? money(*r.usd_per_million_tokens).c_str() : "-", payback.c_str());
  }
  if (shown == 0) std::printf("  none\n");
}

// "~$9,499 (Apple list, 2025; Mac Studio ...)" or "price unknown".
std::string price_label(const std::optional<PriceInfo>& p) {
  if (!p) return "price unknown";
  std::string out = "~" + money(p->usd) + " (" + (p->kind.empty() ? std::string("price") : p->kind);
  if (!p->as_of.empty()) out += ", " + p->as_of;
  if (p->low_usd && p->high_usd) out += "; " + money(*p->low_usd) + "-" + money(*p->high_usd) + " quoted";
  if (p->launch_usd && *p->launch_usd != p->usd) out += "; launched at " + money(*p->launch_usd);
  out += ")";
  if (!p->machine.empty()) out += " for " + p->machine;
  // Modules priced alone: the buyer also needs the server they plug into.
  if (p->board_gpus > 0) out += ", for the " + std::to_string(p->board_gpus) + "-GPU boards they are sold on";
  if (p->server_board && p->kind != "server_share") out += ", GPU modules only (the server is extra)";
  if (!p->sold_new_until.empty()) out += ", no longer sold new (since " + p->sold_new_until + ")";
  if (p->low_confidence) out += ", low confidence";
  return out;
}

// ", as 7 copies of the model (1 GPU and up to 8 users each)", with the
// machines (or instances) alike they run on where more than one, or nothing for one copy.
std::string copies_label(int copies, int count, std::int64_t users_per_copy, int servers, const char* server) {
  if (copies <= 1) return "";
  const int per_copy = count / copies;
  std::string out = ", as " + std::to_string(copies) + " copies of the model (" + std::to_string(per_copy) +
                    (per_copy == 1 ? " GPU" : " GPUs") + " and up to " + std::to_string(users_per_copy) + " users each)";
  if (servers > 1) {
    const int per_server = count / servers;
    out += " on " + std::to_string(servers) + " " + server + "s of " + std::to_string(per_server) +
           (per_server == 1 ? " GPU" : " GPUs");
  }
  return out;
}

// Under a plan of copies: the flags that size one of them, for estimate,
// serve or command (with --copies, the commands that start one machine's).
void print_one_copy(const std::string& gpu, int copies, int count, std::int64_t users_per_copy, int servers,
                    const char* server) {
  if (copies <= 1) return;
  const int here = copies / std::max(servers, 1);
  const std::string flags = "--gpu " + gpu + " --gpus " + std::to_string(count / copies) + " --batch " +
                            std::to_string(users_per_copy);
  const std::string with = here > 1 ? " and --copies " + std::to_string(here) : "";
  const std::string starts = servers <= 1 ? "starts them all"
      : std::string("starts one ") + server + "'s " + (here > 1 ? "copies" : "copy") + "; each " + server + " runs the same";
  std::printf("        one copy: %s (llm-sizer command with them%s %s)\n", flags.c_str(), with.c_str(), starts.c_str());
}

std::string speed_label(const std::optional<double>& decode, const std::optional<double>& ttft) {
  char text[96];
  if (!decode) return "speed unknown (no bandwidth figure)";
  if (ttft) std::snprintf(text, sizeof text, "%.1f tokens/s, TTFT %.2f s", *decode, *ttft);
  else std::snprintf(text, sizeof text, "%.1f tokens/s, TTFT unknown", *decode);
  return text;
}

int run_recommend(const Command& c, const Sizer& sizer) {
  auto resolved = resolve(c, sizer);
  if (!resolved) return fail(resolved.error());
  const SizedModel& model = resolved.value().model;
  const Scenario& scenario = resolved.value().scenario;
  auto offers = embedded_cloud_offers();
  if (!offers) return fail(offers.error());
  auto target = serving_target(c, scenario);
  if (!target) return fail(target.error());
  RecommendOptions options;
  if (c.max_gpus) {
    if (*c.max_gpus < 0 || *c.max_gpus > 64)
      return fail(Error{"cli.bad_argument", "--max-gpus must be between 0 (practical counts) and 64"});
    options.max_gpus = static_cast<int>(*c.max_gpus);
  }
  if (c.json) {
    auto j = recommend_json(sizer, model, scenario, offers.value(), target.value(), options);
    if (!j) return fail(j.error());
    std::cout << dump_json(j.value(), 1) << "\n";
    return 0;
  }
  auto r = recommend(sizer, model, scenario, offers.value(), options);
  if (!r) return fail(r.error());
  const Recommendation& rec = r.value();
  char usable[96];
  std::snprintf(usable, sizeof usable, "below %.3g tokens/s: none of this kind that holds it is faster",
                rec.min_tokens_per_s);
  auto line = [&usable](const char* what, const std::optional<HardwareChoice>& h) {
    std::cout << what;
    if (!h) {
      std::cout << "nothing priced in the catalog holds it\n";
      return;
    }
    // Experts in the CPU's share of a unified memory: where, and the flag that puts them there.
    const std::string experts =
        h->experts_in_ram_layers > 0
            ? "; the experts of " + std::to_string(h->experts_in_ram_layers) + " layers (" + gib(h->offload_bytes) +
                  ") in the CPU's share of its memory, --n-cpu-moe " + std::to_string(h->experts_in_ram_layers)
            : "";
    std::printf("%d x %s%s  %s\n      %.1f%% of %s usable%s; %s%s%s\n", h->count, h->name.c_str(),
                h->machines > 1 ? " (machines on a network, llama.cpp's RPC)" : "",
                price_label(h->price).c_str(), h->utilization * 100.0, gib(h->usable_bytes).c_str(), experts.c_str(),
                speed_label(h->tokens_per_s_per_user, h->ttft_s).c_str(), h->below_usable_speed ? "; " : "",
                h->below_usable_speed ? usable : "");
  };
  // The headroom the verdict kept: the engine's own rule.
  std::string headroom = "the engine's own headroom";
  if (engine_uses_kv_pool(scenario.engine)) {
    headroom = std::string(engine_name(scenario.engine)) + " taking " +
               std::to_string(static_cast<int>(std::lround(scenario.gpu_memory_utilization * 100.0))) + "% of each GPU";
  } else if (engine_is_llama_cpp_based(scenario.engine)) {
    headroom = std::string(engine_name(scenario.engine)) + " keeping 1 GiB free per GPU";
  }
  std::cout << model.label << " at " << scenario.quant.name << ", ctx " << scenario.context_tokens
            << " (fits: the estimate's verdict, " << headroom << "); the cheapest of each kind at "
            << rec.min_tokens_per_s << " tokens/s or faster (within the speed model's "
            << static_cast<int>(kUsableSpeedMargin * 100.0 + 0.5) << "% median error), else the cheapest that holds it\n"
            << "prices: a card's buys the card alone (the computer it goes in is extra); a Mac's, a mini PC's or a "
               "laptop's, the whole machine\n";
  line("best single device:      ", rec.single);
  if (rec.value_beaten_by_single) std::cout << "best value (2+ devices): none costs less than the single device above\n";
  else line("best value (2+ devices): ", rec.value);
  line("unified memory:          ", rec.unified);
  for (const auto* cloud : {&rec.cloud, &rec.cloud_any}) {
    std::cout << (cloud == &rec.cloud ? "cloud (on-demand):       " : "cloud (any billing):     ");
    if (*cloud)
      std::printf("%s  %s/h; %s%s%s\n",
                  rented((*cloud)->provider, (*cloud)->instance, (*cloud)->count, (*cloud)->name).c_str(),
                  money((*cloud)->usd_per_hour).c_str(),
                  speed_label((*cloud)->tokens_per_s_per_user, (*cloud)->ttft_s).c_str(),
                  (*cloud)->below_usable_speed ? "; " : "", (*cloud)->below_usable_speed ? usable : "");
    else std::cout << "no offer fits\n";
  }
  if (!rec.unpriced.empty()) {
    std::cout << "also holds it, no price to rank it by (none sourced, or doubted):\n";
    for (const HardwareChoice& h : rec.unpriced)
      std::printf("  %s  %s; %.1f%%%s; %s\n", h.name.c_str(), price_label(h.price).c_str(), h.utilization * 100.0,
                  h.experts_in_ram_layers > 0
                      ? (" with the experts of " + std::to_string(h.experts_in_ram_layers) + " layers in the CPU's share").c_str()
                      : "",
                  speed_label(h.tokens_per_s_per_user, h.ttft_s).c_str());
  }
  std::cout << "per quantization, by the same rule:\n";
  for (const QuantChoice& q : rec.per_quant) {
    std::printf("  %-12s ", q.quant.c_str());
    // Held by some hardware or not, the engine cannot start it: said first.
    if (!q.starts) std::printf("(no %s checkpoint of this model known to start) ", q.quant.c_str());
    if (!q.hardware) {
      std::cout << "nothing in the catalog holds it\n";
      continue;
    }
    const HardwareChoice& h = *q.hardware;
    std::printf("%d x %s  %s; %s%s\n", h.count, h.name.c_str(), price_label(h.price).c_str(),
                speed_label(h.tokens_per_s_per_user, h.ttft_s).c_str(),
                h.below_usable_speed ? " (below the usable speed)" : "");
  }
  if (rec.max_ctx_gpu)
    std::cout << "largest context on " << rec.max_ctx_gpu_count << " x " << *rec.max_ctx_gpu << ": " << rec.max_ctx
              << " tokens\n";
  if (target.value()) {
    const ServingTarget& t = *target.value();
    auto plan = plan_for_target(sizer, model, scenario, offers.value(), t, options);
    if (!plan) return fail(plan.error());
    std::printf("\n%lld user%s at %.1f tokens/s each:\n", static_cast<long long>(t.users), t.users == 1 ? "" : "s",
                t.tokens_per_s_per_user);
    const auto& buy = plan.value().buy;
    if (buy) {
      std::printf("  buy:  %d x %s  %s  (%.1f tokens/s per user%s)\n", buy->count, buy->name.c_str(),
                  price_label(buy->price).c_str(), buy->tokens_per_s_per_user.value_or(0.0),
                  copies_label(buy->copies, buy->count, buy->sequences_per_copy, buy->servers, "machine").c_str());
      print_one_copy(buy->gpu, buy->copies, buy->count, buy->sequences_per_copy, buy->servers, "machine");
    } else {
      std::printf("  buy:  nothing in the catalog reaches it\n");
    }
    // On demand (what the page calls "Rent, on demand") and any billing
    // (marketplace, spot): the cheapest that reaches the speed of each.
    for (const auto& [label, offer, none] :
         {std::tuple{"rent, on demand:  ", &plan.value().rent, "no on-demand offer reaches it"},
          std::tuple{"rent, any billing:", &plan.value().rent_any, "no offer reaches it"}}) {
      if (*offer) {
        std::printf("  %s %s  %s/h  (%.1f tokens/s per user%s)\n", label,
                    rented((*offer)->provider, (*offer)->instance, (*offer)->count, (*offer)->name).c_str(),
                    money((*offer)->usd_per_hour).c_str(), (*offer)->tokens_per_s_per_user,
                    copies_label((*offer)->copies, (*offer)->count, (*offer)->sequences_per_copy, (*offer)->instances,
                                 "instance").c_str());
        print_one_copy((*offer)->gpu, (*offer)->copies, (*offer)->count, (*offer)->sequences_per_copy,
                       (*offer)->instances, "instance");
      } else {
        std::printf("  %s %s\n", label, none);
      }
    }
  }
  print_offers(rent_vs_buy(sizer, model, scenario, offers.value()), scenario.hours_per_day);
  return 0;
}

int run_fit(const Command& c, const Sizer& sizer) {
  FitRequest request;
  if (c.gpu_id->find(',') != std::string::npos) {
    // --gpu once per card: mixed cards, split by layers.
    auto cards = find_cards(sizer.catalog(), *c.gpu_id);
    if (!cards) return fail(Error{"cli.unknown_gpu", cards.error().message + "; `llm-sizer list gpus` shows the catalog"});
    if (c.gpus && *c.gpus != static_cast<long long>(cards.value().size()))
      return fail(Error{"cli.bad_argument", "--gpus disagrees with the cards given with --gpu"});
    Scenario cards_scenario;
    if (auto error = set_cards(cards_scenario, std::move(cards).value())) return fail(*error);
    request.device = *cards_scenario.device;
    request.gpu_count = cards_scenario.gpu_count;
    request.cards = std::move(cards_scenario.cards);
  } else {
    const Device* device = sizer.catalog().find_device(*c.gpu_id);
    if (device == nullptr)
      return fail(Error{"cli.unknown_gpu", "unknown GPU '" + c.gpu_id->substr(0, 80) + "'" +
                                               did_you_mean(similar_device_ids(sizer.catalog(), *c.gpu_id)) +
                                               "; `llm-sizer list gpus` shows the catalog"});
    request.device = *device;
  }
  if (c.gpus && request.cards.empty()) {
    if (*c.gpus < 1 || *c.gpus > 64) return fail(Error{"cli.bad_argument", "--gpus must be between 1 and 64"});
    request.gpu_count = static_cast<int>(*c.gpus);
  }
  if (c.ram_gib) {
    if (!(*c.ram_gib >= 0.0 && *c.ram_gib <= 1048576.0))
      return fail(Error{"cli.bad_argument", "--ram-gib must be between 0 and 1048576"});
    request.ram_bytes = static_cast<std::int64_t>(*c.ram_gib * static_cast<double>(kGiB));
  }
  if (c.ctx) {
    if (*c.ctx < 1 || *c.ctx > (1 << 24)) return fail(Error{"cli.bad_argument", "--ctx must be between 1 and 16777216"});
    request.context_tokens = *c.ctx;
  }
  if (c.engine) {
    auto e = engine_from_name(*c.engine);
    if (!e) return fail(Error{"cli.bad_argument", "unknown engine '" + c.engine->substr(0, 40) + "'"});
    request.engine = *e;
  }
  if (c.fit_rank) {
    auto rank = fit_rank_from_name(*c.fit_rank);
    if (!rank) return fail(Error{"cli.bad_argument", "--rank must be quality, speed or context"});
    request.rank = *rank;
  }
  if (c.use) {
    if (!is_use_tag(*c.use)) return fail(Error{"cli.bad_argument", "--use must be coding, reasoning, chat or vision"});
    request.use = *c.use;
  }
  if (c.tokens_per_s) {
    if (!(*c.tokens_per_s >= 0.0 && *c.tokens_per_s <= 100000.0))
      return fail(Error{"cli.bad_argument", "--tokens-per-s must be between 0 and 100000"});
    request.min_tokens_per_s = *c.tokens_per_s;
  }
  if (!request.cards.empty()) {
    Scenario check;
    check.engine = request.engine;
    check.device = request.device;
    check.gpu_count = request.gpu_count;
    check.cards = request.cards;
    if (auto error = check_mixed_cards(check)) return fail(*error);
  }
  const auto start = std::chrono::steady_clock::now();
  const FitSweep sweep = what_fits(sizer, request);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (c.json) {
    auto j = fit_sweep_to_json(sweep);
    j["sweep_ms"] = ms;
    std::cout << dump_json(j, 1) << "\n";
    return 0;
  }
  if (!sweep.refused.empty()) {
    std::printf("nothing runs here: %s\n", sweep.refused.c_str());
    return 0;
  }
  std::printf("%-28s %-10s %-7s %9s %10s  %-15s %s\n", "model", "quant", "format", "max_ctx", "decode t/s",
              "experts in RAM", "uses");
  for (const FitResult& r : sweep.results) {
    std::string uses;
    for (const std::string& u : r.uses) uses += (uses.empty() ? "" : ",") + u;
    // No maximum known: the context asked, which fits, and no claim above it.
    // More experts in RAM than at the asked context: marked, the RAM it takes after the table.
    const bool more_in_ram = r.max_ctx_offload_bytes > r.offload_bytes;
    const std::string ctx = std::to_string(r.max_ctx) + (r.max_ctx_known ? "" : "+?") + (more_in_ram ? "*" : "");
    // Where llama.cpp's own layer split would not fit: the split that does (--tensor-split).
    const std::string split = r.layer_split.empty() ? "" : " split " + layer_split_text(r.layer_split);
    std::printf("%-28s %-10s %-7s %9s %10.1f  %-15s %s%s\n", r.model.c_str(), r.quant.c_str(), r.format.c_str(),
                ctx.c_str(), r.decode_tokens_per_s, r.offload_bytes > 0 ? gib(r.offload_bytes).c_str() : "-",
                uses.empty() ? "-" : uses.c_str(), split.c_str());
  }
  std::printf("ranked by %s%s; max_ctx N+? : the model states no maximum, N fits\n", fit_rank_name(sweep.rank),
              sweep.use.empty() ? "" : (", " + sweep.use + " models only").c_str());
  const bool any_more_in_ram = std::any_of(sweep.results.begin(), sweep.results.end(), [](const FitResult& r) {
    return r.max_ctx_offload_bytes > r.offload_bytes;
  });
  if (any_more_in_ram)
    std::printf("max_ctx N* : with more of the experts in system RAM than at the asked context (slower; the JSON's\n"
                "max_ctx_offload_bytes); decode t/s and experts in RAM are at the asked context\n");
  if (sweep.rank == FitRank::quality)
    std::printf("quality: models decoding at %.0f tok/s or more first (--tokens-per-s), 4-bit and up before 3 and 2 bits,\n"
                "then the larger dense equivalent (an MoE's sqrt(total x active))\n", sweep.min_tokens_per_s);
  if (sweep.left_out_no_checkpoint > 0)
    std::printf("%d model x quantization pairs that fit are left out: no checkpoint of them is known for %s to start\n",
                sweep.left_out_no_checkpoint, std::string(engine_name(request.engine)).c_str());
  std::printf("%zu results, %d estimates, %.1f ms\n", sweep.results.size(), sweep.estimates, ms);
  return 0;
}

int run_finetune(const Command& c, const Sizer& sizer) {
  if (!c.model_id) return fail(Error{"cli.bad_argument", "finetune needs --model ID"});
  SizerRequest lookup;
  lookup.model_id = *c.model_id;
  auto model = sizer.model_for(lookup);
  if (!model) return fail(model.error());
  FinetuneRequest r;
  const std::string method = c.method.value_or("lora");
  auto m = finetune_method_from_name(method);
  if (!m) return fail(Error{"cli.bad_argument", "--method must be full, lora or qlora"});
  r.method = *m;
  if (c.optimizer) {
    auto o = optimizer_from_name(*c.optimizer);
    if (!o) return fail(Error{"cli.bad_argument", "--optimizer must be adamw or adamw8bit"});
    r.optimizer = *o;
  }
  if (c.seq) r.sequence_tokens = *c.seq;
  if (c.micro_batch) r.micro_batch = *c.micro_batch;
  if (c.rank) r.lora_rank = *c.rank;
  if (c.gpus) {
    if (*c.gpus < 1 || *c.gpus > 4096) return fail(Error{"cli.bad_argument", "--gpus must be between 1 and 4096"});
    r.gpus = static_cast<int>(*c.gpus);
  }
  if (c.zero) {
    if (*c.zero < 0 || *c.zero > 3) return fail(Error{"cli.bad_argument", "--zero must be 0, 1, 2 or 3"});
    r.zero_stage = static_cast<int>(*c.zero);
  }
  if (c.lora_targets) {
    auto t = lora_targets_from_name(*c.lora_targets);
    if (!t) return fail(Error{"cli.bad_argument", "--targets must be all, attention or a list of q,k,v,o,gate,up,down"});
    r.targets = *t;
  }
  // QLoRA checkpoints by default (PEFT's prepare_model_for_kbit_training does).
  r.gradient_checkpointing = c.checkpointing || (r.method == FinetuneMethod::qlora && !c.no_checkpointing);
  if (c.checkpointing && c.no_checkpointing)
    return fail(Error{"cli.bad_argument", "give --checkpointing or --no-checkpointing, not both"});
  r.flash_attention = !c.no_flash_attention;
  auto e = estimate_finetune(model.value().arch(), r);
  if (!e) return fail(e.error());
  const Device* device = finetune_device(sizer.catalog(), e.value().total_bytes);
  if (c.json) {
    std::cout << dump_json(finetune_to_json(e.value(), device), 1) << "\n";
    return 0;
  }
  const FinetuneEstimate& f = e.value();
  std::cout << model.value().label << " " << method << " fine-tuning, per GPU\n"
            << "  weights      " << gib(f.weights_bytes) << "\n"
            << "  gradients    " << gib(f.gradients_bytes) << "\n"
            << "  optimizer    " << gib(f.optimizer_bytes) << "\n"
            << "  activations  " << gib(f.activations_bytes) << "\n"
            << "  total        " << gib(f.total_bytes) << "\n"
            << "  trainable parameters " << f.trainable_params << "\n"
            << "  cheapest device that holds it: " << (device ? device->id : std::string("none in the catalog")) << "\n";
  return 0;
}

int run_command(const Command& c, const Sizer& sizer) {
  auto resolved = resolve(c, sizer);
  if (!resolved) return fail(resolved.error());
  const SizedModel& model = resolved.value().model;
  const Scenario& scenario = resolved.value().scenario;
  auto e = sizer.estimate(model, scenario);
  if (!e) return fail(e.error());
  const Estimator by_sizer = [&](const Scenario& s) { return sizer.estimate(model, s); };
  return print_commands_that_fit(
      model.arch(), scenario, e.value(), by_sizer,
      [&](const Scenario& s, const Estimate& x) { return engine_starts(model, s, x); }, c.json,
      [&](const Scenario& s, const Estimate& x) { return launch_commands(model, s, x); });
}

}  // namespace

void print_commands(const std::vector<LaunchCommand>& commands, bool json, const std::string& preface) {
  if (json) {
    // Each engine's note says it too: a reader of one engine's entry sees it.
    std::vector<LaunchCommand> noted = commands;
    if (!preface.empty())
      for (LaunchCommand& lc : noted) lc.note = preface + (lc.note.empty() ? "" : " " + lc.note);
    std::cout << dump_json(launch_commands_to_json(noted), 1) << "\n";
    return;
  }
  if (!preface.empty()) std::cout << "# " << preface << "\n\n";
  // Each step on its own (Ollama's server, then its client); notes as comments.
  for (const LaunchCommand& lc : commands) {
    std::cout << "# " << lc.engine << "\n";
    if (!lc.note.empty()) std::cout << "# " << lc.note << "\n";
    for (const std::string& step : lc.steps) std::cout << step << "\n";
    std::cout << "\n";
  }
}

int print_commands_that_fit(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                            const Estimator& estimate_fn, const Startable& startable, bool json,
                            const CommandsFor& commands_for) {
  if (runs(estimate)) {
    print_commands(commands_for(scenario, estimate), json);
    return 0;
  }
  // As the page does: a scenario that does not fit has no commands of its
  // own (they would stop on out-of-memory); those of its first suggestion,
  // named, else none.
  const std::vector<Suggestion> suggestions = suggest_fits(arch, scenario, estimate, estimate_fn, startable);
  if (suggestions.empty())
    return fail(Error{"estimate.does_not_fit",
                      "as set it does not fit, and no single change makes it fit: no command would run it "
                      "(llm-sizer estimate shows the memory)"});
  const Suggestion& first = suggestions.front();
  print_commands(commands_for(first.scenario, first.estimate), json,
                 "As set it does not fit, so these start the first change llm-sizer estimate lists: " +
                     change_flags(first) + ".");
  return 0;
}

// "1,2,4,8" -> {1, 2, 4, 8}; an error names the bad item.
Result<std::vector<std::int64_t>> concurrency_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    if (item.empty() || item.size() > 5 || item.find_first_not_of("0123456789") != std::string::npos)
      return Error{"cli.bad_argument", "--concurrency takes counts such as 1,2,4,8 (got '" + item.substr(0, 20) + "')"};
    out.push_back(std::stoll(item));
    if (out.size() > 64) return Error{"cli.bad_argument", "--concurrency takes at most 64 counts"};
    start = comma + 1;
  }
  return out;
}

int run_serve(const Command& c, const Sizer& sizer) {
  Command with_defaults = c;
  // A serving engine's chat mix unless told: 1k tokens in, 1k out.
  if (!with_defaults.prompt) with_defaults.prompt = 1024;
  auto resolved = resolve(with_defaults, sizer);
  if (!resolved) return fail(resolved.error());
  Scenario s = resolved.value().scenario;
  s.output_tokens = c.output_tokens.value_or(1024);
  if (s.output_tokens < 1 || s.output_tokens > (1 << 24))
    return fail(Error{"cli.bad_argument", "--output-tokens must be between 1 and 16777216"});
  // Paged engines give each request the pages its tokens fill: the window is
  // the request's prompt and output unless --ctx says otherwise.
  if (!c.ctx) s.context_tokens = s.prompt_tokens + s.output_tokens;
  std::vector<std::int64_t> counts;
  if (c.concurrency) {
    auto parsed = concurrency_list(*c.concurrency);
    if (!parsed) return fail(parsed.error());
    counts = std::move(parsed).value();
  }
  const SizedModel& model = resolved.value().model;
  auto curve = serve_curve(sizer, model, s, counts, c.target_tokens_per_s_per_user.value_or(0.0));
  if (!curve && curve.error().id == "serve.does_not_fit") {
    // As estimate does: what would make the first point fit, each re-estimated.
    const Scenario first = serve_point_scenario(s, counts.empty() ? 1 : *std::min_element(counts.begin(), counts.end()));
    auto alone = sizer.estimate(model, first);
    if (!alone) return fail(alone.error());
    const Estimator by_sizer = [&](const Scenario& x) { return sizer.estimate(model, x); };
    std::vector<Suggestion> fixes =
        suggest_fits(model.arch(), first, alone.value(), by_sizer,
                     [&](const Scenario& x, const Estimate& e) { return engine_starts(model, x, e); });
    // A shorter window is no fix here: each request's window is its tokens in and out.
    fixes.erase(std::remove_if(fixes.begin(), fixes.end(), [](const Suggestion& x) { return x.change.ctx.has_value(); }),
                fixes.end());
    std::cerr << "llm-sizer: " << curve.error().message << ". What would make it fit, each re-estimated "
              << "(llm-sizer estimate shows the memory):\n"
              << fit_suggestion_lines(fixes);
    return 2;
  }
  if (!curve) return fail(curve.error());
  const ServeCurve& v = curve.value();
  if (c.json) {
    std::cout << dump_json(serve_curve_to_json(v), 1) << "\n";
    return 0;
  }
  std::printf("%lld tokens in, %lld out per request\n", static_cast<long long>(s.prompt_tokens),
              static_cast<long long>(s.output_tokens));
  std::printf("%11s %9s %12s %14s %12s %9s %9s %10s\n", "concurrency", "decoding", "t/s per user", "output t/s",
              "per GPU", "TTFT s", "TPOT ms", "$/M out");
  for (const ServePoint& p : v.points) {
    char cost[32] = "-";
    if (p.usd_per_million_output_tokens) std::snprintf(cost, sizeof cost, "%.3f", *p.usd_per_million_output_tokens);
    std::printf("%11lld %9.1f %12.1f %14.0f %12.0f %9.2f %9.1f %10s%s\n", static_cast<long long>(p.concurrency),
                p.served.decoding_concurrency, p.served.tokens_per_s_per_user, p.served.output_tokens_per_s,
                p.served.output_tokens_per_s_per_gpu, p.served.ttft_s, p.served.tpot_s * 1000.0, cost,
                p.served.prefill_bound ? "  prompts wait for the budget" : "");
  }
  // What "$/M out" is priced at: the hourly cost and where it comes from.
  if (v.usd_per_hour && v.cost_basis == "rent")
    std::printf("$/M out at %s/h, the price given (--hourly-price)\n", money(*v.usd_per_hour).c_str());
  else if (v.usd_per_hour)
    std::printf("$/M out at %s/h owned: the purchase, %s, over %.3g years of %.3g h/day, and power at TDP "
                "($%.2f/kWh); --hourly-price sets a rent\n",
                money(*v.usd_per_hour).c_str(), v.purchase_note.c_str(), s.amortization_years, s.hours_per_day,
                s.electricity_usd_per_kwh);
  else std::printf("$/M out: no purchase price in the catalog for this hardware; --hourly-price sets one\n");
  if (v.max_concurrency) std::printf("the KV pool holds %lld such requests at once\n", static_cast<long long>(*v.max_concurrency));
  if (v.saturation) std::printf("peak output at concurrency %lld\n", static_cast<long long>(v.points[*v.saturation].concurrency));
  if (!v.points.empty()) {
    const ServedEstimate& b = v.points.front().served;
    std::printf("serving row %s: fitted on %d measured runs", b.calibration_row.c_str(), b.calibration_records);
    if (b.calibration_typical_error_pct >= 0) std::printf(", reproduced within %d%% on median", b.calibration_typical_error_pct);
    std::printf("%s%s\n", b.calibration_rough ? "; a rough estimate: " : "", b.calibration_rough_because.c_str());
    if (!b.ttft_rough_because.empty()) std::printf("TTFT s is rough: %s\n", b.ttft_rough_because.c_str());
  }
  if (v.target_tokens_per_s_per_user > 0.0) {
    if (v.target) std::printf("%.1f tok/s per user: concurrency %lld, the most output that meets it\n",
                              v.target_tokens_per_s_per_user, static_cast<long long>(v.points[*v.target].concurrency));
    else std::printf("%.1f tok/s per user: no concurrency meets it on this hardware\n", v.target_tokens_per_s_per_user);
  }
  for (const std::string& w : v.warnings) std::printf("warning: %s\n", w.c_str());
  return 0;
}

int run_planner_command(const Command& c) {
  auto catalog = embedded_catalog();
  if (!catalog) return fail(catalog.error());
  const Sizer sizer(std::move(catalog).value());
  switch (c.verb) {
    case Verb::recommend: return run_recommend(c, sizer);
    case Verb::fit: return run_fit(c, sizer);
    case Verb::finetune: return run_finetune(c, sizer);
    case Verb::command: return run_command(c, sizer);
    case Verb::serve: return run_serve(c, sizer);
    case Verb::calibrate: return run_calibrate(c, sizer);
    case Verb::check_log: {
      auto request = sizer_request(c);
      if (!request) return fail(request.error());
      return run_check_log(c, sizer, request.value());
    }
    default: return fail(Error{"cli.bad_argument", "not a planner command"});
  }
}

}  // namespace llmsizer::cli
