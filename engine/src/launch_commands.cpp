#include "llmsizer/layer_split.hpp"
#include "llmsizer/launch_commands.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <string>

#include "llmsizer/mixed_cards.hpp"
#include "llmsizer/runtime_support.hpp"
#include "llmsizer/units.hpp"

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

// The mixed cards' ids, each shell-safe, comma-separated.
std::string safe_card_ids(const Scenario& s) {
  std::string out;
  for (std::size_t i = 0; i < s.cards.size(); ++i) out += (i ? "," : "") + shell_safe(s.cards[i].id);
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : " \\\n  ") + parts[i];
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// A quantization tag as a GGUF repo or Ollama lists it, against the scheme's
// name: case aside, llama.cpp's MXFP4_MOE file type is the "MXFP4" of gpt-oss repos.
bool same_quant(std::string_view listed, std::string_view wanted) {
  const std::string a = upper(listed), b = upper(wanted);
  const auto mxfp4 = [](const std::string& q) { return q == "MXFP4" || q == "MXFP4_MOE"; };
  return a == b || (mxfp4(a) && mxfp4(b));
}

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

bool is_apple(const Scenario& s) {
  return s.device && (s.device->vendor == "apple" || s.device->backend == Backend::metal);
}

// What the commands need to know of the model, every name shell-safe.
struct Names {
  std::string id;            // catalog id ("" for a config given as text)
  std::string hf_repo;       // the catalog's repo
  std::string native_dtype;  // the catalog's, lowercase ("" when not stated)
  std::string llama_cpp_unsupported;  // why llama.cpp cannot run it ("" when it can)
  const ModelDistribution* dist = nullptr;

  std::string label() const { return hf_repo.empty() ? (id.empty() ? std::string("this model") : id) : hf_repo; }
  // The repo of this checkpoint format, "" when none is known.
  std::string checkpoint(std::string_view format) const {
    const std::string* repo = dist ? dist->checkpoint(format) : nullptr;
    return repo ? shell_safe(*repo) : std::string();
  }
  // The repo people serve of the checkpoint as published.
  std::string native_repo() const {
    if (dist && !dist->serve_repo.empty()) return shell_safe(dist->serve_repo);
    return hf_repo;
  }
};

// The Hub refuses files over 50 GB (huggingface/hub-docs#2007, "Per file:
// 50GB max"), so a larger GGUF is published in parts (-00001-of-0000N.gguf).
constexpr std::int64_t kHubFileLimitBytes = 50'000'000'000;

// A GGUF repo for this quantization: one that lists it, else one whose tag
// list was not sourced (with a note saying so); none: the model's own Hub
// repo to convert and quantize locally, or a note saying why not.
struct GgufChoice {
  std::string repo;  // "" when none
  std::string tag;   // the quant as the repo spells it
  int parts = 0;     // files a source shows for this tag, 0 when none says
  std::string note;
  std::string convert_from;  // the Hub repo to convert when no GGUF is known ("" otherwise)
};

// The Hub repo a GGUF can be made from: a BF16 checkpoint, or the published
// one when its dtype is 16- or 32-bit (or unstated). FP8 and FP4 weights need
// a dequantizing step llama.cpp's converter does not do (ggml-org/llama.cpp#11991,
// "Can not map tensor ... weight_scale_inv"): "" then.
std::string convertible_repo(const Names& n) {
  const std::string bf16 = n.checkpoint("BF16");
  if (!bf16.empty()) return bf16;
  const std::string& d = n.native_dtype;
  if (d.empty() || d == "bf16" || d == "fp16" || d == "f16" || d == "float16" || d == "bfloat16" || d == "fp32" ||
      d == "float32")
    return n.native_repo();
  return "";
}

// Why llama-quantize cannot make `quant` from a BF16 file as printed, "" when
// it can. It refuses IQ1_S, IQ1_M, IQ2_S, IQ2_XXS, IQ2_XS and Q2_K_S without
// an importance matrix (tools/quantize/quantize.cpp: "Please do not use ...
// quantization without an importance matrix"); ternary TQ types are for
// ternary-trained models; _L/_XL and UD- names are uploaders' mixes, not
// llama-quantize types.
std::string unmakeable_reason(const std::string& quant) {
  static const char* const kNeedImatrix[] = {"IQ1_S", "IQ1_M", "IQ2_S", "IQ2_XXS", "IQ2_XS", "Q2_K_S"};
  static const char* const kMakeable[] = {"F16",    "BF16",   "Q8_0",   "Q6_K",   "Q5_K_M", "Q5_K_S", "Q5_0",
                                          "Q5_1",   "Q4_K_M", "Q4_K_S", "Q4_0",   "Q4_1",   "Q3_K_L", "Q3_K_M",
                                          "Q3_K_S", "Q2_K",   "IQ4_XS", "IQ4_NL", "IQ3_M",  "IQ3_S",  "IQ3_XS",
                                          "IQ3_XXS", "MXFP4_MOE"};
  const std::string q = upper(quant);
  for (const char* t : kNeedImatrix)
    if (q == t) return "llama-quantize makes " + q + " only with an importance matrix (llama-imatrix over a text corpus)";
  for (const char* t : kMakeable)
    if (q == t) return "";
  return q + " is an uploader's mix or a ternary type, not a type llama-quantize makes from BF16";
}

GgufChoice choose_gguf(const Names& n, const std::string& quant) {
  GgufChoice c;
  const GgufRepo* unsourced = nullptr;
  std::vector<std::string> known;
  if (n.dist) {
    for (const GgufRepo& g : n.dist->gguf) {
      for (const std::string& q : g.quants)
        if (same_quant(q, quant)) {
          c.repo = shell_safe(g.repo);
          c.tag = shell_safe(q);
          c.parts = g.parts_of(q);
          return c;
        }
      if (g.quants.empty() && unsourced == nullptr) unsourced = &g;
      if (!g.quants.empty()) {
        std::vector<std::string> quants;
        for (const std::string& q : g.quants) quants.push_back(shell_safe(q));
        known.push_back(shell_safe(g.repo) + " (" + list_names(quants) + ")");
      }
    }
  }
  if (unsourced != nullptr) {
    c.repo = shell_safe(unsourced->repo);
    c.tag = quant;
    c.note = "The file list of " + c.repo + " was not checked: if it has no " + quant + " file, pick a quantization it has.";
    return c;
  }
  const std::string unmakeable = unmakeable_reason(quant);
  const std::string source = unmakeable.empty() ? convertible_repo(n) : std::string();
  const std::string fp8_note = !unmakeable.empty() ? " " + unmakeable + "."
      : n.hf_repo.empty() || !source.empty() ? std::string()
      : " Its published weights are " + upper(n.native_dtype) + ", which llama.cpp's converter does not read "
        "(ggml-org/llama.cpp#11991): a GGUF needs a BF16 copy first.";
  if (!known.empty() && source.empty()) {
    c.note = "No known GGUF repo of " + n.label() + " has " + quant + "; known: " + list_names(known) + "." + fp8_note;
    return c;
  }
  if (!known.empty()) {
    // Repos of other quantizations only: pull one of those, or make this one.
    c.convert_from = source;
    c.tag = quant;
    c.note = "No known GGUF repo of " + n.label() + " has " + quant + " (known: " + list_names(known) +
             "): use one of those, or make " + quant + " with these steps, which download the "
             "Hugging Face files, convert them with llama.cpp's converter and quantize (llama-quantize comes with "
             "llama.cpp's builds, as llama-server does).";
    return c;
  }
  if (n.hf_repo.empty()) {
    c.note = "No public GGUF of " + n.label() + " is known, and no Hugging Face repository to convert: convert its files "
             "with llama.cpp's convert_hf_to_gguf.py, then llama-quantize to " + quant + ".";
    return c;
  }
  if (source.empty()) {
    c.note = "No public GGUF of " + n.label() + " at " + quant + " is known." + fp8_note;
    return c;
  }
  c.convert_from = source;
  c.tag = quant;
  c.note = "No public GGUF of " + n.label() + " at " + quant + " is known: the steps download its Hugging Face files, "
           "convert them with llama.cpp's converter (if it knows the architecture) and quantize to " + quant +
           " (llama-quantize comes with llama.cpp's builds, as llama-server does).";
  return c;
}

// The local file names of a model converted or merged here.
std::string local_stem(const Names& n) {
  std::string base = n.id.empty() ? n.hf_repo.substr(n.hf_repo.find('/') + 1) : shell_safe(n.id);
  return base.empty() ? std::string("model") : base;
}

