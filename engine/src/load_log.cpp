#include "llmsizer/load_log.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "file_text.hpp"
#include "llmsizer/units.hpp"
#include "text_lines.hpp"
#include "llmsizer/llama_bench.hpp"

namespace llmsizer {
namespace {



// The first decimal number in s, or nullopt; *end: the rest after it.
std::optional<double> number_in(std::string_view s, std::string_view* rest = nullptr) {
  std::size_t i = 0;
  while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size()) return std::nullopt;
  std::string text(s.substr(i, 32));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v > 1e12) return std::nullopt;
  if (rest) *rest = s.substr(i + static_cast<std::size_t>(end - text.c_str()));
  return v;
}

std::int64_t mib_bytes(double mib) { return static_cast<std::int64_t>(std::llround(mib * static_cast<double>(kMiB))); }

// "llama_context: n_ctx         = 32768" -> ("n_ctx", "32768"); the log's
// prefix (up to ": ") dropped. Empty key when the line is not "key = value".
std::pair<std::string_view, std::string_view> key_value(std::string_view line) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos) return {};
  std::string_view rest = line.substr(colon + 2);
  const auto eq = rest.find('=');
  if (eq == std::string_view::npos) return {};
  const std::string_view key = trim_space(rest.substr(0, eq));
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' ' || c == '.')) return {};
  return {key, trim_space(rest.substr(eq + 1))};
}

std::optional<std::int64_t> whole(std::string_view v) {
  const auto n = number_in(v);
  if (!n || v.empty() || !std::isdigit(static_cast<unsigned char>(v.front()))) return std::nullopt;
  return static_cast<std::int64_t>(*n);
}

// "... CUDA0 model buffer size = 16303.48 MiB", "llm_load_tensors: CPU buffer
// size = 499.50 MiB" (the first logs name no kind: weights), "CUDA0 KV buffer
// size", "CUDA0 compute buffer size". Output and recurrent-state buffers are
// not read.
bool read_buffer(std::string_view line, const std::string& where, LoadLog& log) {
  const auto at = line.find(" buffer size =");
  if (at == std::string_view::npos) return false;
  std::string_view head = line.substr(0, at);
  const auto colon = head.find(": ");
  const std::string_view prefix = colon == std::string_view::npos ? std::string_view() : head.substr(0, colon);
  head = trim_space(colon == std::string_view::npos ? head : head.substr(colon + 2));
  const auto space = head.find(' ');
  const std::string_view device = trim_space(head.substr(0, space));
  const std::string_view what = space == std::string_view::npos ? std::string_view() : trim_space(head.substr(space));
  std::string kind;
  if (what == "model" || (what.empty() && prefix.find("load_tensors") != std::string_view::npos)) kind = "model";
  else if (what == "KV") kind = "kv";
  else if (what == "compute") kind = "compute";
  else return true;  // output, RS: a buffer line, not one the estimate sizes
  std::string_view rest;
  const auto mib = number_in(line.substr(at), &rest);
  if (!mib || trim_space(rest).substr(0, 3) != "MiB") return true;
  log.buffers.push_back(LogBuffer{printable(device, 24), kind, mib_bytes(*mib), where});
  return true;
}

// "K (f16):  976.00 MiB" -> "f16".
std::string type_in(std::string_view line, std::string_view key) {
  const auto k = line.find(key);
  if (k == std::string_view::npos) return "";
  std::string_view rest = line.substr(k + key.size());
  const auto close = rest.find(')');
  return close == std::string_view::npos ? "" : printable(rest.substr(0, close), 12);
}

