#include "decimal_to_double.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace llmsizer {
namespace {

// An unsigned integer of any size, little-endian 32-bit words: just the
// operations the exact comparison needs.
class BigInt {
 public:
  explicit BigInt(std::uint64_t v) {
    while (v != 0) {
      words_.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }
  void multiply(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (std::uint32_t& w : words_) {
      const std::uint64_t product = std::uint64_t{w} * factor + carry;
      w = static_cast<std::uint32_t>(product);
      carry = product >> 32;
    }
    if (carry != 0) words_.push_back(static_cast<std::uint32_t>(carry));
  }
  void add(std::uint32_t value) {
    std::uint64_t carry = value;
    for (std::size_t i = 0; carry != 0; ++i) {
      if (i == words_.size()) words_.push_back(0);
      const std::uint64_t sum = std::uint64_t{words_[i]} + carry;
      words_[i] = static_cast<std::uint32_t>(sum);
      carry = sum >> 32;
    }
  }
  void multiply_pow5(std::int64_t exponent) {
    constexpr std::uint32_t kPow5_13 = 1220703125;  // 5^13, the largest power of 5 below 2^32
    for (; exponent >= 13; exponent -= 13) multiply(kPow5_13);
    std::uint32_t rest = 1;
    for (; exponent > 0; --exponent) rest *= 5;
    multiply(rest);
  }
  void shift_left(std::int64_t bits) {
    if (words_.empty() || bits == 0) return;
    const auto whole = static_cast<std::size_t>(bits / 32);
    const int part = static_cast<int>(bits % 32);
    if (part != 0) {
      std::uint32_t carry = 0;
      for (std::uint32_t& w : words_) {
        const std::uint32_t next = w >> (32 - part);
        w = (w << part) | carry;
        carry = next;
      }
      if (carry != 0) words_.push_back(carry);
    }
    words_.insert(words_.begin(), whole, 0);
  }
  friend int compare(const BigInt& a, const BigInt& b) {
    if (a.words_.size() != b.words_.size()) return a.words_.size() < b.words_.size() ? -1 : 1;
    for (std::size_t i = a.words_.size(); i-- > 0;)
      if (a.words_[i] != b.words_[i]) return a.words_[i] < b.words_[i] ? -1 : 1;
    return 0;
  }

 private:
  std::vector<std::uint32_t> words_;  // no leading zero words
};

// The decimal significand's digits (no leading or trailing zeros) and its
// exponent: the number is digits x 10^exponent.
struct Decimal {
  std::string digits;
  std::int64_t exponent = 0;
};

BigInt big_of(const std::string& digits) {
  BigInt n(0);
  for (char c : digits) {
    n.multiply(10);
    n.add(static_cast<std::uint32_t>(c - '0'));
  }
  return n;
}

// The sign of digits x 10^p - odd x 2^q (odd = 2m +- 1: a midpoint between
// two neighbouring doubles), computed exactly.
int compare_with_midpoint(const Decimal& d, std::uint64_t odd, std::int64_t q) {
  BigInt left = big_of(d.digits);
  BigInt right(odd);
  std::int64_t left_twos = 0, right_twos = q;
  if (d.exponent >= 0) {
    left.multiply_pow5(d.exponent);
    left_twos += d.exponent;
  } else {
    right.multiply_pow5(-d.exponent);
    right_twos -= d.exponent;
  }
  if (left_twos > right_twos) left.shift_left(left_twos - right_twos);
  else right.shift_left(right_twos - left_twos);
  return compare(left, right);
}

// x = m x 2^e with m an integer (53 bits for a normal x); x is finite, >= 0.
void decompose(double x, std::uint64_t& m, std::int64_t& e) {
  int exp2 = 0;
  const double fraction = std::frexp(x, &exp2);  // x = fraction x 2^exp2, fraction in [0.5, 1)
  if (x == 0.0) {
    m = 0;
    e = -1074;
    return;
  }
  e = std::max<std::int64_t>(exp2 - 53, -1074);
  m = static_cast<std::uint64_t>(std::ldexp(fraction, static_cast<int>(exp2 - e)));
}

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// 10^k for 0 <= k <= 22 is exact in a double; larger powers are products of
// those, each multiplication rounded once. A first guess needs no more: the
// exact comparisons below correct it. (No std::pow: its tables are 6 KB of
// the module, and this was its only other caller.)
double power_of_ten(std::int64_t k) {
  double p = 1.0;
  for (; k > 22; k -= 22) p *= 1e22;
  return p * kPow10[k];
}

double correctly_rounded(const Decimal& d) {
  // A first guess within a few units in the last place: the leading 19
  // digits, then the power of ten in two steps (no overflow in between).
  std::uint64_t lead = 0;
  const std::size_t lead_digits = std::min<std::size_t>(d.digits.size(), 19);
  for (std::size_t i = 0; i < lead_digits; ++i) lead = lead * 10 + static_cast<std::uint64_t>(d.digits[i] - '0');
  const std::int64_t scale = d.exponent + static_cast<std::int64_t>(d.digits.size() - lead_digits);
  const std::int64_t half = scale / 2;
  double x = static_cast<double>(lead);
  if (scale >= 0) x = x * power_of_ten(half) * power_of_ten(scale - half);
  else x = x / power_of_ten(-half) / power_of_ten(half - scale);
  constexpr double kMax = std::numeric_limits<double>::max();
  if (!(x <= kMax)) x = kMax;  // also NaN from inf x 0, which the range checks exclude

  // Then the exact comparisons with the midpoints to the neighbours, moving
  // one place at a time; an exact tie goes to the even significand.
  for (;;) {
    std::uint64_t m;
    std::int64_t e;
    decompose(x, m, e);
    const int above = compare_with_midpoint(d, 2 * m + 1, e - 1);
    if (above > 0 || (above == 0 && (m & 1) != 0)) {
      if (x == kMax) return std::numeric_limits<double>::infinity();
      x = std::nextafter(x, std::numeric_limits<double>::infinity());
      if (above == 0) return x;
      continue;
    }
    if (x == 0.0) return x;
    // The midpoint below: a quarter step under a power of two, where the
    // spacing halves (not for the smallest normal, whose neighbour below is
    // subnormal with the same spacing).
    const bool power_of_two = m == (std::uint64_t{1} << 52) && e > -1074;
    const int below = power_of_two ? compare_with_midpoint(d, 4 * m - 1, e - 2)
                                   : compare_with_midpoint(d, 2 * m - 1, e - 1);
    if (below < 0 || (below == 0 && (m & 1) != 0)) {
      x = std::nextafter(x, 0.0);
      if (below == 0) return x;
      continue;
    }
    return x;
  }
}

}  // namespace

double decimal_to_double(std::string_view token) {
  std::size_t i = 0;
  const bool negative = i < token.size() && token[i] == '-';
  if (negative) ++i;
  Decimal d;
  bool seen_point = false;
  for (; i < token.size() && token[i] != 'e' && token[i] != 'E'; ++i) {
    if (token[i] == '.') {
      seen_point = true;
      continue;
    }
    if (d.digits.empty() && token[i] == '0') {  // leading zeros carry nothing but the point's place
      if (seen_point) --d.exponent;
      continue;
    }
    d.digits += token[i];
    if (seen_point) --d.exponent;
  }
  if (i < token.size()) {  // the exponent, saturated far beyond any double
    ++i;
    const bool exponent_negative = i < token.size() && token[i] == '-';
    if (i < token.size() && (token[i] == '-' || token[i] == '+')) ++i;
    std::int64_t written = 0;
    for (; i < token.size(); ++i) written = std::min<std::int64_t>(written * 10 + (token[i] - '0'), 100000000);
    d.exponent += exponent_negative ? -written : written;
  }
  const double sign = negative ? -1.0 : 1.0;
  // Trailing zeros move into the exponent.
  const std::size_t last = d.digits.find_last_not_of('0');
  if (last == std::string::npos) return sign * 0.0;
  d.exponent += static_cast<std::int64_t>(d.digits.size() - last - 1);
  d.digits.resize(last + 1);
  // The number lies in [10^(digits + exponent - 1), 10^(digits + exponent)).
  const auto magnitude = static_cast<std::int64_t>(d.digits.size()) + d.exponent;
  if (magnitude > 310) return sign * std::numeric_limits<double>::infinity();
  if (magnitude < -330) return sign * 0.0;
  // Past 800 digits only whether more nonzero digits follow can matter (a
  // midpoint between doubles has at most 767 significant digits): they
  // become one sticky digit.
  if (d.digits.size() > 800) {
    d.exponent += static_cast<std::int64_t>(d.digits.size()) - 801;
    d.digits.resize(800);
    d.digits += '1';
  }
  // Exact fast path (Clinger): the digits and the power of ten are exact
  // doubles, and one multiplication or division rounds once.
  if (d.digits.size() <= 15 && d.exponent >= -22 && d.exponent <= 22) {
    double value = 0;
    for (char c : d.digits) value = value * 10 + (c - '0');  // exact: below 10^15
    value = d.exponent < 0 ? value / kPow10[-d.exponent] : value * kPow10[d.exponent];
    return sign * value;
  }
  return sign * correctly_rounded(d);
}

}  // namespace llmsizer
