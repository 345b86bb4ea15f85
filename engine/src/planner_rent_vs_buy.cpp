// Cloud and rent vs buy: every catalog offer priced for the scenario. Each row
// is an ordinary estimate with the offer's devices and hourly price, so its
// cost per million tokens, power bill and break-even month are the estimate's
// own (speed_cost.cpp), not a second formula.
#include <algorithm>

#include "llmsizer/planner.hpp"
#include "llmsizer/units.hpp"
#include "planner_rules.hpp"

namespace llmsizer {

namespace {

OfferCost offer_cost(const Sizer& sizer, const SizedModel& model, const Scenario& scenario, const Device& device,
                     const CloudOffer& offer) {
  Scenario s = scenario;
  move_to_device(s, device);
  s.gpu_count = offer.device_count;
  s.hourly_price_usd = offer.usd_per_hour;
  s.purchase_price_usd.reset();  // buying these devices: the catalog's price
  s.offload_fraction = 0.0;      // a rented instance runs from its GPUs
  OfferCost row;
  row.offer = offer;
  row.usd_per_month = offer.usd_per_hour * scenario.hours_per_day * kDaysPerMonth;
  auto e = sizer.estimate(model, s);
  if (!e) return row;
  const Estimate& x = e.value();
  row.fits = x.memory.fits.value_or(false);
  row.required_bytes = x.memory.required_bytes;
  row.usable_bytes = x.memory.usable_bytes.value_or(0);
  // Figures of a machine that cannot hold the model would mislead: none.
  if (!row.fits) return row;
  if (x.speed) {
    row.decode_tokens_per_s = x.speed->decode_tokens_per_s;
    row.decode_tokens_per_s_total = x.speed->decode_tokens_per_s_total;
  }
  row.usd_per_million_tokens = x.cost.usd_per_million_tokens;
  row.usd_per_million_tokens_batch = x.cost.usd_per_million_tokens_batch;
  row.purchase_usd = x.cost.purchase_usd;
  row.power_usd_per_month = x.cost.power_usd_per_month;
  row.break_even_months = x.cost.break_even_months;
  return row;
}

}  // namespace

std::vector<OfferCost> rent_vs_buy(const Sizer& sizer, const SizedModel& model, const Scenario& scenario,
                                   const std::vector<CloudOffer>& offers) {
  std::vector<OfferCost> rows;
  for (const CloudOffer& offer : offers) {
    const Device* device = sizer.catalog().find_device(offer.device_id);
    if (device == nullptr) continue;
    // Price grows with the GPUs rented: the smallest size that holds it is
    // this offer's answer; when none does, its largest says by how much.
    const std::vector<int> counts = offer.gpu_counts.empty() ? std::vector<int>{offer.device_count} : offer.gpu_counts;
    OfferCost row;
    for (int n : counts) {
      row = offer_cost(sizer, model, scenario, *device, offer_at_count(offer, n));
      if (row.fits) break;
    }
    row.rentable_gpu_counts = counts;
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const OfferCost& a, const OfferCost& b) {
    if (a.fits != b.fits) return a.fits;
    return a.offer.usd_per_hour < b.offer.usd_per_hour;
  });
  return rows;
}

}  // namespace llmsizer
