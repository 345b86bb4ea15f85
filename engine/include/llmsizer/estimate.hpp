// One scenario in, one estimate out: the engine's main entry point.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "llmsizer/architecture.hpp"
#include "llmsizer/device.hpp"
#include "llmsizer/kv_cache.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/quantization.hpp"
#include "llmsizer/result.hpp"
#include "llmsizer/runtime.hpp"
#include "llmsizer/speculative.hpp"
#include "llmsizer/speed_types.hpp"
#include "llmsizer/weights.hpp"

namespace llmsizer {

enum class OffloadMode {
  automatic,  // experts for MoE models, layers for dense ones
  layers,     // llama.cpp -ngl: the first layers run on the CPU from system RAM
  experts     // llama.cpp --n-cpu-moe: routed experts of the first layers in RAM
};

struct Scenario {
  QuantScheme quant;
  std::int64_t context_tokens = 4096;
  std::int64_t sequences = 1;
  KvType kv_type = KvType::f16;
  InferenceEngine engine = InferenceEngine::llama_cpp;
  std::optional<Device> device;
  int gpu_count = 1;
  // Mixed cards (llama.cpp's layer split over unequal GPUs): one entry per card
  // in --tensor-split order; device is then the first card and gpu_count their
  // number. Empty: gpu_count equal cards of device. set_cards (mixed_cards.hpp)
  // fills the three consistently.
  std::vector<Device> cards;
  // llama.cpp's layer split over equal cards set by hand (--tensor-split): the
  // number of layers each GPU runs, in order (they sum to the layers on the
  // GPUs, each at least 1). Empty: equal runs of layers.
  std::vector<int> layers_per_gpu;
  // Copies of this setup side by side (the planner's layout for many users):
  // each on gpu_count GPUs of its own in one host (copy i on GPUs i x
  // gpu_count onwards), or on a whole machine of its own (Macs, DGX Sparks),
  // with `sequences` users of its own. Every figure of the estimate is one
  // copy's; the launch commands start them all.
  int copies = 1;
  double offload_fraction = 0.0;  // share of layers (or MoE layers' experts) kept in RAM
  OffloadMode offload_mode = OffloadMode::automatic;
  std::int64_t prompt_tokens = 4096;
  // Output tokens per request for the served figures (speed.served): requests
  // of prompt_tokens in and output_tokens out, `sequences` of them at once.
  // 0: no served figures.
  std::int64_t output_tokens = 0;
  // The serving row's constants for a calibrated machine (and the fit,
  // scripts/speed/fit_served.py); empty: the fitted row (served_calibration).
  std::optional<ServedFactors> served_factors;
  // This machine's own factors, fitted on its measurements (a pasted
  // llama-bench result): every speed is then for it. Empty: the fitted rows.
  std::optional<MachineFactors> machine_factors;
  // Prompt tokens per forward pass for the speed model (llama.cpp -ub, the serving
  // engines' chunked-prefill budget); 0: the engine's default (512 for llama.cpp,
  // 2048 otherwise). The memory estimate keeps llama.cpp's default -ub 512.
  std::int64_t prefill_ubatch_tokens = 0;
  // llama.cpp's build whose buffers to size (a load log's); 0: the current one.
  int llama_cpp_build = 0;
  // llama.cpp's cache in one stream for all sequences (-kvu, or -np auto); the
  // commands printed here pass -np, which keeps a stream per sequence.
  bool kv_unified = false;
  bool flash_attention = true;
  // Attention data parallel over the GPUs (SGLang --enable-dp-attention,
  // TensorRT-LLM enable_attention_dp, vLLM --data-parallel-size with
  // --enable-expert-parallel): each GPU attends to its own share of the
  // sequences and holds their whole cache, with the attention weights whole on
  // every GPU; the experts (and other matrices) stay split. Serving engines on
  // more than one GPU; ignored elsewhere with a warning.
  bool attention_data_parallel = false;
  // Images in: the model's vision encoder and projector (llama.cpp's mmproj)
  // on the first GPU, and one image's tokens in each sequence's KV cache.
  // Error "scenario.no_vision" when the config has no vision section.
  bool vision = false;
  // Speculative decoding with a draft model (or the model's MTP layers): its
  // weights, KV and buffer on a GPU, and the decode speed-up as a range.
  std::optional<DraftModel> draft;
  double gpu_memory_utilization = 0.9;  // vLLM default; SGLang/TensorRT-LLM use their own
  double ram_bandwidth_bytes_per_s = 89.6e9;  // dual-channel DDR5-5600, for offloaded bytes
  // System RAM that may hold what the engine keeps off the GPUs (offloaded
  // layers or experts, llama.cpp's host-side token embedding). A scenario whose
  // RAM share exceeds it does not fit, whatever the GPUs hold.
  std::int64_t system_ram_bytes = std::int64_t{64} << 30;
  // Unified memory (a Mac, DGX Spark, Strix Halo): the GPU limit the user set
  // in place of the default (macOS: sudo sysctl iogpu.wired_limit_mb=N, whose
  // "MB" are MiB); 0 for the default. system_ram_bytes does not apply there:
  // the CPU's share comes out of the same memory.
  std::int64_t gpu_limit_bytes = 0;
  // false: the speed model stops at decode (no prefill, TTFT or their warning),
  // for callers that draw only memory and decode figures of many scenarios (the
  // page's matrix and chart: a fifth less work per estimate).
  bool prefill_speed = true;

