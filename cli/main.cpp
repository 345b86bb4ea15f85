// llm-sizer: command-line front end of the sizing engine. All I/O lives here;
// the engine only sees parsed values.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "arguments.hpp"
#include "calibrate_command.hpp"
#include "hub_model.hpp"
#include "model_files.hpp"
#include "llmsizer/catalog_similar.hpp"
#include "llmsizer/layer_split.hpp"
#include "llmsizer/catalog.hpp"
#include "llmsizer/config_reader.hpp"
#include "llmsizer/estimate.hpp"
#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/params.hpp"
#include "llmsizer/units.hpp"
#include "output.hpp"
#include "planner_commands.hpp"

namespace {

using namespace llmsizer;

constexpr std::int64_t kMaxConfigBytes = 16 * static_cast<std::int64_t>(kMiB);

int fail(const Error& error) {
  std::cerr << "llm-sizer: " << error.message << "\n";
  return 2;
}

Result<std::string> read_small_file(const std::string& path) {
  return cli::read_text_file(path, kMaxConfigBytes, "a config.json is a few KB");
}

struct LoadedModel {
  Architecture arch;
  std::string label;
  std::optional<ModelWeights> weights = std::nullopt;  // measured from --gguf / --safetensors files
  std::optional<QuantScheme> quant = std::nullopt;     // the files' format
  const CatalogModel* entry = nullptr;                 // the catalog's, for --model
  std::optional<HubModelSource> hub = std::nullopt;  // --hf: the repo the commands name
};


// --hf: the repo's headers read in place (HF_TOKEN for gated repos, --hub-url for a mirror).
Result<LoadedModel> load_hub(const cli::Command& c) {
  auto name = parse_hub_name(*c.hf_name);
  if (!name) return name.error();
  cli::HubOptions options;
  if (c.hub_url) {
    std::string url = *c.hub_url;
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0)
      return Error{"cli.bad_argument", "--hub-url must start with https:// or http://"};
    options.base_url = url;
  }
  if (const char* token = std::getenv("HF_TOKEN")) options.token = token;
  const cli::HubClient hub(options);
  auto model = cli::load_hub_model(hub, name.value());
  if (!model) return model.error();
  cli::HubModel& m = model.value();
  LoadedModel out;
  if (m.files) {
    out = LoadedModel{std::move(m.files->arch), m.label, std::move(m.files->weights), m.files->quant};
  } else {
    auto arch = read_hf_config_text(m.config_text);
    if (!arch) return Error{arch.error().id, m.label + "/config.json: " + arch.error().message};
    out = LoadedModel{std::move(arch).value(), m.label};
  }
  out.hub = m.source;
  out.hub->native_dtype = native_dtype_name(out.arch.native_format);
  return out;
}

Result<LoadedModel> load_model(const cli::Command& c, const Catalog& catalog) {
  if (c.hf_name) return load_hub(c);
  if (c.gguf_path || c.safetensors_path) {
    auto files = cli::load_model_files(c);
    if (!files) return files.error();
    cli::FileModel& f = files.value();
    return LoadedModel{std::move(f.arch), f.label, std::move(f.weights), f.quant};
  }
  if (c.config_path) {
    auto text = read_small_file(*c.config_path);
    if (!text) return text.error();
    auto arch = read_hf_config_text(text.value());
    if (!arch) return Error{arch.error().id, *c.config_path + ": " + arch.error().message};
    return LoadedModel{std::move(arch).value(), *c.config_path};
  }
  const CatalogModel* m = catalog.find_model(*c.model_id);
  if (m == nullptr)
    return Error{"cli.unknown_model", "unknown model '" + c.model_id->substr(0, 80) + "'" +
                                          did_you_mean(similar_model_ids(catalog, *c.model_id)) +
                                          "; `llm-sizer list models` shows the catalog"};
  auto arch = read_catalog_architecture(*m);
  if (!arch) return Error{arch.error().id, "catalog model " + m->id + ": " + arch.error().message};
  return LoadedModel{std::move(arch).value(), m->id, std::nullopt, std::nullopt, m};
}