// llama_memory_breakdown_print's rows:
// "|   - CUDA0 (RTX 4090)   | 24077 =  945 + (19187 = 17904 +     384 +     898) +        3945 |"
// (total = free + (self = model + context + compute) + unaccounted) and
// "|   - Host               |                 58271 = 58259 +       0 +      12                |"
// (self = model + context + compute), all in whole MiB.
void read_breakdown(std::string_view line, const std::string& where, std::vector<LogBuffer>& out) {
  const auto dash = line.find("- ");
  if (dash == std::string_view::npos) return;
  std::string_view rest = line.substr(dash + 2);
  const auto bar = rest.find('|');
  if (bar == std::string_view::npos) return;
  const std::string_view name = trim_space(rest.substr(0, bar));
  const std::string device = printable(name.substr(0, name.find(' ')), 24);
  std::vector<double> numbers;
  std::string_view tail = rest.substr(bar + 1);
  std::string_view after;
  while (numbers.size() < 8) {
    const auto n = number_in(tail, &after);
    if (!n) break;
    numbers.push_back(*n);
    tail = after;
  }
  std::size_t first = 0;
  if (numbers.size() == 7) first = 3;       // a device: total, free, self, model, context, compute, unaccounted
  else if (numbers.size() == 4) first = 1;  // the host: self, model, context, compute
  else return;
  out.push_back(LogBuffer{device, "model", mib_bytes(numbers[first]), where});
  out.push_back(LogBuffer{device, "context", mib_bytes(numbers[first + 1]), where});
  out.push_back(LogBuffer{device, "compute", mib_bytes(numbers[first + 2]), where});
}

// A command line's routed experts kept on the CPU: -ot overrides (the
// distinct layers named, "blk\\.14\\.ffn_(up|down|gate)_(ch|)exps=CPU,..."),
// --n-cpu-moe N (the first N layers') or --cpu-moe (all); and its -c / --ctx-size.
void read_command(std::string_view line, LoadLog& log) {
  std::vector<int> layers;
  std::size_t at = 0;
  while ((at = line.find("blk\\.", at)) != std::string_view::npos) {
    at += 5;
    std::string_view rest = line.substr(at);
    const auto end = rest.find_first_of(", ");
    const std::string_view item = rest.substr(0, end);
    if (item.find("exps=CPU") == std::string_view::npos) continue;
    const auto n = number_in(item.substr(0, item.find('\\')));
    if (n && *n < 10000 && std::find(layers.begin(), layers.end(), static_cast<int>(*n)) == layers.end())
      layers.push_back(static_cast<int>(*n));
  }
  if (!layers.empty()) log.expert_layers_on_cpu = static_cast<int>(layers.size());
  const std::string padded = " " + std::string(line.substr(0, 4096)) + " ";
  for (std::string_view flag : {std::string_view(" --n-cpu-moe "), std::string_view(" -ncmoe ")}) {
    const auto f = padded.find(flag);
    if (f == std::string::npos) continue;
    std::string_view value = std::string_view(padded).substr(f + flag.size());
    if (const auto n = whole(value.substr(0, value.find(' '))); n && *n >= 0 && *n < 100000)
      log.expert_layers_on_cpu = static_cast<int>(*n);
  }
  if (padded.find(" --cpu-moe ") != std::string::npos || padded.find(" -cmoe ") != std::string::npos)
    log.expert_layers_on_cpu = 100000;  // every layer's: capped at the model's MoE layers
  for (std::string_view flag : {std::string_view(" -c "), std::string_view(" --ctx-size ")}) {
    const auto f = padded.find(flag);
    if (f == std::string::npos) continue;
    std::string_view value = std::string_view(padded).substr(f + flag.size());
    if (const auto n = whole(value.substr(0, value.find(' ')))) {
      if (*n > 0 && *n <= (std::int64_t{1} << 26)) log.command_ctx = *n;
    }
  }
}

}  // namespace

