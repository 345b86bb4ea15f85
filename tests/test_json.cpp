// The engine's own JSON value: RFC 8259 parsing, and output identical to
// nlohmann::ordered_json's dump(), which the engine used before (the CLI's and
// the page's JSON must not change). nlohmann is the reference here.
#include "llmsizer/json.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using llmsizer::Json;
using Reference = nlohmann::ordered_json;

namespace {
// What nlohmann writes for `text`, compact or pretty, invalid UTF-8 replaced.
std::string reference_dump(const std::string& text, int indent = -1) {
  return Reference::parse(text).dump(indent, ' ', false, Reference::error_handler_t::replace);
}
}  // namespace

TEST_CASE("json: documents are written back as nlohmann wrote them", "[json]") {
  const char* documents[] = {
      R"({"a":1,"b":[true,false,null],"c":{"d":"e"},"empty":{},"none":[]})",
      R"([0,-0,1.0,-1.5,0.1,1e-05,1e+20,1.7976931348623157e308,5e-324,123456789012345678,-9223372036854775808,18446744073709551615,18446744073709551616])",
      R"({"rope_theta":500000.0,"rms_norm_eps":1e-6,"initializer_range":0.02,"x":3.0000000000000004})",
      R"(["\"\\\/\b\f\n\r\t","\u0001\u001f\u007f","\u00e9\u4e2d\ud83d\ude00","plain é 中 😀"])",
      R"({"z":1,"a":2,"z":3})",  // a repeated key keeps its first place and its last value
      R"(  {"nested":[[[[{"deep":[1,[2,[3]]]}]]]]}  )",
  };
  for (const std::string text : documents) {
    INFO(text);
    const Json j = Json::parse(text);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j.dump() == reference_dump(text));
    CHECK(j.dump(1) == reference_dump(text, 1));
    CHECK(j.dump(2) == reference_dump(text, 2));
  }
}

TEST_CASE("json: repeated keys in a large object merge as nlohmann merged them", "[json]") {
  // 3000 entries over 1000 names (the large-object path sorts), then a few
  // repeats in a small one (the small path scans): first place, last value.
  std::string text = "{";
  for (int i = 0; i < 3000; ++i) text += (i ? "," : "") + std::string("\"k") + std::to_string((i * 7) % 1000) + "\":" + std::to_string(i);
  text += "}";
  CHECK(Json::parse(text).dump() == reference_dump(text));
  CHECK(Json::parse(text).size() == 1000);
  const std::string small = R"({"a":1,"b":2,"a":3,"c":4,"a":5,"b":6})";
  CHECK(Json::parse(small).dump() == reference_dump(small));
  CHECK(Json::parse(small).dump() == R"({"a":5,"b":6,"c":4})");
}

TEST_CASE("json: numbers keep their kind and their shortest digits", "[json]") {
  // Worked by hand: integers that fit 64 bits stay integers; 2^64 does not.
  const Json j = Json::parse("[42,-7,18446744073709551615,18446744073709551616,2.5,1e2]");
  CHECK(j[0].is_number_unsigned());
  CHECK(j[0].get<std::int64_t>() == 42);
  CHECK(j[1].is_number_integer());
  CHECK(j[1].get<std::int64_t>() == -7);
  CHECK(j[2].get<std::uint64_t>() == 18446744073709551615ULL);
  CHECK(j[3].is_number_float());
  CHECK(j[3].get<double>() == 18446744073709551616.0);
  CHECK(j[4].get<double>() == 2.5);
  CHECK(j[5].is_number_float());
  CHECK(j.dump() == "[42,-7,18446744073709551615,1.8446744073709552e+19,2.5,100.0]");
  // A double out of int64's range saturates instead of being undefined.
  CHECK(Json(1e300).get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(Json(std::nan("")).dump() == "null");
  CHECK(Json(-std::numeric_limits<double>::infinity()).dump() == "null");

  // Random doubles over the whole range: the same digits as nlohmann's writer,
  // and they read back to the same double.
  std::mt19937_64 random(20261130);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    const std::string text = Json(d).dump();
    REQUIRE(text == Reference(d).dump());
    REQUIRE(Json::parse(text).get<double>() == d);
  }
}

