#include "llmsizer/hub_files.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "llmsizer/json.hpp"

namespace llmsizer {
namespace {

using RepoFile = HubRepoFile;

bool hub_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

bool hub_valid_part(const std::string& s) {
  return !s.empty() && s.size() <= 96 && s != "." && s != ".." && std::all_of(s.begin(), s.end(), hub_name_char);
}

bool hub_ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string hub_upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string hub_base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A file path in a URL: each segment the Hub allows, escaped where needed.
std::string hub_url_escape(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    if (hub_name_char(c) || c == '/') out += c;
    else {
      out += '%';
      out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
      out += hex[static_cast<unsigned char>(c) & 15];
    }
  }
  return out;
}

// gguf-split's "-00001-of-00003.gguf" tail: the set's name without it, or "".
std::string gguf_split_set(const std::string& path) {
  const std::string shape = "-00000-of-00000.gguf";
  if (path.size() < shape.size()) return "";
  const std::size_t at = path.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const char want = shape[i];
    const char got = path[at + i];
    if (want == '0' ? !std::isdigit(static_cast<unsigned char>(got)) : got != want) return "";
  }
  return path.substr(0, at);
}

// The quantization a GGUF path names (Q4_K_M, UD-Q4_K_XL, IQ2_XXS, F16,
// BF16, MXFP4...): the last token of the file name (else its folder) that
// reads as one, upper-cased; "" when none does.
std::string quant_in_path(const std::string& path) {
  auto is_quant = [](const std::string& t) {
    const std::string u = hub_upper(t);
    const std::string core = u.rfind("UD-", 0) == 0 ? u.substr(3) : u;
    if (core == "F16" || core == "BF16" || core == "F32" || core.rfind("MXFP4", 0) == 0) return true;
    std::size_t i = 0;
    if (core.rfind("IQ", 0) == 0) i = 2;
    else if (core.rfind("Q", 0) == 0 || core.rfind("TQ", 0) == 0) i = core[0] == 'T' ? 2 : 1;
    else return false;
    return i < core.size() && std::isdigit(static_cast<unsigned char>(core[i])) && (i + 1 == core.size() || core[i + 1] == '_');
  };
  auto last_in = [&](const std::string& text) {
    std::string found;
    std::size_t start = 0;
    // Tokens are separated by '.', '-' and '/' but keep "UD-" with what follows.
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size() && text[i] != '.' && text[i] != '/' && text[i] != '-') continue;
      if (i < text.size() && text[i] == '-' && hub_upper(text.substr(start, i - start)) == "UD") continue;
      const std::string token = text.substr(start, i - start);
      if (is_quant(token)) found = hub_upper(token);
      start = i + 1;
    }
    return found;
  };
  std::string file = hub_base_name(path);
  if (hub_ends_with(file, ".gguf")) file.resize(file.size() - 5);
  const std::string in_file = last_in(file);
  if (!in_file.empty()) return in_file;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : last_in(path.substr(0, slash));
}

// The GGUF sets of a repo by quantization: a single file or a split set's
// parts in order; mmproj (vision projector) files are not the model.
std::map<std::string, std::vector<RepoFile>> hub_gguf_sets(const std::vector<RepoFile>& files) {
  std::map<std::string, std::vector<RepoFile>> sets;
  for (const RepoFile& f : files) {
    if (!hub_ends_with(f.path, ".gguf") || hub_base_name(f.path).rfind("mmproj", 0) == 0) continue;
    const std::string quant = quant_in_path(f.path);
    if (quant.empty()) continue;
    sets[quant].push_back(f);
  }
  for (auto& [quant, parts] : sets) std::sort(parts.begin(), parts.end(), [](const RepoFile& a, const RepoFile& b) { return a.path < b.path; });
  return sets;
}

std::string hub_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool hub_has_file(const std::vector<RepoFile>& files, const std::string& path) {
  return std::any_of(files.begin(), files.end(), [&](const RepoFile& f) { return f.path == path; });
}

Result<HubPlan> hub_gguf_plan(const HubName& name, const std::vector<RepoFile>& files) {
  const auto sets = hub_gguf_sets(files);
  HubPlan plan;
  plan.kind = HubKind::gguf;
  for (const auto& [quant, parts] : sets) plan.quants.push_back(quant);
  if (sets.empty()) return Error{"hub.no_weights", name.repo + " holds .gguf files, but none names its quantization"};
  std::string quant = hub_upper(name.quant);
  if (quant.empty() && !name.file.empty()) quant = quant_in_path(name.file);
  if (quant.empty()) {
    if (sets.size() != 1)
      return Error{"hub.choose_quant", name.repo + " holds GGUF files at " + hub_joined(plan.quants) +
                                           ": choose one, as " + name.repo + ":" + plan.quants.front()};
    quant = sets.begin()->first;
  }
  const auto chosen = sets.find(quant);
  if (chosen == sets.end())
    return Error{"hub.no_such_quant", name.repo + " has no " + quant + " GGUF; it holds " + hub_joined(plan.quants)};
  std::vector<RepoFile> parts = chosen->second;
  // A linked file or folder: the files it names.
  if (!name.file.empty()) {
    std::vector<RepoFile> linked;
    for (const RepoFile& p : parts)
      if (p.path == name.file || p.path.rfind(name.file + "/", 0) == 0) linked.push_back(p);
    if (!linked.empty()) parts = linked;
  }
  // Two sets under one label (a file and a split copy): the split set's parts, else the first file.
  if (parts.size() > 1) {
    const std::string set = gguf_split_set(parts.front().path);
    std::vector<RepoFile> same;
    for (const RepoFile& p : parts)
      if (!set.empty() && gguf_split_set(p.path) == set) same.push_back(p);
    parts = same.empty() ? std::vector<RepoFile>{parts.front()} : same;
  }
  plan.headers = parts;
  plan.label = name.repo + ":" + quant;
  return plan;
}

}  // namespace