// Steps that leave `file` (a GGUF of the tag) in the working folder: download,
// convert to BF16 and quantize, for a model with no public GGUF.
std::vector<std::string> convert_steps(const Names& n, const GgufChoice& g, const std::string& file) {
  const std::string stem = local_stem(n);
  const std::string bf16 = stem + "-BF16.gguf";
  std::vector<std::string> steps{
      "git clone https://github.com/ggml-org/llama.cpp && pip install -r llama.cpp/requirements.txt",
      "hf download " + g.convert_from + " --local-dir " + stem + "-hf",
      "python llama.cpp/convert_hf_to_gguf.py " + stem + "-hf --outtype bf16 --outfile " + bf16};
  if (upper(g.tag) != "BF16") steps.push_back("llama-quantize " + bf16 + " " + file + " " + g.tag);
  return steps;
}

// Steps that leave `file` in the working folder from a repo's parts: download
// them, then merge them into one file (Ollama cannot pull a split GGUF,
// ollama/ollama#5245; llama.cpp's gguf-split merges them).
std::vector<std::string> merge_steps(const GgufChoice& g, const std::string& stem, const std::string& file) {
  const std::string dir = stem + "-" + g.tag + "-parts";
  return {"hf download " + g.repo + " --include \"*" + g.tag + "*\" --local-dir " + dir,
          "llama-gguf-split --merge \"$(find " + dir + " -name '*" + g.tag + "*-00001-of-*.gguf' | head -n 1)\" " + file};
}

std::string mib_text(std::int64_t bytes) { return std::to_string((bytes + kMiB / 2) / kMiB); }

LaunchCommand llama_cpp(const Names& n, const SizedModel& model, const Scenario& s, const Estimate& e,
                        const Names& draft) {
  LaunchCommand out{"llama.cpp", {}, {}};
  const std::string quant = shell_safe(s.quant.name);
  if (!n.llama_cpp_unsupported.empty()) {
    out.note = "llama.cpp cannot run " + n.label() + ": " + n.llama_cpp_unsupported + ".";
    return out;
  }
  if (!s.quant.is_gguf()) {
    // The estimate's own refusal where it has one: it names the GGUF type to
    // choose (MXFP4 experts: MXFP4_MOE; FP8: Q8_0).
    const Device* device = s.device ? &*s.device : s.cards.empty() ? nullptr : &s.cards.front();
    const auto why = device ? runtime_unsupported(InferenceEngine::llama_cpp, s.quant, model.arch().native_format, *device)
                            : std::nullopt;
    out.note = why ? *why + "."
                   : "llama.cpp loads GGUF files, not " + quant +
                         " checkpoints: choose a GGUF quantization such as Q4_K_M or Q8_0.";
    return out;
  }
  if (!engine_supports_kv_type(InferenceEngine::llama_cpp, s.kv_type)) {
    out.note = "llama.cpp has no " + std::string(kv_type_name(s.kv_type)) +
               " KV cache (its types: f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1).";
    return out;
  }
  const GgufChoice g = choose_gguf(n, quant);
  out.note = g.note;
  if (g.repo.empty() && g.convert_from.empty()) return out;
  // From the Hub (-hf fetches every part of a split file), or a file made here.
  std::string model_arg = "-hf " + g.repo + ":" + g.tag;
  if (!g.convert_from.empty()) {
    const std::string file = local_stem(n) + "-" + g.tag + ".gguf";
    out.steps = convert_steps(n, g, file);
    model_arg = "-m " + file;
  }
  // -c is the whole cache, shared by the -np slots (with an image's tokens in each).
  std::vector<std::string> p{"llama-server " + model_arg,
                             "-c " + std::to_string((s.context_tokens + e.memory.image_tokens) * s.sequences),
                             "-np " + std::to_string(s.sequences)};
  const int layers_in_ram = e.memory.offloaded_layers;
  if (s.device && s.device->kind == DeviceKind::cpu) {
    // A CPU-only machine: no layer goes to a GPU (a GPU build on it would try).
    p.push_back("-ngl 0");
  } else if (layers_in_ram > 0 && !e.memory.offload_experts_only && e.memory.output_in_ram) {
    // Every layer in RAM.
    p.push_back("-ngl 0");
  } else if (layers_in_ram > 0 && !e.memory.offload_experts_only) {
    // -ngl counts the output layer, which llama.cpp offloads first: the
    // layers on the GPU and the head (estimate.cpp, output_in_ram).
    const int layers = model.arch().decoder_layer_count();
    p.push_back("-ngl " + std::to_string(layers - layers_in_ram + 1));
    out.note += std::string(out.note.empty() ? "" : " ") + "-ngl counts the output layer, which llama.cpp offloads first: " +
                "the first " + std::to_string(layers_in_ram) + " layers stay in RAM (older builds counted only " +
                "layers: -ngl " + std::to_string(layers - layers_in_ram) + " there keeps the output layer in RAM too).";
  } else {
    p.push_back("-ngl 999");
    if (layers_in_ram > 0) p.push_back("--n-cpu-moe " + std::to_string(layers_in_ram));
  }
  p.push_back(s.flash_attention ? "-fa on" : "-fa off");
  if (s.kv_type != KvType::f16) {
    const std::string kv(kv_type_name(s.kv_type));
    p.push_back("-ctk " + kv + " -ctv " + kv);
  }
  if (s.draft && s.draft->use_mtp) {
    out.steps.clear();
    out.note = "llama-server has no MTP drafting for this model: serve it with vLLM or SGLang to draft with its MTP layers.";
    return out;
  }
  if (s.draft) {
    // The draft from a GGUF repo of its own at the same quantization (-hfd).
    const GgufChoice d = choose_gguf(draft, quant);
    if (d.repo.empty()) {
      out.note = "No GGUF of the draft " + shell_safe(s.draft->label) + " at " + quant + " is known (" + d.note +
                 "): give its file with -md FILE --draft-max " + std::to_string(s.draft->drafted_tokens) + ".";
      return out;
    }
    p.push_back("-hfd " + d.repo + ":" + d.tag + " -ngld 999 --draft-max " + std::to_string(s.draft->drafted_tokens));
    if (!d.note.empty()) out.note += std::string(out.note.empty() ? "" : " ") + d.note;
  }
  if (s.vision && !g.convert_from.empty())
    out.note += " The vision projector is a file of its own: convert it with the same converter's --mmproj option and "
                "add --mmproj with that file.";
  else if (s.vision)
    // The catalog's distribution data names no mmproj file: -hf fetches the
    // repo's own, and no file name is made up here.
    out.note += std::string(out.note.empty() ? "" : " ") +
                "-hf also downloads the repo's mmproj (vision projector) file when the repo has one; if " + g.repo +
                " has none, get an mmproj GGUF of this model and add --mmproj FILE. -c includes " +
                std::to_string(e.memory.image_tokens) + " image tokens per slot.";
  if (!s.cards.empty()) {
    // Mixed cards: each card's free MiB as the estimate split the layers by
    // them (usable less its buffers); llama.cpp normalises the proportions and
    // assigns layers as the estimate did.
    std::string split = "--tensor-split ";
    for (std::size_t i = 0; i < e.memory.per_gpu.size(); ++i) {
      const GpuShare& card = e.memory.per_gpu[i];
      split += (i ? "," : "") + mib_text(std::max<std::int64_t>(0, card.usable_bytes - card.runtime_bytes - card.projector_bytes));
    }
    p.push_back(split);
    out.note += std::string(out.note.empty() ? "" : " ") +
                "--tensor-split lists each card's free MiB in CUDA device order (" + safe_card_ids(s) +
                "): reorder the list if nvidia-smi numbers your cards differently.";
  } else if (e.memory.per_gpu.size() > 1 && !s.layers_per_gpu.empty()) {
    // Equal cards with a split chosen (by hand or a suggestion): weights that
    // give each GPU exactly those layers (the output layer is the last GPU's
    // last slot when it is on a GPU), so the run matches the figures. Without
    // one the estimate is llama.cpp's own split, which needs no flag.
    std::vector<int> slots;
    for (const GpuShare& share : e.memory.per_gpu) slots.push_back(share.last_layer - share.first_layer);
    if (!e.memory.output_in_ram) slots.back() += 1;
    std::string split = "--tensor-split ";
    int total = 0;
    const std::vector<int> weights = tensor_split_weights(slots);
    for (std::size_t i = 0; i < weights.size(); ++i) {
      split += (i ? "," : "") + std::to_string(weights[i]);
      total += slots[i];
    }
    p.push_back(split);
    out.note += std::string(out.note.empty() ? "" : " ") + "--tensor-split puts " + layer_split_text(slots) +
                " of the " + std::to_string(total) + " layer slots" + (e.memory.output_in_ram ? "" : " (the output layer last)") +
                " on the GPUs in CUDA order; its values are proportions, each boundary half a layer early so none falls on a layer.";
  }
  out.steps.push_back(join(p));
  return out;
}

// Ollama's name of the scheme, "" when Ollama has none (native checkpoints).
std::string ollama_quant(const QuantScheme& q) {
  if (q.is_gguf()) return q.name;
  if (q.kind == SchemeKind::mxfp4) return "MXFP4";
  if (q.kind == SchemeKind::nvfp4) return "NVFP4";
  return "";
}

