#include "hub_model.hpp"

#include "llmsizer/units.hpp"

namespace llmsizer::cli {
namespace {

constexpr std::int64_t kMaxTreeBytes = 16 * static_cast<std::int64_t>(kMiB);
constexpr std::int64_t kMaxJsonBytes = 16 * static_cast<std::int64_t>(kMiB);

ByteSource remote_file(const HubClient& hub, const std::string& repo, const HubRepoFile& f) {
  ByteSource source;
  source.name = repo + "/" + f.path;
  source.size = f.size;
  const std::string path = hub_file_path(repo, f.path);
  const std::string what = source.name;
  source.read = [&hub, path, what](std::int64_t offset, std::int64_t length) {
    return hub.get_range(path, offset, length, what);
  };
  return source;
}

Result<std::string> text_file(const HubClient& hub, const std::string& repo, const std::string& path) {
  return hub.get(hub_file_path(repo, path), kMaxJsonBytes, repo + "/" + path);
}

}  // namespace

Result<HubModel> load_hub_model(const HubClient& hub, const HubName& name) {
  auto tree = hub.get(hub_tree_path(name.repo), kMaxTreeBytes, "the repo " + name.repo);
  if (!tree) return tree.error();
  auto files = read_hub_tree(tree.value());
  if (!files) return Error{files.error().id, name.repo + ": " + files.error().message};
  auto plan = plan_hub_files(name, files.value());
  if (!plan) return plan.error();
  const HubPlan& p = plan.value();
  HubModel out;
  out.label = p.label;
  out.source.repo = name.repo;
  if (p.kind == HubKind::gguf) {
    out.source.gguf_tag = p.label.substr(name.repo.size() + 1);
    out.source.gguf_parts = static_cast<int>(p.headers.size());
    std::vector<ByteSource> parts;
    for (const HubRepoFile& f : p.headers) parts.push_back(remote_file(hub, name.repo, f));
    auto model = gguf_model_from(parts, p.label);
    if (!model) return model.error();
    out.files = std::move(model).value();
    return out;
  }
  auto config = text_file(hub, name.repo, "config.json");
  if (!config) return config.error();
  if (p.kind == HubKind::config) {
    out.config_text = config.value();
    return out;
  }
  CheckpointFiles checkpoint;
  checkpoint.config_text = config.value();
  checkpoint.config_name = name.repo + "/config.json";
  checkpoint.label = p.label;
  if (!p.index_path.empty()) {
    auto index = text_file(hub, name.repo, p.index_path);
    if (!index) return index.error();
    checkpoint.index_text = index.value();
    checkpoint.index_name = name.repo + "/" + p.index_path;
  }
  for (const HubRepoFile& f : p.headers) checkpoint.shards.push_back(remote_file(hub, name.repo, f));
  auto model = safetensors_model_from(checkpoint);
  if (!model) return model.error();
  out.files = std::move(model).value();
  return out;
}

}  // namespace llmsizer::cli
