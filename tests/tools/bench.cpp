// Native engine latency: one estimate, one page's worth of estimates and the
// catalog sweep, as JSON lines (scripts/bench.sh).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "llmsizer/catalog.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/planner.hpp"
#include "llmsizer/serve.hpp"
#include "llmsizer/sizer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size())))];
}

void figure(const char* name, double value, const char* unit, double budget = -1.0) {
  if (budget >= 0.0)
    std::printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", \"budget\": %.3f, \"met\": %s}\n", name, value, unit,
                budget, value <= budget ? "true" : "false");
  else
    std::printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}\n", name, value, unit);
}

double since_us(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(10, std::atoi(argv[1])) : 2000;
  auto t0 = Clock::now();
  auto catalog = llmsizer::embedded_catalog();
  if (!catalog) return 1;
  const llmsizer::Sizer sizer(std::move(catalog).value());
  figure("native.startup", since_us(t0) / 1000.0, "ms");

  const std::string base = R"({"model": "glm-4.5", "quant": "Q4_K_M", "gpu": "mi300x", "engine": "llama.cpp", "ctx": )";
  std::vector<double> single;
  for (int i = 0; i < runs; ++i) {
    const std::string request = base + std::to_string(4096 * (1 + i % 16)) + "}";
    t0 = Clock::now();
    const std::string answer = llmsizer::estimate_response(sizer, request);
    single.push_back(since_us(t0));
    if (answer.size() < 10) return 1;
  }
  figure("native.estimate_json.p50", percentile(single, 50), "us");
  figure("native.estimate_json.p95", percentile(single, 95), "us");

  // The same scenarios without building the JSON answer (the page's tables).
  std::vector<double> figures;
  for (int i = 0; i < runs; ++i) {
    const std::string request = base + std::to_string(4096 * (1 + i % 16)) + "}";
    t0 = Clock::now();
    auto estimate = llmsizer::estimate_request(sizer, request);
    figures.push_back(since_us(t0));
    if (!estimate) return 1;
  }
  figure("native.figures.p50", percentile(figures, 50), "us");
  figure("native.figures.p95", percentile(figures, 95), "us");

  // From the request's fields, no JSON at all (the page's figuresInto).
  std::vector<double> from_fields;
  llmsizer::RequestFields fields;
  fields.model = "glm-4.5";
  fields.quant = "Q4_K_M";
  fields.gpu = "mi300x";
  fields.engine = "llama.cpp";
  for (int i = 0; i < runs; ++i) {
    fields.ctx = 4096.0 * (1 + i % 16);
    t0 = Clock::now();
    auto estimate = llmsizer::estimate_request(sizer, fields);
    from_fields.push_back(since_us(t0));
    if (!estimate) return 1;
  }
  figure("native.figures_fields.p50", percentile(from_fields, 50), "us");
  figure("native.figures_fields.p95", percentile(from_fields, 95), "us");

  const char* quants[] = {"F16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "IQ3_XXS", "Q2_K", "UD-Q2_K_XL", "IQ2_XXS", "IQ1_S"};
  const int contexts[] = {4096, 8192, 16384, 32768, 65536, 131072};
  std::vector<double> panels;
  for (int i = 0; i < std::max(20, runs / 10); ++i) {
    t0 = Clock::now();
    llmsizer::estimate_response(sizer, base + std::to_string(8192 + i) + "}");
    for (const char* q : quants)
      llmsizer::estimate_response(sizer, std::string(R"({"model": "glm-4.5", "gpu": "mi300x", "ctx": 8192, "quant": ")") + q + "\"}");
    for (int ctx : contexts) llmsizer::estimate_response(sizer, base + std::to_string(ctx) + "}");
    panels.push_back(since_us(t0) / 1000.0);
  }
  figure("native.full_page_estimate.p50", percentile(panels, 50), "ms");
  figure("native.full_page_estimate.p95", percentile(panels, 95), "ms");

  // Every model x device x standard quantization at one context, as the wasm bench asks it.
  std::vector<double> sweeps;
  for (int i = 0; i < 5; ++i) {
    t0 = Clock::now();
    const std::string answer = llmsizer::sweep_response(sizer, R"({"ctx": 8192})");
    sweeps.push_back(since_us(t0) / 1000.0);
    if (answer.size() < 10) return 1;
  }
  figure("native.catalog_sweep", percentile(sweeps, 50), "ms");

  // The seed's serving scenario swept over concurrency to saturation (llm-sizer serve).
  llmsizer::SizerRequest served;
  served.model_id = "glm-4.5";
  served.quant = "FP8";
  served.engine = "vllm";
  served.gpu_id = "mi300x";
  served.gpu_count = 8;
  served.prompt_tokens = 1024;
  served.output_tokens = 1024;
  served.context_tokens = 2048;
  auto model = sizer.model_for(served);
  auto scenario = sizer.scenario_for(served);
  if (!model || !scenario) return 1;
  std::vector<double> curves;
  for (int i = 0; i < 5; ++i) {
    t0 = Clock::now();
    auto curve = llmsizer::serve_curve(sizer, model.value(), scenario.value(), {}, 0.0);
    curves.push_back(since_us(t0) / 1000.0);
    if (!curve || curve.value().points.empty()) return 1;
  }
  figure("native.serve_curve", percentile(curves, 50), "ms");
  return 0;
}