// Where ollama.com lists the tag at a size the estimate's weights do not
// reach within the listing's rounding (a tenth of a GB below 10 GB, half a GB
// above) and 3% (the estimate's own error on a file it sizes), the tag is
// another build of the quantization than the GGUF sized: Ollama bundles a
// vision encoder in the tags of multimodal models (gemma3:4b, 3.3 GB against
// 2.49 GB of text weights) and keeps some layers at higher precision. Say so
// with both figures; "" when they agree.
std::string listed_size_note(const OllamaTag& tag, const Estimate& e) {
  if (tag.listed_gb <= 0.0) return "";
  const double sized_gb = static_cast<double>(e.memory.weights_bytes + e.memory.projector_bytes) / 1e9;
  const double rounding_gb = tag.listed_gb < 10.0 ? 0.05 : 0.5;
  const double apart_gb = tag.listed_gb - sized_gb;
  if (std::abs(apart_gb) <= rounding_gb + 0.03 * sized_gb) return "";
  const auto gb = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, x < 10.0 ? "%.1f" : "%.0f", x);
    return std::string(buf);
  };
  return "ollama.com lists " + shell_safe(tag.tag) + " at " + gb(tag.listed_gb) + " GB, the estimate sizes " +
         gb(sized_gb) + " GB of weights: the tag is Ollama's own build of " + shell_safe(tag.quant) +
         (apart_gb > 0.0 ? " (Ollama bundles a multimodal model's vision encoder in its tags, and may keep some "
                           "tensors at higher precision), so expect about " +
                               gb(apart_gb) + " GB more in memory than the estimate."
                         : ", so expect about " + gb(-apart_gb) + " GB less in memory than the estimate.");
}

LaunchCommand ollama(const Names& n, const Scenario& s, const Estimate& e) {
  LaunchCommand out{"ollama", {}, {}};
  const std::string quant = shell_safe(ollama_quant(s.quant));
  if (!n.llama_cpp_unsupported.empty()) {
    out.note = "Ollama runs GGUF models on llama.cpp's kernels, and " + n.llama_cpp_unsupported + ".";
    return out;
  }
  if (quant.empty()) {
    out.note = "Ollama runs GGUF models, not " + shell_safe(s.quant.name) +
               " checkpoints: choose a GGUF quantization such as Q4_K_M or Q8_0.";
    return out;
  }
  // A bf16 cache (the serving engines' default) is Ollama's f16: the same 16 bits a value.
  const KvType kv = s.kv_type == KvType::bf16 ? KvType::f16 : s.kv_type;
  if (!engine_supports_kv_type(InferenceEngine::ollama, kv)) {
    out.note = "Ollama's KV cache types are f16, q8_0 and q4_0, not " + std::string(kv_type_name(kv)) + ".";
    return out;
  }
  if (kv != KvType::f16 && !s.flash_attention) {
    out.note = "Ollama quantizes the KV cache only with flash attention on.";
    return out;
  }
  // A tag of this quantization that runs locally, one still on this release first.
  const OllamaTag* tag = nullptr;
  std::vector<std::string> others;
  if (n.dist)
    for (const OllamaTag& t : n.dist->ollama) {
      if (!t.cloud && same_quant(t.quant, quant) && (tag == nullptr || (!tag->moved_to.empty() && t.moved_to.empty())))
        tag = &t;
      others.push_back(shell_safe(t.tag) + (t.cloud ? " (cloud only)" : t.quant.empty() ? "" : " (" + shell_safe(t.quant) + ")"));
    }
  std::string name;
  std::vector<std::string> prepare;  // steps that make a local GGUF and an Ollama model of it
  if (tag != nullptr) {
    name = shell_safe(tag->tag);
    if (!tag->moved_to.empty())
      out.note = name + " now points at " + shell_safe(tag->moved_to) + ", a newer release of this model.";
    const std::string size = listed_size_note(*tag, e);
    if (!size.empty()) out.note += (out.note.empty() ? "" : " ") + size;
  } else if (s.quant.is_gguf()) {
    // Ollama pulls a single-file GGUF straight from Hugging Face: hf.co/REPO:QUANT.
    const GgufChoice g = choose_gguf(n, quant);
    const bool split = g.parts > 1 || (g.parts == 0 && e.memory.weights_bytes > kHubFileLimitBytes);
    const std::string no_tag = others.empty() ? "" : "No Ollama tag of this model is " + quant + " (tags: " + list_names(others) + "). ";
    if (!g.repo.empty() && !split) {
      name = "hf.co/" + g.repo + ":" + g.tag;
      out.note = g.note;
    } else if (!g.repo.empty() || !g.convert_from.empty()) {
      // A split file (Ollama cannot pull one from the Hub, ollama/ollama#5245)
      // or none at all: make one local file and create an Ollama model of it.
      const std::string stem = local_stem(n);
      const std::string file = stem + "-" + g.tag + ".gguf";
      if (!g.convert_from.empty()) {
        prepare = convert_steps(n, g, file);
        out.note = no_tag + g.note;
      } else {
        prepare = merge_steps(g, stem, file);
        out.note = no_tag + (g.note.empty() ? "" : g.note + " ") + g.repo + " holds " + g.tag + " in " +
                   (g.parts > 1 ? std::string("parts") : std::string("parts (over the Hub's 50 GB per file)")) +
                   ", which Ollama cannot pull from the Hub: the steps download them and merge them into one file "
                   "(twice the disk while merging; delete the parts after), then create an Ollama model of it.";
      }
      std::string lower_name;
      for (char c : stem + "-" + g.tag) lower_name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      prepare.push_back("echo \"FROM ./" + file + "\" | tee " + file + ".Modelfile");
      prepare.push_back("ollama create " + lower_name + " -f " + file + ".Modelfile");
      name = lower_name;
    } else {
      out.note = no_tag + g.note;
    }
  } else {
    out.note = "No Ollama tag of this model is known at " + quant + (others.empty() ? "." : " (tags: " + list_names(others) + ").");
  }
  if (name.empty()) return out;
  std::string serve = "OLLAMA_CONTEXT_LENGTH=" + std::to_string(s.context_tokens) +
                      " OLLAMA_NUM_PARALLEL=" + std::to_string(s.sequences) +
                      " OLLAMA_FLASH_ATTENTION=" + (s.flash_attention ? "1" : "0");
  if (kv != KvType::f16) serve += " OLLAMA_KV_CACHE_TYPE=" + std::string(kv_type_name(kv));
  out.steps.push_back(serve + " ollama serve");
  out.steps.insert(out.steps.end(), prepare.begin(), prepare.end());
  out.steps.push_back("ollama run " + name);
  std::string how = prepare.empty() ? "Start the server (it stays in the foreground), then run the model from a second shell."
                                    : "Start the server (it stays in the foreground), then run the other steps from a second shell.";
  if (e.memory.offloaded_layers > 0) how += " Ollama picks the layers it keeps in RAM itself.";
  if (!s.cards.empty()) how += " Ollama splits the layers over the cards itself, by their free memory.";
  out.note = out.note.empty() ? how : out.note + " " + how;
  return out;
}

// The repo vLLM or SGLang serves for this scheme, with the flags that make the
// engine quantize or cast as it loads; empty repo: the note says why.
struct ServeChoice {
  std::string repo;
  std::vector<std::string> flags;
  std::string note;
};

// The quantization names of the checkpoints vLLM or SGLang can serve for this
// model, for the notes: "native, FP8 or AWQ".
std::string serve_formats(const Names& n, bool sglang) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& name) {
    for (const std::string& o : out)
      if (o == name) return;
    out.push_back(name);
  };
  if (!n.native_repo().empty()) add("native");
  const bool bf16 = !n.checkpoint("BF16").empty() || (n.native_dtype.empty() && !n.hf_repo.empty());
  if (bf16) add("BF16-native");
  if (bf16 || !n.checkpoint("FP8").empty()) add("FP8");  // FP8 is cast from BF16 as it loads when no FP8 repo is known
  if (bf16 && !sglang) add("NF4");
  static const char* const kFormats[][2] = {{"NVFP4", "NVFP4"}, {"MXFP4", "MXFP4"}, {"AWQ", "AWQ"}, {"GPTQ", "GPTQ-INT4"}};
  for (const auto& f : kFormats)
    if (!n.checkpoint(f[0]).empty()) add(f[1]);
  if (out.empty()) return "";
  std::string text;
  for (std::size_t i = 0; i < out.size(); ++i) text += (i == 0 ? "" : i + 1 == out.size() ? " or " : ", ") + out[i];
  return text;
}

