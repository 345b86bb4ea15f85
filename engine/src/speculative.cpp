#include "llmsizer/speculative.hpp"

#include <algorithm>

#include "llmsizer/weights.hpp"
#include "speculative_estimate.hpp"

namespace llmsizer {

double expected_tokens_per_step(double a, int k) {
  if (k <= 0) return 1.0;
  if (a >= 1.0) return static_cast<double>(k + 1);
  if (a <= 0.0) return 1.0;
  // (1 - a^(k+1)) / (1 - a) = 1 + a + a^2 + ... + a^k
  double sum = 0.0;
  double term = 1.0;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term *= a;
  }
  return sum;
}

double speculative_speedup(double a, int k, double model_step_s, double draft_step_s) {
  const double step = model_step_s + static_cast<double>(k) * draft_step_s;
  if (!(step > 0.0) || !(model_step_s > 0.0)) return 1.0;
  return expected_tokens_per_step(a, k) * model_step_s / step;
}

namespace {

// The model's MTP layers alone, as decoder layers: their KV cache.
Architecture mtp_only(const Architecture& arch) {
  Architecture out = arch;
  out.layers.clear();
  for (LayerSpec layer : arch.layers)
    if (layer.is_mtp) {
      layer.is_mtp = false;
      out.layers.push_back(layer);
    }
  return out;
}

int mtp_layer_count(const Architecture& arch) {
  return static_cast<int>(arch.layers.size()) - arch.decoder_layer_count();
}

}  // namespace

Result<DraftMemory> draft_memory(const Architecture& arch, const Scenario& s, const KvRequest& kv_request,
                                 RuntimeRequest rr, const Estimate& e) {
  auto bad = [](const std::string& what) { return Error{"scenario.bad_value", what}; };
  const DraftModel& d = *s.draft;
  if (!(d.drafted_tokens >= 1 && d.drafted_tokens <= 64)) return bad("drafted tokens must be between 1 and 64");
  DraftMemory m;
  const bool llama = engine_is_llama_cpp_based(s.engine);
  if (d.use_mtp) {
    if (mtp_layer_count(arch) == 0)
      return bad("the model has no multi-token-prediction layers (num_nextn_predict_layers) to draft with");
    // The MTP layers' weights sit with the output already, except where llama.cpp's
    // converter drops them from the GGUF: then nothing can draft with them.
    if (llama && s.quant.is_gguf() && !arch.mtp_in_gguf)
      return bad("llama.cpp's GGUF of this model drops its MTP layers: serve it with vLLM or SGLang to draft with them");
    m.kv_cache_bytes = compute_kv_cache(mtp_only(arch), kv_request).total_bytes;
    m.on_last_gpu = true;
    return m;
  }
  if (!d.arch) return bad("the draft model has no architecture");
  const WeightBreakdown w = compute_weights(*d.arch, s.quant);
  // As for the model: llama.cpp keeps the token embedding in RAM (a tied head stays on the GPU).
  m.weights_bytes = w.tensor_bytes - (llama && !d.arch->tied_embeddings ? w.token_embd_bytes : 0);
  m.kv_cache_bytes = compute_kv_cache(*d.arch, kv_request).total_bytes;
  rr.holds_output = true;
  if (llama) m.runtime_bytes = compute_runtime(*d.arch, rr).compute_bytes;
  (void)e;
  return m;
}

std::optional<SpeculativeEstimate> estimate_speculation(const Architecture& arch, const Scenario& s, const Estimate& e) {
  if (!s.draft || !e.speed || !(e.speed->decode_tokens_per_s > 0.0)) return std::nullopt;
  const DraftModel& d = *s.draft;
  SpeculativeEstimate x;
  x.draft = d.use_mtp ? "mtp" : d.label;
  x.drafted_tokens = d.drafted_tokens;
  x.model_step_s = 1.0 / e.speed->decode_tokens_per_s;
  if (d.use_mtp) {
    // One MTP pass runs one more decoder layer (its routed experts touched
    // as any layer's are) and the shared output head: 1 / L of the step's
    // layers plus the head's share of the model's weights.
    const double layers = static_cast<double>(std::max(arch.decoder_layer_count(), 1));
    const double head_share = e.weights.tensor_bytes > 0 ? static_cast<double>(e.weights.output_bytes) /
                                                               static_cast<double>(e.weights.tensor_bytes)
                                                         : 0.0;
    x.draft_step_s = x.model_step_s * (1.0 / layers + head_share);
  } else {
    // The draft alone on the first GPU, at the same context.
    Scenario ds = s;
    ds.draft.reset();
    ds.vision = false;
    ds.cards.clear();
    ds.gpu_count = 1;
    ds.offload_fraction = 0.0;
    ds.prefill_speed = false;
    auto de = estimate(*d.arch, ds);
    if (!de || !de.value().speed || !(de.value().speed->decode_tokens_per_s > 0.0)) return std::nullopt;
    x.draft_step_s = 1.0 / de.value().speed->decode_tokens_per_s;
  }
  x.tokens_per_step_low = expected_tokens_per_step(x.acceptance_low, d.drafted_tokens);
  x.tokens_per_step_high = expected_tokens_per_step(x.acceptance_high, d.drafted_tokens);
  x.decode_tokens_per_s_low =
      e.speed->decode_tokens_per_s * speculative_speedup(x.acceptance_low, d.drafted_tokens, x.model_step_s, x.draft_step_s);
  x.decode_tokens_per_s_high =
      e.speed->decode_tokens_per_s * speculative_speedup(x.acceptance_high, d.drafted_tokens, x.model_step_s, x.draft_step_s);
  return x;
}

}  // namespace llmsizer
