#include "llmsizer/llama_bench.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "file_text.hpp"
#include "text_lines.hpp"
#include "llmsizer/json.hpp"

namespace llmsizer {
namespace {


bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::optional<long long> parse_int(std::string_view s) {
  s = trim_space(s);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// A decimal number at the start of s ("4523.14 ± 23.51" -> 4523.14), and the
// rest after it. strtod's decimal point is the C locale's, which the engine
// never changes. Refuses what is not a finite number.
std::optional<double> leading_number(std::string_view s, std::string_view* rest = nullptr) {
  s = trim_space(s);
  std::string text(s.substr(0, 64));
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-'))
    return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value)) return std::nullopt;
  if (rest) *rest = trim_space(s.substr(static_cast<std::size_t>(end - text.c_str())));
  return value;
}

// "3.56 GiB", "494.03 MiB" -> bytes.
std::optional<std::int64_t> parse_size(std::string_view s) {
  std::string_view unit;
  const auto value = leading_number(s, &unit);
  if (!value || *value < 0.0 || *value > 1e7) return std::nullopt;
  double scale = 0.0;
  if (unit == "GiB") scale = 1024.0 * 1024.0 * 1024.0;
  else if (unit == "MiB") scale = 1024.0 * 1024.0;
  else if (unit == "TiB") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*value * scale));
}

// "6.74 B", "494.03 M" -> parameters.
std::optional<std::int64_t> parse_params(std::string_view s) {
  std::string_view unit;
  const auto value = leading_number(s, &unit);
  if (!value || *value < 0.0 || *value > 1e6) return std::nullopt;
  double scale = 0.0;
  if (unit == "B") scale = 1e9;
  else if (unit == "M") scale = 1e6;
  else if (unit == "T") scale = 1e12;
  else if (unit == "K") scale = 1e3;
  else return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*value * scale));
}

// "pp512", "tg128", "pp512+tg128", each optionally " @ d4096"; the first
// builds wrote "pp 512".
bool parse_test(std::string_view s, BenchRow& row) {
  s = trim_space(s);
  const auto at = s.find('@');
  if (at != std::string_view::npos) {
    std::string_view depth = trim_space(s.substr(at + 1));
    if (depth.empty() || depth.front() != 'd') return false;
    const auto d = parse_int(depth.substr(1));
    if (!d || *d < 0 || *d > (1 << 24)) return false;
    row.n_depth = static_cast<int>(*d);
    s = trim_space(s.substr(0, at));
  }
  auto count = [](std::string_view part, std::string_view prefix) -> std::optional<int> {
    part = trim_space(part);
    if (!starts_with(part, prefix)) return std::nullopt;
    const auto n = parse_int(part.substr(prefix.size()));
    if (!n || *n <= 0 || *n > (1 << 24)) return std::nullopt;
    return static_cast<int>(*n);
  };
  const auto plus = s.find('+');
  if (plus != std::string_view::npos) {
    const auto p = count(s.substr(0, plus), "pp");
    const auto g = count(s.substr(plus + 1), "tg");
    if (!p || !g) return false;
    row.n_prompt = *p;
    row.n_gen = *g;
    return true;
  }
  if (const auto p = count(s, "pp")) {
    row.n_prompt = *p;
    return true;
  }
  if (const auto g = count(s, "tg")) {
    row.n_gen = *g;
    return true;
  }
  return false;
}

