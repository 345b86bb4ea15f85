// The planner's JSON doors, shared by the CLI and the WebAssembly bindings:
// request text in, response text out ({"ok": true, ...} or {"ok": false,
// "error": {"id", "message"}}), never throwing. Requests take the estimate keys
// of json_contract.hpp plus the few keys each question adds.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsizer/finetune.hpp"
#include "llmsizer/json.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/sizer.hpp"

namespace llmsizer {

// recommend's answer (recommendation_to_json), the rent-vs-buy rows under
// "offers", and, when a target is given, "target" (target_plan_to_json).
Result<Json> recommend_json(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                            const std::vector<CloudOffer>& offers, const std::optional<ServingTarget>& target,
                            const RecommendOptions& options = {});

// What should I buy or rent: estimate keys plus "tokens_per_s_per_user"
// (required) and "users" (default: the request's "batch").
// {"ok": true, "users", "tokens_per_s_per_user", "buy", "rent", "rent_any"}.
std::string target_response(const Sizer& sizer, std::string_view request_json);

// Cloud and rent vs buy for the estimate keys' scenario:
// {"ok": true, "hours_per_day", "offers": [offer_costs_to_json rows]}.
std::string offers_response(const Sizer& sizer, std::string_view request_json);

// A serving engine's curve (serve.hpp): estimate keys ("prompt" and
// "output_tokens" default to 1024 each, "ctx" to their sum) plus
// "concurrency" (a list of counts; absent: a sweep to saturation) and
// "target_tokens_per_s_per_user". {"ok": true, ...serve_curve_to_json, "gpus", "engine"}.
std::string serve_response(const Sizer& sizer, std::string_view request_json);

// What can I run: "gpu" (or "custom_gpu"), "gpus" (1-64), "ram_gib" (system
// RAM for MoE experts, 0-1048576), "ctx", "engine"; no model.
// {"ok": true, "results": [...], "estimates"}.
std::string fit_response(const Sizer& sizer, std::string_view request_json);

// Fine-tuning memory: "model" or "config", "method" (full | lora | qlora),
// "seq", "micro_batch", "gpus", "lora_rank", "lora_targets" (all | attention |
// q,k,v,...), "optimizer" (adamw | adamw8bit), "gradient_checkpointing",
// "zero" (0-3), "flash_attention".
// {"ok": true, ...finetune_to_json, "method", "gpus"}.
std::string finetune_response(const Sizer& sizer, std::string_view request_json);

// How to start it: the estimate keys' scenario, each engine's commands and
// note (launch_commands_to_json), whether or not it fits: llm-sizer command.
// {"ok": true, "commands": {engine: {"steps", "note"}}}.
std::string command_response(const Sizer& sizer, std::string_view request_json);

// This machine's speed factors from its llama-bench output (machine_calibration.hpp):
// "gpu" (or "custom_gpu"; absent: the GPU the text names), "gpus",
// "ram_bandwidth_gbs"; the text apart. {"ok": true, ...machine_calibration_to_json}.
std::string calibrate_response(const Sizer& sizer, std::string_view request_json, std::string_view llama_bench_text);

// A llama.cpp load log beside the estimate (log_check.hpp): the estimate keys
// (model, quant, gpu...; each absent: what the log says); the log apart.
// {"ok": true, ...log_check_to_json}.
std::string check_log_response(const Sizer& sizer, std::string_view request_json, std::string_view log_text);

}  // namespace llmsizer