// A number flag in [low, high], or the error naming it.
std::optional<Error> check_range(const std::optional<double>& v, const char* flag, double low, double high) {
  if (v && !(*v >= low && *v <= high)) {
    char text[120];
    std::snprintf(text, sizeof text, "%s must be between %.10g and %.10g", flag, low, high);
    return Error{"cli.bad_argument", text};
  }
  return std::nullopt;
}

// --backend, --ram-bandwidth-gbs and the cost inputs (prices, years, hours, electricity).
std::optional<Error> apply_speed_and_cost_flags(const cli::Command& c, Scenario& s) {
  if (c.backend) {
    if (!s.device) return Error{"cli.bad_argument", "--backend needs a device (--gpu or the --gpu-* flags)"};
    const Backend b = backend_from_name(*c.backend);
    if (b == Backend::other || b == Backend::cann || b == Backend::musa)
      return Error{"cli.bad_argument", "--backend must be cuda, rocm, metal, vulkan, sycl or cpu"};
    if (!backend_runs_on(b, *s.device))
      return Error{"cli.bad_argument", std::string("llama.cpp's ") + backend_name(b) + " backend does not run on " + s.device->name};
    choose_backend(*s.device, b);
    for (Device& card : s.cards) choose_backend(card, b);
  }
  if (c.calibration_path) {
    // The machine's own factors, on the backend they were measured on.
    auto calibration = cli::read_calibration_file(*c.calibration_path);
    if (!calibration) return calibration.error();
    if (!s.device) return Error{"cli.bad_argument", "--calibration needs the device it was measured on (--gpu)"};
    const std::string& measured_on = calibration.value().backend;
    if (!measured_on.empty()) {
      const Backend b = backend_from_name(measured_on);
      if (c.backend && b != s.device->backend)
        return Error{"cli.bad_argument", "--calibration was measured on the " + measured_on + " backend, not " + *c.backend};
      if (!backend_runs_on(b, *s.device))
        return Error{"cli.bad_argument", "--calibration was measured on llama.cpp's " + measured_on + " backend, which does not run on " + s.device->name};
      choose_backend(*s.device, b);
      for (Device& card : s.cards) choose_backend(card, b);
    }
    s.machine_factors = calibration.value().factors;
  }
  if (auto e = check_range(c.ram_bandwidth_gbs, "--ram-bandwidth-gbs", 0.001, 100000.0)) return e;
  if (auto e = check_range(c.hourly_price_usd, "--hourly-price", 0.0, 1e6)) return e;
  if (auto e = check_range(c.purchase_price_usd, "--purchase-price", 0.0, 1e9)) return e;
  if (auto e = check_range(c.amortization_years, "--years", 0.01, 100.0)) return e;
  if (auto e = check_range(c.hours_per_day, "--hours-per-day", 0.01, 24.0)) return e;
  if (auto e = check_range(c.electricity_usd_per_kwh, "--electricity", 0.0, 100.0)) return e;
  if (c.ram_bandwidth_gbs) s.ram_bandwidth_bytes_per_s = *c.ram_bandwidth_gbs * kGB;
  if (auto e = check_range(c.ram_gib, "--ram-gib", 0.0, 1048576.0)) return e;
  if (c.ram_gib) s.system_ram_bytes = static_cast<std::int64_t>(*c.ram_gib * static_cast<double>(kGiB));
  if (auto e = check_range(c.gpu_limit_mib, "--gpu-limit-mib", 0.0, 1073741824.0)) return e;
  if (c.layer_split) {
    auto split = parse_layer_split(*c.layer_split);
    if (!split) return split.error();
    s.layers_per_gpu = split.value();
  }
  if (c.gpu_limit_mib) s.gpu_limit_bytes = static_cast<std::int64_t>(*c.gpu_limit_mib) * static_cast<std::int64_t>(kMiB);
  if (c.ubatch) {
    if (*c.ubatch < 1 || *c.ubatch > 1048576) return Error{"cli.bad_argument", "--ubatch must be between 1 and 1048576"};
    s.prefill_ubatch_tokens = *c.ubatch;
  }
  s.hourly_price_usd = c.hourly_price_usd;
  s.purchase_price_usd = c.purchase_price_usd;
  if (c.amortization_years) s.amortization_years = *c.amortization_years;
  if (c.hours_per_day) s.hours_per_day = *c.hours_per_day;
  if (c.electricity_usd_per_kwh) s.electricity_usd_per_kwh = *c.electricity_usd_per_kwh;
  return std::nullopt;
}