std::vector<std::string_view> cells_of(std::string_view line) {
  std::vector<std::string_view> cells;
  line = trim_space(line);
  if (line.empty() || line.front() != '|') return cells;
  line.remove_prefix(1);
  if (!line.empty() && line.back() == '|') line.remove_suffix(1);
  std::size_t start = 0;
  while (start <= line.size() && cells.size() < 64) {
    const auto bar = line.find('|', start);
    const auto end = bar == std::string_view::npos ? line.size() : bar;
    cells.push_back(trim_space(line.substr(start, end - start)));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return cells;
}

bool is_separator(const std::vector<std::string_view>& cells) {
  if (cells.empty()) return false;
  for (std::string_view c : cells) {
    if (c.empty()) return false;
    for (char ch : c)
      if (ch != '-' && ch != ':') return false;
  }
  return true;
}

Error bad_row(const std::string& where, const std::string& what) {
  return Error{"bench.bad_row", where + ": " + what};
}

// One cell of a markdown row into the row; false when the value is malformed.
bool set_cell(std::string_view column, std::string_view value, BenchRow& row) {
  if (column == "model") {
    row.model_type = printable(value, 96);
    return !value.empty();
  }
  if (column == "size") {
    const auto v = parse_size(value);
    if (v) row.model_size_bytes = *v;
    return v.has_value();
  }
  if (column == "params") {
    const auto v = parse_params(value);
    if (v) row.model_params = *v;
    return v.has_value();
  }
  if (column == "backend") {
    row.backends = printable(value, 48);
    return !value.empty();
  }
  if (column == "test") return parse_test(value, row);
  if (column == "t/s") {
    const auto v = leading_number(value);
    if (v) row.tokens_per_s = *v;
    return v && *v > 0.0;
  }
  if (column == "type_k" || column == "type_v") {
    (column == "type_k" ? row.type_k : row.type_v) = printable(value, 16);
    return true;
  }
  if (column == "sm") {
    row.split_mode = printable(value, 16);
    return true;
  }
  if (column == "ts") {
    row.tensor_split = printable(value, 64);
    return true;
  }
  if (column == "nkvo") {
    const auto v = parse_int(value);
    if (v && (*v == 0 || *v == 1)) row.no_kv_offload = *v == 1;
    return v && (*v == 0 || *v == 1);
  }
  if (column == "fa") {
    if (value == "auto") {
      row.flash_attn = -1;
      return true;
    }
    const auto v = parse_int(value);
    if (v && *v >= -1 && *v <= 1) row.flash_attn = static_cast<int>(*v);
    return v && *v >= -1 && *v <= 1;
  }
  int* target = column == "ngl"         ? &row.n_gpu_layers
                : column == "n_batch"   ? &row.n_batch
                : column == "n_ubatch"  ? &row.n_ubatch
                : column == "n_cpu_moe" ? &row.n_cpu_moe
                                        : nullptr;
  if (target == nullptr) return true;  // columns the calibration does not use (threads, mmap, ...)
  const auto v = parse_int(value);
  if (!v || *v < 0 || *v > (1 << 24)) return false;
  *target = static_cast<int>(*v);
  return true;
}

}  // namespace

std::string gpu_named_in_line(std::string_view line) {
  line = trim_space(line);
  // ggml_cuda_init (CUDA, ROCm): "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes"
  if (const auto d = line.find("Device "); d != std::string_view::npos) {
    std::string_view rest = line.substr(d + 7);
    const auto colon = rest.find(": ");
    if (colon != std::string_view::npos && parse_int(rest.substr(0, colon))) {
      rest = rest.substr(colon + 2);
      return printable(trim_space(rest.substr(0, rest.find(','))), 80);
    }
  }
  // ggml_vulkan: "ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 | fp16: 1 | ..."
  if (starts_with(line, "ggml_vulkan: ")) {
    const auto eq = line.find(" = ");
    if (eq != std::string_view::npos) {
      std::string_view rest = line.substr(eq + 3);
      return printable(trim_space(rest.substr(0, rest.find(" |"))), 80);
    }
  }
  // Metal: "ggml_metal_init: GPU name:   Apple M2 Ultra" / "found device: Apple M1 Max"
  for (std::string_view key : {std::string_view("GPU name:"), std::string_view("found device:")}) {
    if (line.find("metal") == std::string_view::npos) continue;
    if (const auto k = line.find(key); k != std::string_view::npos)
      return printable(trim_space(line.substr(k + key.size())), 80);
  }
  return "";
}

int gpu_index_in_line(std::string_view line) {
  line = trim_space(line);
  if (const auto d = line.find("Device "); d != std::string_view::npos) {
    const std::string_view rest = line.substr(d + 7);
    if (const auto colon = rest.find(": "); colon != std::string_view::npos)
      if (const auto i = parse_int(rest.substr(0, colon)); i && *i >= 0 && *i < 1024) return static_cast<int>(*i);
  }
  if (starts_with(line, "ggml_vulkan: ")) {
    const std::string_view rest = line.substr(13);
    if (const auto eq = rest.find(" = "); eq != std::string_view::npos)
      if (const auto i = parse_int(rest.substr(0, eq)); i && *i >= 0 && *i < 1024) return static_cast<int>(*i);
  }
  return -1;
}

