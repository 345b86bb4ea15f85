#!/usr/bin/env python3
"""Writes the distribution names the launch commands use (issue 18).

data/distribution.json is the full copy, with every name's source: GGUF
repositories (for `llama-server -hf REPO:QUANT`), Ollama tags with their
quantization (cloud-only tags and tags that now point at a newer release
marked), MLX repositories with their bits and format, the repo people serve
where the catalog's hf_repo is a base model, and checkpoint-format repos
(BF16, FP8, NVFP4, MXFP4, AWQ, GPTQ) where a source names them.
data/embedded/distribution.json is the compact copy the build compiles into
the engine (engine/src/distribution.cpp): names only, no sources.

    distribution.py --reference /work/shared/reference/distribution_names.json
        rebuilds data/distribution.json from the reference file and the catalog
        (data/models.json), then the embedded copy;
    distribution.py            rewrites the embedded copy from data/distribution.json;
    distribution.py --check    fails when the embedded copy is out of date, or
        data/distribution.json names a model the catalog lacks (or misses one);
        with --reference, also when data/distribution.json is.
"""
import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
FULL = DATA / "distribution.json"
EMBEDDED = DATA / "embedded" / "distribution.json"

# The catalog's native dtype -> the checkpoint-format key the engine looks up
# (the names of quantization.cpp's native schemes).
NATIVE_FORMAT = {"bf16": "BF16", "fp8": "FP8", "nvfp4": "NVFP4", "mxfp4": "MXFP4"}

# Checkpoint-format repos that the reference names only in a record's notes
# (quoted), besides each catalog entry's own hf_repo.
NOTED_CHECKPOINTS = [
    ("glm-4.5", "FP8", "zai-org/GLM-4.5-FP8", "glm-4.5-fp8",
     "FP8 is the vLLM/SGLang serving checkpoint of GLM-4.5 (Xinference lists zai-org/GLM-4.5-FP8 as an fp8 spec)"),
    ("glm-4.5-fp8", "BF16", "zai-org/GLM-4.5", "glm-4.5-fp8",
     "FP8 is the vLLM/SGLang serving checkpoint of GLM-4.5; catalog glm-4.5 hf_repo zai-org/GLM-4.5"),
    ("qwen3-235b-a22b", "FP8", "Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b-fp8",
     "FP8 is a vLLM/SGLang serving checkpoint of Qwen3-235B-A22B ... Xinference lists Qwen/Qwen3-235B-A22B-FP8"),
    ("qwen3-235b-a22b-fp8", "BF16", "Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b-fp8",
     "FP8 is a vLLM/SGLang serving checkpoint of Qwen3-235B-A22B; catalog qwen3-235b-a22b hf_repo"),
    ("glm-4.7-fp8", "BF16", "zai-org/GLM-4.7", "glm-4.7-fp8",
     "GPUStack catalog lists zai-org/GLM-4.7 and zai-org/GLM-4.7-FP8"),
    ("glm-5.2", "FP8", "zai-org/GLM-5.2-FP8", "glm-5.2", "GPUStack serves zai-org/GLM-5.2-FP8 with vLLM"),
    ("qwen3.6-27b-nvfp4", "BF16", "Qwen/Qwen3.6-27B", "qwen3.6-27b-nvfp4",
     "GGUF/Ollama/MLX entries are of the base Qwen/Qwen3.6-27B model"),
    ("gemma-4-31b-it-nvfp4", "BF16", "google/gemma-4-31B-it", "gemma-4-31b-it-nvfp4",
     "GGUF/Ollama/MLX entries are of google/gemma-4-31B-it"),
    ("nemotron-3-nano-30b-a3b", "FP8", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "nemotron-3-nano-30b-a3b",
     "vLLM: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (also -FP8 and -NVFP4 in the GPUStack catalog)"),
    ("nemotron-3-nano-30b-a3b", "NVFP4", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4", "nemotron-3-nano-30b-a3b",
     "vLLM: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (also -FP8 and -NVFP4 in the GPUStack catalog)"),
    ("nemotron-3-super-120b-a12b", "BF16", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "nemotron-3-super-120b-a12b",
     "hf_repo is the FP8 serving checkpoint (GPUStack catalog lists -BF16, -FP8 and -NVFP4)"),
    ("nemotron-3-super-120b-a12b", "NVFP4", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "nemotron-3-super-120b-a12b",
     "hf_repo is the FP8 serving checkpoint (GPUStack catalog lists -BF16, -FP8 and -NVFP4)"),
    ("qwen3-coder-next", "FP8", "Qwen/Qwen3-Coder-Next-FP8", "qwen3-coder-next",
     "GPUStack serves Qwen/Qwen3-Coder-Next (and -FP8) with vLLM"),
]
REFERENCE_NAME = "reference/distribution_names.json"
SAFE = re.compile(r"^[A-Za-z0-9._/:-]+$")
# Names sourced after the reference, each record with its source, date and quote
# (see scripts/catalog/README.md): GGUF repos with tags and parts, and
# quantized checkpoints for vLLM and SGLang.
SOURCED_GGUF = [Path(__file__).resolve().parent / name for name in ("sourced_gguf_repos.json", "sourced_gguf_repos_2.json")]
SOURCED_CHECKPOINTS = Path(__file__).resolve().parent / "sourced_checkpoints.json"
# Qwen's FP8 checkpoints scale 128 x 128 blocks of each weight: vLLM refuses a
# tensor-parallel share that is not whole blocks (launch_commands.cpp).
QWEN_FP8_REPO = re.compile(r"^Qwen/.+-FP8$")
QWEN_FP8_BLOCK_SOURCE = ("akash-network/awesome-akash@344abdb144db36d2eaa6bf34b91e987c501712a4:"
                         "Qwen3-235B-A22B-Instruct-2507-FP8/README.md (Qwen's model card, 'Note on FP8'): 'we have provided "
                         "fp8-quantized model checkpoint for Qwen3, whose name ends with -FP8. The quantization method is "
                         "fine-grained fp8 quantization with block size of 128.'")