ServeChoice choose_serve(const Names& n, const QuantScheme& q, bool sglang) {
  ServeChoice c;
  const std::string quant = shell_safe(q.name);
  const std::string engine = sglang ? "SGLang" : "vLLM";
  // The BF16 weights: a BF16 checkpoint, or the published one when the
  // catalog does not state its dtype (a note asks to check it).
  const auto bf16 = [&](ServeChoice& r) {
    r.repo = n.checkpoint("BF16");
    if (r.repo.empty() && n.native_dtype.empty() && !n.hf_repo.empty()) {
      r.repo = n.native_repo();
      r.note = "The catalog does not state the dtype of " + r.repo + ": check that it is BF16.";
    }
    return !r.repo.empty();
  };
  const std::string formats = serve_formats(n, sglang);
  const std::string instead = formats.empty() ? std::string(" No checkpoint of it is known to serve.")
                                              : " " + engine + " can serve it at " + formats + ".";
  const auto none = [&](const std::string& format) {
    c.note = "No " + format + " checkpoint of " + n.label() + " is known, and " + engine + " does not make one as it loads." + instead;
  };
  switch (q.kind) {
    case SchemeKind::native:
      c.repo = n.native_repo();
      if (c.repo.empty()) c.note = "A model given as config.json: no repo is known to serve.";
      return c;
    case SchemeKind::bf16:
      if (!bf16(c)) none("BF16");
      return c;
    case SchemeKind::fp16:
      if (bf16(c)) c.flags.push_back("--dtype float16");
      else none("BF16 or FP16");
      return c;
    case SchemeKind::fp8_block:
      c.repo = n.checkpoint("FP8");
      if (c.repo.empty() && bf16(c)) {
        c.flags.push_back("--quantization fp8");
        c.note += std::string(c.note.empty() ? "" : " ") + engine +
                  " casts the BF16 weights to FP8 as it loads them (per tensor, not the published block-scaled FP8).";
      } else if (c.repo.empty()) {
        none("FP8");
      }
      return c;
    case SchemeKind::nvfp4:
      c.repo = n.checkpoint("NVFP4");
      if (c.repo.empty()) none("NVFP4");
      // vLLM on a GPU without FP4 units: "Your GPU does not have native
      // support for FP4 computation but FP4 quantization is being used.
      // Weight-only FP4 compression will be used leveraging the Marlin kernel"
      // (its warning, quoted in vllm-project/vllm#31085); Marlin runs on Ampere
      // and newer. SGLang's path is not sourced: the note stays as it was.
      else if (sglang) c.note = "NVFP4 kernels need a Blackwell GPU.";
      else
        c.note = "NVFP4 runs on Blackwell's FP4 units; on older GPUs (Ampere and newer) vLLM runs it weight-only "
                 "through its Marlin kernel, slower on long prompts.";
      return c;
    case SchemeKind::mxfp4:
      c.repo = n.checkpoint("MXFP4");
      if (c.repo.empty()) none("MXFP4");
      return c;
    case SchemeKind::awq_int4:
      c.repo = n.checkpoint("AWQ");
      if (c.repo.empty()) c.note = "No AWQ checkpoint of " + n.label() + " is known (llm-compressor or AutoAWQ make one)." + instead;
      return c;
    case SchemeKind::gptq_int4:
      c.repo = n.checkpoint("GPTQ");
      if (c.repo.empty()) c.note = "No GPTQ checkpoint of " + n.label() + " is known (llm-compressor or GPTQModel make one)." + instead;
      return c;
    case SchemeKind::nf4:
      if (!sglang && bf16(c)) {
        c.flags.push_back("--quantization bitsandbytes");
        c.note += std::string(c.note.empty() ? "" : " ") + "bitsandbytes quantizes the BF16 weights to NF4 as they load.";
      } else if (c.repo.empty()) {
        none(sglang ? "NF4" : "BF16");
      }
      return c;
    case SchemeKind::mlx_4bit:
    case SchemeKind::mlx_8bit:
      c.note = quant + " checkpoints run in MLX-LM on Apple silicon, not in " + engine + "." + instead;
      return c;
    case SchemeKind::gguf:
    case SchemeKind::gguf_q8_edges:
    case SchemeKind::gguf_dynamic:
      c.note = n.llama_cpp_unsupported.empty()
                   ? engine + (sglang ? "'s GGUF loading is limited" : "'s GGUF support is experimental") +
                         " (single files, some architectures): serve " + quant + " with llama.cpp or Ollama." + instead
                   : "No GGUF of " + n.label() + " runs here: llama.cpp cannot run it, and " + engine +
                         " loads GGUF only for some architectures." + instead;
      return c;
  }
  return c;
}

// vLLM cuts each weight of a block-scaled FP8 checkpoint across the GPUs of
// tensor parallel and refuses a GPU's share that is not whole blocks: "The
// output_size of gate's and up's weight = 192 is not divisible by weight
// quantization block_n = 128" (Qwen3-235B-A22B-FP8 at TP8,
// vllm-project/vllm#17569); shares narrower than a block or straddling one
// still fail (vllm-project/vllm#52997, open 2026-08). With expert parallel
// "each device owns a set of experts fully" (vllm-project/vllm@002d6073aa03:
// vllm/model_executor/layers/fused_moe/config.py), so an expert's width is
// not cut; the attention, dense and shared-expert weights still are.
struct BlockShares {
  std::int64_t expert_width = 0;  // a routed expert's width whose share is not whole blocks (0: none)
  std::string other;              // another weight whose share is not ("": none)
  std::int64_t other_width = 0;
};

BlockShares fp8_block_shares(const Architecture& arch, int tp, std::int64_t block) {
  BlockShares out;
  const auto whole = [&](std::int64_t width) { return width % tp == 0 && (width / tp) % block == 0; };
  const auto other = [&](const char* what, std::int64_t width) {
    if (out.other.empty() && width > 0 && !whole(width)) {
      out.other = what;
      out.other_width = width;
    }
  };
  for (const LayerSpec& l : arch.layers) {
    if (l.is_mtp) continue;  // vLLM loads the MTP layers only for speculative decoding
    const AttentionSpec& a = l.attn;
    if ((a.kind == AttentionKind::full || a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked) && !a.mla &&
        a.n_heads > 0) {
      other("the query heads", a.n_heads * a.head_dim_k);
      // Fewer KV heads than GPUs: each GPU keeps one whole head.
      if (a.n_kv_heads >= tp) other("the key/value heads", a.n_kv_heads * a.head_dim_k);
      else if (a.head_dim_k % block != 0) other("a key/value head", a.head_dim_k * tp);
    }
    const FfnSpec& f = l.ffn;
    if (f.kind == FfnKind::dense) other("the MLP", f.intermediate);
    if (f.kind != FfnKind::moe) continue;
    if (out.expert_width == 0 && f.expert_intermediate > 0 && !whole(f.expert_intermediate)) out.expert_width = f.expert_intermediate;
    if (f.n_shared_experts > 0) other("the shared expert", f.shared_intermediate);
    other("the dense MLP beside the experts", f.parallel_dense_intermediate);
  }
  return out;
}

// Moonshot's Kimi releases tokenize with code of their own (tokenization_kimi.py,
// on tiktoken), which vLLM, SGLang and TensorRT-LLM run only when told to trust
// the repository. Moonshot's deploy guide and vLLM's recipe pass
// --trust-remote-code (MoonshotAI/Kimi-K2 docs/deploy_guidance.md;
// vllm-project/recipes moonshotai/Kimi-K2-Think.md); NVIDIA's guide sets
// trust_remote_code "so that it works with the Kimi K2 Thinking customize
// tokenizer" (NVIDIA/TensorRT-LLM docs/source/deployment-guide/
// deployment-guide-for-kimi-k2-thinking-on-trtllm.md). Without it each stops
// at start-up asking for it.
bool runs_repository_code(const Architecture& arch) { return arch.model_type.rfind("kimi_", 0) == 0; }

