// Cost per million tokens from a cloud offer's hourly price or from owned
// hardware (purchase amortized over its years of use plus power at TDP), the
// monthly power bill, and when buying beats renting (DESIGN.md, "Cost").
#include <algorithm>

#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/speed.hpp"
#include "llmsizer/units.hpp"

namespace llmsizer {
namespace {

constexpr double kDaysPerYear = 365.25;

// USD per million tokens = USD per hour / (tokens per second x 3600) x 10^6.
std::optional<double> per_million(double usd_per_hour, double tokens_per_s) {
  if (!(tokens_per_s > 0.0)) return std::nullopt;
  return usd_per_hour / (tokens_per_s * 3600.0) * 1e6;
}

}  // namespace

CostEstimate estimate_cost(const Scenario& s, const Estimate& e) {
  CostEstimate c;
  if (!s.device) return c;
  const Device& d = *s.device;
  const double gpus = static_cast<double>(std::max<std::size_t>(e.memory.per_gpu.size(), 1));
  const double hours_per_month = s.hours_per_day * kDaysPerMonth;

  // Power of the accelerators at TDP while they run (host CPU, fans and PSU
  // losses are not counted).
  std::optional<double> power_usd_per_hour;
  const bool mixed = has_mixed_cards(s);
  const double tdp_w = mixed ? cards_tdp_w(s) : d.tdp_w * gpus;  // mixed: 0 unless every card states one
  if (tdp_w > 0.0) {
    power_usd_per_hour = tdp_w / 1000.0 * s.electricity_usd_per_kwh;
    c.power_usd_per_month = *power_usd_per_hour * hours_per_month;
  }
  if (s.purchase_price_usd && *s.purchase_price_usd > 0.0) c.purchase_usd = *s.purchase_price_usd;
  else if (mixed) c.purchase_usd = cards_price_usd(s);  // unknown unless every card has a price
  else {
    c.purchase_usd = purchase_usd(d, static_cast<int>(gpus));  // whole servers where the catalog prices them
    c.purchase_low_confidence = c.purchase_usd.has_value() && d.price_low_confidence && !bought_as_servers(d, static_cast<int>(gpus));
  }

  if (s.hourly_price_usd && *s.hourly_price_usd > 0.0) {
    c.basis = "rent";
    c.usd_per_hour = *s.hourly_price_usd;
    // Months after which buying has cost less than renting the same hours:
    // purchase / (monthly rent - monthly power); never when power costs more.
    if (c.purchase_usd) {
      const double monthly_rent = *s.hourly_price_usd * hours_per_month;
      const double monthly_saving = monthly_rent - c.power_usd_per_month.value_or(0.0);
      if (monthly_saving > 0.0) c.break_even_months = *c.purchase_usd / monthly_saving;
    }
  } else if (c.purchase_usd) {
    // Owned: the price spread over the hours it runs in its years of use, plus power.
    c.basis = "owned";
    const double hours_of_use = s.amortization_years * kDaysPerYear * s.hours_per_day;
    c.usd_per_hour = *c.purchase_usd / hours_of_use + power_usd_per_hour.value_or(0.0);
  }
  if (!c.usd_per_hour || !e.speed) return c;
  c.usd_per_million_tokens = per_million(*c.usd_per_hour, e.speed->decode_tokens_per_s);
  c.usd_per_million_tokens_batch = per_million(*c.usd_per_hour, e.speed->decode_tokens_per_s_total);
  if (e.speed->served) c.usd_per_million_output_tokens = per_million(*c.usd_per_hour, e.speed->served->output_tokens_per_s);
  return c;
}

}  // namespace llmsizer