Result<LoadLog> parse_load_log(std::string_view text) {
  if (text.size() > kMaxLogTextBytes)
    return Error{"log.too_large", "the log is over " + std::to_string(kMaxLogTextBytes >> 20) + " MiB"};
  LoadLog log;
  std::vector<LogBuffer> breakdown;
  TextLines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim_space(raw);
    const std::string where = lines.where();
    if (line.find("llama_memory_breakdown_print") != std::string_view::npos) {
      read_breakdown(line, where, breakdown);
      continue;
    }
    if (read_buffer(line, where, log)) continue;
    if (line.find("exps=CPU") != std::string_view::npos || line.rfind("-c ", 0) == 0 ||
        line.find(" -c ") != std::string_view::npos || line.find("--ctx-size ") != std::string_view::npos ||
        line.find("cpu-moe") != std::string_view::npos || line.find(" -ncmoe ") != std::string_view::npos ||
        line.find(" -cmoe") != std::string_view::npos)
      read_command(line, log);
    if (std::string name = gpu_named_in_line(line); !name.empty()) {
      log.devices_named.push_back(std::move(name));
      continue;
    }
    if (const auto o = line.find("offloaded "); o != std::string_view::npos && line.find("layers to GPU") != std::string_view::npos) {
      std::string_view rest;
      const auto done = number_in(line.substr(o), &rest);
      const auto all = rest.substr(0, 1) == "/" ? number_in(rest) : std::nullopt;
      if (done && all) {
        log.offloaded_layers = static_cast<int>(*done);
        log.offloadable_layers = static_cast<int>(*all);
      }
      continue;
    }
    if (const auto k = line.find("KV self size"); k != std::string_view::npos) {
      if (const auto mib = number_in(line.substr(k))) log.kv_total_bytes = log.kv_total_bytes.value_or(0) + mib_bytes(*mib);
      if (log.type_k.empty()) log.type_k = type_in(line, "K (");
      if (log.type_v.empty()) log.type_v = type_in(line, "V (");
      continue;
    }
    // "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16): 512.00 MiB, V (f16): 512.00 MiB"
    if (line.find("llama_kv_cache") != std::string_view::npos && line.find(" size = ") != std::string_view::npos &&
        line.find("K (") != std::string_view::npos) {
      if (const auto mib = number_in(line.substr(line.find(" size = "))))
        log.kv_total_bytes = log.kv_total_bytes.value_or(0) + mib_bytes(*mib);
      log.type_k = type_in(line, "K (");
      log.type_v = type_in(line, "V (");
      continue;
    }
    // "llama_kv_cache_unified: kv_size = 32768, type_k = 'f16', type_v = 'f16', n_layer = 61, ..."
    if (const auto tk = line.find("type_k = '"); tk != std::string_view::npos) {
      const std::string_view rest = line.substr(tk + 10);
      log.type_k = printable(rest.substr(0, rest.find('\'')), 12);
      if (const auto tv = line.find("type_v = '"); tv != std::string_view::npos) {
        const std::string_view r = line.substr(tv + 10);
        log.type_v = printable(r.substr(0, r.find('\'')), 12);
      }
      continue;
    }
    // "build: 7342 (2fbe3b7bb) with cc ..." or "common_params_print_info: build
    // 10644 (d7a207411) with GNU ...": llama.cpp's build number.
    for (std::string_view mark : {std::string_view("build: "), std::string_view("build ")}) {
      const auto b = line.find(mark);
      if (b == std::string_view::npos || log.build_number) continue;
      const std::string_view rest = line.substr(b + mark.size());
      if (const auto n = whole(rest.substr(0, rest.find(' ')));
          n && *n > 0 && *n < 1000000 && rest.find(" (") != std::string_view::npos && rest.find(" (") == rest.find(' '))
        log.build_number = static_cast<int>(*n);
    }
    const auto [key, value] = key_value(line);
    if (key.empty()) continue;
    if (key == "n_ctx") log.n_ctx = whole(value);
    else if (key == "n_seq_max") log.n_seq_max = whole(value);
    else if (key == "n_batch") log.n_batch = whole(value);
    else if (key == "n_ubatch") log.n_ubatch = whole(value);
    else if (key == "kv_unified") {
      if (value == "true" || value == "1") log.kv_unified = true;
      else if (value == "false" || value == "0") log.kv_unified = false;
    }
    else if (key == "flash_attn") {
      if (value == "0" || value == "disabled" || value == "false") log.flash_attn = 0;
      else if (value == "1" || value == "enabled" || value == "true" || value == "auto") log.flash_attn = 1;
    } else if (key == "file type" || key == "model ftype") {
      log.file_type = printable(value, 48);
    } else if (key == "arch") {
      log.arch = printable(value, 32);
    } else if (key == "model params") {
      std::string_view unit;
      const auto p = number_in(value, &unit);
      unit = trim_space(unit);
      const double scale = unit == "B" ? 1e9 : unit == "M" ? 1e6 : unit == "T" ? 1e12 : unit == "K" ? 1e3 : 0.0;
      if (p && scale > 0.0) log.model_params = std::llround(*p * scale);
    }
  }
  if (log.buffers.empty() && !breakdown.empty()) {
    log.buffers = std::move(breakdown);
    log.from_breakdown = true;
  }
  if (log.buffers.empty())
    return Error{"log.empty",
                 "no buffer lines found: paste what llama-server or llama-cli print while loading (the lines with "
                 "'model buffer size', 'KV buffer size' and 'compute buffer size', or llama_memory_breakdown_print)"};
  return log;
}

}  // namespace llmsizer
