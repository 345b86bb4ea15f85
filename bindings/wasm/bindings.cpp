// Embind layer: one Sizer made from the embedded catalog. `estimate` takes and
// returns JSON text (the contract of engine/include/llmsizer/json_contract.hpp,
// the same the CLI prints); `figuresInto` (request fields) and
// `figuresFromJson` (request text) write the few numbers the page's tables and
// charts draw into a shared buffer, without building any JSON, and say false
// with the error in figuresErrorId/Message. No value objects: their Embind glue
// is 0.4 KB of the page's JavaScript. No logic here: conversion only. Nothing
// throws across. Built twice for the page: with
// LLMSIZER_WASM_CORE (what the page's start needs) and full (CMakeLists.txt).
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include <emscripten/bind.h>

#include "llmsizer/catalog.hpp"
#include "llmsizer/catalog_similar.hpp"
#include "llmsizer/hub_files.hpp"
#include "llmsizer/json.hpp"  // llmsizer::Json is nlohmann::ordered_json: every JSON text below
#include "llmsizer/json_contract.hpp"
#include "llmsizer/planner_responses.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/sizer.hpp"

namespace {

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();  // JS NaN: no figure

// Numbers for one scenario, kept for the buffer and the error; bytes as
// doubles (exact below 2^53).
struct Figures {
  bool ok = false;
  std::string error_id;
  std::string error_message;
  double weights_bytes = kAbsent;
  double kv_cache_bytes = kAbsent;
  double runtime_bytes = kAbsent;
  double required_bytes = kAbsent;
  double usable_bytes = kAbsent;
  double utilization = kAbsent;
  int fits = -1;  // -1 unknown (no device), 0 no, 1 yes
  double decode_tokens_per_s = kAbsent;
};

llmsizer::Catalog embedded_or_empty(std::string& load_error) {
  auto parsed = llmsizer::embedded_catalog();
  if (parsed) return std::move(parsed).value();
  load_error = parsed.error().message;
  return llmsizer::Catalog{};
}

class WasmSizer {
 public:
  WasmSizer() : sizer_(embedded_or_empty(load_error_)) {
    catalog_json_ = llmsizer::dump_json(llmsizer::catalog_to_json(sizer_));
  }
  std::string estimate(const std::string& request_json) const {
    return llmsizer::estimate_response(sizer_, request_json);
  }
  // The figures of the request's fields as arguments, written into a buffer
  // the caller reads through figuresView(): weights, KV cache, runtime,
  // required and usable bytes, utilization, fits (-1 no device, 0, 1) and
  // decode tokens/s, NaN where absent. One crossing of the boundary and no
  // object built on either side per scenario (the page's matrix and chart ask
  // for some twenty). An empty string or a NaN is an absent key; false means
  // see figuresErrorId() and figuresErrorMessage().
  bool figures_into(const std::string& model, const std::string& config, const std::string& quant,
                    const std::string& kv, const std::string& engine, const std::string& gpu, double ctx,
                    double batch, double gpus, double offload, double prompt, double ram_gib) {
    const llmsizer::RequestFields fields{model, config, quant, kv, engine, gpu, ctx, batch, gpus, offload, prompt, ram_gib};
    return write_figures(llmsizer::estimate_request(sizer_, fields));
  }
  // The same from request text: for requests the fields cannot carry.
  bool figures_from_json(const std::string& request_json) {
    return write_figures(llmsizer::estimate_request(sizer_, request_json));
  }
  emscripten::val figures_view() const {
    return emscripten::val(emscripten::typed_memory_view(buffer_.size(), buffer_.data()));
  }
  std::string figures_error_id() const { return last_.error_id; }
  std::string figures_error_message() const { return last_.error_message; }
  bool write_figures(const llmsizer::Result<llmsizer::Estimate>& e) {
    last_ = figures_of(e);
    buffer_ = {last_.weights_bytes, last_.kv_cache_bytes, last_.runtime_bytes, last_.required_bytes,
               last_.usable_bytes,  last_.utilization,    static_cast<double>(last_.fits), last_.decode_tokens_per_s};
    return last_.ok;
  }
  static Figures figures_of(const llmsizer::Result<llmsizer::Estimate>& e) {
    Figures f;
    if (!e) {
      f.error_id = e.error().id;
      f.error_message = e.error().message;
      return f;
    }
    const llmsizer::Estimate& x = e.value();
    f.ok = true;
    f.weights_bytes = static_cast<double>(x.memory.weights_bytes);
    f.kv_cache_bytes = static_cast<double>(x.memory.kv_cache_bytes);
    f.runtime_bytes = static_cast<double>(x.memory.runtime_bytes);
    f.required_bytes = static_cast<double>(x.memory.required_bytes);
    if (x.memory.usable_bytes) f.usable_bytes = static_cast<double>(*x.memory.usable_bytes);
    if (x.memory.utilization) f.utilization = *x.memory.utilization;
    if (x.memory.fits) f.fits = *x.memory.fits ? 1 : 0;
    if (x.speed && llmsizer::runs(x)) f.decode_tokens_per_s = x.speed->decode_tokens_per_s;
    return f;
  }
  // bytes: the files' leading bytes one after another (a Uint8Array from JS).
  std::string estimate_gguf(const std::string& request_json, const std::string& bytes) const {
    return llmsizer::estimate_gguf_response(sizer_, request_json, bytes);
  }
  std::string estimate_safetensors(const std::string& request_json, const std::string& bytes) const {
    return llmsizer::estimate_safetensors_response(sizer_, request_json, bytes);
  }
  std::string recommend(const std::string& request_json) const {
    return llmsizer::recommend_response(sizer_, request_json);
  }
  std::string target(const std::string& request_json) const { return llmsizer::target_response(sizer_, request_json); }
  std::string offers(const std::string& request_json) const { return llmsizer::offers_response(sizer_, request_json); }
  std::string fit(const std::string& request_json) const { return llmsizer::fit_response(sizer_, request_json); }
  std::string serve(const std::string& request_json) const { return llmsizer::serve_response(sizer_, request_json); }
  std::string command(const std::string& request_json) const { return llmsizer::command_response(sizer_, request_json); }
  std::string calibrate(const std::string& request_json, const std::string& llama_bench_text) const {
    return llmsizer::calibrate_response(sizer_, request_json, llama_bench_text);
  }
  std::string check_log(const std::string& request_json, const std::string& log_text) const {
    return llmsizer::check_log_response(sizer_, request_json, log_text);
  }
  std::string finetune(const std::string& request_json) const {
    return llmsizer::finetune_response(sizer_, request_json);
  }
  // Which files of a Hub repo to read (the page fetches them).
  std::string hub_plan(const std::string& request_json) const { return llmsizer::hub_plan_response(request_json); }
  // Every catalog model x device x standard quantization at one context.
  std::string sweep(const std::string& request_json) const {
    return llmsizer::sweep_response(sizer_, request_json);
  }
  // The catalog's JSON as UTF-8 bytes viewed in place (decode before the next
  // call): embind's std::string return walks the text byte by byte in JS twice,
  // 25 ms of the page's start for these 85 KB, where TextDecoder takes ~1 ms.
  emscripten::val catalog_bytes() const {
    return emscripten::val(emscripten::typed_memory_view(catalog_json_.size(),
                                                         reinterpret_cast<const unsigned char*>(catalog_json_.data())));
  }
  std::string load_error() const { return load_error_; }
  // " (did you mean a, b or c?)" for a model or device id the catalog lacks
  // (a link's), as the engine's own refusals say it; "" when none is close.
  std::string did_you_mean_model(const std::string& unknown) const {
    return llmsizer::did_you_mean(llmsizer::similar_model_ids(sizer_.catalog(), unknown));
  }
  std::string did_you_mean_device(const std::string& unknown) const {
    return llmsizer::did_you_mean(llmsizer::similar_device_ids(sizer_.catalog(), unknown));
  }

