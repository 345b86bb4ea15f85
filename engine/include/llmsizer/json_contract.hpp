// The JSON contract of DESIGN.md, in one place: the CLI prints it and the
// WebAssembly module returns it, so both show the same figures to the last digit.
#pragma once
#include <limits>
#include <string>
#include <string_view>

#include "llmsizer/json.hpp"

#include "llmsizer/estimate.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/log_check.hpp"
#include "llmsizer/machine_calibration.hpp"
#include "llmsizer/suggestions.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

// Keys as in the page's URL hash: model | config, quant, ctx, batch, kv, engine,
// gpu | custom_gpu {memory_gib, bandwidth_gbs, tflops, vendor}, gpus, offload,
// offload_mode, prompt, flash_attention, attention_data_parallel, hourly_price_usd, purchase_price_usd,
// years, hours_per_day, electricity_usd_per_kwh, ram_bandwidth_gbs, backend, machine_calibration
// {bandwidth_factor, compute_factor, overhead_factor, rows, backend}. Absent keys take the
// defaults of SizerRequest; a key of the wrong type or range is an error naming it.
// Requests about hardware alone (the planner's "what can I run") need no model.
enum class ModelKey { required, optional };
Result<SizerRequest> request_from_json(const Json& request, ModelKey model_key = ModelKey::required);

// The request's "machine_calibration" object, which is `calibrate`'s
// "factors": {bandwidth_factor, compute_factor, overhead_factor, rows, backend}.
struct MachineCalibrationKey {
  MachineFactors factors;
  std::string backend;  // "" when not given
};
Result<MachineCalibrationKey> machine_calibration_from_json(const Json& machine_calibration);
// `calibrate`'s answer: {factors {... , backend}, device, gpus, fitted, rows
// [{where, test, model_as_stated, model, quant, measured_tokens_per_s,
// estimated_tokens_per_s, calibrated_tokens_per_s, residual_pct, left_out}], warnings}.
Json machine_calibration_to_json(const MachineCalibration& calibration);
// `check-log`'s answer: {model, quant, device, gpus, context_tokens, sequences,
// kv_type, flash_attention, offload_fraction, lines [{item, where, log_mib,
// estimate_mib, difference_pct, differs, hint}], warnings}.
Json log_check_to_json(const LogCheck& check);

Json params_to_json(const ParamCounts& params);
// The launch commands as the estimate's "commands": {engine: {"steps": [command,
// ...] (empty when none runs this scenario), "note": text ("" when none)}}.
Json launch_commands_to_json(const std::vector<LaunchCommand>& commands);
// Where the scenario does not fit (memory.fits false), "speed" and "cost" are
// null unless speed_if_no_fit (calibration against measurements), and
// "suggestions" lists what would make it fit (suggestions.hpp).
Json estimate_to_json(const Estimate& estimate, const Scenario& scenario, const std::string& model_label,
                                        const std::vector<LaunchCommand>& commands = {},
                                        const std::vector<Suggestion>& suggestions = {}, bool speed_if_no_fit = false,
                                        const SizedModel* model = nullptr);
// With a model, each suggestion carries the launch commands of its scenario.
Json suggestions_to_json(const std::vector<Suggestion>& suggestions, const SizedModel* model = nullptr);

// Everything the page lists: models with their badges and counts, devices with
// their usable memory, quantizations and engines.
Json catalog_to_json(const Sizer& sizer);
// Every catalog model's ModelFacts: data/embedded/model_facts.json.
Json model_facts_to_json(const Sizer& sizer);

// Request text in, the estimate out, without the JSON of the answer: for callers
// that need a few figures of many scenarios (the page's matrix and chart). Its
// speed stops at decode (Scenario::prefill_speed false): no prefill or TTFT.
Result<Estimate> estimate_request(const Sizer& sizer, std::string_view request_json);

// The keys the page sends for those figures, as plain fields for callers that
// hand them over one by one (the WebAssembly value object) instead of as JSON
// text: an empty string or a NaN number is an absent key. The same defaults,
// checks and error messages as request_from_json.
struct RequestFields {
  std::string model;
  std::string config;
  std::string quant;
  std::string kv;
  std::string engine;
  std::string gpu;
  double ctx = std::numeric_limits<double>::quiet_NaN();
  double batch = std::numeric_limits<double>::quiet_NaN();
  double gpus = std::numeric_limits<double>::quiet_NaN();
  double offload = std::numeric_limits<double>::quiet_NaN();
  double prompt = std::numeric_limits<double>::quiet_NaN();
  double ram_gib = std::numeric_limits<double>::quiet_NaN();
};
Result<SizerRequest> request_from_fields(const RequestFields& fields);
Result<Estimate> estimate_request(const Sizer& sizer, const RequestFields& fields);

// A local GGUF model (one file or a split set) sized from the first bytes of its
// files: request {"parts": [{"name", "file_bytes", "length"}], ...estimate keys
// but model/config}, `bytes` the parts' leading bytes one after another. Answers
// {"ok": true, "complete": false, "bytes_needed": [...]} until every header is
// whole, then the estimate with "gguf": {name, architecture, quant, split_count}.
std::string estimate_gguf_response(const Sizer& sizer, std::string_view request_json, std::string_view bytes);

// A native checkpoint from its config.json (request "config") and the leading
// bytes of its .safetensors shards, or its model.safetensors.index.json: parts
// [{"name", "file_bytes", "length", "kind": "shard" | "index"}], bytes one after
// another. Same answers as estimate_gguf_response.
std::string estimate_safetensors_response(const Sizer& sizer, std::string_view request_json, std::string_view bytes);

// Hardware for the request's scenario (planner.hpp recommend): {"ok": true,
// "single", "value", "unified", "cloud", "per_quant", "max_ctx", ...}. The
// request's gpu and gpus are ignored: every catalog device and offer is tried.
std::string recommend_response(const Sizer& sizer, std::string_view request_json);

// Request text in, response text out: {"ok": true, ...estimate} or
// {"ok": false, "error": {"id", "message"}}. Never throws.
std::string estimate_response(const Sizer& sizer, std::string_view request_json);

}  // namespace llmsizer