# MLX repositories and Ollama tags sourced after the reference (helper batch of
# 2026-12-06: Xinference catalogs, exo model cards, Hugging Face pages, an
# ollama.com library scrape).
SOURCED_MLX_OLLAMA = Path(__file__).resolve().parent / "sourced_mlx_ollama.json"
# Sourced MLX repos left out: `mlx_lm.server` (the command printed) is not
# sourced to load them: vision conversions catalogued for mlx-vlm (Mistral
# Small 3.2, Gemma 4, Qwen3.8-27B), the legacy weights.npz format (Llama 2),
# 2026 architectures whose mlx-lm support no source shows (GLM-5.3, Step-3.5,
# DeepSeek V4.1, whose repo one source calls incomplete), and a small
# third-party upload where mlx-community's builds exist.
MLX_LEFT_OUT_MODELS = {"mistral-small-3.2-24b-instruct-2506", "gemma-4-12b-it", "qwen3.8-27b", "llama-2-7b", "glm-5.3",
                       "glm-5.3-flash", "step-3.5-flash", "deepseek-v4.1-flash"}
MLX_OWNERS = ("mlx-community/", "lmstudio-community/")
# A default tag the scrape (2025-08) shows on the release, which its note says
# may since point at a later one: the explicit tags name the release.
OLLAMA_LEFT_OUT_TAGS = {"devstral:24b"}
# The checkpoint formats the engine's serving commands look up.
CHECKPOINT_FORMATS = {"AWQ", "GPTQ", "FP8", "NVFP4", "MXFP4"}


def sourced_text(r):
    when = r.get("source_date") or "undated"
    return f"{r['source']} ({when}): \"{(r.get('quote') or '').strip()[:200]}\""


def precise_source(r):
    """A repository with commit and path, an issue or PR, or a URL: a source one
    can open; or a public file found by the search index whose quoted line names
    the repository (its id stands for the file, the quote for what it shows)."""
    src = r.get("source") or ""
    if "@" in src or "#" in src or "http" in src:
        return True
    return "search-index id" in src and r.get("repo", "").lower() in (r.get("quote") or "").lower()


def add_sourced_gguf(gguf, records):
    """Tags and parts from sourced records, merged into the model's repos."""
    for r in records:
        if not precise_source(r):
            continue
        quants = [q for q in r.get("quants") or [] if SAFE.match(q)]
        entry = next((g for g in gguf if g["repo"].lower() == r["repo"].lower()), None)
        if entry is None:
            entry = {"repo": r["repo"], "quants": [], "source": ""}
            gguf.append(entry)
        for q in quants:
            if q not in entry["quants"]:
                entry["quants"].append(q)
        for q, split in (r.get("split") or {}).items():
            n = split.get("parts") if isinstance(split, dict) else split
            if isinstance(n, int) and n >= 1:
                entry.setdefault("parts", {})[q] = n
                if q not in entry["quants"]:
                    entry["quants"].append(q)
        prefix = "[instruct GGUF for a base-model id] " if r.get("instruct_for_base") else ""
        entry["source"] = "; ".join(x for x in (entry["source"], prefix + sourced_text(r)) if x)