namespace {

Result<BenchResults> parse_markdown(std::string_view text) {
  BenchResults out;
  std::vector<std::string> header;  // the current table's columns; empty outside a table
  std::string build;
  bool expect_separator = false;
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const std::string where = lines.where();
    const auto cells = cells_of(line);
    if (cells.empty()) {
      header.clear();
      if (const std::string_view t = trim_space(line); starts_with(t, "build: ")) {
        build = printable(t.substr(7), 48);
        // A table's build line comes after its rows: theirs.
        for (auto it = out.rows.rbegin(); it != out.rows.rend() && it->build.empty(); ++it) it->build = build;
      } else if (std::string name = gpu_named_in_line(line); !name.empty()) {
        out.devices_named.push_back(std::move(name));
        out.device_indices.push_back(gpu_index_in_line(line));
      }
      continue;
    }
    bool is_header = false;
    for (std::string_view c : cells)
      if (c == "t/s") is_header = true;
    if (is_header) {
      header.assign(cells.begin(), cells.end());
      bool has_test = false;
      for (const std::string& h : header) has_test = has_test || h == "test";
      if (!has_test) return bad_row(where, "the table has a t/s column but no test column");
      expect_separator = true;
      continue;
    }
    if (expect_separator) {
      expect_separator = false;
      if (is_separator(cells)) continue;
    }
    if (header.empty()) {
      if (is_separator(cells)) continue;
      return bad_row(where, "a table row before a llama-bench header (| model | size | ... | test | t/s |)");
    }
    if (cells.size() != header.size())
      return bad_row(where, std::to_string(cells.size()) + " cells where the header has " +
                                std::to_string(header.size()));
    BenchRow row;
    row.where = where;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (!set_cell(header[i], cells[i], row))
        return bad_row(where, "'" + printable(cells[i], 40) + "' is not a valid " + printable(header[i], 16));
    }
    if (row.model_type.empty() || row.tokens_per_s <= 0.0 || (row.n_prompt == 0 && row.n_gen == 0))
      return bad_row(where, "a row needs the model, test and t/s columns");
    if (out.rows.size() >= kMaxBenchRows)
      return Error{"bench.too_large", "more than " + std::to_string(kMaxBenchRows) + " rows"};
    out.rows.push_back(std::move(row));
  }
  return out;
}

// One -o json / jsonl record.
Result<BenchRow> row_from_json(const Json& j, const std::string& where) {
  if (!j.is_object()) return bad_row(where, "not a JSON object");
  BenchRow row;
  row.where = where;
  auto text = [&](const char* key, std::string& into, std::size_t max) {
    const auto it = j.find(key);
    if (it != j.end() && it->is_string()) into = printable(it->get<std::string>(), max);
  };
  auto integer = [&](const char* key, auto& into, long long low, long long high) -> bool {
    const auto it = j.find(key);
    if (it == j.end()) return true;
    if (it->is_boolean()) {
      into = it->get<bool>() ? 1 : 0;
      return true;
    }
    if (!it->is_number()) return false;
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < static_cast<double>(low) || v > static_cast<double>(high)) return false;
    into = static_cast<std::remove_reference_t<decltype(into)>>(v);
    return true;
  };
  text("model_type", row.model_type, 96);
  text("backends", row.backends, 48);
  text("gpu_info", row.gpu_info, 96);
  text("cpu_info", row.cpu_info, 96);
  text("build_commit", row.build, 48);
  text("type_k", row.type_k, 16);
  text("type_v", row.type_v, 16);
  text("split_mode", row.split_mode, 16);
  text("tensor_split", row.tensor_split, 64);
  const char* failed = nullptr;
  if (!integer("model_size", row.model_size_bytes, 0, std::int64_t{1} << 50)) failed = "model_size";
  if (!integer("model_n_params", row.model_params, 0, std::int64_t{1} << 50)) failed = "model_n_params";
  if (!integer("n_gpu_layers", row.n_gpu_layers, -1, 1 << 24)) failed = "n_gpu_layers";
  if (!integer("n_cpu_moe", row.n_cpu_moe, 0, 1 << 24)) failed = "n_cpu_moe";
  if (!integer("n_batch", row.n_batch, 1, 1 << 24)) failed = "n_batch";
  if (!integer("n_ubatch", row.n_ubatch, 1, 1 << 24)) failed = "n_ubatch";
  if (!integer("flash_attn", row.flash_attn, -1, 1)) failed = "flash_attn";
  if (!integer("n_prompt", row.n_prompt, 0, 1 << 24)) failed = "n_prompt";
  if (!integer("n_gen", row.n_gen, 0, 1 << 24)) failed = "n_gen";
  if (!integer("n_depth", row.n_depth, 0, 1 << 24)) failed = "n_depth";
  int nkvo = 0;
  if (!integer("no_kv_offload", nkvo, 0, 1)) failed = "no_kv_offload";
  row.no_kv_offload = nkvo == 1;
  if (failed) return bad_row(where, std::string("'") + failed + "' is not a valid number");
  const auto ts = j.find("avg_ts");
  if (ts == j.end() || !ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() <= 0.0)
    return bad_row(where, "no avg_ts (tokens per second)");
  row.tokens_per_s = ts->get<double>();
  if (row.model_type.empty()) return bad_row(where, "no model_type");
  if (row.n_prompt == 0 && row.n_gen == 0) return bad_row(where, "n_prompt and n_gen are both 0");
  return row;
}

