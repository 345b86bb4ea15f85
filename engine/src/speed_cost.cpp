// Cost per million tokens from a cloud offer's hourly price or from owned
// hardware (purchase amortized over its years of use plus power at TDP), the
// monthly power bill, and when buying beats renting (DESIGN.md, "Cost").
#include <algorithm>
#include <cmath>
#include <locale>
#include <sstream>
#include <string>

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

// Groups of three digits split by commas, whatever the global locale.
struct ThousandsSeparated : std::numpunct<char> {
  char do_thousands_sep() const override { return ','; }
  std::string do_grouping() const override { return "\3"; }
};

// "$317,000": whole dollars with thousands separators.
std::string usd_text(double usd) {
  std::ostringstream out;
  out.imbue(std::locale(std::locale::classic(), new ThousandsSeparated));
  out << '$' << std::llround(usd);
  return out.str();
}

// "(Thinkmate quotation for an 8x H100 SXM node, 2024-08)": the server price's source and date.
std::string server_source(const Device& d) {
  return " (" + d.server_name + (d.server_price_as_of.empty() ? "" : ", " + d.server_price_as_of) + ")";
}

// What owning `gpus` of the device costs to buy. Modules (SXM, OAM) run only
// in a server: fewer than a server's worth are priced as their share of a
// sourced whole-server price (an H100 SXM's share of an 8-GPU node, not the
// bare module); with no server price, the module price says the server is extra.
void set_purchase(const Device& d, int gpus, CostEstimate& c) {
  const bool module = !d.server_board_gpus.empty();
  if (bought_as_servers(d, gpus)) {
    c.purchase_usd = purchase_usd(d, gpus);
    c.purchase_basis = "servers";
    const int servers = gpus / d.server_gpus;
    c.purchase_note = std::to_string(servers) + (servers > 1 ? " servers" : " server") + " of " +
                      std::to_string(d.server_gpus) + " GPUs at " + usd_text(*d.server_price_usd) +
                      (servers > 1 ? " each" : "") + server_source(d);
  } else if (module && d.server_price_usd && d.server_gpus > 0) {
    c.purchase_usd = *d.server_price_usd / d.server_gpus * gpus;
    c.purchase_basis = "server_share";
    c.purchase_note = std::to_string(gpus) + " of the " + std::to_string(d.server_gpus) + " GPUs of a " +
                      usd_text(*d.server_price_usd) + " server" + server_source(d) + ": the modules run only in such a server";
  } else if (d.price_usd) {
    c.purchase_usd = *d.price_usd * gpus;
    c.purchase_basis = module ? "modules_only" : "devices";
    c.purchase_note = module ? "the GPU modules' catalog price only: the server they need is extra, and not in the cost"
                             : "the catalog's price" + std::string(gpus > 1 ? " x " + std::to_string(gpus) : "");
    c.purchase_low_confidence = d.price_low_confidence;
  }
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
  if (s.purchase_price_usd && *s.purchase_price_usd > 0.0) {
    c.purchase_usd = *s.purchase_price_usd;
    c.purchase_basis = "given";
    c.purchase_note = "the price given (--purchase-price)";
  } else if (mixed) {
    c.purchase_usd = cards_price_usd(s);  // unknown unless every card has a price
    if (c.purchase_usd) {
      c.purchase_basis = "devices";
      c.purchase_note = "the cards' catalog prices, summed";
    }
  } else {
    set_purchase(d, static_cast<int>(gpus), c);
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