def add_sourced_checkpoints(checkpoints, records):
    for r in records:
        fmt = r.get("format")
        if fmt not in CHECKPOINT_FORMATS or not SAFE.match(r.get("repo") or ""):
            continue
        if fmt in ("GPTQ", "AWQ") and (r.get("bits") not in (None, 4) or "mix" in r["repo"].lower()):
            continue  # the engine sizes these as 4-bit throughout; mixed 4/8-bit repos are larger
        if not precise_source(r):
            continue
        if any(c["format"] == fmt for c in checkpoints):
            continue
        checkpoints.append({"format": fmt, "repo": r["repo"], "source": sourced_text(r)})


def add_sourced_mlx(mlx, model_id, records):
    """MLX repos from sourced records: mlx-community's and LM Studio's builds
    of models whose architecture mlx_lm is sourced to load. DWQ builds are
    MLX's affine quantization (distilled), sized as such."""
    if model_id in MLX_LEFT_OUT_MODELS:
        return
    for r in records:
        repo = r.get("repo") or ""
        if not repo.startswith(MLX_OWNERS) or not SAFE.match(repo) or not precise_source(r):
            continue
        if any(m["repo"].lower() == repo.lower() for m in mlx) or not isinstance(r.get("bits"), int):
            continue
        fmt = "affine" if r.get("format") == "dwq" else r.get("format") or mlx_format(repo, r["bits"])
        mlx.append({"repo": repo, "bits": r["bits"], "format": fmt, "source": sourced_text(r)})
    # The plain conversion before a distilled (DWQ) one of the same bits.
    mlx.sort(key=lambda m: "dwq" in m["repo"].lower())


# ollama.com's library listing, as the scrape the sources quote gives it:
# "tag '35b-a3b', 24GB". Decimal GB, rounded as the page shows it.
LISTED_SIZE = re.compile(r"tag '([^']+)', (\d+(?:\.\d+)?)(GB|MB)")


def listed_gb(tag, source):
    """The size ollama.com lists for the tag, when its source quotes the listing."""
    name = tag.split(":", 1)[1] if ":" in tag else tag
    for m in LISTED_SIZE.finditer(source or ""):
        if m.group(1) == name:
            return float(m.group(2)) / (1000.0 if m.group(3) == "MB" else 1.0)
    return None


def add_sourced_ollama(ollama, records):
    """Ollama tags from sourced records, with the note's bracketed role (base
    or text variant, default tag) in front of the source as the reference does."""
    for r in records:
        tag = r.get("tag") or ""
        if tag in OLLAMA_LEFT_OUT_TAGS or not SAFE.match(tag) or not precise_source(dict(r, repo=tag.split(":")[0])):
            continue
        if any(t["tag"] == tag for t in ollama):
            continue
        note = (r.get("note") or "").strip()
        role = note[:note.index("]") + 1] if note.startswith("[") and "]" in note else ""
        item = {"tag": tag, "quant": r.get("quant")}
        if r.get("cloud"):
            item["cloud"] = True
        item["source"] = " ".join(x for x in (role, sourced_text(r)) if x)
        if listed_gb(tag, r.get("source")) is not None:
            item["listed_gb"] = listed_gb(tag, r.get("source"))
        ollama.append(item)


def load_sourced(paths, key="records"):
    out = {}
    for path in paths if isinstance(paths, list) else [paths]:
        if not path.exists():
            continue
        for r in json.loads(path.read_text(encoding="utf-8")).get(key, []):
            out.setdefault(r["model_id"], []).append(r)
    return out

ABOUT = ("Distribution names per catalog model for the launch commands (issue 18), from " + REFERENCE_NAME +
         " (every name with its source) and the catalog's own hf_repo. gguf: repositories and the quantization tags "
         "a source shows (quants [] = the repo exists, its tag list was not sourced). ollama: library tags with their "
         "quantization (null = not sourced); cloud = runs on Ollama's servers only; moved_to = the tag now points at "
         "that newer release; listed_gb = the size ollama.com lists for the tag (decimal GB, as its source quotes it). mlx: repositories with bits and format (affine = MLX-LM's own group quantization; "
         "nvfp4/mxfp4/mxfp8/mixed otherwise; bf16 = unquantized). serve_repo: the repo people serve where hf_repo is a "
         "base model. checkpoints: repos of one checkpoint format (BF16, FP8, NVFP4, MXFP4, AWQ, GPTQ): the catalog's "
         "hf_repo in its native dtype, and repos the reference names in its notes. Written by "
         "scripts/catalog/distribution.py; data/embedded/distribution.json is the compact copy.")


