#include "llmsizer/distribution.hpp"

#include <utility>

#include "llmsizer/json.hpp"

namespace llmsizer::embedded {
extern const char* const kDistributionJson[];
}  // namespace llmsizer::embedded

namespace llmsizer {
namespace {

Error bad(const std::string& path, const std::string& what) { return Error{"distribution.bad_entry", path + " " + what}; }

// A string member, "" when absent; an error when present and not a string.
Result<std::string> optional_string(const Json& entry, const char* key, const std::string& path) {
  auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) return std::string();
  if (!it->is_string()) return bad(path + "/" + key, "must be a string");
  return it->get<std::string>();
}

Result<std::string> required_string(const Json& entry, const char* key, const std::string& path) {
  auto it = entry.find(key);
  if (it == entry.end() || !it->is_string() || it->get_ptr<const std::string*>()->empty())
    return bad(path + "/" + key, "must be a non-empty string");
  return it->get<std::string>();
}

// The array member `key` (absent: none), each element parsed by `each`.
template <typename T, typename F>
Result<std::vector<T>> array_of(const Json& entry, const char* key, const std::string& path, F each) {
  std::vector<T> out;
  auto it = entry.find(key);
  if (it == entry.end()) return out;
  if (!it->is_array()) return bad(path + "/" + key, "must be an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string at = path + "/" + key + "/" + std::to_string(i);
    const Json& e = (*it)[i];
    if (!e.is_object()) return bad(at, "must be an object");
    Result<T> item = each(e, at);
    if (!item) return item.error();
    out.push_back(std::move(item).value());
  }
  return out;
}

Result<GgufRepo> parse_gguf(const Json& e, const std::string& path) {
  GgufRepo g;
  auto repo = required_string(e, "repo", path);
  if (!repo) return repo.error();
  g.repo = std::move(repo).value();
  if (auto it = e.find("quants"); it != e.end()) {
    if (!it->is_array()) return bad(path + "/quants", "must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) return bad(path + "/quants/" + std::to_string(i), "must be a string");
      g.quants.push_back((*it)[i].get<std::string>());
    }
  }
  if (auto it = e.find("parts"); it != e.end()) {
    if (!it->is_object()) return bad(path + "/parts", "must be an object of quantization -> number of files");
    for (auto p = it->begin(); p != it->end(); ++p) {
      if (!p.value().is_number_integer() || p.value().get<long long>() < 1 || p.value().get<long long>() > 1000)
        return bad(path + "/parts/" + p.key(), "must be a whole number in [1, 1000]");
      g.parts.emplace_back(p.key(), static_cast<int>(p.value().get<long long>()));
    }
  }
  return g;
}

Result<OllamaTag> parse_ollama(const Json& e, const std::string& path) {
  OllamaTag t;
  auto tag = required_string(e, "tag", path);
  if (!tag) return tag.error();
  t.tag = std::move(tag).value();
  auto quant = optional_string(e, "quant", path);
  if (!quant) return quant.error();
  t.quant = std::move(quant).value();
  auto moved = optional_string(e, "moved_to", path);
  if (!moved) return moved.error();
  t.moved_to = std::move(moved).value();
  if (auto it = e.find("cloud"); it != e.end()) {
    if (!it->is_boolean()) return bad(path + "/cloud", "must be true or false");
    t.cloud = it->get<bool>();
  }
  if (auto it = e.find("listed_gb"); it != e.end()) {
    if (!it->is_number() || !(it->get<double>() > 0.0) || it->get<double>() > 100000.0)
      return bad(path + "/listed_gb", "must be a size in GB, above 0 and at most 100000");
    t.listed_gb = it->get<double>();
  }
  return t;
}

Result<MlxRepo> parse_mlx(const Json& e, const std::string& path) {
  MlxRepo m;
  auto repo = required_string(e, "repo", path);
  if (!repo) return repo.error();
  m.repo = std::move(repo).value();
  auto it = e.find("bits");
  if (it == e.end() || !it->is_number_integer() || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > 32)
    return bad(path + "/bits", "must be an integer from 1 to 32");
  m.bits = it->get<int>();
  auto format = optional_string(e, "format", path);
  if (!format) return format.error();
  m.format = format.value().empty() ? "affine" : std::move(format).value();
  return m;
}

Result<ModelDistribution> parse_model(const Json& e, const std::string& path) {
  ModelDistribution m;
  auto id = required_string(e, "id", path);
  if (!id) return id.error();
  m.id = std::move(id).value();
  auto gguf = array_of<GgufRepo>(e, "gguf", path, parse_gguf);
  if (!gguf) return gguf.error();
  m.gguf = std::move(gguf).value();
  auto ollama = array_of<OllamaTag>(e, "ollama", path, parse_ollama);
  if (!ollama) return ollama.error();
  m.ollama = std::move(ollama).value();
  auto mlx = array_of<MlxRepo>(e, "mlx", path, parse_mlx);
  if (!mlx) return mlx.error();
  m.mlx = std::move(mlx).value();
  auto serve = optional_string(e, "serve_repo", path);
  if (!serve) return serve.error();
  m.serve_repo = std::move(serve).value();
  if (auto it = e.find("checkpoints"); it != e.end()) {
    if (!it->is_object()) return bad(path + "/checkpoints", "must be an object");
    for (const auto& [format, repo] : *it->get_ptr<const Json::object_t*>()) {
      if (!repo.is_string() || repo.get_ptr<const std::string*>()->empty())
        return bad(path + "/checkpoints/" + format, "must be a non-empty string");
      m.checkpoints.emplace_back(format, repo.get<std::string>());
    }
  }
  if (auto it = e.find("weight_blocks"); it != e.end()) {
    if (!it->is_object()) return bad(path + "/weight_blocks", "must be an object");
    for (const auto& [repo, block] : *it->get_ptr<const Json::object_t*>()) {
      if (!block.is_number_integer() || block.get<std::int64_t>() < 1 || block.get<std::int64_t>() > 4096)
        return bad(path + "/weight_blocks/" + repo, "must be a whole number in [1, 4096]");
      m.weight_blocks.emplace_back(repo, block.get<std::int64_t>());
    }
  }
  return m;
}

}  // namespace

