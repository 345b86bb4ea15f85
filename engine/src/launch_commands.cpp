#include "llmsizer/launch_commands.hpp"

#include <cmath>
#include <string>

#include "decimal_text.hpp"

namespace llmsizer {
namespace {

// Catalog text goes into a shell command: keep only characters a repo id uses.
std::string shell_safe(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.' || c == '/' || c == ':';
    if (ok) out += c;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : " \\\n  ") + parts[i];
  return out;
}

std::string llama_kv_name(KvType t) { return std::string(kv_type_name(t == KvType::bf16 ? KvType::bf16 : t)); }

}  // namespace

std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& s, const Estimate& e) {
  std::vector<LaunchCommand> out;
  const std::string repo = model.entry ? shell_safe(model.entry->hf_repo) : "path/to/model";
  std::string gguf_repo = model.entry && !model.entry->gguf_repos.empty() ? shell_safe(model.entry->gguf_repos.front()) : "";
  const std::string quant = shell_safe(s.quant.name);
  const std::int64_t total_ctx = s.context_tokens * s.sequences;
  const int n_layers = model.arch().decoder_layer_count();

  // llama.cpp: -c is the whole cache, shared by -np slots.
  {
    std::vector<std::string> p;
    if (s.quant.is_gguf() && !gguf_repo.empty()) p.push_back("llama-server -hf " + gguf_repo + ":" + quant);
    else p.push_back("llama-server -m " + (model.entry ? shell_safe(model.entry->id) : std::string("model")) + "-" + quant + ".gguf");
    p.push_back("-c " + std::to_string(total_ctx));
    if (s.sequences > 1) p.push_back("-np " + std::to_string(s.sequences));
    if (e.memory.offloaded_layers > 0 && !e.memory.offload_experts_only)
      p.push_back("-ngl " + std::to_string(n_layers - e.memory.offloaded_layers));
    else
      p.push_back("-ngl 999");
    if (e.memory.offload_experts_only && e.memory.offloaded_layers > 0)
      p.push_back("--n-cpu-moe " + std::to_string(e.memory.offloaded_layers));
    p.push_back(s.flash_attention ? "-fa on" : "-fa off");
    if (s.kv_type != KvType::f16)
      p.push_back("-ctk " + llama_kv_name(s.kv_type) + " -ctv " + llama_kv_name(s.kv_type));
    if (e.memory.per_gpu.size() > 1) {
      std::string split = "--tensor-split ";
      for (std::size_t i = 0; i < e.memory.per_gpu.size(); ++i) split += (i ? "," : "") + std::string("1");
      p.push_back(split);
    }
    out.push_back({"llama.cpp", join(p)});
  }
  // vLLM: the pool comes from --gpu-memory-utilization; max-model-len caps one sequence.
  {
    std::vector<std::string> p{"vllm serve " + repo, "--max-model-len " + std::to_string(s.context_tokens)};
    if (s.gpu_count > 1) p.push_back("--tensor-parallel-size " + std::to_string(s.gpu_count));
    p.push_back("--gpu-memory-utilization " + six_decimals(s.gpu_memory_utilization).substr(0, 4));
    if (s.kv_type == KvType::fp8) p.push_back("--kv-cache-dtype fp8");
    p.push_back("--max-num-seqs " + std::to_string(s.sequences));
    out.push_back({"vllm", join(p)});
  }
  // SGLang: --mem-fraction-static plays the same role.
  {
    std::vector<std::string> p{"python -m sglang.launch_server --model-path " + repo,
                               "--context-length " + std::to_string(s.context_tokens)};
    if (s.gpu_count > 1) p.push_back("--tp " + std::to_string(s.gpu_count));
    p.push_back("--mem-fraction-static 0.88");
    if (s.kv_type == KvType::fp8) p.push_back("--kv-cache-dtype fp8_e5m2");
    p.push_back("--max-running-requests " + std::to_string(s.sequences));
    out.push_back({"sglang", join(p)});
  }
  // Ollama: context and KV type through the server's environment.
  {
    std::string kv = s.kv_type == KvType::q8_0 || s.kv_type == KvType::q4_0 ? std::string(kv_type_name(s.kv_type)) : "f16";
    std::string tag = model.entry && !model.entry->ollama_tags.empty() ? shell_safe(model.entry->ollama_tags.front())
                      : !gguf_repo.empty() ? "hf.co/" + gguf_repo + ":" + quant
                                           : "MODEL";
    std::string cmd = "OLLAMA_CONTEXT_LENGTH=" + std::to_string(s.context_tokens) +
                      " OLLAMA_NUM_PARALLEL=" + std::to_string(s.sequences) + " OLLAMA_FLASH_ATTENTION=1";
    if (kv != "f16") cmd += " OLLAMA_KV_CACHE_TYPE=" + kv;
    cmd += " ollama serve\nollama run " + tag;
    out.push_back({"ollama", cmd});
  }
  // MLX-LM.
  {
    std::vector<std::string> p{"mlx_lm.server --model " + repo};
    if (s.quant.kind == SchemeKind::mlx_4bit || s.quant.kind == SchemeKind::mlx_8bit)
      p[0] = "mlx_lm.convert --hf-path " + repo + " -q --q-bits " + (s.quant.kind == SchemeKind::mlx_8bit ? "8" : "4") +
             " --mlx-path ./mlx-model && mlx_lm.server --model ./mlx-model";
    out.push_back({"mlx", join(p)});
  }
  return out;
}

}  // namespace llmsizer