Result<Scenario> build_scenario(const cli::Command& c, const Catalog& catalog) {
  Scenario s;
  if (c.engine) {
    auto e = engine_from_name(*c.engine);
    if (!e) return Error{"cli.bad_argument", "unknown engine '" + c.engine->substr(0, 40) +
                                                 "'; expected llama.cpp, ollama, vllm, sglang, mlx or tensorrt-llm"};
    s.engine = *e;
  } else if (c.safetensors_path) {
    s.engine = InferenceEngine::vllm;  // checkpoints are served by the paged engines
  }
  // A catalog model's own GGUF type (gpt-oss: MXFP4_MOE), as the engine's requests take it.
  const CatalogModel* model = c.model_id ? catalog.find_model(*c.model_id) : nullptr;
  const std::string default_quant(default_quant_name(s.engine, model ? std::string_view(model->gguf_default_quant) : ""));
  auto quant = quant_scheme_from_name(c.quant.value_or(default_quant));
  if (!quant) return quant.error();
  s.quant = quant.value();
  if (c.kv_type) {
    auto kv = kv_type_from_name(*c.kv_type);
    if (!kv) return Error{"cli.bad_argument", "unknown KV type '" + c.kv_type->substr(0, 40) +
                                                  "'; expected f16, bf16, fp8, q8_0, q4_0, q4_1, q5_0 or q5_1"};
    s.kv_type = *kv;
  } else if (!engine_is_llama_cpp_based(s.engine) && s.engine != InferenceEngine::mlx) {
    s.kv_type = KvType::bf16;  // paged engines default to the model dtype
  }
  s.context_tokens = c.ctx.value_or(8192);
  // Unasked, the context is 8192 tokens or the model's whole window if that
  // is shorter (Llama 2's 4096), as the page's slider does: a default the
  // model cannot hold would only warn and print -c beyond its window.
  if (!c.ctx && c.model_id)
    if (const CatalogModel* m = catalog.find_model(*c.model_id); m != nullptr && m->max_context_tokens > 0)
      s.context_tokens = std::min<std::int64_t>(s.context_tokens, m->max_context_tokens);
  s.sequences = c.batch.value_or(1);
  s.prompt_tokens = c.prompt.value_or(4096);
  if (c.output_tokens && (*c.output_tokens < 0 || *c.output_tokens > (1 << 24)))
    return Error{"cli.bad_argument", "--output-tokens must be between 0 and 16777216"};
  s.output_tokens = c.output_tokens.value_or(0);
  const long long gpus = c.gpus.value_or(1);
  if (gpus < 1 || gpus > 1024) return Error{"cli.bad_argument", "--gpus must be between 1 and 1024"};
  s.gpu_count = static_cast<int>(gpus);
  s.copies = static_cast<int>(c.copies.value_or(1));
  s.offload_fraction = c.offload.value_or(0.0);
  s.flash_attention = !c.no_flash_attention;
  s.attention_data_parallel = c.attention_dp;
  s.vision = c.vision;
  if (c.draft_tokens && (*c.draft_tokens < 1 || *c.draft_tokens > 64))
    return Error{"cli.bad_argument", "--draft-tokens must be between 1 and 64"};
  if (c.draft_tokens && !c.draft) return Error{"cli.bad_argument", "--draft-tokens needs --draft MODEL_ID or --draft mtp"};
  if (c.draft) {
    DraftModel d;
    if (*c.draft == "mtp") {
      d.use_mtp = true;
      d.label = "mtp";
    } else {
      const CatalogModel* m = catalog.find_model(*c.draft);
      if (m == nullptr)
        return Error{"cli.unknown_model", "unknown draft model '" + c.draft->substr(0, 80) +
                                              "'; `llm-sizer list models` shows the catalog"};
      auto arch = read_catalog_architecture(*m);
      if (!arch) return Error{arch.error().id, "draft model " + m->id + ": " + arch.error().message};
      d.arch = std::make_shared<const Architecture>(std::move(arch).value());
      d.label = m->id;
    }
    d.drafted_tokens = c.draft_tokens ? static_cast<int>(*c.draft_tokens)
                                      : (d.use_mtp ? kDefaultMtpDraftedTokens : kDefaultDraftedTokens);
    s.draft = std::move(d);
  }
  if (c.offload_mode) {
    if (*c.offload_mode == "auto") s.offload_mode = OffloadMode::automatic;
    else if (*c.offload_mode == "layers") s.offload_mode = OffloadMode::layers;
    else if (*c.offload_mode == "experts") s.offload_mode = OffloadMode::experts;
    else return Error{"cli.bad_argument", "--offload-mode must be auto, layers or experts"};
  }
  if (c.gpu_id && c.gpu_id->find(',') != std::string::npos) {
    // --gpu once per card: --gpus, if given, must count them.
    auto cards = find_cards(catalog, *c.gpu_id);
    if (!cards) return Error{"cli.unknown_gpu", cards.error().message + "; `llm-sizer list gpus` shows the catalog"};
    if (c.gpus && *c.gpus != static_cast<long long>(cards.value().size()))
      return Error{"cli.bad_argument", "--gpus " + std::to_string(*c.gpus) + " disagrees with the " +
                                           std::to_string(cards.value().size()) + " cards given with --gpu"};
    if (auto error = set_cards(s, std::move(cards).value())) return *error;
  } else if (c.gpu_id) {
    const Device* d = catalog.find_device(*c.gpu_id);
    if (d == nullptr)
      return Error{"cli.unknown_gpu", "unknown GPU '" + c.gpu_id->substr(0, 80) + "'" +
                                          did_you_mean(similar_device_ids(catalog, *c.gpu_id)) +
                                          "; `llm-sizer list gpus` shows the catalog"};
    s.device = *d;
  } else if (c.gpu_memory_gib) {
    const double gib = *c.gpu_memory_gib;
    if (!(gib > 0.0 && gib <= 1048576.0)) return Error{"cli.bad_argument", "--gpu-memory-gib must be in (0, 1048576]"};
    Device d;
    d.id = "custom";
    d.name = "custom device";
    d.vendor = c.gpu_vendor.value_or("nvidia");
    if (d.vendor != "nvidia" && d.vendor != "amd" && d.vendor != "apple" && d.vendor != "intel" && d.vendor != "cpu")
      return Error{"cli.bad_argument", "--gpu-vendor must be nvidia, amd, apple, intel or cpu"};
    d.backend = d.vendor == "amd" ? Backend::rocm : d.vendor == "apple" ? Backend::metal
              : d.vendor == "intel" ? Backend::sycl : d.vendor == "cpu" ? Backend::cpu : Backend::cuda;
    d.unified_memory = d.vendor == "apple";
    // --gpu-vendor cpu: a CPU-only machine whose memory is its system RAM.
    if (d.vendor == "cpu") d.kind = DeviceKind::cpu;
    d.memory_bytes = static_cast<std::int64_t>(gib * static_cast<double>(kGiB));
    const double gbs = c.gpu_bandwidth_gbs.value_or(0.0);
    const double tflops = c.gpu_tflops.value_or(0.0);
    if (!(gbs >= 0.0 && gbs < 1e6) || !(tflops >= 0.0 && tflops < 1e6))
      return Error{"cli.bad_argument", "--gpu-bandwidth-gbs and --gpu-tflops must be non-negative and below 1e6"};
    d.bandwidth_bytes_per_s = gbs * kGB;
    d.fp16_flops = tflops * 1e12;
    const long long dies = c.gpu_dies.value_or(1);
    if (dies < 1 || dies > 8) return Error{"cli.bad_argument", "--gpu-dies must be between 1 and 8"};
    d.memory_dies = static_cast<int>(dies);
    s.device = d;
  }
  if (auto error = apply_speed_and_cost_flags(c, s)) return *error;
  return s;
}

}  // namespace