TEST_CASE("json: strings are escaped as nlohmann did, invalid UTF-8 replaced", "[json]") {
  const std::string strings[] = {
      std::string("tab\there \"quoted\" back\\slash \x01 \x1f \x7f"),
      std::string("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
      std::string("lone \xff byte"),
      std::string("cut \xe4\xb8"),                  // incomplete at the end
      std::string("bad \xc3\x28 continuation"),      // the '(' is kept after U+FFFD
      std::string("overlong \xc0\xaf and \xe0\x80\xaf"),
      std::string("surrogate \xed\xa0\x80 half"),
      std::string("above \xf4\x90\x80\x80 U+10FFFF"),
      std::string("nul \0 inside", 13),
  };
  for (const std::string& s : strings) {
    INFO(s);
    CHECK(Json(s).dump() == Reference(s).dump(-1, ' ', false, Reference::error_handler_t::replace));
  }
  CHECK(Json(std::string("a\xff")).dump() == "\"a\xef\xbf\xbd\"");
}

TEST_CASE("json: text that is not one JSON document is refused, not thrown", "[json]") {
  const std::string bad[] = {
      "",          "   ",        "{",          "[1,2",        "[1,]",          "{\"a\":}",      "{\"a\" 1}",
      "{a:1}",     "'x'",        "01",         "1.",          ".5",            "1e",            "-",
      "+1",        "tru",        "nul",        "[1] [2]",     "\"open",        "\"\\x\"",       "\"\\u12\"",
      "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"tab\there\"", "\"\xff\"", "\"\xc3\x28\"", "NaN",
      "Infinity",  "{\"a\":1,}", "/* c */ 1", "1e999", "[-1e400]",
  };
  for (const std::string& text : bad) {
    INFO(text);
    CHECK(Json::parse(text).is_discarded());
    CHECK(Reference::parse(text, nullptr, false).is_discarded());  // the reference agrees
  }
  const std::string empty;
  CHECK(Json::parse(empty.begin(), empty.end(), nullptr, false).is_discarded());  // the iterator form, empty
  // Nesting is bounded: 512 levels parse, 513 are refused, 100,000 do not overflow the stack.
  CHECK_FALSE(Json::parse(std::string(512, '[') + std::string(512, ']')).is_discarded());
  CHECK(Json::parse(std::string(513, '[') + std::string(513, ']')).is_discarded());
  CHECK(Json::parse(std::string(100000, '[')).is_discarded());
}

TEST_CASE("json: building objects and arrays", "[json]") {
  Json j = llmsizer::json_object(3);
  j["b"] = 1;
  j["a"] = "x";
  j["b"] = 2.5;  // an existing key keeps its place
  j["list"] = Json::array();
  j["list"].push_back(true);
  j["list"].push_back(nullptr);
  j["list"].emplace_back("s");
  CHECK(j.dump() == R"({"b":2.5,"a":"x","list":[true,null,"s"]})");
  CHECK(j.contains("a"));
  CHECK(j.erase("a") == 1);
  CHECK(j.erase("a") == 0);
  CHECK_FALSE(j.contains("a"));
  CHECK(j.size() == 2);
  const Json& c = j;
  CHECK(c["missing"].is_null());
  CHECK(c["list"][2].get<std::string>() == "s");
  CHECK(j == Json::parse(R"({"b":2.5,"list":[true,null,"s"]})"));
  CHECK(Json(1) == Json(1.0));
  CHECK(Json(-1) != Json(std::uint64_t{18446744073709551615ULL}));
  std::string keys;
  for (auto it = c.begin(); it != c.end(); ++it) keys += it.key();
  CHECK(keys == "blist");
  Json copy = j;
  copy["b"] = 0;
  CHECK(j["b"].get<double>() == 2.5);
}

// decimal_text.hpp: std::to_string(double)'s digits without printf (the
// native build has printf, so the reference is std::to_string itself).
#include "decimal_text.hpp"

TEST_CASE("six_decimals writes what std::to_string(double) writes", "[json]") {
  using llmsizer::six_decimals;
  // The request limits of request_json.hpp and vLLM's memory fractions.
  for (double v : {0.0, -0.0, 0.1, 0.05, 0.875, 0.899999999, 0.9, 1.0, 24.0, 50.0, 1024.0, 4096.0, 10000.0, 1e6, 1e9,
                   1048576.0, 16777216.0, -3.0, 0.0078125, 0.0234375, 2.5e-7, 123456.9999995, 7.2629405})
    CHECK(six_decimals(v) == std::to_string(v));
  // Random values over fifteen orders of magnitude, and numbers with up to
  // seven decimals (ties at the seventh included).
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 100000; ++i) {
    const double v = unit(random) * std::pow(10.0, static_cast<int>(random() % 16) - 3) * (random() % 2 ? 1 : -1);
    REQUIRE(six_decimals(v) == std::to_string(v));
    const double decimals = static_cast<double>(random() % 100000000) / 1e7;
    REQUIRE(six_decimals(decimals) == std::to_string(decimals));
  }
}