// attention_ranks > 1: the estimate's attention data parallel over that many
// GPUs. vLLM: "--data-parallel-size 8 --enable-expert-parallel", its DP8+EP
// layout for DeepSeek-R1 (docs.vllm.ai/projects/recipes/en/latest/DeepSeek/
// DeepSeek-V3.html); SGLang: "--tp 8 --dp 8 --enable-dp-attention"
// (docs.sglang.io/basic_usage/deepseek_v32.html, "TP + DP (Recommended)").
LaunchCommand serving(const Names& n, const Architecture& arch, const Scenario& s, int attention_ranks, bool sglang) {
  LaunchCommand out{sglang ? "sglang" : "vllm", {}, {}};
  const std::string engine = sglang ? "SGLang" : "vLLM";
  if (is_apple(s)) {
    out.note = engine + " has no Metal backend: on a Mac use llama.cpp, Ollama or MLX-LM.";
    return out;
  }
  if (s.device)
    if (auto why = sglang ? sglang_rocm_unbuilt(*s.device) : vllm_rocm_unlisted(*s.device)) {
      out.note = *why;
      return out;
    }
  if (!s.cards.empty()) {
    out.note = engine + " splits every layer across the GPUs (tensor parallel), which needs equal cards; " +
               "these cards differ (" + safe_card_ids(s) + "): use llama.cpp or Ollama, which split by layers.";
    return out;
  }
  if (!engine_supports_kv_type(InferenceEngine::vllm, s.kv_type)) {
    out.note = engine + " keeps the KV cache in the model's dtype or fp8, not " + std::string(kv_type_name(s.kv_type)) + ".";
    return out;
  }
  ServeChoice c = choose_serve(n, s.quant, sglang);
  out.note = c.note;
  if (c.repo.empty()) return out;
  std::vector<std::string> p;
  if (!sglang) {
    // The pool comes from --gpu-memory-utilization; --max-model-len caps one sequence.
    p = {"vllm serve " + c.repo, "--max-model-len " + std::to_string(s.context_tokens)};
    if (attention_ranks > 1) {
      p.push_back("--data-parallel-size " + std::to_string(attention_ranks) + " --enable-expert-parallel");
    } else if (s.gpu_count > 1) {
      p.push_back("--tensor-parallel-size " + std::to_string(s.gpu_count));
      std::int64_t block = n.dist ? n.dist->weight_block(c.repo) : 0;
      if (block == 0 && c.repo == n.native_repo() && arch.native_format == NativeFormat::fp8_block) block = arch.fp8_weight_block;
      const BlockShares shares = block > 0 ? fp8_block_shares(arch, s.gpu_count, block) : BlockShares{};
      const std::string tp = std::to_string(s.gpu_count);
      const std::string why = " (vllm-project/vllm#17569, #52997)";
      if (!shares.other.empty()) {
        // The BF16 weights cast to FP8 as they load (one scale per tensor) have no blocks to split.
        const std::string* bf16 = n.dist ? n.dist->checkpoint("BF16") : nullptr;
        const std::string note = c.repo + " scales blocks of " + std::to_string(block) + " weights, and at tensor parallel " + tp +
                                 " each GPU's share of " + shares.other + " (" + std::to_string(shares.other_width) + " / " + tp +
                                 ") is not whole blocks, which vLLM refuses" + why + ".";
        if (bf16 == nullptr) {
          out.note = note + " Serve it on a GPU count that divides it into whole blocks, or use SGLang.";
          return out;
        }
        p[0] = "vllm serve " + shell_safe(*bf16);
        c.flags.push_back("--quantization fp8");
        c.note = note + " So vLLM loads the BF16 weights and casts them to FP8 (one scale per tensor), the same memory.";
      } else if (shares.expert_width > 0) {
        p.push_back("--enable-expert-parallel");
        c.note += std::string(c.note.empty() ? "" : " ") + "The experts are " + std::to_string(shares.expert_width) +
                  " wide and " + c.repo + " scales blocks of " + std::to_string(block) + ": at tensor parallel " + tp +
                  " each GPU's share would not be whole blocks, which vLLM refuses" + why +
                  "; --enable-expert-parallel gives each GPU whole experts instead.";
      }
    }
    p.push_back("--gpu-memory-utilization " + std::to_string(s.gpu_memory_utilization).substr(0, 4));
    if (s.kv_type == KvType::fp8) p.push_back("--kv-cache-dtype fp8");
    // Each data-parallel rank is an engine of its own with its own limit.
    p.push_back("--max-num-seqs " + std::to_string((s.sequences + attention_ranks - 1) / std::max(attention_ranks, 1)));
  } else {
    // SGLang's pool is --mem-fraction-static, the estimate's 0.88.
    p = {"python -m sglang.launch_server --model-path " + c.repo, "--context-length " + std::to_string(s.context_tokens)};
    if (s.gpu_count > 1) p.push_back("--tp " + std::to_string(s.gpu_count));
    if (attention_ranks > 1) p.push_back("--dp " + std::to_string(attention_ranks) + " --enable-dp-attention");
    p.push_back("--mem-fraction-static 0.88");
    if (s.kv_type == KvType::fp8) p.push_back("--kv-cache-dtype fp8_e5m2");
    p.push_back("--max-running-requests " + std::to_string(s.sequences));
  }
  if (runs_repository_code(arch)) p.push_back("--trust-remote-code");
  for (const std::string& f : c.flags) p.push_back(f);
  out.note = c.note;
  out.steps.push_back(join(p));
  return out;
}

// TensorRT-LLM's OpenAI server, trtllm-serve (NVIDIA/TensorRT-LLM@00209af149e7774406881a37283dce303571eb11:
// tensorrt_llm/commands/serve.py): the checkpoint, --tp_size, --max_batch_size,
// --max_seq_len and --kv_cache_free_gpu_memory_fraction, the KV cache's share
// of the memory left once the weights and buffers are in (0.9 by default).
// The estimate's pool follows vLLM's rule (the utilization x the card, less
// the rest); the fraction printed gives TensorRT-LLM that same pool. FP8 KV
// and attention data parallel are LLM API options it takes from a YAML file
// (kv_cache_config: dtype: fp8; enable_attention_dp: true, as NVIDIA's
// DeepSeek-R1 serving example writes them). trtllm-serve does not quantize as
// it loads: FP8, NVFP4, AWQ or GPTQ weights are checkpoints made beforehand
// (TensorRT Model Optimizer).
LaunchCommand tensorrt_llm(const Names& n, const Architecture& arch, const Scenario& s, const Estimate& e) {
  LaunchCommand out{"tensorrt-llm", {}, {}};
  const Device* device = s.device ? &*s.device : nullptr;
  if (is_apple(s) || (device && device->backend != Backend::cuda)) {
    out.note = "TensorRT-LLM runs on NVIDIA GPUs only" + (device ? ", not on the " + device->name : std::string()) + ".";
    return out;
  }
  if (!s.cards.empty()) {
    out.note = "TensorRT-LLM splits every layer across the GPUs (tensor parallel), which needs equal cards; these cards differ (" +
               safe_card_ids(s) + "): use llama.cpp or Ollama, which split by layers.";
    return out;
  }
  if (s.kv_type != KvType::f16 && s.kv_type != KvType::bf16 && s.kv_type != KvType::fp8) {
    out.note = "TensorRT-LLM keeps the KV cache in the model's dtype or fp8, not " + std::string(kv_type_name(s.kv_type)) + ".";
    return out;
  }
  std::string repo;
  const std::string quant = shell_safe(s.quant.name);
  const auto prequantized = [&](const char* format) {
    repo = n.checkpoint(format);
    if (repo.empty())
      out.note = "No " + std::string(format) + " checkpoint of " + n.label() +
                 " is known, and trtllm-serve does not quantize as it loads (TensorRT Model Optimizer makes one).";
  };
  switch (s.quant.kind) {
    case SchemeKind::native: repo = n.native_repo(); break;
    case SchemeKind::bf16:
    case SchemeKind::fp16:
      repo = n.checkpoint("BF16");
      if (repo.empty() && n.native_dtype.empty()) repo = n.native_repo();
      if (repo.empty()) out.note = "No BF16 checkpoint of " + n.label() + " is known.";
      break;
    case SchemeKind::fp8_block: prequantized("FP8"); break;
    case SchemeKind::nvfp4: prequantized("NVFP4"); break;
    case SchemeKind::mxfp4: prequantized("MXFP4"); break;
    case SchemeKind::awq_int4: prequantized("AWQ"); break;
    case SchemeKind::gptq_int4: prequantized("GPTQ"); break;
    default:
      out.note = "TensorRT-LLM runs 16-bit checkpoints and its own quantization recipes (FP8, NVFP4, MXFP4, AWQ or GPTQ INT4), not " +
                 quant + ".";
      return out;
  }
  if (repo.empty()) {
    if (out.note.empty()) out.note = "A model given as config.json: no repo is known to serve.";
    return out;
  }
  std::vector<std::string> p{"trtllm-serve " + repo, "--max_seq_len " + std::to_string(s.context_tokens),
                             "--max_batch_size " + std::to_string(s.sequences)};
  if (s.gpu_count > 1) p.push_back("--tp_size " + std::to_string(s.gpu_count));
  const bool attention_dp = e.memory.attention_ranks > 1;
  if (attention_dp) p.push_back("--ep_size " + std::to_string(s.gpu_count));
  if (runs_repository_code(arch)) p.push_back("--trust_remote_code");
  if (device && !e.memory.per_gpu.empty()) {
    const GpuShare& g = e.memory.per_gpu.front();
    const double capacity = static_cast<double>(usable_memory(*device).capacity_bytes);
    const double rest = static_cast<double>(g.required_bytes - g.kv_cache_bytes);
    const double pool = static_cast<double>(g.usable_bytes) - rest;
    if (capacity > rest && pool > 0.0) {
      // Two decimals, rounded down: a pool no larger than the estimate's.
      const double fraction = std::clamp(std::floor(100.0 * pool / (capacity - rest)) / 100.0, 0.01, 0.95);
      char text[48];
      std::snprintf(text, sizeof text, "--kv_cache_free_gpu_memory_fraction %.2f", fraction);
      p.push_back(text);
    }
  }
  std::string yaml;
  if (s.kv_type == KvType::fp8) yaml += "kv_cache_config:\\n  dtype: fp8\\n";
  if (attention_dp) yaml += "enable_attention_dp: true\\n";
  if (!yaml.empty()) {
    out.steps.push_back("printf '" + yaml + "' > trtllm-options.yml");
    p.push_back("--extra_llm_api_options trtllm-options.yml");
  }
  out.steps.push_back(join(p));
  return out;
}

