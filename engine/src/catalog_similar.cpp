#include "llmsizer/catalog_similar.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "llmsizer/catalog_match.hpp"

namespace llmsizer {
namespace {

// Longer text is no mistyped id: compared up to this many letters and digits.
constexpr std::size_t kLongestCompared = 80;
// A key contained in the unknown id ("deepseekr1" in "deepseekr1671b") must
// be this long to count: "a" or "gpt" are in too many words.
constexpr std::size_t kShortestContainedKey = 4;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// How close one entry is to the unknown id: lower is closer; nullopt when not
// close. Ties go to the shorter key (fewer letters added) and catalog order.
struct Closeness {
  int kind = 0;            // 0 same letters, 1 contains it, 2 contained in it, 3 a typo away
  std::size_t extra = 0;   // letters beyond the unknown id's (or the edits)
  bool operator<(const Closeness& o) const { return kind != o.kind ? kind < o.kind : extra < o.extra; }
};

std::optional<Closeness> closeness(const std::string& q, const std::vector<std::string>& keys, const std::string& id_key) {
  std::optional<Closeness> best;
  const auto keep = [&](Closeness c) {
    if (!best || c < *best) best = c;
  };
  for (const std::string& key : keys) {
    if (key.empty()) continue;
    if (key == q) keep({0, 0});
    else if (key.find(q) != std::string::npos) keep({1, key.size() - q.size()});
    else if (key.size() >= kShortestContainedKey && q.find(key) != std::string::npos) keep({2, q.size() - key.size()});
  }
  if (!best) {
    // A typo or two, more in a longer id: one edit per 5 letters, at least 1.
    const std::size_t allowed = std::max<std::size_t>(1, q.size() / 5);
    const std::size_t edits = edit_distance(q, id_key);
    if (edits <= allowed) keep({3, edits});
  }
  return best;
}

template <typename Entry>
std::vector<std::string> similar_ids(const std::vector<Entry>& entries, std::string_view unknown, std::size_t most) {
  const std::string q = lower_alnum(unknown.substr(0, kLongestCompared));
  if (q.empty() || most == 0) return {};
  std::vector<std::pair<Closeness, std::size_t>> found;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    std::vector<std::string> keys = {lower_alnum(e.id), lower_alnum(e.name)};
    for (const std::string& alias : e.aliases) keys.push_back(lower_alnum(alias));
    if (auto c = closeness(q, keys, keys.front())) found.emplace_back(*c, i);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [c, i] : found) {
    if (out.size() == most) break;
    out.push_back(entries[i].id);
  }
  return out;
}

}  // namespace

std::vector<std::string> similar_model_ids(const Catalog& catalog, std::string_view unknown, std::size_t most) {
  return similar_ids(catalog.models, unknown, most);
}

std::vector<std::string> similar_device_ids(const Catalog& catalog, std::string_view unknown, std::size_t most) {
  return similar_ids(catalog.devices, unknown, most);
}

std::string did_you_mean(const std::vector<std::string>& ids) {
  if (ids.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += i + 1 == ids.size() ? " or " : ", ";
    out += ids[i];
  }
  return out + "?)";
}

}  // namespace llmsizer