// decimal_to_double.hpp: strtod's double for every decimal, without strtod.
#include <cstdio>

#include "decimal_to_double.hpp"

namespace {
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
void check_against_strtod(const std::string& text) {
  INFO(text);
  REQUIRE(same_double(llmsizer::decimal_to_double(text), std::strtod(text.c_str(), nullptr)));
}
std::string printed(const char* format, long double v) {
  char buffer[1200];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}
}  // namespace

TEST_CASE("decimal_to_double rounds as strtod does", "[json]") {
  for (const char* text :
       {"0", "-0", "0.0", "1", "-1", "0.1", "1e-05", "500000.0", "0.02", "3.0000000000000004", "1e22", "1e23",
        "9007199254740993", "123456789012345678901234567890", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "4.9406564584124654e-324", "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
        "1.7976931348623158e308", "1.7976931348623159e308", "1e309", "1e-400", "0.0000000000000000000000001e330",
        "7.2629405", "1e-7", "179769313486231570000000000000000000000000000000000000000000000000000000000000000"})
    check_against_strtod(text);
  // 1000 digits: a midpoint's tail and a sticky digit far past 800.
  check_against_strtod("1." + std::string(998, '0') + "1");
  check_against_strtod("9007199254740992." + std::string(900, '0') + "1");

  std::mt19937_64 random(11);
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = random();
    if (i % 4 == 0) bits &= 0x800FFFFFFFFFFFFFULL;  // subnormals too
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (!std::isfinite(x)) continue;
    x = std::fabs(x);
    for (const char* format : {"%.17Lg", "%.16Lg", "%.15Lg", "%.3Lg", "%.25Le"}) check_against_strtod(printed(format, x));
    // The exact midpoints to both neighbours (exact in x86's 64-bit long
    // double), and a hair above and below them.
    for (double neighbour : {std::nextafter(x, 1e308), std::nextafter(x, 0.0)}) {
      if (neighbour == x || !std::isfinite(neighbour)) continue;
      const long double mid = (static_cast<long double>(x) + neighbour) / 2;
      const std::string exact = printed("%.800Le", mid);
      const std::size_t e = exact.find('e');
      const std::string mantissa = exact.substr(0, e).erase(exact.substr(0, e).find_last_not_of('0') + 1);
      check_against_strtod(mantissa + exact.substr(e));
      check_against_strtod(mantissa + "1" + exact.substr(e));
      check_against_strtod(mantissa.substr(0, 40) + exact.substr(e));
    }
  }
}

// name_index.hpp: the engine's lookup tables and their one merge sort.
#include <algorithm>

#include "llmsizer/name_index.hpp"

TEST_CASE("NameIndex keeps the first value of a name and sorts stably", "[json]") {
  llmsizer::NameIndex<std::string, int> index;
  for (const auto& [name, value] : std::vector<std::pair<std::string, int>>{{"glm", 1}, {"ab", 2}, {"glm", 3}, {"z", 4}, {"ab", 5}})
    index.add(name, value);
  index.sort();
  CHECK(index.size() == 3);
  REQUIRE(index.find("glm") != nullptr);
  CHECK(*index.find("glm") == 1);
  CHECK(*index.find("ab") == 2);
  CHECK(index.find("gl") == nullptr);
  index.add("glm", 9);  // added after a sort: the earlier value still wins
  index.sort();
  CHECK(*index.find("glm") == 1);

  // Against std::stable_sort on random keys with many ties.
  std::mt19937 random(3);
  for (int n : {0, 1, 2, 3, 7, 64, 1000, 4097}) {
    std::vector<int> keys(static_cast<std::size_t>(n));
    for (int& k : keys) k = static_cast<int>(random() % 50);
    std::vector<std::uint32_t> order(keys.size()), expected(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = expected[i] = static_cast<std::uint32_t>(i);
    llmsizer::stable_sort_indices(
        order, [](const void* c, std::uint32_t a, std::uint32_t b) { return (*static_cast<const std::vector<int>*>(c))[a] < (*static_cast<const std::vector<int>*>(c))[b]; },
        &keys);
    std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    CHECK(order == expected);
  }
}