LaunchCommand mlx(const Names& n, const Scenario& s) {
  LaunchCommand out{"mlx", {}, {}};
  if (!is_apple(s)) {
    out.note = s.device ? "MLX-LM runs on Apple silicon only, not on the " + s.device->name + "."
                        : "MLX-LM runs on Apple silicon: choose a Mac to see its command.";
    return out;
  }
  int bits = 0;
  if (s.quant.kind == SchemeKind::mlx_4bit) bits = 4;
  else if (s.quant.kind == SchemeKind::mlx_8bit) bits = 8;
  else if (s.quant.kind == SchemeKind::bf16 || (s.quant.kind == SchemeKind::native && n.native_dtype == "bf16")) bits = 16;
  if (bits == 0) {
    out.note = "MLX-LM loads MLX checkpoints: choose MLX-4bit or MLX-8bit (" + shell_safe(s.quant.name) +
               (s.quant.is_gguf() ? " is a GGUF for llama.cpp or Ollama)." : " is not one).");
    return out;
  }
  if (s.kv_type != KvType::f16 && s.kv_type != KvType::bf16) {
    out.note = "mlx_lm.server keeps the KV cache in the model's dtype, not " + std::string(kv_type_name(s.kv_type)) + ".";
    return out;
  }
  // MLX-LM's own group quantization first (the estimate's format), then
  // another format of the same bits with a note.
  const std::string wanted = bits == 16 ? "bf16" : "affine";
  const MlxRepo* pick = nullptr;
  if (n.dist) {
    for (const MlxRepo& m : n.dist->mlx)
      if (m.bits == bits && m.format == wanted) {
        pick = &m;
        break;
      }
    if (pick == nullptr && bits != 16)
      for (const MlxRepo& m : n.dist->mlx)
        if (m.bits == bits && m.format != "mixed" && m.format != "bf16") {
          pick = &m;
          out.note = shell_safe(m.repo) + " is " + shell_safe(m.format) + ", not MLX-LM's affine " + std::to_string(bits) +
                     "-bit: its size differs a little from the estimate.";
          break;
        }
  }
  if (pick == nullptr) {
    out.note = "No " + std::to_string(bits) + "-bit MLX build of " + n.label() + " is known" +
               (n.hf_repo.empty() || bits == 16 ? std::string(".")
                                                : ": make one with mlx_lm.convert --hf-path " + n.hf_repo + " -q --q-bits " +
                                                      std::to_string(bits) + " (if MLX-LM supports the architecture).");
    return out;
  }
  out.steps.push_back("mlx_lm.server --model " + shell_safe(pick->repo));
  return out;
}

const DistributionIndex& embedded_names() {
  static const DistributionIndex names = [] {
    auto parsed = embedded_distribution();
    return parsed ? std::move(parsed).value() : DistributionIndex{};
  }();
  return names;
}

}  // namespace

std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& s, const Estimate& e) {
  return launch_commands(model, s, e, embedded_names());
}

bool engine_starts(const SizedModel& model, const Scenario& s, const Estimate& e) {
  if (model.entry == nullptr || !engine_uses_kv_pool(s.engine)) return true;
  for (const LaunchCommand& c : launch_commands(model, s, e))
    if (c.engine == engine_name(s.engine)) return !c.steps.empty();
  return true;
}

namespace {

// A number as a flag value: 4, 1.5, 1000000.
std::string flag_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", v);
  return text;
}

// A number in a JSON argument: 4.0, 1.5 (a float where the config has one).
std::string json_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, v == std::floor(v) ? "%.1f" : "%g", v);
  return text;
}

// A context past the model's own maximum. With the RoPE scaling its publisher
// documents (Qwen3: YaRN over 32,768 pretraining tokens, up to 4 x), each
// command carries it, per engine as the model card gives it (llama-server,
// SGLang) or vLLM's docs do (--hf-overrides with rope_parameters; its older
// --rope-scaling flag is gone), the factor the context needs in half steps
// (Qwen: "set factor as 2.0" for 65,536 tokens). Without one, vLLM and SGLang
// refuse a length above the config's unless told to allow it ("set the env var
// VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1):
// the commands say so and set it, since the estimate was asked for that length.
void extend_context(std::vector<LaunchCommand>& out, const Architecture& arch, const Scenario& s) {
  const std::int64_t ctx = s.context_tokens;
  if (arch.max_context_tokens <= 0 || ctx <= arch.max_context_tokens) return;
  const auto& x = arch.context_extension;
  const std::string own = std::to_string(arch.max_context_tokens);
  const auto add_note = [](LaunchCommand& c, const std::string& text) {
    c.note += std::string(c.note.empty() ? "" : " ") + text;
  };
  if (!x || ctx > x->max_context_tokens) {
    const std::string past = std::to_string(ctx) + " tokens is past the model's maximum of " +
                             (x ? std::to_string(x->max_context_tokens) + " (with YaRN)" : own) +
                             ": the output past it is not what its publisher validated.";
    for (LaunchCommand& c : out) {
      if (c.steps.empty()) continue;
      if (c.engine == "vllm") c.steps.back() = "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 " + c.steps.back();
      if (c.engine == "sglang") c.steps.back() = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 " + c.steps.back();
      add_note(c, past + (c.engine == "vllm" || c.engine == "sglang" ? " The variable lets the server start with it." : ""));
    }
    return;
  }
  const double o = static_cast<double>(x->original_context_tokens);
  const double factor = std::min(x->factor, std::max(1.0, std::ceil(2.0 * static_cast<double>(ctx) / o) / 2.0));
  const std::string orig = std::to_string(x->original_context_tokens);
  const std::string why = "YaRN factor " + flag_number(factor) + " over the model's " + orig +
                          " pretraining tokens reaches " + std::to_string(static_cast<std::int64_t>(factor * o)) +
                          ", past its own " + own + " (static YaRN: its publisher advises it only for long contexts).";
  for (LaunchCommand& c : out) {
    if (c.engine == "ollama") {
      if (!c.steps.empty())
        add_note(c, "Ollama has no YaRN setting: past " + own + " tokens use llama-server, which the llama.cpp command sets up for it.");
      continue;
    }
    if (c.engine == "mlx" || c.engine == "tensorrt-llm") {
      if (!c.steps.empty())
        add_note(c, std::string(c.engine == "mlx" ? "MLX-LM" : "TensorRT-LLM") +
                        " reads RoPE scaling from the model's config.json: add \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": " +
                        json_number(factor) + ", \"original_max_position_embeddings\": " + orig + "} to it for " +
                        std::to_string(ctx) + " tokens.");
      continue;
    }
    if (c.steps.empty()) continue;
    std::string& line = c.steps.back();
    if (c.engine == "llama.cpp") {
      line += " \\\n  --rope-scaling yarn --rope-scale " + flag_number(factor) + " --yarn-orig-ctx " + orig;
    } else if (c.engine == "vllm") {
      line += " \\\n  --hf-overrides '{\"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": " + json_number(factor) +
              ", \"original_max_position_embeddings\": " + orig +
              (x->rope_theta > 0.0 ? ", \"rope_theta\": " + flag_number(x->rope_theta) : std::string()) + "}}'";
    } else if (c.engine == "sglang") {
      // SGLang keeps the config's maximum as the derived length: the variable lets --context-length pass it.
      line = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 " + line + " \\\n  --json-model-override-args '{\"rope_scaling\": "
             "{\"rope_type\": \"yarn\", \"factor\": " + json_number(factor) + ", \"original_max_position_embeddings\": " + orig + "}}'";
    } else {
      continue;
    }
    add_note(c, why);
  }
}

