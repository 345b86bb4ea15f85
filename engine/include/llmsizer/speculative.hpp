// Speculative decoding: a small draft model (or the model's own MTP layers)
// proposes k tokens, the model checks them in one pass. Memory: the draft's
// weights, its KV cache at the same context and its compute buffer. Speed: a
// range, since the gain rests on how many drafted tokens are accepted, which
// depends on the text.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "llmsizer/architecture.hpp"

namespace llmsizer {

// Tokens drafted per step unless asked: 4 for a draft model; 1 for MTP (one
// pass of the MTP layer, as DeepSeek-V3 and GLM-4.5 carry one).
constexpr int kDefaultDraftedTokens = 4;
constexpr int kDefaultMtpDraftedTokens = 1;

struct DraftModel {
  // The draft's architecture; null with use_mtp (the model drafts with its
  // own multi-token-prediction layers, num_nextn_predict_layers).
  std::shared_ptr<const Architecture> arch;
  std::string label;
  bool use_mtp = false;
  int drafted_tokens = kDefaultDraftedTokens;  // k: tokens drafted per step (llama.cpp --draft-max, vLLM num_speculative_tokens)
};

// The acceptance range the speed-up is stated for: each drafted token is
// accepted with probability a, assumed between these (same-family drafts on
// chat and code; the real rate depends on the text and the sampling).
constexpr double kAcceptanceLow = 0.6;
constexpr double kAcceptanceHigh = 0.8;

// Expected tokens a step yields with k drafted tokens each accepted with
// probability a, independently, up to the first rejection, plus the model's
// own token (Leviathan et al. 2023): (1 - a^(k+1)) / (1 - a); k + 1 at a = 1.
double expected_tokens_per_step(double acceptance, int drafted_tokens);

// The speed-up of a step that costs one decode step of the model (checking
// k + 1 tokens reads the weights once, as one token does) plus k draft steps:
// E(a, k) x t_model / (t_model + k x t_draft).
double speculative_speedup(double acceptance, int drafted_tokens, double model_step_s, double draft_step_s);

struct SpeculativeEstimate {
  std::string draft;  // the draft model's label, or "mtp"
  int drafted_tokens = 0;
  double acceptance_low = kAcceptanceLow;
  double acceptance_high = kAcceptanceHigh;
  double tokens_per_step_low = 0.0;   // E at acceptance_low
  double tokens_per_step_high = 0.0;
  double draft_step_s = 0.0;          // one draft token
  double model_step_s = 0.0;          // one decode step of the model (one sequence)
  double decode_tokens_per_s_low = 0.0;   // one sequence, with speculation
  double decode_tokens_per_s_high = 0.0;
};

}  // namespace llmsizer