int GgufRepo::parts_of(std::string_view quant) const {
  for (const auto& [tag, n] : parts)
    if (tag == quant) return n;
  return 0;
}

const std::string* ModelDistribution::checkpoint(std::string_view format) const {
  for (const auto& [f, repo] : checkpoints)
    if (f == format) return &repo;
  return nullptr;
}

std::int64_t ModelDistribution::weight_block(std::string_view repo) const {
  for (const auto& [r, block] : weight_blocks)
    if (r == repo) return block;
  return 0;
}

const ModelDistribution* DistributionIndex::find(std::string_view model_id) const {
  for (const ModelDistribution& m : models)
    if (m.id == model_id) return &m;
  return nullptr;
}

Result<DistributionIndex> parse_distribution(std::string_view json) {
  const Json doc = parse_json(json);
  const auto models = doc.find("models");
  if (models == doc.end() || !models->is_array())
    return Error{"distribution.not_json", "the distribution names must be a JSON object with a 'models' array"};
  DistributionIndex index;
  const Json& list = *models;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "/models/" + std::to_string(i);
    if (!list[i].is_object()) return bad(path, "must be an object");
    auto m = parse_model(list[i], path);
    if (!m) return m.error();
    index.models.push_back(std::move(m).value());
  }
  return index;
}

Result<DistributionIndex> embedded_distribution() {
  std::string text;
  for (const char* const* p = embedded::kDistributionJson; *p != nullptr; ++p) text += *p;
  return parse_distribution(text);
}

}  // namespace llmsizer
