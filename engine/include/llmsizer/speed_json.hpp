// The "speed" and "cost" objects of the JSON contract (DESIGN.md), with the
// breakdown of where the time goes. Shared by the CLI and the JSON contract so
// both print the same fields.
#pragma once
#include <optional>

#include "llmsizer/json.hpp"

#include "llmsizer/estimate.hpp"

namespace llmsizer {

// speed.{decode_tokens_per_s, decode_tokens_per_s_total, prefill_tokens_per_s,
// ttft_s} (null without a device, prefill and TTFT also null without a dense
// throughput figure), speed.basis (fitted runtime row, weight family, peak
// figures), and speed.breakdown.{decode, decode_batch, prefill}: the work of the
// step (bytes, FLOPs) and its seconds per part.
Json speed_to_json(const std::optional<SpeedEstimate>& speed);

// A machine's own factors (speed.basis.machine_calibration, the request's
// "machine_calibration" and `calibrate`'s "factors"): {bandwidth_factor,
// compute_factor, overhead_factor, rows}.
Json machine_factors_to_json(const MachineFactors& factors);
Json served_factors_to_json(const ServedFactors& factors);

// speed.served: the served figures under load (speed_served.cpp), with the two
// kinds of step behind them when with_steps (a serve curve's points leave them out).
Json served_to_json(const ServedEstimate& served, bool with_steps);

// cost.{usd_per_million_tokens, usd_per_million_tokens_batch, usd_per_hour,
// power_usd_per_month, break_even_months, purchase_usd, basis}; null where no price is known.
Json cost_to_json(const CostEstimate& cost);

}  // namespace llmsizer
