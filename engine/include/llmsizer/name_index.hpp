// Names to values, sorted once and searched by binary search: the catalog's
// ids and aliases, a config's fields. For a few hundred names it is as quick
// as std::unordered_map (0.7% more instructions per estimate, callgrind), and
// in the WebAssembly build the hash tables' code (hashing, rehashing, prime
// tables: about 6 KB, 1.1 KB gzipped) is gone.
// Built in two steps, so that a config of 100,000 fields costs n log n:
// add() every name, then sort(); find() after that.
#pragma once
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace llmsizer {

// Sorts `order`, indices into some table, stably by less(context, a, b). One
// merge sort, not a std::sort instantiation per table (each is kilobytes of
// WebAssembly).
void stable_sort_indices(std::vector<std::uint32_t>& order,
                         bool (*less)(const void* context, std::uint32_t a, std::uint32_t b), const void* context);

template <typename Key, typename Value>
class NameIndex {
 public:
  void add(Key name, Value value) {
    entries_.push_back(Entry{std::move(name), std::move(value)});
    sorted_ = false;
  }
  // Sorts the names; of a name added twice, the first value added stays.
  void sort() {
    std::vector<std::uint32_t> order(entries_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    stable_sort_indices(
        order,
        [](const void* context, std::uint32_t a, std::uint32_t b) {
          const auto& entries = *static_cast<const std::vector<Entry>*>(context);
          return before(entries[a].name, entries[b].name);
        },
        &entries_);
    std::vector<Entry> sorted;
    sorted.reserve(entries_.size());
    for (std::uint32_t i : order)
      if (sorted.empty() || std::string_view(sorted.back().name) != std::string_view(entries_[i].name))
        sorted.push_back(std::move(entries_[i]));
    entries_ = std::move(sorted);
    sorted_ = true;
  }
  // The value of `name`, or nullptr (after sort()).
  const Value* find(std::string_view name) const {
    assert(sorted_ && "NameIndex::find before sort()");
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                     [](const Entry& entry, std::string_view n) { return before(entry.name, n); });
    return it != entries_.end() && std::string_view(it->name) == name ? &it->value : nullptr;
  }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Key name;
    Value value;
  };
  // Shorter names first, then by bytes: most comparisons in a search are
  // one length comparison, not a memcmp (the estimate path looks up two ids).
  static bool before(std::string_view a, std::string_view b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

  std::vector<Entry> entries_;
  bool sorted_ = true;
};

}  // namespace llmsizer