def mlx_format(repo, bits):
    name = repo.split("/")[-1].lower()
    for fmt in ("nvfp4", "mxfp4", "mxfp8"):
        if fmt in name:
            return fmt
    if bits == 16:
        return "bf16"
    if re.search(r"(dq\d|oq\d)", name):
        return "mixed"
    return "affine"


def moved_to(source):
    m = re.match(r"\[NOTE: now ([^\],]+)", source)
    return m.group(1).strip() if m else None


def is_cloud(tag, quant):
    return quant is None and re.search(r"(^|[:-])cloud$", tag.split(":", 1)[-1]) is not None


def from_reference(reference, catalog):
    records = {r["id"]: r for r in reference["records"]}
    sourced_gguf = load_sourced(SOURCED_GGUF)
    sourced_checkpoints = load_sourced(SOURCED_CHECKPOINTS)
    sourced_mlx = load_sourced(SOURCED_MLX_OLLAMA, key="mlx")
    sourced_ollama = load_sourced(SOURCED_MLX_OLLAMA, key="ollama")
    models = []
    for entry in catalog["models"]:
        mid = entry["id"]
        rec = records.get(mid)
        if rec is None:
            # Models added after the reference was gathered (the seed-page set):
            # no public name is sourced, so the commands say none is known.
            rec = {"id": mid, "gguf": [], "ollama": [], "mlx": [], "serve_repo": None,
                   "notes": f"no record in {REFERENCE_NAME}: no distribution name sourced"}
        serve_repo = rec.get("serve_repo")
        ollama = []
        for t in rec["ollama"]:
            item = {"tag": t["tag"], "quant": t["quant"]}
            if is_cloud(t["tag"], t["quant"]):
                item["cloud"] = True
            if moved_to(t["source"]):
                item["moved_to"] = moved_to(t["source"])
            item["source"] = t["source"]
            if listed_gb(t["tag"], t["source"]) is not None:
                item["listed_gb"] = listed_gb(t["tag"], t["source"])
            ollama.append(item)
        # Tags that still hold this release first; where the catalog id is a
        # base model and people serve its instruct repo, the instruct tags first
        # (the repo the vLLM and SGLang commands serve too). Stable otherwise.
        def rank(t):
            return (1 if "moved_to" in t else 0,
                    1 if serve_repo and t["source"].startswith("[base/text variant]") else 0)
        add_sourced_ollama(ollama, sourced_ollama.get(mid, []))
        ollama.sort(key=rank)
        mlx = [{"repo": m["repo"], "bits": m["bits"], "format": mlx_format(m["repo"], m["bits"]), "source": m["source"]}
               for m in rec["mlx"]]
        add_sourced_mlx(mlx, mid, sourced_mlx.get(mid, []))
        checkpoints = []
        native = NATIVE_FORMAT.get(entry.get("native_dtype") or "")
        if native and entry.get("hf_repo"):
            repo = serve_repo if native == "BF16" and serve_repo else entry["hf_repo"]
            why = "serve_repo of the record" if repo == serve_repo else "catalog hf_repo"
            checkpoints.append({"format": native, "repo": repo,
                                "source": f"{why}; catalog native_dtype {entry['native_dtype']}"})
        for cid, fmt, repo, rec_id, quote in NOTED_CHECKPOINTS:
            if cid == mid and all(c["format"] != fmt for c in checkpoints):
                checkpoints.append({"format": fmt, "repo": repo,
                                    "source": f"{REFERENCE_NAME} notes of {rec_id}: \"{quote}\""})
        add_sourced_checkpoints(checkpoints, sourced_checkpoints.get(mid, []))
        for c in checkpoints:
            if c["format"] == "FP8" and QWEN_FP8_REPO.match(c["repo"]):
                c["weight_block"] = 128
                c["weight_block_source"] = QWEN_FP8_BLOCK_SOURCE
        gguf = [{"repo": g["repo"], "quants": list(g["quants"]), "source": g["source"]} for g in rec["gguf"]]
        add_sourced_gguf(gguf, sourced_gguf.get(mid, []))
        models.append({
            "id": mid,
            "gguf": gguf,
            "ollama": ollama,
            "mlx": mlx,
            "serve_repo": serve_repo,
            "checkpoints": checkpoints,
            "notes": rec.get("notes", ""),
        })
    extra = sorted(set(records) - {m["id"] for m in catalog["models"]})
    if extra:
        print("distribution: reference records for no catalog model, skipped: " + ", ".join(extra), file=sys.stderr)
    return {"_about": ABOUT, "schema_version": 1, "models": models}