// The same model over several whole machines (Macs, DGX Sparks, Strix Halo
// machines) joined by a network: one machine's command cannot hold it.
// llama.cpp: an rpc-server on each other machine, then llama-server here with
// --rpc listing them; weights and KV go to every device, local and remote, in
// proportion to its free memory (ggml-org/llama.cpp@038514c9:tools/rpc/README.md,
// which also warns never to expose rpc-server on an open network). vLLM: a
// Ray cluster, "multi-node inferencing currently requires Ray" (docs.vllm.ai
// serving/distributed_serving: ray start --head, ray start --address), tensor
// parallel over every machine's GPU as NVIDIA's two-Spark playbook runs it
// (build.nvidia.com/spark/vllm/multi-node). SGLang: the same command on every
// machine with --nnodes, --node-rank and --dist-init-addr, the first
// machine's address (docs.sglang.io references/multi_node_deployment).
// Addresses are the user's: a shell variable that stops with a message when
// unset stands for each, so nothing pasted connects to a made-up host.
void span_machines(std::vector<LaunchCommand>& out, const Scenario& s) {
  const int machines = networked_machines(s);
  if (machines == 0) return;
  const std::string count = std::to_string(machines);
  const std::string what = count + " machines";
  const std::string others = machines == 2 ? "the other one" : "each of the other " + std::to_string(machines - 1);
  const std::string other_machine = machines == 2 ? "# on the other machine\n" : "# on each other machine\n";
  const std::string this_machine = "# on this machine (the first)\n";
  const std::string head_ip = "${HEAD_IP:?set HEAD_IP to the address of the first machine}";
  const auto add_note = [](LaunchCommand& c, const std::string& text) { c.note += (c.note.empty() ? "" : " ") + text; };
  for (LaunchCommand& c : out) {
    // A raised GPU limit (macOS's sysctl, put first) is each machine's own.
    if (!c.steps.empty() && c.steps.front().rfind("sudo sysctl", 0) == 0) c.steps.front() = "# on every machine\n" + c.steps.front();
    if (c.engine == "llama.cpp" && !c.steps.empty()) {
      c.steps.back() = this_machine + c.steps.back() +
                       " \\\n  --rpc \"${RPC_SERVERS:?set RPC_SERVERS to the other machines, host:50052 each, comma-separated}\"";
      c.steps.insert(c.steps.end() - 1, other_machine + "rpc-server -H 0.0.0.0 -p 50052 -c");
      add_note(c, "Over " + what + ": build llama.cpp with -DGGML_RPC=ON on each; start rpc-server on " + others +
                      " (it has no authentication: only on a network you trust), then llama-server on this one with " +
                      "RPC_SERVERS set to their addresses. llama.cpp spreads the layers over the machines in proportion " +
                      "to their free memory; each token crosses the network at every machine boundary.");
    } else if (c.engine == "ollama") {
      c.steps.clear();
      c.note = "Ollama runs a model on one machine and cannot spread it over " + what +
               ": use llama.cpp's RPC (the llama.cpp command).";
    } else if (c.engine == "vllm" && !c.steps.empty()) {
      c.steps.back() = this_machine + c.steps.back() + " \\\n  --distributed-executor-backend ray";
      c.steps.insert(c.steps.end() - 1, this_machine + "ray start --head --port=6379");
      c.steps.insert(c.steps.end() - 1, other_machine + "ray start --address=\"" + head_ip + ":6379\"");
      add_note(c, "Over " + what + " vLLM needs a Ray cluster: start its head on this machine, join it from " + others +
                      " (HEAD_IP: this machine's address), then serve from this one. Tensor parallel all-reduces every " +
                      "layer over the network: NVIDIA's two-Spark setup links them by their QSFP ports, and plain " +
                      "Ethernet is far slower.");
    } else if (c.engine == "sglang" && !c.steps.empty()) {
      const std::string line = c.steps.back();
      c.steps.pop_back();
      for (int rank = 0; rank < machines; ++rank)
        c.steps.push_back((rank == 0 ? this_machine : "# on machine " + std::to_string(rank + 1) + "\n") + line +
                          " \\\n  --nnodes " + count + " --node-rank " + std::to_string(rank) + " --dist-init-addr \"" +
                          head_ip + ":20000\"");
      add_note(c, "Over " + what + " each machine runs the command with its own --node-rank, HEAD_IP being the first "
                      "machine's address.");
    } else if (c.engine == "tensorrt-llm" && !c.steps.empty()) {
      c.steps.clear();
      c.note = "TensorRT-LLM spans machines under MPI (mpirun or Slurm) with a setup of its own, not printed here: " +
               std::string("one machine's command would not hold the model. vLLM, SGLang and llama.cpp commands are given.");
    } else if (c.engine == "mlx" && !c.steps.empty()) {
      c.steps.clear();
      c.note = "MLX-LM's server runs a model on one Mac; spreading it over " + what +
               " is MLX's distributed launcher (mlx.launch), not printed here: llama.cpp's RPC command runs it.";
    }
  }
}

// ggml's name prefix for the devices of a backend, as llama-server
// --list-devices prints them and -dev takes them: CUDA0, ROCm0 (ggml-cuda.h's
// GGML_CUDA_NAME in a HIP build), MUSA0, Vulkan0 (ggml-vulkan.h), SYCL0
// (ggml-sycl.h); "" where none is known.
std::string ggml_device_prefix(Backend b) {
  switch (b) {
    case Backend::cuda: return "CUDA";
    case Backend::rocm: return "ROCm";
    case Backend::musa: return "MUSA";
    case Backend::vulkan: return "Vulkan";
    case Backend::sycl: return "SYCL";
    default: return "";
  }
}

// Copy `copy`'s devices, per_copy of them from copy x per_copy on: "2,3" or "CUDA2,CUDA3".
std::string copy_devices(int copy, int per_copy, const std::string& prefix) {
  std::string out;
  for (int g = 0; g < per_copy; ++g) out += (g ? "," : "") + prefix + std::to_string(copy * per_copy + g);
  return out;
}