Result<BenchResults> parse_json_records(std::string_view text) {
  BenchResults out;
  const std::string_view t = trim_space(text);
  auto add = [&](const Json& j, const std::string& where) -> std::optional<Error> {
    auto row = row_from_json(j, where);
    if (!row) return row.error();
    if (out.rows.size() >= kMaxBenchRows)
      return Error{"bench.too_large", "more than " + std::to_string(kMaxBenchRows) + " rows"};
    out.rows.push_back(std::move(row).value());
    return std::nullopt;
  };
  if (t.front() == '[') {
    const Json j = Json::parse(t.begin(), t.end(), nullptr, false);
    if (j.is_discarded() || !j.is_array())
      return Error{"bench.bad_row", "the text starts like llama-bench's -o json but is not a valid JSON array"};
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto e = add(j[i], "record " + std::to_string(i + 1))) return *e;
    return out;
  }
  // JSONL: one object per line.
  TextLines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim_space(raw);
    if (line.empty()) continue;
    const std::string where = lines.where();
    const Json j = Json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded()) return bad_row(where, "not a JSON object (llama-bench -o jsonl writes one per line)");
    if (auto e = add(j, where)) return *e;
  }
  return out;
}

}  // namespace

std::string BenchRow::test_name() const {
  std::string name = n_gen == 0 ? "pp" + std::to_string(n_prompt)
                     : n_prompt == 0 ? "tg" + std::to_string(n_gen)
                                     : "pp" + std::to_string(n_prompt) + "+tg" + std::to_string(n_gen);
  if (n_depth > 0) name += " @ d" + std::to_string(n_depth);
  return name;
}

Result<BenchResults> parse_llama_bench(std::string_view text) {
  if (text.size() > kMaxBenchTextBytes)
    return Error{"bench.too_large", "the text is over " + std::to_string(kMaxBenchTextBytes >> 20) + " MiB"};
  const std::string_view t = trim_space(text);
  if (t.empty()) return Error{"bench.empty", "no llama-bench output: paste its table or its -o json output"};
  Result<BenchResults> parsed = (t.front() == '[' || t.front() == '{') ? parse_json_records(t) : parse_markdown(text);
  if (parsed && parsed.value().rows.empty())
    return Error{"bench.empty",
                 "no llama-bench rows found: paste the table (| model | size | params | backend | ... | test | t/s |) "
                 "or the -o json output"};
  return parsed;
}

std::string arch_from_model_type(std::string_view model_type) {
  model_type = trim_space(model_type);
  return std::string(model_type.substr(0, model_type.find(' ')));
}

std::string quant_name_from_model_type(std::string_view model_type) {
  // "{arch} {size label} {file type name}"; the file type's name may hold spaces.
  model_type = trim_space(model_type);
  const auto first = model_type.find(' ');
  if (first == std::string_view::npos) return "";
  const auto second = model_type.find(' ', first + 1);
  if (second == std::string_view::npos) return "";
  return quant_name_from_file_type(model_type.substr(second + 1));
}

std::string quant_name_from_file_type(std::string_view file_type) {
  std::string_view ftype = trim_space(file_type);
  if (const auto guessed = ftype.find(" (guessed)"); guessed != std::string_view::npos) ftype = ftype.substr(0, guessed);
  if (starts_with(ftype, "all F32")) return "F32";
  if (starts_with(ftype, "IQ3_S mix")) return "IQ3_M";
  if (starts_with(ftype, "MXFP4")) return "MXFP4_MOE";
  const std::string_view base = ftype.substr(0, ftype.find(' '));
  // The K-quant mixes are named by size: "Q4_K - Medium" is Q4_K_M; Q2_K's
  // own mix is "Q2_K - Medium", the file type Q2_K.
  const std::string_view size = ftype.size() > base.size() ? trim_space(ftype.substr(base.size())) : std::string_view();
  const bool k_quant = base.size() >= 3 && base.substr(base.size() - 2) == "_K";
  if (k_quant && base != "Q6_K") {
    if (size == "- Small") return std::string(base) + "_S";
    if (size == "- Medium") return base == "Q2_K" ? "Q2_K" : std::string(base) + "_M";
    if (size == "- Large") return std::string(base) + "_L";
  }
  return std::string(base);
}

}  // namespace llmsizer
