// The engine's JSON value. Object keys keep the order they were written in (the
// order of the CLI's and the page's JSON). Its interface is the part of
// nlohmann::ordered_json the engine used, which it replaced: nlohmann's template
// was a quarter of the WebAssembly module's code and, compiled lazily by the
// browser at the first parse, most of the page's start. Parsing never throws;
// bad text gives a value that is_discarded(). Output is nlohmann's, byte for
// byte (its shortest round-trip doubles, the same escapes, invalid UTF-8 as
// U+FFFD), so the CLI's and the page's JSON did not change.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace llmsizer {

class Json {
 public:
  enum class Kind : std::uint8_t { null, boolean, integer, unsigned_integer, number, string, array, object, discarded };
  using array_t = std::vector<Json>;
  using object_t = std::vector<std::pair<std::string, Json>>;
  // dump()'s one way with invalid UTF-8: each bad sequence becomes U+FFFD.
  enum class error_handler_t { replace };

  Json() noexcept { v_.i = 0; }
  Json(std::nullptr_t) noexcept : Json() {}
  Json(bool b) noexcept : kind_(Kind::boolean) { v_.b = b; }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json(T v) noexcept {
    if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::integer;
      v_.i = v;
    } else {
      kind_ = Kind::unsigned_integer;
      v_.u = v;
    }
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Json(T v) noexcept : kind_(Kind::number) {
    v_.d = static_cast<double>(v);
  }
  Json(const char* s) : Json(std::string(s)) {}
  Json(std::string_view s) : Json(std::string(s)) {}
  Json(std::string s) : kind_(Kind::string) { v_.s = new std::string(std::move(s)); }
  Json(array_t a) : kind_(Kind::array) { v_.a = new array_t(std::move(a)); }
  Json(object_t o) : kind_(Kind::object) { v_.o = new object_t(std::move(o)); }
  // An object: Json{{"id", id}, {"message", message}}.
  Json(std::initializer_list<std::pair<std::string, Json>> entries) : Json(object_t(entries)) {}
  template <typename T>
  Json(const std::vector<T>& items) : Json(array_t(items.begin(), items.end())) {}

  Json(const Json& other);
  Json(Json&& other) noexcept : kind_(other.kind_), v_(other.v_) {
    other.kind_ = Kind::null;
    other.v_.i = 0;
  }
  Json& operator=(Json other) noexcept {
    std::swap(kind_, other.kind_);
    std::swap(v_, other.v_);
    return *this;
  }
  ~Json() { release(); }

  static Json array() { return Json(array_t{}); }
  static Json object() { return Json(object_t{}); }

  // The value of `text`, or a discarded value when it is not one JSON document
  // (RFC 8259: UTF-8, no comments, nothing after the value, at most 512 levels deep).
  static Json parse(std::string_view text);
  template <typename It>
  static Json parse(It first, It last, std::nullptr_t = nullptr, bool = false) {
    // An empty range has no first character to point at.
    return first == last ? parse(std::string_view()) : parse(std::string_view(&*first, static_cast<std::size_t>(last - first)));
  }
  static Json parse(std::string_view text, std::nullptr_t, bool) { return parse(text); }

  // Compact with indent < 0; otherwise one entry per line, `indent` spaces a level.
  std::string dump(int indent = -1, char = ' ', bool = false, error_handler_t = error_handler_t::replace) const;

  Kind kind() const noexcept { return kind_; }
  bool is_null() const noexcept { return kind_ == Kind::null; }
  bool is_boolean() const noexcept { return kind_ == Kind::boolean; }
  bool is_number() const noexcept { return is_number_integer() || kind_ == Kind::number; }
  bool is_number_integer() const noexcept { return kind_ == Kind::integer || kind_ == Kind::unsigned_integer; }
  bool is_number_unsigned() const noexcept { return kind_ == Kind::unsigned_integer; }
  bool is_number_float() const noexcept { return kind_ == Kind::number; }
  bool is_string() const noexcept { return kind_ == Kind::string; }
  bool is_array() const noexcept { return kind_ == Kind::array; }
  bool is_object() const noexcept { return kind_ == Kind::object; }
  bool is_discarded() const noexcept { return kind_ == Kind::discarded; }

