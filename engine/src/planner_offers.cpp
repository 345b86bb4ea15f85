// Cloud offers (data/cloud_offers.json): provider, instance, the catalog device
// and how many, and the price of the whole instance per hour.
#include <string>

#include "llmsizer/planner.hpp"

namespace llmsizer::embedded {
extern const char* const kOffersJson[];
}  // namespace llmsizer::embedded

namespace llmsizer {
namespace {

Error bad_entry(std::size_t index, const std::string& field, const std::string& why) {
  return Error{"offers.bad_entry", "/offers/" + std::to_string(index) + "/" + field + ": " + why};
}

bool is_count(const Json& v) {
  return v.is_number_integer() && v.get<long long>() >= 1 && v.get<long long>() <= 1024;
}

bool is_positive(const Json& o, const char* key) {
  return o.contains(key) && o[key].is_number() && o[key].get<double>() > 0.0;
}

}  // namespace

Result<std::vector<CloudOffer>> parse_cloud_offers(std::string_view offers_json) {
  const Json doc = parse_json(offers_json);
  const auto list_it = doc.find("offers");
  if (list_it == doc.end() || !list_it->is_array())
    return Error{"offers.not_json", "cloud offers: expected an object with an \"offers\" array"};
  std::vector<CloudOffer> offers;
  const Json& list = *list_it;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& o = list[i];
    if (!o.is_object()) return bad_entry(i, "", "not an object");
    CloudOffer offer;
    for (const char* key : {"id", "provider"}) {
      if (!o.contains(key) || !o[key].is_string()) return bad_entry(i, key, "missing or not a string");
    }
    // Null where the source names no instance type, or the GPU is not in the
    // catalog (such offers are kept, and never match a device).
    for (const char* key : {"instance", "device_id"}) {
      if (o.contains(key) && !o[key].is_string() && !o[key].is_null()) return bad_entry(i, key, "not a string or null");
    }
    offer.id = o["id"].get<std::string>();
    offer.provider = o["provider"].get<std::string>();
    // Empty where the listing names no instance type: the page and the CLI show
    // the devices instead of an id made up for the catalog.
    offer.instance = o.contains("instance") && o["instance"].is_string() ? o["instance"].get<std::string>() : "";
    offer.device_id = o.contains("device_id") && o["device_id"].is_string() ? o["device_id"].get<std::string>() : "";
    if (o.contains("gpu_counts")) {
      // Priced per GPU, rented at the sizes listed.
      const Json& counts = o["gpu_counts"];
      if (!counts.is_array() || counts.empty()) return bad_entry(i, "gpu_counts", "must be a non-empty array");
      for (std::size_t k = 0; k < counts.size(); ++k) {
        if (!is_count(counts[k])) return bad_entry(i, "gpu_counts/" + std::to_string(k), "must be a whole number in [1, 1024]");
        const int n = static_cast<int>(counts[k].get<long long>());
        if (!offer.gpu_counts.empty() && n <= offer.gpu_counts.back())
          return bad_entry(i, "gpu_counts/" + std::to_string(k), "counts must ascend without repeats");
        offer.gpu_counts.push_back(n);
      }
      if (!is_positive(o, "usd_per_gpu_hour")) return bad_entry(i, "usd_per_gpu_hour", "must be a positive number");
      offer.usd_per_gpu_hour = o["usd_per_gpu_hour"].get<double>();
      offer.device_count = offer.gpu_counts.front();
      offer.usd_per_hour = offer.usd_per_gpu_hour * offer.device_count;
    } else {
      if (!o.contains("device_count") || !is_count(o["device_count"]))
        return bad_entry(i, "device_count", "must be a whole number in [1, 1024]");
      offer.device_count = static_cast<int>(o["device_count"].get<long long>());
      if (!is_positive(o, "usd_per_hour")) return bad_entry(i, "usd_per_hour", "must be a positive number");
      offer.usd_per_hour = o["usd_per_hour"].get<double>();
      offer.gpu_counts = {offer.device_count};
      offer.usd_per_gpu_hour = offer.usd_per_hour / offer.device_count;
    }
    offer.billing = o.contains("billing") && o["billing"].is_string() ? o["billing"].get<std::string>() : "on-demand";
    offers.push_back(std::move(offer));
  }
  return offers;
}

CloudOffer offer_at_count(const CloudOffer& offer, int count) {
  CloudOffer at = offer;
  at.device_count = count;
  at.gpu_counts = {count};
  // A fixed instance keeps its listed price exactly (no per-GPU round trip).
  at.usd_per_hour = offer.gpu_counts.size() <= 1 ? offer.usd_per_hour : offer.usd_per_gpu_hour * count;
  return at;
}

std::vector<CloudOffer> rentable_instances(const std::vector<CloudOffer>& offers) {
  std::vector<CloudOffer> instances;
  for (const CloudOffer& o : offers) {
    if (o.gpu_counts.empty()) instances.push_back(o);  // built in code as one instance
    for (int n : o.gpu_counts) instances.push_back(offer_at_count(o, n));
  }
  return instances;
}

Result<std::vector<CloudOffer>> embedded_cloud_offers() {
  std::string text;
  for (const char* const* chunk = embedded::kOffersJson; *chunk != nullptr; ++chunk) text += *chunk;
  return parse_cloud_offers(text);
}

}  // namespace llmsizer