Result<HubName> parse_hub_name(std::string_view text_view) {
  const std::string text(text_view.substr(0, 401));
  auto bad = [&] {
    return Error{"hub.bad_name", "'" + text.substr(0, 120) +
                                     "' is not a Hub name: give owner/repo, owner/repo:QUANT or a huggingface.co link"};
  };
  if (text.empty() || text.size() > 400) return bad();
  HubName name;
  std::string rest = text;
  for (const char* prefix : {"https://huggingface.co/", "http://huggingface.co/", "huggingface.co/", "hf.co/",
                             "https://hf.co/"})
    if (rest.rfind(prefix, 0) == 0) {
      rest = rest.substr(std::string(prefix).size());
      break;
    }
  const std::size_t hash = rest.find_first_of("?#");
  if (hash != std::string::npos) rest = rest.substr(0, hash);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t slash = rest.find('/', start);
    parts.push_back(rest.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  if (parts.size() < 2) return bad();
  std::string repo_name = parts[1];
  const std::size_t colon = repo_name.find(':');
  if (colon != std::string::npos) {
    if (parts.size() != 2) return bad();
    name.quant = repo_name.substr(colon + 1);
    repo_name = repo_name.substr(0, colon);
    if (!hub_valid_part(name.quant)) return bad();
  }
  if (!hub_valid_part(parts[0]) || !hub_valid_part(repo_name)) return bad();
  name.repo = parts[0] + "/" + repo_name;
  if (parts.size() > 2) {
    // blob/main/FILE, resolve/main/FILE or tree/main[/DIR]
    if (parts.size() < 4 || (parts[2] != "blob" && parts[2] != "resolve" && parts[2] != "tree") || parts[3] != "main")
      return bad();
    for (std::size_t i = 4; i < parts.size(); ++i) {
      if (!hub_valid_part(parts[i])) return bad();
      name.file += (name.file.empty() ? "" : "/") + parts[i];
    }
  }
  return name;
}

Result<std::vector<HubRepoFile>> read_hub_tree(std::string_view json) {
  const Json tree = Json::parse(json, nullptr, false);
  if (!tree.is_array()) return Error{"hub.bad_answer", "the Hub's file list is not a JSON list"};
  std::vector<HubRepoFile> files;
  for (const Json& e : tree) {
    if (!e.is_object() || !e.contains("type") || e["type"] != "file" || !e.contains("path") || !e["path"].is_string())
      continue;
    HubRepoFile f;
    f.path = e["path"].get<std::string>();
    // LFS files list their real size under lfs.size (size is the pointer's).
    const Json* size = e.contains("size") ? &e["size"] : nullptr;
    if (e.contains("lfs") && e["lfs"].is_object() && e["lfs"].contains("size")) size = &e["lfs"]["size"];
    if (size == nullptr || !size->is_number_integer() || size->get<std::int64_t>() < 0) continue;
    f.size = size->get<std::int64_t>();
    files.push_back(std::move(f));
  }
  return files;
}

std::string hub_tree_path(const std::string& repo) { return "/api/models/" + repo + "/tree/main?recursive=true"; }

std::string hub_file_path(const std::string& repo, const std::string& path) {
  return "/" + repo + "/resolve/main/" + hub_url_escape(path);
}

std::string gguf_quant_in_path(const std::string& path) { return quant_in_path(path); }

std::vector<std::string> hub_gguf_quants(const std::vector<HubRepoFile>& files) {
  std::vector<std::string> quants;
  for (const auto& [quant, parts] : hub_gguf_sets(files)) quants.push_back(quant);
  return quants;
}

Result<HubPlan> plan_hub_files(const HubName& name, const std::vector<HubRepoFile>& files) {
  const bool has_gguf = std::any_of(files.begin(), files.end(), [](const RepoFile& f) { return hub_ends_with(f.path, ".gguf"); });
  const bool has_config = hub_has_file(files, "config.json");
  // A GGUF repo, or one asked for a GGUF (a quant or a linked file) that has some.
  if (has_gguf && (!name.quant.empty() || !name.file.empty() || !has_config)) return hub_gguf_plan(name, files);
  if (!has_config) return Error{"hub.no_weights", name.repo + " holds no config.json and no GGUF file: nothing here to size"};
  if (!name.quant.empty())
    return Error{"hub.no_such_quant", name.repo + " holds no GGUF files; drop :" + name.quant + " to size its checkpoint"};
  HubPlan plan;
  plan.label = name.repo;
  plan.config = true;
  if (hub_has_file(files, "model.safetensors.index.json")) plan.index_path = "model.safetensors.index.json";
  // The top-level .safetensors files: the shards (MLX repos keep theirs there too).
  for (const RepoFile& f : files)
    if (f.path.find('/') == std::string::npos && hub_ends_with(f.path, ".safetensors")) plan.headers.push_back(f);
  plan.kind = plan.headers.empty() && plan.index_path.empty() ? HubKind::config : HubKind::safetensors;
  return plan;
}

}  // namespace llmsizer