// Copies of the setup side by side (Scenario::copies, the planner's layout
// for many users): one copy's commands made into the whole layout's. On whole
// machines (Macs, DGX Sparks, Strix Halo machines) a copy is a machine, which
// runs the same steps. In one host copy i takes GPUs i x k onwards:
// - vLLM: --data-parallel-size N, an engine per copy behind one port, each
//   with its own --max-num-seqs. For an MoE model that flag does not copy the
//   experts: "expert layers form a tensor parallel group of size DP x TP"
//   (docs.vllm.ai serving/data_parallel_deployment), nor where a copy is
//   itself attention data parallel: there a vllm serve per copy on its GPUs
//   (CUDA_VISIBLE_DEVICES, which vLLM reads on ROCm too: vllm/platforms/rocm.py
//   copies HIP_VISIBLE_DEVICES into it) and port.
// - SGLang: its router's launcher, python -m sglang_router.launch_server
//   --dp-size N, starts a server per copy from GPU i x tp on and routes over
//   them (sgl-project/sglang docs/advanced_features/dp_dpa_smg_guide.md;
//   sgl-router/py_src/sglang_router/launch_server.py: base_gpu_id = dp_id x
//   tp_size). A copy that is itself attention data parallel: each copy's
//   launch_server (--base-gpu-id, --port), then launch_router --worker-urls,
//   the guide's "Standard DP for MLA models".
// - llama.cpp: a llama-server per copy on its devices (-dev) and port: it has
//   no balancer of its own. TensorRT-LLM: a trtllm-serve per copy
//   (CUDA_VISIBLE_DEVICES, --port). Ollama: a server runs one copy, said, with
//   the masks its docs name to give each server its GPUs (ollama/ollama
//   docs/gpu.mdx, "GPU Selection": CUDA_VISIBLE_DEVICES on NVIDIA,
//   ROCR_VISIBLE_DEVICES on AMD).
void run_copies(std::vector<LaunchCommand>& out, const Architecture& arch, const Scenario& s, int attention_ranks) {
  const int copies = s.copies;
  if (copies <= 1) return;
  const std::string count = std::to_string(copies);
  const int k = s.gpu_count;
  const auto add_note = [](LaunchCommand& c, const std::string& text) { c.note += (c.note.empty() ? "" : " ") + text; };
  if (!s.cards.empty() || networked_machines(s) > 0) {
    for (LaunchCommand& c : out) {
      if (c.steps.empty()) continue;
      c.steps.clear();
      c.note = count + " copies of a setup that is itself " +
               (s.cards.empty() ? std::string("several machines") : std::string("mixed cards")) +
               " are not printed: one copy's commands (1 copy) start each of them.";
    }
    return;
  }
  const std::string users = "up to " + std::to_string(s.sequences) + (s.sequences == 1 ? " user" : " users");
  if (s.device && is_whole_machine(*s.device)) {
    for (LaunchCommand& c : out) {
      if (c.steps.empty()) continue;
      for (std::string& step : c.steps) step = "# on each of the " + count + " machines\n" + step;
      add_note(c, "The " + count + " copies are " + count + " machines, each running these steps for " + users +
                      ": put an HTTP load balancer in front of their servers.");
    }
    return;
  }
  const std::string per_copy = std::to_string(k) + (k == 1 ? " GPU" : " GPUs") + " and " + users + " each";
  const auto copy_head = [&](int i) { return "# copy " + std::to_string(i + 1) + " of " + count + "\n"; };
  // A server per copy: `line` with the copy's device mask or flags, each in a shell of its own.
  const auto one_per_copy = [&](LaunchCommand& c, const std::function<std::string(int)>& copy_line) {
    std::vector<std::string> steps(c.steps.begin(), c.steps.end() - 1);
    for (int i = 0; i < copies; ++i) steps.push_back(copy_head(i) + copy_line(i));
    c.steps = std::move(steps);
  };
  const std::string balance = "; each stays in the foreground (a shell of its own), and an HTTP load balancer in front "
                              "of their ports spreads the users.";
  const Backend backend = s.device ? s.device->backend : Backend::other;
  for (LaunchCommand& c : out) {
    if (c.steps.empty()) continue;
    const std::string line = c.steps.back();
    const auto port_range = [&](int first) {
      return std::to_string(first) + (copies > 1 ? " to " + std::to_string(first + copies - 1) : "");
    };
    if (c.engine == "llama.cpp") {
      const std::string prefix = ggml_device_prefix(backend);
      if (prefix.empty()) {
        c.steps.clear();
        c.note = "No device names are known for this backend: start a llama-server per copy on its own GPUs and port.";
        continue;
      }
      one_per_copy(c, [&](int i) {
        return line + " \\\n  -dev " + copy_devices(i, k, prefix) + " --port " + std::to_string(8080 + i);
      });
      add_note(c, count + " copies, " + per_copy + ": a llama-server per copy on its devices (-dev, as llama-server "
                      "--list-devices names them) and port (" + port_range(8080) + ")" + balance);
    } else if (c.engine == "ollama") {
      c.steps.clear();
      c.note = "Ollama runs one copy a server: for " + count + " copies start an ollama serve per copy with its own GPUs "
               "(CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES on AMD) and address (OLLAMA_HOST) behind a load balancer, "
               "as the llama.cpp commands do with llama-server.";
    } else if (c.engine == "vllm" && !arch.is_moe() && attention_ranks <= 1) {
      c.steps.back() += " \\\n  --data-parallel-size " + count;
      add_note(c, "--data-parallel-size " + count + " runs " + count + " copies, " + per_copy +
                      " (--max-num-seqs is each copy's), and spreads requests over them behind one port.");
    } else if (c.engine == "vllm") {
      one_per_copy(c, [&](int i) {
        return "CUDA_VISIBLE_DEVICES=" + copy_devices(i, k, "") + " " + line + " \\\n  --port " + std::to_string(8000 + i);
      });
      add_note(c, std::string(attention_ranks > 1 ? "Each copy is itself data parallel over its GPUs"
                                                  : "vLLM's --data-parallel-size would split this MoE model's experts "
                                                    "over every copy's GPUs rather than copy them") +
                      ": " + count + " copies, " + per_copy + ", a vllm serve per copy on its GPUs and port (" +
                      port_range(8000) + ")" + balance);
    } else if (c.engine == "sglang" && attention_ranks <= 1) {
      const std::string from = "python -m sglang.launch_server", to = "python -m sglang_router.launch_server";
      std::string& step = c.steps.back();
      if (const auto at = step.find(from); at != std::string::npos) step.replace(at, from.size(), to);
      step += " \\\n  --dp-size " + count;
      add_note(c, "sglang_router.launch_server (pip install sglang-router) starts " + count + " copies, " + per_copy +
                      " (--max-running-requests is each copy's), and routes requests over them behind one port.");
    } else if (c.engine == "sglang") {
      std::string urls;
      for (int i = 0; i < copies; ++i) urls += " http://127.0.0.1:" + std::to_string(31000 + i);
      one_per_copy(c, [&](int i) {
        return line + " \\\n  --base-gpu-id " + std::to_string(i * k) + " --port " + std::to_string(31000 + i);
      });
      c.steps.push_back("# the router, once the copies are up\npython -m sglang_router.launch_router --worker-urls" + urls +
                        " --port 30000");
      add_note(c, "Each copy is itself data parallel over its GPUs: " + count + " copies, " + per_copy +
                      ", each a server of its own from its first GPU (--base-gpu-id), then SGLang's router "
                      "(pip install sglang-router) spreads requests over them on port 30000.");
    } else if (c.engine == "tensorrt-llm") {
      one_per_copy(c, [&](int i) {
        return "CUDA_VISIBLE_DEVICES=" + copy_devices(i, k, "") + " " + line + " \\\n  --port " + std::to_string(8000 + i);
      });
      add_note(c, count + " copies, " + per_copy + ": a trtllm-serve per copy on its GPUs and port (" + port_range(8000) +
                      ")" + balance);
    }
  }
}

std::vector<LaunchCommand> commands_for(const Names& n, const SizedModel& model, const Scenario& s, const Estimate& e,
                                        const DistributionIndex& names) {
  Names draft;  // the draft model's names, for its GGUF repo
  if (s.draft && !s.draft->use_mtp) {
    draft.id = shell_safe(s.draft->label);
    draft.hf_repo = draft.id;
    draft.dist = names.find(s.draft->label);
  }
  std::vector<LaunchCommand> out{llama_cpp(n, model, s, e, draft), ollama(n, s, e), serving(n, model.arch(), s, e.memory.attention_ranks, false),
                                 serving(n, model.arch(), s, e.memory.attention_ranks, true), mlx(n, s), tensorrt_llm(n, model.arch(), s, e)};
  extend_context(out, model.arch(), s);
  if (s.gpu_limit_bytes > 0 && is_apple(s)) {
    // The raised GPU limit first: macOS resets it at the next restart.
    const std::string raise = "sudo sysctl iogpu.wired_limit_mb=" + std::to_string(s.gpu_limit_bytes >> 20);
    for (LaunchCommand& c : out) {
      if (c.steps.empty()) continue;
      c.steps.insert(c.steps.begin(), raise);
      c.note += std::string(c.note.empty() ? "" : " ") + "The sysctl raises the GPU's share of memory until the next "
                "restart (0 restores the default), leaving " + std::to_string(((s.device->memory_bytes - s.gpu_limit_bytes) >> 20) / 1024) +
                " GiB to macOS and other apps.";
    }
  }
  span_machines(out, s);
  run_copies(out, model.arch(), s, e.memory.attention_ranks);
  if (s.draft) {
    // Ollama has no speculative decoding; the serving engines' speculative
    // flags differ by release: said, not printed.
    out[1].note += std::string(out[1].note.empty() ? "" : " ") + "Ollama has no speculative decoding: the draft is not used.";
    for (std::size_t i : {std::size_t{2}, std::size_t{3}})
      if (!out[i].steps.empty())
        out[i].note += std::string(out[i].note.empty() ? "" : " ") + "The command runs without the draft: add the " +
                       (s.draft->use_mtp ? std::string("MTP") : "draft model " + shell_safe(s.draft->label)) +
                       " with the --speculative-config of your " + (i == 2 ? "vLLM" : "SGLang") + " release (" +
                       std::to_string(s.draft->drafted_tokens) + " speculative tokens).";
  }
  return out;
}

}  // namespace

std::vector<LaunchCommand> launch_commands(const SizedModel& model, const Scenario& s, const Estimate& e,
                                           const DistributionIndex& names) {
  Names n;
  if (model.entry) {
    n.id = model.entry->id;
    n.hf_repo = shell_safe(model.entry->hf_repo);
    for (char c : model.entry->native_dtype) n.native_dtype += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    n.llama_cpp_unsupported = model.entry->llama_cpp_unsupported;
    n.dist = names.find(model.entry->id);
  }
  return commands_for(n, model, s, e, names);
}

std::string native_dtype_name(NativeFormat f) {
  switch (f) {
    case NativeFormat::bf16: return "bf16";
    case NativeFormat::fp16: return "fp16";
    case NativeFormat::fp32: return "fp32";
    case NativeFormat::fp8_block: return "fp8";
    case NativeFormat::mxfp4_experts: return "mxfp4";
    case NativeFormat::nvfp4: return "nvfp4";
    case NativeFormat::fp4_experts_fp8: return "fp4";
    case NativeFormat::int4:
    case NativeFormat::int4_experts: return "int4";
  }
  return "";
}

std::vector<LaunchCommand> hub_launch_commands(const HubModelSource& source, const SizedModel& model, const Scenario& s,
                                               const Estimate& e) {
  // The repo as its own distribution record: the GGUF set that was read, or
  // the checkpoint itself (hub_files.hpp checked the name's characters).
  ModelDistribution dist;
  dist.id = source.repo;
  if (!source.gguf_tag.empty()) {
    GgufRepo g;
    g.repo = source.repo;
    g.quants = {source.gguf_tag};
    g.parts = {{source.gguf_tag, std::max(source.gguf_parts, 1)}};
    dist.gguf.push_back(g);
  }
  Names n;
  n.hf_repo = shell_safe(source.repo);
  n.native_dtype = source.native_dtype;
  n.dist = &dist;
  // The set is named by its tag in the repo (UD-Q4_K_XL), whatever file type its header states.
  Scenario tagged = s;
  if (!source.gguf_tag.empty()) tagged.quant.name = source.gguf_tag;
  return commands_for(n, model, tagged, e, embedded_names());
}

}  // namespace llmsizer
