// Names to values, kept sorted and searched by binary search: the catalog's
// ids and aliases, a config's fields. For a few hundred names it is as quick
// as std::unordered_map, and in the WebAssembly build it is a few hundred
// bytes where the hash tables (hashing, rehashing, prime tables) were 7 KB.
#pragma once
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace llmsizer {

template <typename Key, typename Value>
class NameIndex {
 public:
  // Adds `name` unless it is there already: the first value added stays.
  void add(Key name, Value value) {
    const auto it = lower_bound(name);
    if (it != entries_.end() && std::string_view(it->first) == std::string_view(name)) return;
    entries_.insert(it, {std::move(name), std::move(value)});
  }
  // The value of `name`, or nullptr.
  const Value* find(std::string_view name) const {
    const auto it = lower_bound(name);
    return it != entries_.end() && std::string_view(it->first) == name ? &it->second : nullptr;
  }
  std::size_t size() const { return entries_.size(); }

 private:
  using Entries = std::vector<std::pair<Key, Value>>;
  typename Entries::const_iterator lower_bound(std::string_view name) const {
    return std::lower_bound(entries_.begin(), entries_.end(), name,
                            [](const auto& entry, std::string_view n) { return std::string_view(entry.first) < n; });
  }
  Entries entries_;
};

}  // namespace llmsizer