def compact(full):
    """What the engine reads: names, no sources. Cloud-only Ollama tags stay
    (the note names them); MLX repos without bits do not (nothing picks them)."""
    models = []
    for m in full["models"]:
        out = {"id": m["id"]}
        if m["gguf"]:
            out["gguf"] = [dict({"repo": g["repo"], "quants": g["quants"]}, **({"parts": g["parts"]} if g.get("parts") else {}))
                           for g in m["gguf"]]
        tags = []
        for t in m["ollama"]:
            item = {"tag": t["tag"]}
            if t["quant"]:
                item["quant"] = t["quant"]
            for key in ("cloud", "moved_to", "listed_gb"):
                if key in t:
                    item[key] = t[key]
            tags.append(item)
        if tags:
            out["ollama"] = tags
        mlx = [{"repo": x["repo"], "bits": x["bits"], "format": x["format"]} for x in m["mlx"] if x["bits"]]
        if mlx:
            out["mlx"] = mlx
        if m["serve_repo"]:
            out["serve_repo"] = m["serve_repo"]
        if m["checkpoints"]:
            out["checkpoints"] = {c["format"]: c["repo"] for c in m["checkpoints"]}
            blocks = {c["repo"]: c["weight_block"] for c in m["checkpoints"] if c.get("weight_block")}
            if blocks:
                out["weight_blocks"] = blocks
        models.append(out)
    return {"schema_version": full.get("schema_version", 1), "models": models}


def render_full(doc):
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def render_compact(doc):
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"



def problems(full, catalog):
    """Names the engine would print: ids matching the catalog, shell-safe names."""
    out = []
    ids = [m["id"] for m in full["models"]]
    catalog_ids = [m["id"] for m in catalog["models"]]
    if sorted(ids) != sorted(catalog_ids):
        missing = sorted(set(catalog_ids) - set(ids))
        extra = sorted(set(ids) - set(catalog_ids))
        out.append(f"ids differ from data/models.json (missing {missing}, extra {extra})")
    for m in full["models"]:
        names = [g["repo"] for g in m["gguf"]] + [q for g in m["gguf"] for q in g["quants"]]
        names += [t["tag"] for t in m["ollama"]] + [x["repo"] for x in m["mlx"]] + [c["repo"] for c in m["checkpoints"]]
        names += [m["serve_repo"]] if m["serve_repo"] else []
        out += [f"{m['id']}: name {n!r} holds characters a shell would read" for n in names if not SAFE.match(n)]
        out += [f"{m['id']}: Ollama tag {t['tag']!r} has no ':'" for t in m["ollama"] if ":" not in t["tag"]]
        out += [f"{m['id']}: {g['repo']} gives parts for {q!r}, a tag it does not list"
                for g in m["gguf"] for q in (g.get("parts") or {}) if q not in g["quants"]]
        out += [f"{m['id']}: {g['repo']} has no source" for g in m["gguf"] if not g.get("source")]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail when the copies are out of date")
    parser.add_argument("--reference", type=Path, help="distribution_names.json to rebuild data/distribution.json from")
    args = parser.parse_args()
    catalog = json.loads((DATA / "models.json").read_text(encoding="utf-8"))
    stale = []
    if args.reference:
        full_text = render_full(from_reference(json.loads(args.reference.read_text(encoding="utf-8")), catalog))
        if args.check:
            if not FULL.exists() or FULL.read_text(encoding="utf-8") != full_text:
                stale.append(str(FULL.relative_to(ROOT)))
        else:
            FULL.write_text(full_text, encoding="utf-8")
    else:
        full_text = FULL.read_text(encoding="utf-8")
    full = json.loads(full_text)
    issues = problems(full, catalog)
    if issues:
        print("distribution: " + "; ".join(issues[:20]), file=sys.stderr)
        return 1
    compact_text = render_compact(compact(full))
    if args.check:
        if not EMBEDDED.exists() or EMBEDDED.read_text(encoding="utf-8") != compact_text:
            stale.append(str(EMBEDDED.relative_to(ROOT)))
    else:
        EMBEDDED.write_text(compact_text, encoding="utf-8")
    if stale:
        print("distribution: out of date (run python3 scripts/catalog/distribution.py"
              + (" --reference ..." if args.reference else "") + "): " + ", ".join(stale), file=sys.stderr)
        return 1
    print("distribution: " + ("up to date" if args.check else "wrote " + ", ".join(
        str(p.relative_to(ROOT)) for p in ([FULL] if args.reference else []) + [EMBEDDED])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