// command --hf: the estimate of the repo as read, and commands that name it
// (llama-server -hf REPO:TAG, vllm serve REPO).
int run_hub_command(const cli::Command& c) {
  auto catalog = embedded_catalog();
  if (!catalog) return fail(catalog.error());
  auto model = load_model(c, catalog.value());
  if (!model) return fail(model.error());
  auto scenario = build_scenario(c, catalog.value());
  if (!scenario) return fail(scenario.error());
  const LoadedModel& loaded = model.value();
  const bool measured = loaded.weights && !c.quant;
  if (measured) scenario.value().quant = *loaded.quant;
  const Estimator estimate_fn = [&](const Scenario& s) {
    return measured && s.quant.name == loaded.quant->name ? estimate(loaded.arch, s, *loaded.weights)
                                                          : estimate(loaded.arch, s);
  };
  auto result = estimate_fn(scenario.value());
  if (!result) return fail(result.error());
  SizedModel sized;
  sized.architecture = &loaded.arch;
  sized.label = loaded.label;
  return cli::print_commands_that_fit(
      loaded.arch, scenario.value(), result.value(), estimate_fn,
      [&](const Scenario& sc, const Estimate& x) { return engine_starts(sized, sc, x); }, c.json,
      [&](const Scenario& sc, const Estimate& x) { return hub_launch_commands(*loaded.hub, sized, sc, x); });
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = cli::parse_arguments(args);
  if (!parsed) return fail(parsed.error());
  const cli::Command& c = parsed.value();
  if (c.verb == cli::Verb::help) {
    if (args.empty()) return fail(Error{"cli.no_command", "no command given; `llm-sizer help` shows the usage"});
    std::cout << cli::usage_text();
    return 0;
  }
  // command --hf: the Hub repo's own names in the commands (the planner takes catalog models).
  if (c.verb == cli::Verb::command && c.hf_name) return run_hub_command(c);
  if (cli::is_planner_verb(c.verb)) return cli::run_planner_command(c);
  // The catalog is parsed only by commands that need it (list, --model, --gpu).
  const bool needs_catalog = c.verb == cli::Verb::list || c.model_id || c.gpu_id || (c.draft && *c.draft != "mtp");
  auto catalog = needs_catalog ? embedded_catalog() : Result<Catalog>(Catalog{});
  if (!catalog) return fail(catalog.error());

  if (c.verb == cli::Verb::list) {
    if (c.json) std::cout << dump_json(cli::list_json(catalog.value(), *c.list_what), 1) << "\n";
    else std::cout << cli::list_table(catalog.value(), *c.list_what);
    return 0;
  }
  auto model = load_model(c, catalog.value());
  if (!model) return fail(model.error());
  if (c.verb == cli::Verb::params) {
    const ParamCounts p = model.value().weights ? model.value().weights->params : count_params(model.value().arch);
    if (c.json) std::cout << dump_json(cli::params_json(p), 1) << "\n";
    else std::cout << cli::params_table(p);
    return 0;
  }
  auto scenario = build_scenario(c, catalog.value());
  if (!scenario) return fail(scenario.error());
  // The files' own bytes, unless --quant asks for the model at another quantization.
  const bool measured = model.value().weights && !c.quant;
  if (measured) scenario.value().quant = *model.value().quant;
  const LoadedModel& loaded = model.value();
  if (scenario.value().vision && !loaded.arch.vision) return fail(no_vision_error(loaded.arch, loaded.label));
  // The files' measured weights at their own format; any other quantization
  // (a suggestion's) is computed from the architecture.
  const Estimator estimate_fn = [&](const Scenario& s) {
    return measured && s.quant.name == loaded.quant->name ? estimate(loaded.arch, s, *loaded.weights)
                                                          : estimate(loaded.arch, s);
  };
  auto result = estimate_fn(scenario.value());
  if (!result) return fail(result.error());
  note_runtime_support(loaded.entry, scenario.value(), result.value());
  SizedModel sized;  // for the suggestions' launch commands (the catalog's repositories)
  sized.entry = loaded.entry;
  sized.architecture = &loaded.arch;
  sized.label = loaded.label;
  const std::vector<Suggestion> suggestions =
      suggest_fits(loaded.arch, scenario.value(), result.value(), estimate_fn,
                   [&](const Scenario& s, const Estimate& e) { return engine_starts(sized, s, e); });
  if (c.json)
    std::cout << dump_json(cli::estimate_json(result.value(), scenario.value(), loaded.label, suggestions,
                                              c.speed_if_no_fit, sized),
                           1)
              << "\n";
  else std::cout << cli::estimate_table(result.value(), scenario.value(), loaded.label, suggestions);
  return 0;
}