  // The value as T; a value of another kind gives T's zero (false, 0, ""):
  // callers check the kind first.
  template <typename T>
  T get() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == Kind::boolean && v_.b;
    } else if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_unsigned_v<T>)
        if (kind_ == Kind::unsigned_integer) return static_cast<T>(v_.u);
      return static_cast<T>(as_int64());
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(as_double());
    } else {
      static_assert(std::is_same_v<T, std::string>, "Json::get: bool, an integer, a floating point type or std::string");
      return kind_ == Kind::string ? *v_.s : std::string();
    }
  }
  // A reference to the string, array or object held; const: an empty one for a
  // value of another kind; non-const: a value of another kind (null, as the
  // builders use it) is first replaced by an empty one.
  template <typename R>
  R get_ref() {
    using T = std::remove_const_t<std::remove_reference_t<R>>;
    if constexpr (std::is_const_v<std::remove_reference_t<R>>) return std::as_const(*this).get_ref<R>();
    else return *mutable_ptr<T>();
  }
  template <typename R>
  R get_ref() const {
    using T = std::remove_const_t<std::remove_reference_t<R>>;
    static_assert(std::is_const_v<std::remove_reference_t<R>>, "Json::get_ref on a const value");
    const T* p = ptr<T>();
    return p != nullptr ? *p : empty<T>();
  }

  template <bool Const>
  class basic_iterator {
    using Owner = std::conditional_t<Const, const Json, Json>;

   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Json;
    using difference_type = std::ptrdiff_t;
    using pointer = Owner*;
    using reference = Owner&;

    basic_iterator(Owner* owner, std::size_t index) : owner_(owner), index_(index) {}
    reference operator*() const {
      return owner_->kind_ == Kind::object ? (*owner_->v_.o)[index_].second : (*owner_->v_.a)[index_];
    }
    pointer operator->() const { return &**this; }
    basic_iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const basic_iterator& other) const { return index_ == other.index_ && owner_ == other.owner_; }
    bool operator!=(const basic_iterator& other) const { return !(*this == other); }
    // An object entry's key.
    const std::string& key() const { return (*owner_->v_.o)[index_].first; }
    reference value() const { return **this; }

   private:
    Owner* owner_;
    std::size_t index_;
  };
  using iterator = basic_iterator<false>;
  using const_iterator = basic_iterator<true>;

  // Over an array's elements or an object's values (key() on the iterator);
  // nothing for any other value.
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, items()); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, items()); }

  // Elements or entries; 0 for null, 1 for any other value (as nlohmann).
  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }

  // The entry `key` of an object, or end().
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }
  // Removes an object's entry; the number removed (0 or 1).
  std::size_t erase(std::string_view key);

  // An object's entry, added (null) when missing; a value that is not an object
  // (null, as the builders use it) is first replaced by an empty object.
  Json& operator[](std::string_view key);
  Json& operator[](const char* key) { return (*this)[std::string_view(key)]; }
  // The entry, or a null value when there is none.
  const Json& operator[](std::string_view key) const;
  const Json& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  // An array's element (the index must be below size()).
  Json& operator[](std::size_t index) { return (*v_.a)[index]; }
  const Json& operator[](std::size_t index) const { return (*v_.a)[index]; }
  // j[0] would otherwise be ambiguous with the key overloads (0 is a null pointer).
  Json& operator[](int index) { return (*this)[static_cast<std::size_t>(index)]; }
  const Json& operator[](int index) const { return (*this)[static_cast<std::size_t>(index)]; }
  Json& front() { return v_.a->front(); }
  const Json& front() const { return v_.a->front(); }
  Json& back() { return v_.a->back(); }
  const Json& back() const { return v_.a->back(); }

  // Appends to an array; a value that is not an array (null, as the builders
  // use it) is first replaced by an empty array.
  void push_back(Json value) { mutable_ptr<array_t>()->push_back(std::move(value)); }
  template <typename... Args>
  Json& emplace_back(Args&&... args) {
    return mutable_ptr<array_t>()->emplace_back(std::forward<Args>(args)...);
  }

  // Deep equality; numbers compare by value whatever their kind (1 == 1.0),
  // object entries in order. A discarded value equals nothing.
  friend bool operator==(const Json& a, const Json& b);
  friend bool operator!=(const Json& a, const Json& b) { return !(a == b); }

  static Json discarded() {
    Json j;
    j.kind_ = Kind::discarded;
    return j;
  }

 private:
  union Value {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
    std::string* s;
    array_t* a;
    object_t* o;
  };

  std::int64_t as_int64() const noexcept;
  double as_double() const noexcept;
  std::size_t items() const noexcept {
    return kind_ == Kind::array ? v_.a->size() : kind_ == Kind::object ? v_.o->size() : 0;
  }
  void release() noexcept;

  template <typename T>
  const T* ptr() const {
    if constexpr (std::is_same_v<T, std::string>) return kind_ == Kind::string ? v_.s : nullptr;
    else if constexpr (std::is_same_v<T, array_t>) return kind_ == Kind::array ? v_.a : nullptr;
    else return kind_ == Kind::object ? v_.o : nullptr;
  }
  template <typename T>
  T* mutable_ptr() {
    if (ptr<T>() == nullptr) *this = Json(T{});
    return const_cast<T*>(ptr<T>());
  }
  template <typename T>
  static const T& empty() {
    static const T none;
    return none;
  }

  Kind kind_ = Kind::null;
  Value v_;
};

// The value, or null where there is none (a figure that needs a device, a price...).
template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
// An object with room for `keys` entries.
inline Json json_object(std::size_t keys) {
  Json::object_t entries;
  entries.reserve(keys);
  return Json(std::move(entries));
}

// Moves `from`'s entries into object `to` after its own, in order (an answer's
// leading keys, then its body's); a key `to` has already is overwritten.
inline void move_entries(Json& to, Json& from) {
  to.get_ref<Json::object_t&>().reserve(to.size() + from.size());
  for (auto& [key, value] : from.get_ref<Json::object_t&>()) to[key] = std::move(value);
}
}  // namespace llmsizer
