// The engine's JSON is nlohmann::ordered_json (llmsizer/json.hpp). These check
// the few rules the engine keeps so that nothing it does with JSON can throw
// (the wasm build has no exceptions: a throw aborts): bad text is refused,
// invalid UTF-8 is written as U+FFFD, answers keep their key order, and
// requests with values of the wrong type are answered with an error.
#include "llmsizer/json.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "llmsizer/catalog.hpp"
#include "llmsizer/json_contract.hpp"
#include "llmsizer/planner_responses.hpp"
#include "llmsizer/sizer.hpp"
#include "test_support.hpp"

using llmsizer::Json;

TEST_CASE("json: text that is not one JSON document is refused, not thrown", "[json]") {
  const std::string bad[] = {
      "",        "   ",       "{",         "[1,2",       "[1,]",    "{\"a\":}", "{\"a\" 1}", "{a:1}",
      "'x'",     "01",        "1.",        ".5",         "-",       "+1",       "tru",       "[1] [2]",
      "\"open",  "\"\\x\"",   "\"\\u12\"", "\"\\ud800\"", "\"\xff\"", "NaN",     "{\"a\":1,}", "/* c */ 1",
  };
  for (const std::string& text : bad) {
    INFO(text);
    CHECK(llmsizer::parse_json(text).is_discarded());
  }
  CHECK_FALSE(llmsizer::parse_json(R"({"a":[1,2.5,"x",null,true]})").is_discarded());
}

TEST_CASE("json: invalid UTF-8 is written as U+FFFD", "[json]") {
  CHECK(llmsizer::dump_json(Json(std::string("a\xff"))) == "\"a\xef\xbf\xbd\"");
  CHECK(llmsizer::dump_json(Json{{"name", std::string("cut \xe4\xb8")}}) == "{\"name\":\"cut \xef\xbf\xbd\"}");
}

TEST_CASE("json: answers keep the order their keys were written in", "[json]") {
  Json head;
  head["ok"] = true;
  Json body = llmsizer::json_object(3);
  body["z"] = 1;
  body["a"] = "x";
  body["ok"] = false;  // an existing key keeps its place and takes the new value
  llmsizer::move_entries(head, body);
  CHECK(llmsizer::dump_json(head) == R"({"ok":false,"z":1,"a":"x"})");
  CHECK(llmsizer::dump_json(head, 1) == "{\n \"ok\": false,\n \"z\": 1,\n \"a\": \"x\"\n}");
}

TEST_CASE("json: requests with values of the wrong type are answered, not thrown", "[json]") {
  const llmsizer::Sizer sizer(llmsizer::test::catalog());
  const std::string requests[] = {
      R"([])",
      R"("text")",
      R"({"model": 5})",
      R"({"model": "llama-3.1-8b", "ctx": "long"})",
      R"({"model": "llama-3.1-8b", "ctx": 1.5})",
      R"({"model": "llama-3.1-8b", "gpu": ["rtx-4090"]})",
      R"({"model": "llama-3.1-8b", "custom_gpu": 3})",
      R"({"model": "llama-3.1-8b", "custom_gpu": {"memory_gib": "x"}})",
      R"({"model": "llama-3.1-8b", "flash_attention": 1})",
      R"({"config": {"hidden_size": 1}})",
      R"({"config": "{\"hidden_size\": \"wide\", \"num_hidden_layers\": [], \"num_attention_heads\": {}}"})",
      R"({"config": "[1, 2]"})",
      R"({"model": "llama-3.1-8b", "ctx": 18446744073709551615})",
      R"({"model": "llama-3.1-8b", "ctx": -9223372036854775808})",
  };
  for (const std::string& request : requests) {
    INFO(request);
    const Json answer = llmsizer::parse_json(llmsizer::estimate_response(sizer, request));
    REQUIRE(answer.is_object());
    CHECK(answer.value("ok", true) == false);
    const auto error = answer.find("error");
    REQUIRE(error != answer.end());
    const std::string id = error->value("id", std::string());
    CHECK((id.rfind("request.", 0) == 0 || id.rfind("config.", 0) == 0));
  }
  // The planner's and the files' doors too.
  for (const std::string& request : {std::string(R"({"ctx": "x"})"), std::string(R"({"engine": 3})"), std::string("[")}) {
    INFO(request);
    CHECK(llmsizer::parse_json(llmsizer::sweep_response(sizer, request)).value("ok", true) == false);
    CHECK(llmsizer::parse_json(llmsizer::estimate_gguf_response(sizer, request, "")).value("ok", true) == false);
    CHECK(llmsizer::parse_json(llmsizer::estimate_safetensors_response(sizer, request, "")).value("ok", true) == false);
    CHECK(llmsizer::parse_json(llmsizer::recommend_response(sizer, request)).value("ok", true) == false);
  }
  CHECK(llmsizer::parse_json(llmsizer::estimate_gguf_response(sizer, R"({"parts": [{"length": "x"}]})", "")).value("ok", true) == false);
  CHECK(llmsizer::parse_json(llmsizer::estimate_gguf_response(sizer, R"({"parts": {"a": 1}})", "")).value("ok", true) == false);
}

TEST_CASE("json: catalog text of the wrong shape is refused with its path", "[json]") {
  CHECK(llmsizer::parse_catalog("[]", "{}").error().id == "catalog.not_json");
  CHECK(llmsizer::parse_catalog(R"({"models": [{"id": 3}]})", "{}").error().message == "/models/0/id must be a string");
  const auto devices = llmsizer::parse_catalog(R"({"models": []})", R"({"devices": [{"id": "x", "memory_gb_marketed": "8"}]})");
  CHECK(devices.error().message == "/devices/0/memory_gb_marketed must be a positive number");
}
