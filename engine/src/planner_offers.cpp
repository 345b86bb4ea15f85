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
    if (!o.contains("device_count") || !o["device_count"].is_number_integer() || o["device_count"].get<long long>() < 1 ||
        o["device_count"].get<long long>() > 1024)
      return bad_entry(i, "device_count", "must be a whole number in [1, 1024]");
    offer.device_count = static_cast<int>(o["device_count"].get<long long>());
    if (!o.contains("usd_per_hour") || !o["usd_per_hour"].is_number() || !(o["usd_per_hour"].get<double>() > 0.0))
      return bad_entry(i, "usd_per_hour", "must be a positive number");
    offer.usd_per_hour = o["usd_per_hour"].get<double>();
    offer.billing = o.contains("billing") && o["billing"].is_string() ? o["billing"].get<std::string>() : "on-demand";
    offers.push_back(std::move(offer));
  }
  return offers;
}

Result<std::vector<CloudOffer>> embedded_cloud_offers() {
  std::string text;
  for (const char* const* chunk = embedded::kOffersJson; *chunk != nullptr; ++chunk) text += *chunk;
  return parse_cloud_offers(text);
}

}  // namespace llmsizer