 private:
  std::string load_error_;
  llmsizer::Sizer sizer_;
  std::string catalog_json_;
  Figures last_;
  std::array<double, 8> buffer_{};
};

}  // namespace

EMSCRIPTEN_BINDINGS(llmsizer) {
  const auto sizer = emscripten::class_<WasmSizer>("Sizer");
  sizer.constructor<>()
      .function("estimate", &WasmSizer::estimate)
      .function("figuresInto", &WasmSizer::figures_into)
      .function("figuresFromJson", &WasmSizer::figures_from_json)
      .function("figuresView", &WasmSizer::figures_view)
      .function("figuresErrorId", &WasmSizer::figures_error_id)
      .function("figuresErrorMessage", &WasmSizer::figures_error_message)
      .function("catalogBytes", &WasmSizer::catalog_bytes)
      .function("loadError", &WasmSizer::load_error)
      .function("didYouMeanModel", &WasmSizer::did_you_mean_model)
      .function("didYouMeanDevice", &WasmSizer::did_you_mean_device);
#ifndef LLMSIZER_WASM_CORE
  // The full module's: asked on request, or when the cloud offers or
  // fine-tuning panel comes into view, not at the page's start.
  sizer.function("estimateGguf", &WasmSizer::estimate_gguf)
      .function("offers", &WasmSizer::offers)
      .function("finetune", &WasmSizer::finetune)
      .function("estimateSafetensors", &WasmSizer::estimate_safetensors)
      .function("recommend", &WasmSizer::recommend)
      .function("target", &WasmSizer::target)
      .function("fit", &WasmSizer::fit)
      .function("serve", &WasmSizer::serve)
      .function("command", &WasmSizer::command)
      .function("sweep", &WasmSizer::sweep)
      .function("calibrate", &WasmSizer::calibrate)
      .function("checkLog", &WasmSizer::check_log)
      .function("hubPlan", &WasmSizer::hub_plan);
#endif
}