  // Cost inputs. A cloud offer's hourly price for the whole setup (all GPUs), or
  // owned hardware: purchase price amortized over years plus power at TDP.
  std::optional<double> hourly_price_usd;
  std::optional<double> purchase_price_usd;  // defaults to device price x GPU count when known
  double amortization_years = 3.0;
  double hours_per_day = 24.0;
  double electricity_usd_per_kwh = 0.15;
};

struct GpuShare {
  std::int64_t weights_bytes = 0;
  std::int64_t kv_cache_bytes = 0;
  std::int64_t runtime_bytes = 0;  // compute buffers + runtime context
  std::int64_t projector_bytes = 0;  // vision encoder + projector (mmproj) on this GPU
  std::int64_t draft_bytes = 0;      // the draft model's weights, KV and buffer (or MTP layers' KV) on this GPU
  std::int64_t required_bytes = 0;
  std::int64_t usable_bytes = 0;
  int first_layer = 0;  // layer split: [first_layer, last_layer)
  int last_layer = 0;
  bool fits = false;
};

// The constraint closest to (or furthest past) its bound: a GPU against its
// usable bytes, what stays in system RAM against it, or on unified memory the
// GPU's and the CPU's shares together against the memory the OS leaves.
struct MemoryLimit {
  std::string where;   // "gpu", "ram" or "unified"
  int gpu_index = -1;  // where == "gpu": which GPU (0-based)
  std::int64_t required_bytes = 0;
  std::int64_t available_bytes = 0;
  double utilization = 0.0;  // required / available
};

struct MemoryEstimate {
  // The whole model at this quantization: its files' bytes as estimated, or,
  // measured from GGUF files, the tensor data the devices hold (file_bytes
  // then also says the files' size on disk, header and tokenizer included).
  std::int64_t weights_bytes = 0;
  std::optional<std::int64_t> file_bytes;
  std::int64_t kv_cache_bytes = 0;  // what the sequences on the GPUs at once hold (all of them, except
                                    // where a paged engine's pool admits fewer)
  std::int64_t kv_cache_request_bytes = 0;  // every requested sequence at its full window
  // Sequences whose KV is held at once: all requested ones, or for a paged
  // engine (vLLM, SGLang, TensorRT-LLM) what its pool admits, the rest queued.
  std::int64_t concurrent_sequences = 1;
  std::optional<std::int64_t> max_concurrent_sequences;  // paged engines: full-window sequences the pool holds
  // GPUs that hold disjoint sequences' caches: the GPU count under attention
  // data parallel, else 1 (tensor parallel splits every sequence's cache).
  int attention_ranks = 1;
  std::int64_t kv_state_bytes = 0;  // recurrent share of kv_cache_bytes
  std::int64_t runtime_bytes = 0;   // buffers on the GPUs, summed
  std::int64_t offload_bytes = 0;   // weights and KV in system RAM by the offload setting
  std::int64_t host_bytes = 0;      // other weights the engine keeps in RAM (llama.cpp token embedding)
  std::int64_t host_compute_bytes = 0;  // llama.cpp's host compute buffer (embedded rows, KQ mask)
  std::int64_t ram_required_bytes = 0;  // offload_bytes + host_bytes + host_compute_bytes: what system RAM must hold
  std::int64_t system_ram_bytes = 0;    // the RAM it is checked against: the scenario's less the OS's
                                        // share, or on unified memory what the OS and the GPU's share
                                        // leave of the pool
  std::int64_t os_reserve_bytes = 0;    // the OS's share of the host RAM or of the unified pool
  // Unified memory: the one pool and the GPU's limit.
  bool unified_pool = false;
  std::int64_t shared_pool_bytes = 0;
  std::int64_t gpu_limit_bytes = 0;
  const char* gpu_limit_basis = "";  // usable_memory()'s basis
  bool ram_fits = true;                 // ram_required_bytes <= system_ram_bytes
  // What the engine keeps free on each GPU beyond the runtime context, already
  // taken out of usable_bytes: llama.cpp's --fit-target (1024 MiB per device by
  // default); 0 where the engine's own fraction (vLLM, SGLang) is the margin.
  std::int64_t fit_margin_bytes_per_gpu = 0;
  std::int64_t required_bytes = 0;  // on the GPUs, summed
  // The GPUs' shares of the weights and of the KV cache, summed: with
  // runtime_bytes, projector and draft they add up to required_bytes (the
  // rest of the weights and KV is in ram_required_bytes).
  std::int64_t weights_on_gpus_bytes = 0;
  std::int64_t kv_cache_on_gpus_bytes = 0;
  std::optional<std::int64_t> usable_bytes;
  std::optional<std::int64_t> headroom_bytes;  // usable - required (negative: short by that much)
  std::optional<double> utilization;
  // The one verdict: every GPU's share within its usable bytes and the RAM
  // share within system RAM. The planner, the suggestions and the page use it.
  std::optional<bool> fits;
  std::optional<MemoryLimit> limit;  // with a device: the binding constraint, for the headline
  // Paged engines reserve a pool: its size and how many tokens it holds.
  std::optional<std::int64_t> kv_pool_bytes;
  std::optional<std::int64_t> kv_pool_tokens;
  // The same request's KV cache in each element type the engine offers, for
  // tuning notes ("8-bit KV saves ... here").
  std::vector<std::pair<KvType, std::int64_t>> kv_cache_bytes_by_type;
  // Scenario::vision: the encoder and projector at F16 (kProjectorBytesPerParam),
  // their parameters, the tokens one image takes, and the KV those tokens add
  // (inside kv_cache_bytes; 0 without vision).
  std::int64_t projector_bytes = 0;
  VisionParams projector_params;
  std::int64_t image_tokens = 0;
  std::int64_t image_kv_bytes = 0;
  // Scenario::draft: the draft's weights (0 for MTP layers, already counted
  // with the output), its KV at the same context, its compute buffer.
  std::int64_t draft_weights_bytes = 0;
  std::int64_t draft_kv_cache_bytes = 0;
  std::int64_t draft_runtime_bytes = 0;
  int offloaded_layers = 0;  // layers (or MoE layers' experts) in RAM
  bool offload_experts_only = false;  // --n-cpu-moe style: only routed experts moved
  // llama.cpp puts the output layer on a GPU only with -ngl above the layer
  // count: with whole layers in RAM the output head and norm are there too
  // (inside offload_bytes), and the CPU computes the logits.
  bool output_in_ram = false;
  std::vector<GpuShare> per_gpu;
};

// A serving engine under load (continuous batching, chunked prefill): requests
// of `input_tokens` in and `output_tokens` out, `concurrency` of them in
// flight. Each scheduler step decodes one token for every sequence past its
// prompt and, while prompts wait, takes a chunk of them into the same pass.
struct ServedEstimate {
  std::int64_t concurrency = 1;           // requests in flight (the scenario's sequences)
  std::int64_t admitted_concurrency = 1;  // of them, what the KV pool holds at once (the rest queue)
  double decoding_concurrency = 1.0;      // of them, past their prompt on average
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t chunk_tokens = 0;          // the step's token budget (chunked prefill)
  double prefill_step_share = 0.0;        // share of steps that carry a prompt chunk
  bool prefill_bound = false;             // prompts arrive faster than the budget takes them
  double tpot_s = 0.0;                    // mean time per output token: the mean step
  double tokens_per_s_per_user = 0.0;     // 1 / tpot
  double output_tokens_per_s = 0.0;       // all requests together
  double output_tokens_per_s_per_gpu = 0.0;
  double ttft_s = 0.0;                    // the wait for a turn, the prompt's chunks, the first step
  double queue_s = 0.0;                   // of ttft_s, the wait
  std::optional<std::int64_t> max_concurrency;  // paged engines: the requests the pool holds at once
  double request_overhead_s = 0.0;        // of ttft_s, the engine's fixed cost per request
  // What the steps were timed with: the serving row (engine/backend/format),
  // its measurements (0: none, see basis) and its factors.
  std::string calibration_row;
  int calibration_records = 0;
  int calibration_typical_error_pct = -1;  // the row's median throughput error on its runs; -1: none
  // Figures to read as a rough estimate: the row is another platform's (a
  // backend no serving run was measured on), stands on fewer than 5 runs, the
  // device is not an HBM datacenter GPU like every one measured, or the row
  // reproduces its runs only within more than 20% on median.
  bool calibration_rough = false;
  std::string calibration_rough_because;  // why, in words ("" when not rough)
  // The time to first token on its own: the row reproduces its runs' TTFTs
  // only within more than 25% on median (issue 35's TTFT goal), though its
  // throughput may be closer. -1: no TTFT measured on the row's runs.
  int calibration_ttft_typical_error_pct = -1;
  std::string ttft_rough_because;  // "" when the TTFT is as good as the rest
  std::string calibration_basis;
  bool calibration_override = false;  // the request's own factors (served_calibration)
  ServedFactors factors;
  StepWork decode_step_work;  // a step with no prompt chunk
  StepTime decode_step_time;
  StepWork mixed_step_work;   // a step that carries a prompt chunk
  StepTime mixed_step_time;
};

struct SpeedEstimate {
  double decode_tokens_per_s = 0.0;        // one sequence with --ctx tokens cached (the full window)
  // One sequence right after its prompt: min(prompt, context) tokens cached (and
  // the image's, with Scenario::vision). 0 with Scenario::prefill_speed false.
  double decode_tokens_per_s_after_prompt = 0.0;
  std::int64_t after_prompt_cached_tokens = 0;
  double decode_tokens_per_s_total = 0.0;  // all sequences together
  double decode_tokens_per_s_per_sequence = 0.0;  // total / sequences: each sequence's rate in the batch
  double prefill_tokens_per_s = 0.0;       // 0 when the device has no dense throughput figure,
  double ttft_s = 0.0;                     // or with Scenario::prefill_speed false; 0 likewise
  // Mixed cards: each card's seconds of one single-sequence decode step (its
  // layers' bytes over its own bandwidth, its layers' fixed cost); empty otherwise.
  std::vector<double> decode_seconds_per_gpu;
  // Scenario::draft: decode of one sequence with speculation, as a range over
  // the acceptance rate (speculative.hpp); the figures above are without it.
  std::optional<SpeculativeEstimate> speculative;
  // Where the time goes (speed_types.hpp): one decode step of one sequence, of
  // the whole batch, and the whole prompt.
  StepWork decode_single_work;
  StepTime decode_single_time;
  StepWork decode_after_prompt_work;  // the step after the prompt (TTFT's last part)
  StepTime decode_after_prompt_time;
  StepWork decode_batch_work;
  StepTime decode_batch_time;
  StepWork prefill_work;
  StepTime prefill_time;
  SpeedBasis basis;  // the runtime row, weight family and peak figures used
  std::optional<ServedEstimate> served;  // with Scenario::output_tokens > 0 (equal devices)
};

struct CostEstimate {
  std::optional<double> usd_per_million_tokens;        // one stream
  std::optional<double> usd_per_million_tokens_batch;  // all sequences together
  std::optional<double> usd_per_million_output_tokens;  // served (speed.served): at its output rate
  std::optional<double> usd_per_hour;                  // rent, or owned: amortization + power
  std::optional<double> power_usd_per_month;           // owned hardware at TDP
  std::optional<double> break_even_months;             // buying vs renting at the given hourly price
  std::optional<double> purchase_usd;                  // owned hardware: given, or device price x GPUs
                                                       // (mixed cards: the sum of their prices, when all are known)
  std::string basis;                                   // "rent", "owned" or "" (no price known)
  // The purchase is the catalog's price and the catalog doubts it (a used
  // asking price, a Mac no longer sold new): the owned cost says so.
  bool purchase_low_confidence = false;
  // What purchase_usd buys: "given" (--purchase-price), "devices" (the
  // catalog's price x GPUs), "servers" (whole servers at a sourced price),
  // "server_share" (modules sold only in servers, fewer than a server: their
  // share of its sourced price), "modules_only" (modules with no server price:
  // the server they need is not in the figure); "" with no purchase.
  std::string purchase_basis;
  std::string purchase_note;  // that, in words, with the server's source where there is one
};

struct Estimate {
  ParamCounts params;
  WeightBreakdown weights;
  KvBreakdown kv;
  RuntimeBreakdown runtime;
  MemoryEstimate memory;
  std::optional<SpeedEstimate> speed;
  CostEstimate cost;
  std::vector<std::string> warnings;
};

// Error ids: "scenario.bad_value" (message names the input and its range).
Result<Estimate> estimate(const Architecture& arch, const Scenario& scenario);

// The KV cache request an estimate sizes for: `context_tokens` per sequence
// (the scenario's window, or fewer), its sequences, type, engine and micro-batch.
KvRequest kv_request_for(const Scenario& scenario, std::int64_t context_tokens);

// What one GPU of the scenario's device offers the model: its usable bytes
// less llama.cpp's --fit-target under llama.cpp; all of them under Ollama and
// MLX; the paged engines' utilization share of capacity (the runtime's reserve
// is inside that share, not charged on top).
std::int64_t usable_bytes_per_gpu(const UsableMemory& usable, const Scenario& scenario);
// The margin usable_bytes_per_gpu keeps free on each GPU for the engine
// (llama.cpp's --fit-target; none on a CPU, where it fits nothing).
std::int64_t fit_margin_bytes_per_gpu(const Scenario& scenario);

// The number of computers the scenario spreads the model over (several Macs,
// DGX Sparks or Strix Halo machines, each a whole machine: is_whole_machine),
// joined by a network; 0 when its GPUs share one host.
int networked_machines(const Scenario& scenario);

// Whether the estimate's speed and cost describe something that runs: not when
// the scenario is known not to fit (the figures would read as if it ran).
inline bool runs(const Estimate& e) { return e.memory.fits.value_or(true); }

// The model's weights: bytes and parameter counts, either computed from the
// architecture at scenario.quant (the overload above) or measured from the
// tensors of model files (gguf.hpp, safetensors.hpp). weights.layer_bytes and
// layer_expert_bytes hold one entry per layer of arch.
struct ModelWeights {
  WeightBreakdown weights;
  ParamCounts params;
};
// The same estimate with the given weights in place of computed ones; scenario.quant
// should name the files' format (GgufModel::quant). Error id "scenario.bad_value"
// also when the weights do not have one entry per layer of arch.
Result<Estimate> estimate(const Architecture& arch, const Scenario& scenario, const ModelWeights& weights);

}  // namespace llmsizer
