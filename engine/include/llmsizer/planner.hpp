// The planner: questions asked the other way round. Given a model, which
// hardware (bought or rented) runs it, and how long a context fits; given
// hardware, which models run on it. Every answer is made of ordinary estimates
// (Sizer::estimate), so it carries the same physics as the estimate panel.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/json.hpp"

#include "llmsizer/estimate.hpp"
#include "llmsizer/result.hpp"
#include "llmsizer/sizer.hpp"
#include "llmsizer/suggestions.hpp"

namespace llmsizer {

// ---- Cloud offers (data/cloud_offers.json) ----------------------------------

struct CloudOffer {
  std::string id;
  std::string provider;
  std::string instance;   // empty where the listing names none, or a per-GPU offer
  std::string device_id;  // a catalog device id
  int device_count = 1;       // the smallest instance; a rented instance: its GPUs
  double usd_per_hour = 0.0;  // the instance of device_count GPUs
  std::string billing;        // "on-demand", "spot", ...
  // The instance sizes rentable at this per-GPU price, ascending. A listing of
  // one instance type has one; a provider that prices each GPU and rents 1, 2,
  // 4 or 8 of them (the sizes its listing shows) has several.
  std::vector<int> gpu_counts;
  double usd_per_gpu_hour = 0.0;
};

// Error ids: "offers.not_json", "offers.bad_entry" (with the JSON path). An
// entry is either one instance (device_count, usd_per_hour) or priced per GPU
// (usd_per_gpu_hour, gpu_counts).
Result<std::vector<CloudOffer>> parse_cloud_offers(std::string_view offers_json);
Result<std::vector<CloudOffer>> embedded_cloud_offers();

// The offer rented as `count` GPUs (one of its gpu_counts): the price of that
// instance, per GPU times count.
CloudOffer offer_at_count(const CloudOffer& offer, int count);
// Every instance one can rent: each offer at each of its sizes.
std::vector<CloudOffer> rentable_instances(const std::vector<CloudOffer>& offers);

// ---- Largest context ---------------------------------------------------------

// Token granularity of the context for an engine: llama.cpp pads its cache to
// 256 cells, so a context between two multiples of 256 costs the upper one;
// the paged engines allocate 16-token blocks.
std::int64_t context_step_tokens(InferenceEngine engine);

struct MaxContext {
  std::int64_t context_tokens = 0;  // 0: not even one step fits
  std::int64_t limit_tokens = 0;    // the bound searched (the model's maximum, or 1 Mi tokens)
  int estimates = 0;                // how many estimates the solve took
};

// The largest context (a multiple of context_step_tokens) for which the scenario
// fits, every other input held. Required memory only grows with context (KV
// cells, sliding layers up to their window, the compute buffer without flash
// attention; recurrent state stays), so fits(ctx) is monotone and a bisection
// finds the edge in O(log(limit / step)) estimates; the answer is the estimate's
// own verdict at that context, not an extrapolation.
Result<MaxContext> solve_max_context(const Sizer& sizer, const SizedModel& model, Scenario scenario,
                                     std::int64_t limit_tokens = 0);
// The same over any estimator (a file's measured weights, a suggestion's
// search): `max_context_tokens` is the model's own maximum, 0 when unknown.
Result<MaxContext> solve_max_context(const Estimator& estimate_fn, std::int64_t max_context_tokens, Scenario scenario,
                                     std::int64_t limit_tokens = 0);

// ---- Recommendations ---------------------------------------------------------

// A device's purchase price as the catalog states it: what the figure is
// (list, launch MSRP, street, analyst estimate, share of a server), when, and
// the spread the sources quote; all for `count` devices.
struct PriceInfo {
  double usd = 0.0;  // total for count devices
  std::string kind;
  std::string as_of;
  std::optional<double> low_usd, high_usd;  // totals, where sources disagree
  std::string machine;  // what the price buys (a Mac or mini-PC configuration), when not the card alone
  // count modules on a baseboard (SXM, OAM) priced as modules: the server
  // that holds the board is extra (kind server_share and server_system include it).
  bool server_board = false;
  // The modules come only on boards of this many (SXM, OAM): when count is
  // not a board's size, usd is for the smallest whole boards that hold
  // count, what a buyer pays (0: the price is for count itself).
  int board_gpus = 0;
  bool low_confidence = false;  // the reference marks the figure as weak
  std::string sold_new_until;   // the device is no longer sold new since then ("" while sold)
  std::optional<double> launch_usd;  // the cards' launch price beside a street price (total)
};

struct HardwareChoice {
  std::string gpu;  // catalog device id
  std::string name;
  int count = 0;
  // Copies of the model the count runs side by side, each on count / copies
  // devices with its share of the users, rounded up (plan_for_target; 1 elsewhere).
  int copies = 1;
  std::int64_t sequences_per_copy = 1;
  // Machines alike the copies are spread over, each with count / servers of
  // the devices and copies / servers of the copies (the users plan; 1: one
  // machine or server).
  int servers = 1;
  // Computers the count is (Macs, Strix Halos, DGX Sparks over llama.cpp's
  // RPC: networked_machines); 0 when the devices share one host.
  int machines = 0;
  std::optional<PriceInfo> price;  // empty: price unknown
  std::int64_t required_bytes = 0;
  std::int64_t usable_bytes = 0;
  double utilization = 0.0;
  // A unified-memory machine holding an MoE model with the experts of its
  // first N layers in the CPU's share of the one memory (--n-cpu-moe N), and
  // their bytes; 0 when all of it is within the GPU's limit.
  int experts_in_ram_layers = 0;
  std::int64_t offload_bytes = 0;
  // Decode speed of each of the scenario's sequences while all run together,
  // and of all of them; prefill and time to first token of the scenario's
  // prompt. Empty when the device lacks the figure they need (bandwidth for
  // decode, dense throughput for prefill and TTFT).
  std::optional<double> tokens_per_s_per_user;
  std::optional<double> tokens_per_s_total;
  std::optional<double> prefill_tokens_per_s;
  std::optional<double> ttft_s;
  // recommend: nothing of this kind decodes at the usable speed
  // (RecommendOptions::min_tokens_per_s); this is the cheapest that holds it.
  bool below_usable_speed = false;
};

struct CloudChoice {
  std::string provider;
  std::string instance;
  std::string gpu;
  std::string name;
  int count = 0;  // GPUs of every instance rented together
  int copies = 1;  // copies of the model on those GPUs (HardwareChoice::copies)
  std::int64_t sequences_per_copy = 1;
  // Instances of the offer rented side by side, each count / instances GPUs
  // with copies / instances of the copies (the users plan; 1 elsewhere).
  int instances = 1;
  double usd_per_hour = 0.0;  // all of them
  std::string billing;
  std::int64_t required_bytes = 0;
  std::int64_t usable_bytes = 0;
  double utilization = 0.0;
  double tokens_per_s_per_user = 0.0;
  double tokens_per_s_total = 0.0;
  std::optional<double> prefill_tokens_per_s;
  std::optional<double> ttft_s;
  std::optional<double> usd_per_million_tokens;  // one stream at the hourly price
  bool below_usable_speed = false;  // as HardwareChoice's
};

struct QuantChoice {
  std::string quant;
  std::optional<HardwareChoice> hardware;  // empty: nothing in the catalog holds it
  // Whether the engine can start this quantization of the model (a checkpoint
  // known, or one it makes as it loads: engine_starts); the hardware that
  // would hold it is still named, with the row marked.
  bool starts = true;
};

// The usable speed is a comfort line the answers are held to, not a
// requirement the user set: a decode estimate within the speed model's
// held-out median error of it (6.0%, docs/accuracy.md) reaches it. Read as a
// hard line, Llama 3.1 405B's best value was 8 x MI355X ($184,000 at 10.4
// tok/s) over 2 x H200 NVL ($72,000 at 9.7). A serving target (users at X
// tok/s each) stays exact.
constexpr double kUsableSpeedMargin = 0.06;
inline bool reaches_usable_speed(double tokens_per_s, double usable_tokens_per_s) {
  return tokens_per_s >= usable_tokens_per_s * (1.0 - kUsableSpeedMargin);
}

// Every answer fits by the estimate's own verdict (memory.fits: the engine's
// usable memory, fit_margin_bytes_per_gpu kept free); no second rule.
// Each answer of a kind (but the Mac's: does one hold it?) is the cheapest
// that decodes each sequence at the usable speed (min_tokens_per_s); where
// none does, the cheapest that holds it, marked below_usable_speed. (A CPU at
// 1 token/s holds a 70B; it is not the best single device to run it.)
struct Recommendation {
  double min_tokens_per_s = 0.0;          // the usable speed the answers were held to
  std::optional<HardwareChoice> single;   // cheapest priced device that holds it alone
  std::optional<HardwareChoice> value;    // cheapest priced set of 2 or more identical devices
  // A set of devices held it, but the single device costs no more: value is
  // then empty by choice, not because nothing holds it.
  bool value_beaten_by_single = false;
  std::optional<HardwareChoice> unified;  // cheapest priced unified-memory machine (Mac, APU)
  std::optional<HardwareChoice> mac;      // cheapest priced Mac (the question people ask by name)
  std::optional<CloudChoice> cloud;       // cheapest on-demand offer
  std::optional<CloudChoice> cloud_any;   // cheapest offer of any billing (spot, marketplace)
  // Devices that hold it alone with no price to rank them by (smallest memory
  // first): none sourced, or one the catalog doubts (carried in `price` with
  // low_confidence, e.g. a Mac no longer sold new at a used asking price).
  std::vector<HardwareChoice> unpriced;
  std::vector<QuantChoice> per_quant;
  std::optional<std::string> max_ctx_gpu;  // the device max_ctx was solved on
  int max_ctx_gpu_count = 0;
  bool max_ctx_known = true;  // false: the model states no maximum, max_ctx is the context asked
  std::int64_t max_ctx = 0;
  int max_gpus = 0;  // the count cap asked for; 0: each device's practical count
};

struct RecommendOptions {
  // Devices of one kind in one machine: 0 keeps the practical counts (4
  // consumer or workstation cards, 8 datacenter GPUs); a number asks for up to that.
  int max_gpus = 0;
  std::size_t unpriced_listed = 6;
  // The usable speed: each sequence's decode at least this (tokens/s); the
  // "what can I run" planner's default (FitRequest::min_tokens_per_s).
  double min_tokens_per_s = 10.0;
  // The quantizations per_quant answers for (the page's matrix rows); empty:
  // standard_quants(engine).
  std::vector<std::string> per_quant_names;
};

// Quantizations a per-quant sweep tries for an engine, best quality first.
std::vector<std::string> standard_quants(InferenceEngine engine);

// The scenario's device and gpu_count are ignored: every catalog device is tried.
// Ranked answers need a bandwidth figure (a speed to show); devices without one
// can still appear among the unpriced. Error id "planner.bad_value".
Result<Recommendation> recommend(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                 const std::vector<CloudOffer>& offers, const RecommendOptions& options = {});

// ---- What should I buy or rent ------------------------------------------------

// `users` streams decoding at once (the scenario's sequences), each at least
// `tokens_per_s_per_user`.
struct ServingTarget {
  std::int64_t users = 1;
  double tokens_per_s_per_user = 10.0;
};

struct TargetPlan {
  ServingTarget target;
  std::int64_t input_tokens = 0;   // each user's requests: the mix the served speeds are for
  std::int64_t output_tokens = 0;
  std::optional<HardwareChoice> buy;     // lowest total price, N identical devices
  std::optional<CloudChoice> rent;       // cheapest on-demand offer
  std::optional<CloudChoice> rent_any;   // cheapest offer of any billing
};

// The cheapest hardware to buy and to rent that holds the scenario with
// `users` sequences (the estimate's verdict) and decodes each at the
// target speed. The scenario's device, gpu_count and sequences are ignored.
// Error id "planner.bad_value".
Result<TargetPlan> plan_for_target(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                   const std::vector<CloudOffer>& offers, const ServingTarget& target,
                                   const RecommendOptions& options = {});

// ---- Cloud and rent vs buy ---------------------------------------------------

// One cloud offer running the scenario: what renting costs at the scenario's
// hours per day, and when buying the same devices (catalog price) would have
// paid for itself, power at the scenario's electricity price included.
struct OfferCost {
  CloudOffer offer;                       // at the size shown (offer.device_count)
  std::vector<int> rentable_gpu_counts;   // every size the offer rents
  bool fits = false;
  std::int64_t required_bytes = 0;
  std::int64_t usable_bytes = 0;
  double decode_tokens_per_s = 0.0;        // one stream alone
  double decode_tokens_per_s_total = 0.0;  // the scenario's sequences together
  double usd_per_month = 0.0;              // rent at hours_per_day
  std::optional<double> usd_per_million_tokens;
  std::optional<double> usd_per_million_tokens_batch;
  std::optional<double> purchase_usd;         // the same devices bought
  std::optional<double> power_usd_per_month;  // owning them, at TDP
  std::optional<double> break_even_months;    // buying beats renting after
};

// Every offer whose device is in the catalog, at the smallest of its sizes that
// holds the scenario (the cheapest way to rent it from that offer): those that
// hold it first, cheapest per hour first, then those that do not at their
// largest size. The scenario's device, gpu_count, hourly and purchase prices
// are replaced by each offer's.
std::vector<OfferCost> rent_vs_buy(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                   const std::vector<CloudOffer>& offers);

// ---- What can I run ----------------------------------------------------------

// How the answers are ordered. Each model's rows stay together, its best
// quantization first, except under speed and context, where every row is
// placed by its own figure.
//   quality: models by total parameters, largest first (a 32B at Q4 above an
//            8B at Q8: at the same memory more parameters at fewer bits
//            usually beat fewer at more), then by quantization rank;
//   speed:   decode tokens/s of one sequence, fastest first;
//   context: the largest context, longest first (unknown limits last).
// Ties: better quantization, then faster, then catalog order.
enum class FitRank { quality, speed, context };
const char* fit_rank_name(FitRank rank);
std::optional<FitRank> fit_rank_from_name(std::string_view name);
// The use tags a catalog model may carry (CatalogModel::uses).
bool is_use_tag(std::string_view tag);

struct FitRequest {
  Device device;
  int gpu_count = 1;
  std::vector<Device> cards;  // mixed cards, as Scenario::cards (device the first, gpu_count their number)
  std::int64_t ram_bytes = 0;  // system RAM free for offloaded experts; 0: no offload
  std::int64_t context_tokens = 8192;  // the context each result must at least hold
  InferenceEngine engine = InferenceEngine::llama_cpp;
  FitRank rank = FitRank::quality;
  std::string use;  // empty: every model; else only models with this use tag
  // "Best quality" means the best model that runs at a usable speed: rows
  // decoding at least this fast rank first. A stated default the reader can
  // change, not a measured fact.
  double min_tokens_per_s = 10.0;
  // This machine's own factors (a calibration measured on `device`): every
  // model's speed is then for it.
  std::optional<MachineFactors> machine_factors;
};

struct FitResult {
  std::string model;  // catalog id
  std::string quant;
  int quant_rank = 0;  // index in standard_quants: 0 is the best quality
  // "gguf" for a GGUF file type; else the checkpoint format the quantization
  // names ("bf16", "fp8", "awq", "mlx").
  std::string format;
  std::string native_format;  // the catalog entry's own checkpoint dtype ("bf16", "nvfp4"); empty: not stated
  bool own_format = false;    // the quantization is that checkpoint as published
  std::vector<std::string> uses;
  std::int64_t params_total = 0;
  std::int64_t params_active = 0;
  // The quality rule's terms: a dense model's parameters, an MoE's geometric
  // mean of total and active (the rule of thumb r/LocalLLaMA's "Geometric Mean
  // Prediction of MoE performance", 2024-03-28, reports holding: Mixtral 8x7B
  // ~ a dense 25B); and how far below 4 bits the weights are (0: 4 bits or
  // more, 1: 3-bit, 2: 2-bit, 3: 1-bit: the fix suggestions' bits classes).
  double dense_equivalent_params = 0.0;
  int low_bit_tier = 0;  // 0: 4 bits or more, 1: 3-bit, 2: 2-bit, 3: 1-bit
  bool usable_speed = false;  // decodes at least at the request's min_tokens_per_s
  // The largest context that fits, up to the model's maximum. With no maximum
  // known (max_ctx_known false) nothing above the requested context is
  // claimed: max_ctx is the requested context, which fits.
  // Under llama.cpp with RAM given, an MoE reaches it with more of its
  // experts in RAM where that is what makes it fit (planner_fit.cpp): these are
  // the experts in RAM at max_ctx, equal to offload_bytes / offload_fraction
  // when the row's own placement holds it.
  std::int64_t max_ctx = 0;
  bool max_ctx_known = true;
  std::int64_t max_ctx_offload_bytes = 0;
  double max_ctx_offload_fraction = 0.0;
  double decode_tokens_per_s = 0.0;
  std::int64_t offload_bytes = 0;  // MoE experts in RAM
  int offloaded_layers = 0;
  double offload_fraction = 0.0;  // of the layers, the scenario's offload input (experts mode)
  std::vector<int> layer_split;   // layers per equal card where llama.cpp's own split would not fit; empty: its own
  std::int64_t required_bytes = 0;
};

struct FitSweep {
  KvType kv_type = KvType::f16;    // the KV cache every result was sized with (one sequence each)
  FitRank rank = FitRank::quality;
  std::string use;
  double min_tokens_per_s = 0.0;
  std::vector<FitResult> results;  // in the request's rank
  int estimates = 0;
  // Why none of the engine's standard quantizations runs on this hardware (the
  // engine has no build for it, or its kernels take other weight types); "" when some do.
  std::string refused;
  // Model x quantization pairs that fit but that the engine cannot start, left
  // out of results: no checkpoint of that format is known and the engine makes
  // none as it loads (engine_starts; AWQ of a model nobody published one of).
  int left_out_no_checkpoint = 0;
  // The device's one memory where GPU and CPU share it (a Mac, a Strix Halo):
  // experts "in RAM" are in it, and no RAM beside it counts; 0 for a card.
  std::int64_t unified_memory_bytes = 0;
};

// A use that is no use tag matches no model (the request parsers refuse it first).
FitSweep what_fits(const Sizer& sizer, const FitRequest& request);

// ---- The catalog sweep ---------------------------------------------------------

// Every sizable catalog model on every catalog device (one of each) at each of the
// engine's standard quantizations, at one context: which fit. On one GPU a model
// needs the same weights, KV cache and buffers whatever the device; the device
// adds its runtime reserve and sets what is usable. So one estimate per model and
// quantization, without a device, decides the model on all devices at once, and
// the answer is the one estimate() gives for each (tests/test_planner.cpp).
struct SweepRequest {
  std::int64_t context_tokens = 8192;
  InferenceEngine engine = InferenceEngine::llama_cpp;
};

struct CatalogSweep {
  std::int64_t context_tokens = 0;
  InferenceEngine engine = InferenceEngine::llama_cpp;
  std::vector<std::string> quants;   // standard_quants(engine), best quality first
  std::vector<std::string> models;   // sizable catalog models, in catalog order
  std::vector<std::string> devices;  // catalog devices, in catalog order
  // [model * quants + quant]: bytes on one GPU before the device's reserve; -1: no estimate.
  std::vector<std::int64_t> required_bytes;
  // [model * devices + device]: index in quants of the best quantization that
  // fits, -1 when none does.
  std::vector<int> best_quant;
  std::int64_t scenarios = 0;  // model x device x quantization decided
  int estimates = 0;
};

// Error id "planner.bad_value" for a context out of range.
Result<CatalogSweep> sweep_catalog(const Sizer& sizer, const SweepRequest& request);

// ---- JSON (the CLI prints it, the bindings return it) -----------------------

Json recommendation_to_json(const Recommendation& r);
Json fit_sweep_to_json(const FitSweep& sweep);
Json target_plan_to_json(const TargetPlan& plan);
Json offer_costs_to_json(const std::vector<OfferCost>& rows);
Json catalog_sweep_to_json(const CatalogSweep& sweep);
// {"ctx": 8192, "engine": "llama.cpp"} in (both optional), {"ok": true, ...
// catalog_sweep_to_json} or {"ok": false, "error": {"id", "message"}} out.
std::string sweep_response(const Sizer& sizer, std::string_view request_json);

}  // namespace llmsizer
