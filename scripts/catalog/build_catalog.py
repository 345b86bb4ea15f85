#!/usr/bin/env python3
"""Build the llm-sizer catalog (data/*.json) from the sourced reference facts.

Usage (from the repository root):
    python3 scripts/catalog/build_catalog.py [--reference DIR] [--out DIR]

Inputs:
  * the reference facts (default: ../shared/reference relative to the repository root),
  * the hand-curated additions next to this script (curated_*.json).
Outputs (pretty-printed JSON, indent 1, UTF-8, stable key order):
  data/models.json, data/models_excluded.json, data/devices.json, data/system_ram.json,
  data/quant_types.json, data/cloud_offers.json, data/engines.json

Rules: every number comes from the reference or a curated file that names its source.
Where the catalog carries an estimate, the field is listed in `estimated_fields` and the
entry's `notes` say how it was estimated. Standard library only.
"""

import argparse
import copy
import datetime
import json
import math
import re
import sys
from pathlib import Path

import cloud_listings

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_ROOT = SCRIPT_DIR.parent.parent
DEFAULT_REFERENCE = REPO_ROOT.parent / "shared" / "reference"
DEFAULT_OUT = REPO_ROOT / "data"
SCHEMA_VERSION = 1


class BuildError(Exception):
    pass


# ----------------------------------------------------------------------------- helpers

def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise BuildError(f"missing input file: {path}")
    except json.JSONDecodeError as e:
        raise BuildError(f"{path}: invalid JSON: {e}")


def finite_only(value):
    """JSON has no Infinity: configs that hold one (Nemotron-H time_step_limit)
    get the largest double instead, so every JSON parser reads the catalog."""
    if isinstance(value, float) and not math.isfinite(value):
        return 1.7976931348623157e308 if value > 0 else -1.7976931348623157e308
    if isinstance(value, dict):
        return {k: finite_only(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_only(v) for v in value]
    return value


def write_json(path, obj):
    text = json.dumps(finite_only(obj), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def as_list(x):
    if x is None:
        return []
    if isinstance(x, list):
        return list(x)
    return [x]


def dedupe(items):
    seen = set()
    out = []
    for it in items:
        key = json.dumps(it, sort_keys=True) if not isinstance(it, str) else it
        if key in seen:
            continue
        seen.add(key)
        out.append(it)
    return out


def to_int(x):
    if x is None:
        return None
    return int(round(float(x)))


def clean_number(x, ndigits=6):
    """Round away float noise (e.g. 2 * 353.8) while keeping integers integral."""
    if x is None:
        return None
    if isinstance(x, bool):
        raise BuildError(f"boolean where a number was expected: {x}")
    if isinstance(x, int):
        return x
    r = round(float(x), ndigits)
    if r == int(r) and abs(r) < 1e15:
        return int(r)
    return r


def join_notes(parts):
    parts = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
    if not parts:
        return None
    out = []
    for p in parts:
        if p not in out:
            out.append(p)
    return " ".join(p if p.endswith((".", ")", "]", "\"")) else p + "." for p in out)


def slug(text):
    s = re.sub(r"[^a-z0-9.]+", "-", str(text).lower()).strip("-")
    return re.sub(r"-+", "-", s)


# ----------------------------------------------------------------------------- models

DTYPE_NAMES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}


def text_config(cfg):
    tc = cfg.get("text_config")
    return tc if isinstance(tc, dict) else {}


def model_type_of(cfg):
    return cfg.get("model_type") or text_config(cfg).get("model_type")


def max_context_of(cfg):
    tc = text_config(cfg)
    for src in (tc, cfg):
        v = src.get("max_position_embeddings")
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return int(v)
    return None


def native_dtype_of(cfg):
    """Return (dtype, note) from torch_dtype/dtype, quantization_config and expert_dtype."""
    tc = text_config(cfg)
    if cfg.get("expert_dtype") == "fp4":
        return "fp4", ("native_dtype fp4: routed experts are stored in FP4 (config expert_dtype); the other linear "
                       "weights are FP8 with 128x128 block scales (quantization_config).")
    q = cfg.get("quantization_config") or tc.get("quantization_config")
    if isinstance(q, dict):
        method = q.get("quant_method")
        if method == "fp8":
            return "fp8", None
        if method == "mxfp4":
            return "mxfp4", ("native_dtype mxfp4 applies to the MoE expert weights; modules_to_not_convert "
                             "(attention, router, embeddings, lm_head) stay in bf16.")
        if method == "modelopt":
            algo = str(q.get("quant_algo") or "")
            layers = json.dumps(q.get("quantized_layers") or {})
            if "NVFP4" in algo or "NVFP4" in layers:
                return "nvfp4", None
            if "FP8" in algo:
                return "fp8", None
        if method in ("compressed-tensors", None) and (q.get("config_groups") or q.get("format")):
            # compressed-tensors layout (some copies lost the quant_method key, e.g. GLM-4.5-FP8)
            fmt = str(q.get("format") or "")
            if "mxfp4" in fmt:
                return "mxfp4", ("native_dtype mxfp4 (compressed-tensors mxfp4-pack-quantized) applies to the routed "
                                 "experts; the ignore list (attention, shared experts, dense MLP, lm_head) stays in bf16.")
            weights = [g.get("weights") or {} for g in (q.get("config_groups") or {}).values() if isinstance(g, dict)]
            for w in weights:
                bits, kind = w.get("num_bits"), w.get("type")
                if bits == 8 and kind == "float":
                    return "fp8", None
                if bits == 4 and kind == "int":
                    return "int4", ("native_dtype int4 (compressed-tensors pack-quantized, group %s) applies to the "
                                    "routed experts; the ignore list stays in bf16." % w.get("group_size"))
                if bits == 4 and kind == "float":
                    return ("nvfp4" if w.get("group_size") == 16 else "mxfp4"), None
    dt = cfg.get("torch_dtype") or cfg.get("dtype") or tc.get("torch_dtype") or tc.get("dtype")
    if isinstance(dt, str) and dt in DTYPE_NAMES:
        return DTYPE_NAMES[dt], None
    return None, None


NOT_PRECISE_TEXT = ("per name", "per seed", "per preset", "per nemo", "torchtune")
NOT_PRECISE_SOURCE = ("model name", "seed page", "preset name")


def params_precise(text, source):
    if not text:
        return False
    t = text.lower()
    if any(k in t for k in NOT_PRECISE_TEXT):
        return False
    if not source:
        return False
    s = source.lower()
    return not any(s.startswith(k) for k in NOT_PRECISE_SOURCE)


REPORT_KEYS = [
    # (value key, source key, what)
    ("hf_checkpoint_params_stated", "hf_checkpoint_params_source", "checkpoint parameter count stated by the source"),
    ("hf_safetensors_params_instruct", "hf_safetensors_params_source", "HF safetensors parameter count (Instruct repo)"),
    ("hf_params_reported_by_third_party", "hf_params_reported_source", "HF parameter count reported by a third party"),
    ("params_reported_by_third_party", "params_reported_source", "parameter count reported by a third party"),
    ("gguf_reported_params", "gguf_reported_params_source", "parameter count reported by a GGUF parser"),
    ("active_params_computed_by_third_party", "active_params_computed_source", "active parameters computed by a third party"),
]


def parse_count(text):
    """'158.1B' / '72.71 B' / '1058.1B' -> integer parameter count; None if the text is not a bare count."""
    m = re.match(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([MBT])\s*$", text or "")
    if not m:
        return None
    return int(round(float(m.group(1)) * {"M": 1e6, "B": 1e9, "T": 1e12}[m.group(2)]))


def reported_counts(rec):
    out = []
    for key, src_key, what in REPORT_KEYS:
        if key not in rec or rec[key] is None:
            continue
        v = rec[key]
        out.append({
            "what": what,
            "value": int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else parse_count(v),
            "text": v if isinstance(v, str) else None,
            "source": rec.get(src_key),
        })
    return out


def clean_repo(repo):
    if not repo:
        return None
    return repo.split(" (")[0].strip() or None


USE_TAGS = ("coding", "reasoning", "chat", "vision")

# What a model is for, from its own name and repository (the vendor's words):
# a coder's name says "Coder", a reasoning model's "R1", "QwQ" or "Thinking",
# an instruction-tuned release "Instruct", "-it", "chat". Vision from the
# config: a vision_config / vision tower is an image encoder in the checkpoint.
# A base release (no instruct marker) gets no chat tag. Curated "uses" in
# curated_models.json add tags the name does not carry, each with a quote.
USE_NAME_RULES = [
    ("coding", re.compile(r"coder|devstral|codestral", re.I)),
    ("reasoning", re.compile(r"(?:^|[-_ /])R1(?:$|[-_ ])|qwq|thinking", re.I)),
    ("vision", re.compile(r"-VL(?:$|[-_ ])", re.I)),
    ("chat", re.compile(r"instruct|(?:^|[-_])it(?:$|[-_])|chat", re.I)),
]
VISION_CONFIG_KEYS = ("vision_config", "vision_tower", "visual", "vision_model")


def uses_of(entry, cur):
    """The entry's use tags and, for each, the words it comes from."""
    sources = {}
    for where, text in (("hf_repo", entry.get("hf_repo") or ""), ("name", entry.get("name") or "")):
        for tag, rule in USE_NAME_RULES:
            m = rule.search(text.split("/")[-1])
            if m and tag not in sources:
                sources[tag] = f"{where} {text!r} says {m.group(0).strip('-_ /')!r}"
    cfg = entry.get("config") or {}
    for key in VISION_CONFIG_KEYS:
        if isinstance(cfg.get(key), (dict, str)) and "vision" not in sources:
            sources["vision"] = f"config.json has {key} (an image encoder in the checkpoint)"
    for tag, quote in (cur.get("uses") or {}).items():
        if tag not in USE_TAGS:
            raise BuildError(f"model {entry['id']}: curated use {tag!r} is not one of {USE_TAGS}")
        if not quote:
            raise BuildError(f"model {entry['id']}: curated use {tag!r} needs a quote")
        sources.setdefault(tag, quote)
    for tag in (cur.get("not_uses") or {}):
        sources.pop(tag, None)
    tags = [t for t in USE_TAGS if t in sources]
    return tags, {t: sources[t] for t in tags}


def build_models(ref, cur):
    base = load_json(ref / "models.json")
    more = load_json(ref / "models_more.json")
    records = base + more
    by_id = {}
    for r in records:
        if r["id"] in by_id:
            raise BuildError(f"duplicate model id in reference: {r['id']}")
        by_id[r["id"]] = r
    # Verbatim configs sourced here for reference records whose config was
    # derived (sourced_model_configs.json): the record keeps its id and names.
    corrections = load_json(SCRIPT_DIR / "sourced_model_configs.json")["records"]
    for fix in corrections:
        if fix["id"] not in by_id:
            raise BuildError(f"sourced_model_configs.json: unknown model id {fix['id']}")
        r = by_id[fix["id"]]
        r["config"] = fix["config"]
        r["config_provenance"] = "verbatim_copy"
        r["source"] = as_list(r.get("source")) + [fix["source"]]
        r["notes"] = join_notes([r.get("notes"), "Config: the verbatim config.json replaces the reference's derived one. " + fix["why"]])
    # Models no reference record describes, sourced here with a verbatim
    # config.json copy (sourced_models.json): reference-like records.
    for r in load_json(SCRIPT_DIR / "sourced_models.json")["records"]:
        if r["id"] in by_id:
            raise BuildError(f"sourced_models.json: {r['id']} is already a reference id")
        if r.get("config_provenance") != "verbatim_copy" or not r.get("source"):
            raise BuildError(f"sourced_models.json: {r['id']} needs a verbatim config copy and its source")
        by_id[r["id"]] = r
        records.append(r)
    for r in seed_model_records(ref, cur, by_id):
        if r["id"] in by_id:
            raise BuildError(f"seed model id {r['id']} collides with a reference id")
        by_id[r["id"]] = r
        records.append(r)

    curated = cur["models"]
    duplicates = cur.get("duplicates", {})
    unusable = cur.get("unusable", {})
    excluded = []
    aliases = {}          # target id -> [alias ids]
    supersede_note = {}   # target id -> note

    for r in more:
        sup = r.get("supersedes")
        if not sup:
            continue
        old_id = sup.split(" ")[0]
        if old_id not in by_id:
            raise BuildError(f"{r['id']}: supersedes unknown id {old_id!r}")
        aliases.setdefault(r["id"], []).append(old_id)
        supersede_note[r["id"]] = f"Supersedes the {sup} record; its id is kept as an alias."
        excluded.append({"id": old_id, "reason": f"superseded by the verbatim copy {r['id']} (kept there as an alias)",
                         "replaced_by": r["id"]})

    for dup_id, d in duplicates.items():
        if dup_id not in by_id or d["duplicate_of"] not in by_id:
            raise BuildError(f"curated duplicate refers to unknown id: {dup_id} / {d['duplicate_of']}")
        aliases.setdefault(d["duplicate_of"], []).append(dup_id)
        excluded.append({"id": dup_id, "reason": "duplicate of " + d["duplicate_of"] + ": " + d["reason"],
                         "replaced_by": d["duplicate_of"]})
    for bad_id, reason in unusable.items():
        if bad_id not in by_id:
            raise BuildError(f"curated unusable id not in reference: {bad_id}")
        excluded.append({"id": bad_id, "reason": "no usable config: " + reason, "replaced_by": None})

    skip = {e["id"] for e in excluded}
    models = []
    for r in records:
        mid = r["id"]
        if mid in skip:
            continue
        if mid not in curated:
            raise BuildError(f"model {mid} has no entry in curated_models.json (name/family needed)")
        c = curated[mid]
        cfg = r["config"]
        if not isinstance(cfg, dict):
            raise BuildError(f"model {mid}: config is not an object")

        notes = [r.get("notes")]
        if mid in supersede_note:
            notes.append(supersede_note[mid])
        cc = r.get("copy_completeness")
        if cc and cc != "full file as stored":
            notes.append(f"Config copy completeness: {cc}.")
        if r.get("config_form"):
            notes.append(f"Config form: {r['config_form']}.")
        if r.get("vision_config_note"):
            notes.append(r["vision_config_note"])

        # Fields the engine needs that a derived config lacks or mislabels: filled
        # from the named source, listed in estimated_fields as config.<field>.
        cfg = dict(cfg)
        filled = []
        for field, fill in c.get("config_fill", {}).items():
            if field in cfg and cfg[field] is not None and not fill.get("replace"):
                raise BuildError(f"model {mid}: config_fill {field} is already in the config")
            cfg[field] = fill["value"]
            filled.append(f"config.{field}")
            notes.append(f"config.{field} = {fill['value']!r} is not in the reference record; estimated from {fill['source']}.")

        # hf repo
        hf_repo = clean_repo(r.get("hf_repo"))
        if "hf_repo" in c:
            hf_repo = c["hf_repo"]
            notes.append(c.get("hf_repo_note"))
        elif hf_repo and r.get("hf_repo") != hf_repo:
            paren = r["hf_repo"][len(hf_repo):].strip()
            notes.append(f"Reference repo annotation: {paren}")
        if hf_repo and ("*" in hf_repo or " " in hf_repo):
            raise BuildError(f"model {mid}: hf_repo {hf_repo!r} is not a clean repo id")

        # params
        total_text = r.get("official_params_total")
        active_text = r.get("official_params_active")
        p_src = r.get("official_params_source")
        total = c.get("official_params_total", to_int(r.get("official_params_total_num")))
        active = c.get("official_params_active", to_int(r.get("official_params_active_num")))
        notes.append(c.get("official_params_note"))

        # dtype
        dtype, dnote = native_dtype_of(cfg)
        if "native_dtype" in c:
            dtype = c["native_dtype"]
            dnote = c.get("native_dtype_note")
        notes.append(dnote)

        # context
        sources = as_list(r.get("source"))
        max_ctx = max_context_of(cfg)
        mc_from = c.get("max_context_from")
        if max_ctx is None and mc_from:
            if mc_from == "context_length_card":
                v = cfg.get("context_length_card")
                max_ctx = int(v) if isinstance(v, (int, float)) else None
            elif mc_from.startswith("corroboration:"):
                other = by_id[mc_from.split(":", 1)[1]]
                max_ctx = max_context_of(other["config"])
                sources += as_list(other.get("source"))
            elif mc_from == "stated":
                # A figure the reference states in words (a card's "256K context",
                # the config class default the reference names); the note quotes it.
                max_ctx = int(c["max_context_tokens"])
            else:
                raise BuildError(f"model {mid}: unknown max_context_from {mc_from!r}")
            notes.append(c.get("max_context_note"))
        elif mc_from:
            raise BuildError(f"model {mid}: curated max_context_from given but the config has max_position_embeddings")

        if p_src and p_src not in sources:
            sources.append(p_src)
        if c.get("license") or c.get("release_date"):
            sources.append(cur["curation_source"])
        notes.append(c.get("extra_notes"))
        precise = params_precise(total_text, p_src)
        if "official_params_precise" in c:
            precise = c["official_params_precise"]

        entry = {
            "id": mid,
            "name": c["name"],
            "family": c["family"],
            "aliases": aliases.get(mid, []),
            "hf_repo": hf_repo,
            "gguf_repos": c.get("gguf_repos", []),
            "ollama_tags": c.get("ollama_tags", []),
            "license": c.get("license"),
            "release_date": c.get("release_date"),
            "official_params_total": total,
            "official_params_active": active,
            "official_params_precise": precise,
            "official_params_text": total_text,
            "official_params_active_text": active_text,
            "reported_param_counts": reported_counts(r),
            "native_dtype": dtype,
            # Why llama.cpp (and Ollama, on its kernels) cannot run the model, with its source;
            # None where it can: the launch commands say so instead of printing one that fails.
            "llama_cpp_unsupported": (c.get("llama_cpp_unsupported") or {}).get("reason"),
            # The GGUF type llama.cpp and Ollama take when none is asked for, where the
            # model's own GGUF is not Q4_K_M (gpt-oss: its MXFP4 experts as released).
            "gguf_default_quant": (c.get("gguf_default_quant") or {}).get("quant"),
            # A checkpoint of another catalog model in another format (its FP8 or
            # NVFP4 release): a GGUF or MLX build of it is that model's, so "what
            # can I run" lists it at its own format only.
            "release_of": (c.get("release_of") or {}).get("model"),
            "max_context_tokens": max_ctx,
            # RoPE scaling the publisher documents past max_context_tokens (Qwen3's
            # YaRN), with its source: the launch commands carry its flags.
            "context_extension": c.get("context_extension"),
            "uses": None,
            "uses_sources": None,
            "config": cfg,
            "config_provenance": r.get("config_provenance"),
            "config_same_as": r.get("_config_same_as"),
            "estimated_fields": filled,
            "notes": join_notes(notes),
            "sources": dedupe(sources + ([c["llama_cpp_unsupported"]["source"]]
                                         if c.get("llama_cpp_unsupported") else []) +
                              ([c["gguf_default_quant"]["source"]] if c.get("gguf_default_quant") else []) +
                              ([c["release_of"]["source"]] if c.get("release_of") else [])),
        }
        entry["uses"], entry["uses_sources"] = uses_of(entry, c)
        models.append(entry)

    unknown = set(curated) - {m["id"] for m in models}
    if unknown:
        raise BuildError(f"curated_models.json names ids that are not in the catalog: {sorted(unknown)}")

    # every reference id that is not a catalog id must be an alias or excluded
    catalog_ids = {m["id"] for m in models}
    for rid in by_id:
        if rid not in catalog_ids and rid not in skip:
            raise BuildError(f"reference model {rid} is neither in the catalog nor excluded")
    return models, excluded


def count_text(n):
    return None if n is None else f"{n / 1e9:g}B"


def seed_model_records(ref, cur, by_id):
    """seed_models.json: the seed-page models the earlier records lacked, as reference-like records.
    A record with a config is used as it is (verbatim_copy or derived); a `same_as` record without
    one takes the config of the catalog model it names (curated `config_from`) and keeps its own
    id, name and repository. Records with no curated entry must be in curated_seed_gaps.json."""
    src = load_json(ref / "seed_models.json")
    by_seed = {c["seed_name"]: (mid, c) for mid, c in cur["models"].items() if c.get("seed_name")}
    gaps = {g["seed_name"] for g in cur.get("_seed_gaps", [])}
    out = []
    for r in src["records"]:
        name = r["seed_name"]
        if name not in by_seed:
            if name not in gaps:
                raise BuildError(f"seed_models.json {name!r}: neither in curated_models.json (seed_name) "
                                 "nor in curated_seed_gaps.json")
            continue
        mid, c = by_seed[name]
        cfg = r.get("config")
        notes = [r.get("notes")]
        sources = as_list(r.get("sources"))
        provenance = r.get("config_provenance")
        same_as_id = None
        if provenance == "same_as":
            same_as_id = c.get("config_from")
            if cfg is None:
                if same_as_id not in by_id:
                    raise BuildError(f"seed model {mid}: config_from {same_as_id!r} is not a reference id")
                other = by_id[same_as_id]
                cfg = other["config"]
                sources += as_list(other.get("source"))
                notes.append(f"Config: the config of {same_as_id} ({other.get('hf_repo')}), which seed_models.json "
                             f"says this repository shares (same_as {r['same_as']}); its own config.json was not found.")
            else:
                notes.append(f"Config: the config seed_models.json gives for {r['same_as']} (same_as); "
                             "this repository's own config.json was not found.")
            provenance = "derived"
        elif provenance not in ("verbatim_copy", "derived"):
            raise BuildError(f"seed model {mid}: config_provenance {provenance!r}")
        if not isinstance(cfg, dict):
            raise BuildError(f"seed model {mid}: no config")
        total, active = r.get("params_total_stated"), r.get("params_active_stated")
        out.append({
            "id": mid,
            "hf_repo": r.get("hf_repo"),
            "config": cfg,
            "config_provenance": provenance,
            "_config_same_as": same_as_id,
            "official_params_total": count_text(total),
            "official_params_active": count_text(active),
            "official_params_total_num": total,
            "official_params_active_num": active,
            "official_params_source": ("seed_models.json params_total_stated (vendor figure)" if total else None),
            "source": dedupe(sources + ["/work/shared/reference/seed_models.json (seed_name '" + name + "')"]),
            "notes": join_notes(notes),
        })
    return out


def build_excluded(excluded, seed_gaps):
    out = list(excluded)
    for s in seed_gaps["seed_models"]:
        out.append({"id": None, "seed_name": s["seed_name"],
                    "reason": "named on a seed page; " + s["reason"], "nearest": s.get("nearest")})
    for e in out:
        e.setdefault("seed_name", None)
        e.setdefault("nearest", e.get("replaced_by"))
        e.pop("replaced_by", None)
    return {"schema_version": SCHEMA_VERSION,
            "excluded": [{"id": e["id"], "seed_name": e["seed_name"], "reason": e["reason"], "nearest": e["nearest"]}
                         for e in out],
            "seed_devices_not_included_as_named": seed_gaps["seed_devices"]}


# ----------------------------------------------------------------------------- devices

UPDATE_SKIP = {"id", "name", "vendor", "sources", "notes", "update_of", "alt_values", "street_prices"}


def apply_update(target, upd, label):
    for k, v in upd.items():
        if k in UPDATE_SKIP or v is None:
            continue
        if target.get(k) is None:
            target[k] = v
        elif target.get(k) != v:
            target.setdefault("_conflicts", []).append(f"{label}: {k} {v!r} (kept {target[k]!r})")
    target["sources"] = dedupe(as_list(target.get("sources")) + as_list(upd.get("sources")))
    if upd.get("notes"):
        target.setdefault("_more_notes", []).append(f"[{label}] {upd['notes']}")
    if upd.get("alt_values"):
        alt = target.setdefault("alt_values", {})
        for k, v in upd["alt_values"].items():
            alt.setdefault(k, {}).update(v if isinstance(v, dict) else {label: v})
    if upd.get("street_prices"):
        target.setdefault("street_prices", []).extend(upd["street_prices"])


def merge_device_records(ref, cur):
    base = load_json(ref / "gpus.json")
    # GPUs no reference record describes, sourced here (sourced_devices.json),
    # in the reference's own record form.
    more = load_json(ref / "gpus_more.json") + load_json(SCRIPT_DIR / "sourced_devices.json")["records"]
    recs = {}
    for r in base:
        if r["id"] in recs:
            raise BuildError(f"duplicate device id in gpus.json: {r['id']}")
        recs[r["id"]] = dict(r)
    renames = cur.get("id_renames", {})
    merges = cur.get("merge_into", {})
    for r in more:
        rid = r["id"]
        target = r.get("update_of") or (merges[rid]["target"] if rid in merges else None)
        if target:
            if target not in recs:
                raise BuildError(f"gpus_more {rid}: update_of/merge target {target!r} unknown")
            apply_update(recs[target], r, rid)
            if rid in merges:
                recs[target].setdefault("_more_notes", []).append(merges[rid]["note"])
                recs[target].setdefault("_aliases", []).append(rid)
            continue
        new = dict(r)
        if rid in renames:
            new["id"] = renames[rid]["id"]
            new["_aliases"] = [rid]
            new["_more_notes"] = [renames[rid]["note"]]
        if new["id"] in recs:
            raise BuildError(f"device id collision: {new['id']}")
        recs[new["id"]] = new
    return recs


DEVICE_KEYS = [
    "id", "name", "vendor", "kind", "backend", "aliases", "reported_names", "memory_gb_marketed", "driver_memory_mib", "gpu_memory_limit_mib",
    "memory_type", "bandwidth_gb_per_s", "fp16_tflops", "fp16_acc16_tflops", "fp8_tflops", "int8_tops", "fp4_tflops", "fp32_tflops",
    "cpu_simd", "gpu_arch", "tdp_w", "interconnect", "nvlink_gb_per_s", "price_usd", "price_kind", "price_as_of", "price_low_usd",
    "price_high_usd", "price_machine", "price_usd_used", "price_low_confidence", "sold_new_until", "launch_price_usd", "server_board_gpus", "package_gpus",
    "server_price_usd", "server_gpus", "server_name", "server_price_as_of", "year",
    "unified_memory", "sources", "estimated_fields", "notes", "alt_values", "street_prices",
]
PRICE_KINDS = ("list", "launch_msrp", "street_new", "street_used", "analyst_estimate", "server_share", "platform_components")


def device_skeleton():
    return dict({k: None for k in DEVICE_KEYS}, reported_names=[])


def normalize_device(r, cur):
    did = r["id"]
    vendor = cur["vendors"].get(r.get("vendor"))
    if vendor is None:
        raise BuildError(f"device {did}: vendor {r.get('vendor')!r} not in curated vendors map")
    kind = None
    for k, ids in cur["kinds"].items():
        if did in ids:
            if kind:
                raise BuildError(f"device {did} listed under two kinds")
            kind = k
    if kind is None:
        raise BuildError(f"device {did} has no kind in curated_devices.json")
    d = device_skeleton()
    notes = [r.get("notes")] + r.get("_more_notes", [])
    d.update({
        "id": did,
        "name": r["name"],
        "vendor": vendor,
        "kind": kind,
        "backend": cur["backend_overrides"].get(did, cur["default_backend"][vendor]),
        "aliases": r.get("_aliases", []),
        "reported_names": [],
        "memory_gb_marketed": clean_number(r.get("memory_gb")),
        "driver_memory_mib": to_int(r.get("driver_memory_mib")),
        "gpu_memory_limit_mib": None,
        "memory_type": r.get("memory_type"),
        "bandwidth_gb_per_s": clean_number(r.get("bandwidth_gbs")),
        "fp16_tflops": clean_number(r.get("fp16_tflops")),
        "fp16_acc16_tflops": clean_number(r.get("fp16_acc16_tflops")),
        "fp8_tflops": clean_number(r.get("fp8_tflops")),
        "int8_tops": clean_number(r.get("int8_tops")),
        "fp4_tflops": clean_number(r.get("fp4_tflops")),
        "fp32_tflops": clean_number(r.get("fp32_tflops")),
        "tdp_w": clean_number(r.get("tdp_w")),
        "interconnect": r.get("interconnect"),
        "nvlink_gb_per_s": clean_number(cur["nvlink_gb_per_s"].get(did)),
        "price_usd": clean_number(r.get("price_usd")),
        "price_as_of": cur["price_dates"].get(did),
        "price_usd_used": None,
        "year": r.get("year"),
        "unified_memory": did in cur["unified_memory"],
        "sources": dedupe(as_list(r.get("sources"))),
        "estimated_fields": [],
        "alt_values": r.get("alt_values") or None,
        "street_prices": r.get("street_prices") or None,
    })
    if did in cur["backend_notes"]:
        notes.append(cur["backend_notes"][did])
    if r.get("launch_price_usd") is not None and did in cur.get("launch_price_preferred", {}):
        old = d["price_usd"]
        d["price_usd"] = clean_number(r["launch_price_usd"])
        notes.append(cur["launch_price_preferred"][did])
        if old is not None and old != d["price_usd"]:
            d["alt_values"] = d["alt_values"] or {}
            d["alt_values"].setdefault("price_usd", {})["gpus.json (approximate)"] = old
    if d["price_usd"] is not None:
        pk = cur["price_kinds"].get(did)
        if pk is None:
            raise BuildError(f"device {did}: price {d['price_usd']} has no price_kind in curated_devices.json price_kinds")
        d["price_kind"] = pk["kind"]
        if pk.get("note"):
            notes.append(pk["note"])
    if did in cur.get("converted_prices", {}):
        x = cur["converted_prices"][did]
        if d["price_usd"] is not None:
            raise BuildError(f"device {did}: converted price given but the reference has a USD price")
        d["price_usd"] = clean_number(round(r[x["from_field"]] / x["rate"]))
        d["price_kind"] = x["kind"]
        d["price_as_of"] = x.get("as_of")
        d["estimated_fields"].append("price_usd")
        notes.append("Estimate: " + x["note"])
    spec = cur.get("_specs", {}).get(did)
    if spec:
        apply_spec(d, spec, notes)
    if did in cur.get("driver_memory_from_notes", {}):
        x = cur["driver_memory_from_notes"][did]
        if d["driver_memory_mib"] is None:
            d["driver_memory_mib"] = x["value"]
            notes.append(x["note"])
    if did in cur.get("marketed_memory_overrides", {}):
        x = cur["marketed_memory_overrides"][did]
        d["memory_gb_marketed"] = x["value"]
        notes.append(x["note"])
    if did in cur.get("reported_names", {}):
        x = cur["reported_names"][did]
        d["reported_names"] = list(x["names"])
        d["sources"] = list(d.get("sources") or []) + ["reported names " + ", ".join(x["names"]) + ": " + x["source"]]
    if did in cur.get("gpu_memory_limit", {}):
        x = cur["gpu_memory_limit"][did]
        d["gpu_memory_limit_mib"] = x["value"]
        notes.append(x["note"])
    for group in cur.get("gpu_arch", {}).get("groups", []):
        if did in group["devices"]:
            d["gpu_arch"] = group["arch"]
            d["sources"] = list(d.get("sources") or []) + ["gpu_arch " + group["arch"] + ": " + group["source"]]
    for group in cur.get("server_modules", {}).get("groups", []):
        if did in group["devices"]:
            d["server_board_gpus"] = group["gpus_per_board"]
            notes.append("Sold as a module on a baseboard of " + " or ".join(map(str, group["gpus_per_board"])) +
                         " GPUs, not as a card: " + group["source"])
    if did in cur.get("driver_memory_withheld", {}):
        d["driver_memory_mib"] = None
        notes.append(cur["driver_memory_withheld"][did])
    for c in r.get("_conflicts", []):
        notes.append(f"Update not applied (value already set): {c}.")
    if did in cur.get("estimates", {}):
        est = cur["estimates"][did]
        for k, v in est.items():
            if k == "note":
                continue
            if k not in d:
                raise BuildError(f"device {did}: estimate for unknown field {k}")
            if d[k] is not None and d[k] != v:
                raise BuildError(f"device {did}: estimate for {k} would overwrite sourced value {d[k]}")
            d[k] = v
            d["estimated_fields"].append(k)
        notes.append("Estimate: " + est["note"])
    if did in cur.get("used_prices", {}):
        u = cur["used_prices"][did]
        d["price_usd_used"] = u["value"]
        d["estimated_fields"].append("price_usd_used")
        notes.append("Estimate: " + u["note"])
    if d["street_prices"]:
        sp = "; ".join(
            f"{p.get('condition')} " + (f"${p['usd_low']}-{p['usd_high']}" if 'usd_low' in p else
                                        f"${p.get('usd', p.get('usd_approx'))}") +
            f" ({p.get('date') or 'undated'}, {p.get('source')})" for p in d["street_prices"])
        notes.append(f"Street prices: {sp}.")
    d["notes"] = join_notes(notes)
    return d


SPEC_FIELDS = [("memory_gb", "memory_gb_marketed"), ("memory_type", "memory_type"), ("bandwidth_gbs", "bandwidth_gb_per_s"),
               ("fp16_tflops", "fp16_tflops"), ("fp32_tflops", "fp32_tflops"), ("fp8_tflops", "fp8_tflops"),
               ("tdp_w", "tdp_w")]


def apply_spec(d, spec, notes):
    """device_specs.json: fill the figures the device lacks; a figure that differs from one already
    sourced is kept in alt_values and named in the notes. Figures the record leaves null (including
    the ones its notes derive from sparse 'AI TOPS') stay null."""
    filled, differ = [], []
    for src_key, key in SPEC_FIELDS:
        v = spec.get(src_key)
        if v is None:
            continue
        v = clean_number(v) if key != "memory_type" else v
        if d.get(key) is None:
            d[key] = v
            filled.append(key)
        elif d[key] != v and key != "memory_type":
            d["alt_values"] = d["alt_values"] or {}
            d["alt_values"].setdefault(key, {})["device_specs.json"] = v
            differ.append(f"{key} {v!r} (kept {d[key]!r})")
    d["sources"] = dedupe(as_list(d.get("sources")) + as_list(spec.get("sources")))
    parts = []
    if filled:
        parts.append("from device_specs.json: " + ", ".join(filled))
    if spec.get("fp16_accumulate") and "fp16_tflops" in filled:
        parts.append(f"fp16_tflops is {spec['fp16_accumulate'].upper()}-accumulate")
    if differ:
        parts.append("device_specs.json differs (not applied): " + "; ".join(differ))
    if parts:
        notes.append("Specs " + "; ".join(parts) + ".")
    if spec.get("notes"):
        notes.append("[device_specs.json] " + spec["notes"])


def never_sold_apple_ids(cur_apple):
    """Device ids of the chip and memory pairs Apple never sold (curated_apple.json memory_options_removed)."""
    ids = set()
    for ch in cur_apple["chips"]:
        for size in cur_apple.get("memory_options_removed", {}).get(ch["ref"], {}).get("sizes", []):
            ids.add(f"mac-{ch['slug']}-{ch['variant']}-{size}gb" if ch.get("variant") else f"mac-{ch['slug']}-{size}gb")
    return ids


def expand_chip_variants(recs, cur_apple):
    """A chip the reference keeps as one record with two GPU-core counts (gpu_cores [16, 20]) whose
    configurations are sold and priced apart: one derived record per variant (curated_apple.json
    chip_variants), each with its own GPU-core count. Returns {variant ref: its curated entry}."""
    variants = {k: v for k, v in cur_apple.get("chip_variants", {}).items() if not k.startswith("_")}
    for ref, v in variants.items():
        base = recs.get(v["from"])
        if base is None:
            raise BuildError(f"curated_apple.json chip_variants: {v['from']} not in the reference")
        if v["gpu_cores"] not in (base.get("gpu_cores") or []):
            raise BuildError(f"curated_apple.json chip_variants: {v['from']} has no {v['gpu_cores']}-core GPU")
        r = copy.deepcopy(base)
        r["id"] = ref
        r["gpu_cores"] = [v["gpu_cores"]]
        r["_more_notes"] = list(r.get("_more_notes", [])) + [v["note"]]
        recs[ref] = r
    return variants


def variant_spec(specs, variant):
    """device_specs.json's record for the chip a variant derives from, its figures scaled by GPU cores
    (spec_scale: a GPU's ALU rate is cores x clock, the same clock on both parts) and those listed as estimates."""
    spec = specs.get(variant.get("specs_from"))
    if spec is None:
        return None, []
    spec = dict(spec)
    scaled = []
    for k, factor in variant.get("spec_scale", {}).items():
        if spec.get(k) is not None:
            spec[k] = round(spec[k] * factor, 3)
            scaled.append(k)
    return spec, scaled


def build_apple(recs, cur_apple, specs=None):
    variants = expand_chip_variants(recs, cur_apple)
    chips = cur_apple["chips"]
    pairs = {}
    for ch in chips:
        r = recs.get(ch["ref"])
        if r is None:
            raise BuildError(f"curated_apple.json: chip {ch['ref']} not in the reference")
        sizes = list(r.get("memory_options_gb") or [r.get("memory_gb")])
        extra = cur_apple.get("memory_options_added", {}).get(ch["ref"])
        if extra:
            sizes = sorted(set(sizes) | set(extra["sizes"]))
        # Ids stay as they were before a never-sold size was dropped (mac-m3-max-40c-64gb).
        for s in sizes:
            pairs.setdefault((ch["slug"], s), []).append(ch["ref"])
        never_sold = cur_apple.get("memory_options_removed", {}).get(ch["ref"])
        if never_sold:
            sizes = [s for s in sizes if s not in never_sold["sizes"]]
        ch["_sizes"] = sizes
    out = {}
    for ch in chips:
        r = recs[ch["ref"]]
        cores = r.get("gpu_cores")
        base_notes = []
        if r.get("notes"):
            base_notes.append(re.sub(r"memory_gb = max (offered config|option)\.\s*", "", r["notes"]))
        base_notes += r.get("_more_notes", [])
        if cores:
            base_notes.append("GPU core options for this chip: " + "/".join(str(c) for c in cores) + ".")
        if r.get("memory_options_gb"):
            never_sold = cur_apple.get("memory_options_removed", {}).get(ch["ref"])
            sold = [m for m in r["memory_options_gb"] if not never_sold or m not in never_sold["sizes"]]
            base_notes.append("Memory options for this chip: " + "/".join(f"{m} GB" for m in sold) + "." +
                              (f" Not {'/'.join(f'{m} GB' for m in never_sold['sizes'])}, which the reference lists: "
                               f"{never_sold['note']} ({'; '.join(never_sold['sources'])})" if never_sold else ""))
        fp16 = r.get("fp16_vector_tflops")
        if fp16 is not None:
            base_notes.append(
                f"fp16_tflops is the FP16 ALU rate of the {r.get('gpu_cores_for_tflops')}-core GPU from NovaMark "
                f"(equal to its FP32 rate; not a matrix-unit figure); other GPU-core variants are slower.")
        for c in r.get("_conflicts", []):
            base_notes.append(f"Update not applied (value already set): {c}.")
        if r.get("street_prices"):
            sp = "; ".join(f"{p.get('condition')} ${p.get('usd_low')}-{p.get('usd_high')} ({p.get('date')}, {p.get('source')})"
                           for p in r["street_prices"])
            base_notes.append(f"Street prices (configuration not stated): {sp}.")
        alt = dict(r.get("alt_values") or {})
        nm = r.get("bandwidth_gbs_novamark")
        if nm is not None and nm != r.get("bandwidth_gbs"):
            alt.setdefault("bandwidth_gbs", {})["NovaMark"] = nm
        for s in ch["_sizes"]:
            ambiguous = len(pairs[(ch["slug"], s)]) > 1
            did = f"mac-{ch['slug']}" + (f"-{ch['variant']}" if ambiguous and ch.get("variant") else "") + f"-{s}gb"
            if did in out:
                raise BuildError(f"Apple device id collision: {did}")
            d = device_skeleton()
            d.update({
                "id": did,
                "name": f"{ch['label']}, {s} GB",
                "vendor": "apple",
                "kind": "unified",
                "backend": "metal",
                "aliases": [ch["ref"]] if s == r.get("memory_gb") else [],
                "_ref": ch["ref"],
                "memory_gb_marketed": s,
                "memory_type": r.get("memory_type"),
                "bandwidth_gb_per_s": clean_number(r.get("bandwidth_gbs")),
                "fp16_tflops": clean_number(fp16),
                "fp32_tflops": clean_number(r.get("fp32_tflops")),
                "tdp_w": clean_number(r.get("tdp_w")),
                "year": r.get("year"),
                "unified_memory": True,
                "sources": dedupe(as_list(r.get("sources"))),
                "estimated_fields": [],
                "alt_values": alt or None,
                "street_prices": r.get("street_prices") or None,
                "_notes": list(base_notes),
            })
            extra = cur_apple.get("memory_options_added", {}).get(ch["ref"])
            if extra and s in extra["sizes"] and s not in (r.get("memory_options_gb") or [r.get("memory_gb")]):
                d["sources"] = dedupe(d["sources"] + as_list(extra["sources"]))
                d["_notes"].append(extra["note"])
            variant = variants.get(ch["ref"])
            spec, scaled = (specs.get(did), []) if specs and did in specs else \
                variant_spec(specs or {}, variant) if variant else (None, [])
            if variant:
                d["aliases"] += [a for a in variant.get("aliases", []) if a not in d["aliases"]]
            if spec:
                apply_spec(d, spec, d["_notes"])
                for k in scaled:
                    d["estimated_fields"].append(k)
                    d["_notes"].append(variant["spec_scale_note"])
                for k, note in cur_apple.get("spec_estimates", {}).get(did, {}).items():
                    if d.get(k) is None:
                        raise BuildError(f"curated_apple.json spec_estimates: {did} has no {k}")
                    d["estimated_fields"].append(k)
                    d["_notes"].append(note)
            out[did] = d
    # Figures of the chip (not of its memory size) that a source states for one
    # configuration only, copied to the chip's other sizes as listed estimates.
    for ref, extra in cur_apple.get("memory_options_added", {}).items():
        figures = extra.get("chip_figures") if isinstance(extra, dict) else None
        if not figures:
            continue
        src = out.get(figures["from"])
        if src is None:
            raise BuildError(f"curated_apple.json chip_figures: {figures['from']} not generated")
        for d in out.values():
            if d["_ref"] != ref or d is src or d["memory_gb_marketed"] not in extra["sizes"]:
                continue
            for k in figures["fields"]:
                if src.get(k) is not None and d.get(k) is None:
                    d[k] = src[k]
                    d["estimated_fields"].append(k)
                    d["_notes"].append(figures["note"])
    # machine records
    for mid, m in cur_apple["machines"].items():
        if mid.startswith("_"):
            continue
        r = recs.get(mid)
        if r is None:
            raise BuildError(f"curated_apple.json: machine {mid} not in the reference")
        t = out.get(m["target"])
        if t is None:
            raise BuildError(f"curated_apple.json: machine target {m['target']} not generated")
        t["aliases"].append(mid)
        t["sources"] = dedupe(t["sources"] + as_list(r.get("sources")))
        mnotes = [r.get("notes")] + r.get("_more_notes", [])
        t["_notes"].append(f"[{m['machine']}, reference record {mid}] " + (join_notes(mnotes) or ""))
        if r.get("year") and t["year"] is None:
            t["year"] = r["year"]
    for bp in cur_apple["base_prices"]:
        t = out.get(bp["target"])
        if t is None:
            raise BuildError(f"curated_apple.json: price target {bp['target']} not generated")
        t["price_usd"] = bp["price_usd"]
        t["price_kind"] = bp["price_kind"]
        t["price_as_of"] = bp["price_as_of"]
        t["price_machine"] = bp["price_machine"]
        if bp.get("alias"):
            t["aliases"].append(bp["alias"])
        t["sources"] = dedupe(t["sources"] + as_list(recs[bp["from_ref"]].get("sources")))
        t["_notes"].append(bp["note"])
    devices = []
    for d in out.values():
        devices.append(d)
    return devices


def apple_price_target(rec, apple_devices, chips_by_ref):
    """An Apple price record names the chip (apple-*) or a machine id; `machine` says the memory size.
    Returns the catalog device of that chip AND memory size."""
    m = re.search(r"(\d+)\s*GB", rec.get("machine") or "")
    if not m:
        raise BuildError(f"device_prices {rec['device_id']}: Apple record without a memory size in machine")
    size = int(m.group(1))
    ref_id = rec["device_id"]
    cands = [d for d in apple_devices if d["memory_gb_marketed"] == size and
             (d["_ref"] == ref_id or ref_id in d["aliases"] or d["id"] == ref_id)]
    if ref_id in chips_by_ref:
        cands = [d for d in cands if d["_ref"] == ref_id]
    else:
        # a machine id (mac-studio-...): its alias target must have that memory size
        owner = [d for d in apple_devices if ref_id in d["aliases"] or d["id"] == ref_id]
        if len(owner) != 1 or owner[0]["memory_gb_marketed"] != size:
            raise BuildError(f"device_prices {ref_id}: machine id does not resolve to a {size} GB device")
        cands = owner
    if len(cands) != 1:
        raise BuildError(f"device_prices {ref_id} ({size} GB): {len(cands)} catalog devices match")
    return cands[0]


def fmt_usd(x):
    return "$" + (f"{x:,.0f}" if x == int(x) else f"{x:,.2f}")


def apply_prices(devices, ref, cur_dev, cur_apple):
    """device_prices.json: one price per catalog device. Several records for one device (a chip's
    machines, duplicate ids) -> the cheapest machine's figure, the others named in the notes. A
    device_prices record is preferred over an older price from gpus.json / gpus_more.json / the
    curated Apple base prices, which stays in alt_values when it differs."""
    src = load_json(ref / "device_prices.json")
    by_id = {}
    for d in devices:
        by_id[d["id"]] = d
        for a in d["aliases"]:
            by_id.setdefault(a, d)
    chips_by_ref = {c["ref"]: c for c in cur_apple["chips"]}
    apple = [d for d in devices if d["vendor"] == "apple"]
    renames = cur_dev.get("price_id_map", {})
    groups = {}
    for rec in src["records"]:
        if rec["price_kind"] not in PRICE_KINDS:
            raise BuildError(f"device_prices {rec['device_id']}: unknown price_kind {rec['price_kind']!r}")
        rid = renames.get(rec["device_id"], rec["device_id"])
        if rid in chips_by_ref or (rid.startswith("mac-") and rid in by_id and by_id[rid]["vendor"] == "apple"):
            target = apple_price_target(dict(rec, device_id=rid), apple, chips_by_ref)
        else:
            target = by_id.get(rid)
            if target is None:
                raise BuildError(f"device_prices: {rec['device_id']} matches no catalog device")
        groups.setdefault(target["id"], []).append(rec)
    for did, recs in groups.items():
        d = next(x for x in devices if x["id"] == did)
        recs = sorted(recs, key=lambda r: r["price_usd"])
        best = recs[0]
        notes = d.setdefault("_price_notes", [])
        old = (d["price_usd"], d["price_kind"], d["price_as_of"])
        if old[0] is not None:
            if old[0] != best["price_usd"]:
                d["alt_values"] = d["alt_values"] or {}
                d["alt_values"].setdefault("price_usd", {})["earlier catalog price (" + (old[1] or "") + ")"] = old[0]
            notes.append(f"Price: the device_prices.json record ({best['price_kind']}, {best['as_of'] or 'undated'}) "
                         f"is preferred over the earlier {fmt_usd(old[0])} ({old[1]}, {old[2] or 'undated'}) from "
                         "gpus.json / gpus_more.json / curated_apple.json" +
                         (" (same figure)." if old[0] == best["price_usd"] else "."))
        d["price_usd"] = clean_number(best["price_usd"])
        d["price_kind"] = best["price_kind"]
        d["price_as_of"] = best["as_of"]
        d["price_low_usd"] = clean_number(best["price_low_usd"])
        d["price_high_usd"] = clean_number(best["price_high_usd"])
        d["price_machine"] = best.get("machine")
        # The reference marks its weakest figures in the record's notes; such a
        # price is shown with that label and never answers "what to buy".
        d["price_low_confidence"] = True if (best.get("notes") or "").upper().startswith("LOW CONFIDENCE") else None
        if "price_usd" in d["estimated_fields"]:
            d["estimated_fields"].remove("price_usd")
        d["sources"] = dedupe(d["sources"] + [s for r in recs for s in as_list(r.get("sources"))])
        label = f" ({best['machine']})" if best.get("machine") else ""
        notes.append(f"Price{label}: " + (best.get("notes") or f"{best['price_kind']}."))
        for r in recs[1:]:
            same = r["price_usd"] == best["price_usd"] and r.get("machine") == best.get("machine")
            what = f"record {r['device_id']}" + (f" ({r['machine']})" if r.get("machine") else "")
            notes.append(f"Other price: {what}: " + ("same figure. " if same else
                         f"{fmt_usd(r['price_usd'])} {r['price_kind']} ({r['as_of'] or 'undated'}). ") + (r.get("notes") or ""))
    # prices from gpus.json / curated without a device_prices record keep their own fields
    for d in devices:
        if d["price_usd"] is not None and d["price_kind"] not in PRICE_KINDS:
            raise BuildError(f"device {d['id']}: price {d['price_usd']} without a known price_kind")


def price_date_key(r):
    return str(r.get("as_of") or "")


def price_date(text):
    """A source's date as the catalog writes dates: "2026-Q1" is the year."""
    if not text:
        return None
    m = re.match(r"^(\d{4})(-\d{2}(-\d{2})?)?$", text)
    if m:
        return text
    m = re.match(r"^(\d{4})", text)
    return m.group(1) if m else None


def weak_price(r):
    """A figure its finder or reviewer doubted: shown labelled, never a purchase answer."""
    return re.search(r"doubt|low confidence", f"{r.get('note') or ''} {r.get('notes') or ''}", re.I) is not None


def apply_sourced_prices(devices, records):
    """sourced_prices.json (each record with its source, date and quote): a
    current street price replaces a launch MSRP (kept as launch_price_usd), and
    a module sold only in 8-GPU servers gets the newest dated whole-server price."""
    by_id = {d["id"]: d for d in devices}
    groups = {}
    for r in records:
        if r["device_id"] not in by_id:
            raise BuildError(f"sourced_prices: {r['device_id']} is not a catalog device")
        # A part of a machine (CPU, board, RAM) prices only the sum of all three.
        groups.setdefault((r["device_id"], "component" if r.get("component") else r["kind"]), []).append(r)
    for (did, kind), recs in sorted(groups.items()):
        d = by_id[did]
        notes = []
        recs = sorted(recs, key=price_date_key)
        if kind == "street_new":
            figures = [x for r in recs for x in (r.get("usd"), r.get("usd_low"), r.get("usd_high")) if x]
            points = [r for r in recs if r.get("usd") or r.get("usd_low")]  # a quoted range stands at its low end
            # The newest figure nobody doubted; a doubted one only when there is nothing else.
            confident = [r for r in points if not weak_price(r)]
            pool = confident or points or recs
            # The newest month's offers (recs are sorted by date): the cheapest of them
            # is what a buyer pays now, where several shops or machines built on
            # the chip (a dozen Strix Halo boxes) were priced that month.
            month = str(pool[-1].get("as_of") or "")[:7]
            newest = [r for r in pool if str(r.get("as_of") or "")[:7] == month and (r.get("usd") or r.get("usd_low"))]
            chosen = min(newest, key=lambda r: r.get("usd") or r.get("usd_low")) if month and newest else pool[-1]
            usd = chosen.get("usd") or chosen.get("usd_low")
            if d["price_kind"] in ("launch_msrp", "list") and not d["launch_price_usd"]:
                d["launch_price_usd"] = d["price_usd"]
            before = f"{fmt_usd(d['price_usd'])} ({d['price_kind']}, {d['price_as_of'] or 'undated'})" if d["price_usd"] else "none"
            d["price_usd"] = clean_number(usd)
            d["price_kind"] = "street_new"
            d["price_as_of"] = price_date(chosen.get("as_of"))
            d["price_low_usd"] = clean_number(min(figures)) if len(set(figures)) > 1 else None
            d["price_high_usd"] = clean_number(max(figures)) if len(set(figures)) > 1 else None
            # A machine (Strix Halo, DGX Spark boxes) says which one the price buys.
            d["price_machine"] = chosen.get("what") if d.get("kind") in ("unified", "apu") else None
            d["price_low_confidence"] = True if weak_price(chosen) else None
            notes.append(f"Price: street price, new, {chosen.get('what')} ({chosen.get('as_of')}; {chosen['source']}); "
                         f"the catalog's earlier figure was {before}" +
                         "".join(f"; also {fmt_usd(r.get('usd') or r.get('usd_low'))}"
                                 f"{'-' + fmt_usd(r['usd_high']) if r.get('usd_high') else ''} ({r.get('as_of')}, {r['source']})"
                                 for r in recs if r is not chosen) + ".")
        elif kind == "server_system":
            # A whole-server price answers "what to buy": never a doubted figure.
            dated = [r for r in recs if r.get("as_of") and r.get("usd") and r.get("system_gpus") and not weak_price(r)]
            if not dated:
                continue
            chosen = dated[-1]
            d["server_price_usd"] = clean_number(chosen["usd"])
            d["server_gpus"] = chosen["system_gpus"]
            d["server_name"] = re.split(r"[:(]", chosen["what"])[0].strip()
            d["server_price_as_of"] = price_date(chosen["as_of"])
            notes.append(f"Server price: {chosen['what']} {fmt_usd(chosen['usd'])} ({chosen['as_of']}; {chosen['source']})" +
                         "".join(f"; also {r.get('what')} {fmt_usd(r['usd'])} ({r.get('as_of') or 'undated'})"
                                 for r in recs if r is not chosen and r.get("usd")) + ".")
        elif kind == "component":
            # A CPU-only machine's platform: CPU + board + RAM, one sourced price each.
            parts = {}
            for r in recs:
                if r.get("usd") and r.get("component") in ("cpu", "board", "ram"):
                    parts.setdefault(r["component"], r)  # the oldest-sorted first; newest below
                    if price_date_key(r) >= price_date_key(parts[r["component"]]):
                        parts[r["component"]] = r
            if set(parts) != {"cpu", "board", "ram"} or d["price_usd"] is not None:
                continue
            # A RAM record may price one module of the several the machine holds.
            d["price_usd"] = clean_number(sum(r["usd"] * (r.get("modules") or 1) for r in parts.values()))
            d["price_kind"] = "platform_components"
            d["price_as_of"] = price_date(max(price_date_key(r) for r in parts.values()))
            d["price_machine"] = "; ".join(
                f"{k}: {parts[k]['what']} " +
                (f"{parts[k]['modules']} x {fmt_usd(parts[k]['usd'])}" if parts[k].get("modules") else fmt_usd(parts[k]['usd']))
                for k in ("cpu", "board", "ram"))
            d["price_low_confidence"] = True if any(weak_price(r) for r in parts.values()) else None
            notes.append("Price: the platform's CPU, board and RAM summed, each from its source (" +
                         "; ".join(f"{k} {parts[k]['source']}" for k in ("cpu", "board", "ram")) + ").")
            recs = list(parts.values())
        elif d["price_usd"] is None and d.get("server_price_usd") is None:
            # A device with no price: the newest sourced figure of any other kind.
            usable = [r for r in recs if (r.get("usd") or r.get("usd_low"))]
            if not usable:
                continue
            chosen = ([r for r in usable if not weak_price(r)] or usable)[-1]
            d["price_usd"] = clean_number(chosen.get("usd") or chosen.get("usd_low"))
            d["price_kind"] = {"list_price": "list"}.get(kind, kind)
            d["price_as_of"] = price_date(chosen.get("as_of"))
            lows = [x for r in usable for x in (r.get("usd"), r.get("usd_low"), r.get("usd_high")) if x]
            d["price_low_usd"] = clean_number(min(lows)) if len(set(lows)) > 1 else None
            d["price_high_usd"] = clean_number(max(lows)) if len(set(lows)) > 1 else None
            if d["vendor"] == "apple" or "laptop" in d["id"]:
                d["price_machine"] = chosen.get("what")
            d["price_low_confidence"] = True if weak_price(chosen) else None
            notes.append(f"Price: {kind}, {chosen.get('what')} ({chosen.get('as_of') or 'undated'}; {chosen['source']}).")
            recs = [chosen]
        else:
            continue  # a device already priced keeps its figure; the record stays in the file
        d["sources"] = dedupe(d["sources"] + [r["source"] for r in recs])
        d["notes"] = join_notes([d["notes"]] + notes)


def apply_superseded(devices, docs):
    """sourced_superseded*.json: machines their maker no longer sells new (an
    Apple chip its successor replaced), each with its date and source. Their
    launch or list price is not what a buyer pays: a sourced used price
    replaces it (labelled used), else the price is doubted, so no purchase
    answer names the machine at a price nobody pays."""
    by_id = {d["id"]: d for d in devices}
    used = {}
    for doc in docs:
        for r in doc.get("used_prices", []):
            if r["device_id"] not in by_id:
                raise BuildError(f"sourced_superseded used_prices: {r['device_id']} is not a catalog device")
            if r.get("usd") or r.get("usd_low"):
                used.setdefault(r["device_id"], []).append(r)
    # A device several records cover (a chip sold on in another machine) ends
    # with the last of them; a record without a date says nothing.
    last = {}
    for doc in docs:
        for s in doc.get("superseded", []):
            for did in s["devices"]:
                if did not in by_id:
                    raise BuildError(f"sourced_superseded: {did} is not a catalog device")
                if s.get("sold_new_until") and (did not in last or price_date_key({"as_of": s["sold_new_until"]}) >=
                                                 price_date_key({"as_of": last[did]["sold_new_until"]})):
                    last[did] = s
    for did, s in sorted(last.items()):
        d = by_id[did]
        offers = sorted(used.get(did, []), key=price_date_key)
        cheaper_used = [r for r in offers if not weak_price(r) and d["price_usd"] and
                        (r.get("usd") or r.get("usd_low")) < d["price_usd"]]
        # A new street price of a card no longer made is old stock: where the
        # used market is sourced and cheaper, that is what a buyer pays.
        if not d["price_usd"] or (d["price_kind"] not in ("launch_msrp", "list") and
                                  not (d["price_kind"] == "street_new" and cheaper_used)):
            continue  # a current street price (or none) already says what a buyer pays
        d["sold_new_until"] = price_date(s["sold_new_until"])
        gone = (f"No longer sold new: {s.get('line', '')} {s.get('chip', '')} until {s['sold_new_until']}"
                f", replaced by {s.get('replaced_by', 'its successor')} ({s['source']})").replace("  ", " ")
        confident = [r for r in offers if not weak_price(r)]
        if offers:
            chosen = (confident or offers)[-1]
            if d["price_kind"] in ("launch_msrp", "list"):
                d["launch_price_usd"] = d["launch_price_usd"] or d["price_usd"]
            before = f"{fmt_usd(d['price_usd'])} ({d['price_kind']}, {d['price_as_of'] or 'undated'})"
            d["price_usd"] = clean_number(chosen.get("usd") or chosen.get("usd_low"))
            d["price_kind"] = "street_used"
            d["price_as_of"] = price_date(chosen.get("as_of"))
            lows = [x for x in (chosen.get("usd_low"), chosen.get("usd"), chosen.get("usd_high")) if x]
            d["price_low_usd"] = clean_number(min(lows)) if len(set(lows)) > 1 else None
            d["price_high_usd"] = clean_number(max(lows)) if len(set(lows)) > 1 else None
            d["price_machine"] = chosen.get("what")
            d["price_low_confidence"] = True if weak_price(chosen) else None
            note = (f"{gone}. Price: used, {chosen.get('what')} ({chosen.get('as_of')}; {chosen['source']});"
                    f" the new price was {before}.")
            d["sources"] = dedupe(d["sources"] + [s["source"], chosen["source"]])
        else:
            d["price_low_confidence"] = True
            note = (f"{gone}: its {d['price_kind'].replace('_', ' ')} of {fmt_usd(d['price_usd'])} is not what a"
                    " buyer pays, and no used price is sourced: LOW CONFIDENCE, not a purchase answer.")
            d["sources"] = dedupe(d["sources"] + [s["source"]])
        d["notes"] = join_notes([d["notes"], note])


SOURCED_SPEC_FIELDS = {"bandwidth_gb_per_s": "bandwidth_gb_per_s", "memory_bandwidth": "bandwidth_gb_per_s",
               "bandwidth": "bandwidth_gb_per_s", "fp16_tflops": "fp16_tflops", "fp16": "fp16_tflops"}


STALE_AFTER_YEARS = 3


def apply_stale_launch_prices(devices):
    """A launch-time price (launch MSRP, list, an analyst's release estimate)
    dated more than STALE_AFTER_YEARS before the catalog's newest price, with
    no later price sourced, says nothing about what a buyer pays now (a 2018
    Quadro at its $10,000 launch price, a 2021 estimate for an MI250X that
    sells only in servers): doubted, so it is shown labelled and never answers
    "what to buy". Measured against the catalog's own newest date, not the
    clock, so a rebuild of the same data gives the same catalog."""
    dated = [price_date(d["price_as_of"]) for d in devices if d["price_usd"] and price_date(d["price_as_of"])]
    if not dated:
        return
    newest = max(dated)
    cutoff = f"{int(newest[:4]) - STALE_AFTER_YEARS}{newest[4:7]}"
    for d in devices:
        if not d["price_usd"] or d["price_low_confidence"] or d["price_kind"] not in ("launch_msrp", "list", "analyst_estimate"):
            continue
        when = price_date(d["price_as_of"]) or (str(d["year"]) if d.get("year") else None)
        if when is None or when[:7] >= cutoff:
            continue
        d["price_low_confidence"] = True
        d["notes"] = join_notes([d["notes"], f"Price: its {d['price_kind'].replace('_', ' ')} of {fmt_usd(d['price_usd'])} dates from "
                                 f"{when}, more than {STALE_AFTER_YEARS} years before the catalog's newest prices ({newest[:7]}),"
                                 " and no later price is sourced: LOW CONFIDENCE, not a purchase answer."])


def apply_machine_aliases(devices, machines):
    """curated machine_aliases: the machines sold with one chip under their own
    names (Framework Desktop, GMKtec EVO-X2 for the Ryzen AI Max+ 395), found by
    those names whichever of them prices the device."""
    by_id = {d["id"]: d for d in devices}
    taken = {a for d in devices for a in [d["id"]] + d["aliases"]}
    for did, m in sorted((k, v) for k, v in machines.items() if not k.startswith("_")):
        if did not in by_id:
            raise BuildError(f"curated_devices.json machine_aliases: {did} is not a catalog device")
        clash = [a for a in m["aliases"] if a in taken]
        if clash:
            raise BuildError(f"curated_devices.json machine_aliases: {clash} already name a device")
        by_id[did]["aliases"] = dedupe(by_id[did]["aliases"] + m["aliases"])
        by_id[did]["sources"] = dedupe(by_id[did]["sources"] + [m["source"]])
        taken.update(m["aliases"])


# A package's figures that split evenly between the GPUs it holds.
PACKAGE_SPLIT_FIELDS = ("memory_gb_marketed", "driver_memory_mib", "gpu_memory_limit_mib", "bandwidth_gb_per_s",
                        "fp16_tflops", "fp16_acc16_tflops", "fp8_tflops", "int8_tops", "fp4_tflops", "fp32_tflops",
                        "tdp_w", "price_usd", "price_low_usd", "price_high_usd", "price_usd_used", "launch_price_usd")


def apply_gpu_packages(devices, packages):
    """curated gpu_packages: a module that holds several GPUs the software sees
    one by one (an MI250X is two GCDs, each its own ROCm device with half the
    memory and bandwidth). The catalog device is the GPU the runtimes count, so
    that a count, a -tp size, a layer split and a per-GPU buffer are the
    software's; a sourced per-module figure (memory, bandwidth, FLOPS, power,
    price) is divided, and a baseboard of N modules holds N x gpus GPUs."""
    by_id = {d["id"]: d for d in devices}
    for did, p in sorted((k, v) for k, v in packages.items() if not k.startswith("_")):
        if did not in by_id:
            raise BuildError(f"curated_devices.json gpu_packages: {did} is not a catalog device")
        d, n = by_id[did], p["gpus"]
        if not (isinstance(n, int) and n >= 2):
            raise BuildError(f"curated_devices.json gpu_packages: {did} gpus must be an integer of at least 2")
        for k in PACKAGE_SPLIT_FIELDS:
            if d[k] is not None:
                d[k] = clean_number(d[k] / n)
        board = ""
        if d["server_board_gpus"]:
            board = (" A baseboard of " + " or ".join(map(str, d["server_board_gpus"])) + " modules is " +
                     " or ".join(str(g * n) for g in d["server_board_gpus"]) + " GPUs.")
            d["server_board_gpus"] = [g * n for g in d["server_board_gpus"]]
        if d["server_gpus"]:
            d["server_gpus"] *= n
        d["package_gpus"] = n
        d["name"] = p["name"]
        d["aliases"] = dedupe(d["aliases"] + p.get("aliases", []))
        d["sources"] = dedupe(d["sources"] + [p["source"]])
        d["notes"] = join_notes([d["notes"], f"One of the {n} GPUs of a module ({p['source']}): the module's memory,"
                                 f" bandwidth, FLOPS, power and price above are divided by {n}; a count is of GPUs"
                                 f" as ROCm and the runtimes number them." + board])


def apply_sourced_specs(devices, records):
    """Specs a source states for a device that has none (the "specs" lists of sourced_prices*.json):
    filled where the catalog is blank, never over a figure it has. A matrix rate quoted with
    sparsity is not the dense rate the speed model reads: kept out. A doubted figure (LOW
    CONFIDENCE) or a range's middle is filled as an estimate: listed in estimated_fields, with
    the doubt in the notes, so the speeds that follow it say so; a confident figure found later
    for the same field replaces it."""
    by_id = {d["id"]: d for d in devices}
    # Confident figures first; among doubted ones the latest round's (records come in file order,
    # and a later round was sourced knowing the earlier one's doubts).
    order = sorted(range(len(records)), key=lambda i: (weak_price(records[i]), -i))
    for r in (records[i] for i in order):
        d = by_id.get(r.get("device_id"))
        field = next((v for k, v in SOURCED_SPEC_FIELDS.items() if k in str(r.get("field", "")).lower()), None)
        value, ranged = r.get("value"), None
        low, high = r.get("value_low"), r.get("value_high")
        if value is None and isinstance(low, (int, float)) and isinstance(high, (int, float)) and 0 < low <= high:
            value, ranged = (low + high) / 2, (low, high)
        if d is None or field is None or not isinstance(value, (int, float)) or value <= 0 or not r.get("source"):
            continue
        text = f"{r.get('field')} {r.get('note') or ''} {r.get('quote') or ''}"
        if field == "fp16_tflops" and re.search(r"sparsit|sparse", text, re.I) and \
                not re.search(r"dense|without sparsity", text, re.I):
            continue
        if d.get(field) is not None:
            continue
        d[field] = clean_number(value)
        d["sources"] = dedupe(d["sources"] + [r["source"]])
        when = r.get("as_of") or "undated"
        if ranged or weak_price(r):
            d["estimated_fields"].append(field)
            what = (f"the middle of the {ranged[0]:g}-{ranged[1]:g} range" if ranged else f"{value:g}")
            doubt = (r.get("note") or "").strip()
            d["notes"] = join_notes([d["notes"], f"Estimate: {field} {clean_number(value):g} is {what} from "
                                                 f"{r['source']} ({when}). {doubt}".strip()])
        else:
            d["notes"] = join_notes([d["notes"], f"{field} {value:g} from {r['source']} ({when})."])


def sourced_spec_records():
    return [r for path in sorted(SCRIPT_DIR.glob("sourced_prices*.json")) for r in load_json(path).get("specs", [])]


def exchange_rates():
    """Sourced rates, currency -> [(date, units per USD, source)], from sourced_exchange_rates*.json
    and the exchange_rates lists of the price files."""
    rates = {}
    for path in sorted(SCRIPT_DIR.glob("sourced_exchange_rates*.json")) + sorted(SCRIPT_DIR.glob("sourced_prices*.json")):
        data = load_json(path)
        for r in data.get("rates", []) + data.get("exchange_rates", []):
            per_usd = r.get("per_usd") or r.get("cny_per_usd")
            currency = r.get("currency") or ("CNY" if r.get("cny_per_usd") else None)
            if currency and per_usd and r.get("date") and r.get("source"):
                rates.setdefault(currency, []).append((str(r["date"]), float(per_usd), r["source"], weak_price(r)))
    return rates


def middle_of(when):
    """A date as precise as its source: '2026' is mid-year, '2026-04' mid-month."""
    when = str(when or "")
    if re.fullmatch(r"\d{4}", when):
        return when + "-07-01"
    if re.fullmatch(r"\d{4}-\d{2}", when):
        return when + "-15"
    return when[:10]


def in_usd(r, rates):
    """A record priced in another currency, in USD at the sourced rate nearest its date (the
    conversion said in 'what' and the rate's source added); None without a rate."""
    currency, amount = r.get("currency"), r.get("amount")
    if not currency or not amount or not rates.get(currency):
        return None
    when = middle_of(r.get("as_of"))
    def distance(rate):
        a, b = when, middle_of(rate[0])
        try:
            return abs((datetime.date.fromisoformat(a) - datetime.date.fromisoformat(b)).days)
        except ValueError:
            return 10 ** 6
    nearest = min(rates[currency], key=distance)
    if distance(nearest) > 183:
        return None  # a rate half a year or more from the price is not its rate
    date, per_usd, source, weak_rate = nearest
    out = dict(r)
    if weak_rate:  # a doubted rate makes a doubted price
        out["note"] = f"LOW CONFIDENCE exchange rate. {r.get('note') or ''}".strip()
    out["usd"] = round(amount / per_usd)
    out["what"] = f"{r.get('what')} ({currency} {amount:,} at {per_usd:g} {currency} per USD on {date})"
    out["source"] = f"{r['source']}; rate: {source}"
    return out


def sourced_price_records():
    """The sourced_prices*.json records that give a USD figure, or an amount a sourced rate converts."""
    rates = exchange_rates()
    # Every round's file: a list naming them stopped reading new rounds.
    records = [r for path in sorted(SCRIPT_DIR.glob("sourced_prices*.json")) for r in load_json(path).get("records", [])]
    usable = []
    for r in records:
        if r.get("usd") or r.get("usd_low"):
            usable.append(r)
        elif (converted := in_usd(r, rates)) is not None:
            usable.append(converted)
    return usable


def build_devices(ref, cur_dev, cur_apple):
    recs = merge_device_records(ref, cur_dev)
    specs = {s["id"]: s for s in load_json(ref / "device_specs.json")["records"]}
    cur_dev = dict(cur_dev, _specs=specs)
    apple_refs = {c["ref"] for c in cur_apple["chips"]} | {k for k in cur_apple["machines"] if not k.startswith("_")} | \
        {v["from"] for k, v in cur_apple.get("chip_variants", {}).items() if not k.startswith("_")}
    devices = []
    for did, r in recs.items():
        if did in apple_refs:
            continue
        if r.get("vendor") == "Apple":
            raise BuildError(f"Apple record {did} not covered by curated_apple.json")
        devices.append(normalize_device(r, cur_dev))
    devices += build_apple(recs, cur_apple, specs)
    known = {d["id"] for d in devices} | \
        {v.get("specs_from") for k, v in cur_apple.get("chip_variants", {}).items() if not k.startswith("_")}
    unknown = sorted(set(specs) - known - never_sold_apple_ids(cur_apple))
    if unknown:
        raise BuildError(f"device_specs.json ids not in the catalog: {unknown}")
    apply_prices(devices, ref, cur_dev, cur_apple)
    for d in devices:
        if "_notes" in d:
            d["notes"] = join_notes(d.pop("_notes") + d.pop("_price_notes", []))
        elif "_price_notes" in d:
            d["notes"] = join_notes([d["notes"]] + d.pop("_price_notes"))
        d.pop("_ref", None)
    ids = {d["id"] for d in devices}
    for group in cur_dev.get("gpu_arch", {}).get("groups", []):
        unknown = [i for i in group["devices"] if i not in ids]
        if unknown:
            raise BuildError(f"curated_devices.json gpu_arch: {unknown} not in the catalog")
    for group in cur_dev.get("server_modules", {}).get("groups", []):
        unknown = [i for i in group["devices"] if i not in ids]
        if unknown:
            raise BuildError(f"curated_devices.json server_modules: {unknown} not in the catalog")
    for d in devices:
        if set(d) != set(DEVICE_KEYS):
            raise BuildError(f"device {d['id']}: keys {sorted(set(d) ^ set(DEVICE_KEYS))} differ from the schema")
    return [{k: d[k] for k in DEVICE_KEYS} for d in devices]


# ----------------------------------------------------------------------------- CPU-only machines

def cpu_fp32_peak(compute):
    """A CPU machine's FP32 FMA peak in TFLOPS: sockets x cores x base clock x FP32 FLOPs per cycle
    per core, each a sourced figure (sourced_cpu_compute.json), with the sentence that says so;
    (None, None) where one is missing. The base clock, not the boost: all cores busy on a GEMM
    do not hold the single-core boost, and the prefill efficiency fitted on top absorbs the rest."""
    if not compute:
        return None, None
    factors = [compute.get(k) for k in ("sockets", "cores", "clock_ghz", "fp32_flops_per_cycle_per_core")]
    if not all(isinstance(f, (int, float)) and f > 0 for f in factors) or compute.get("clock_kind") != "base":
        return None, None
    sockets, cores, ghz, per_cycle = factors
    tflops = clean_number(sockets * cores * ghz * per_cycle / 1000)
    note = (f"FP32 peak {tflops:g} TFLOPS = {sockets:g} socket(s) x {cores:g} cores x {ghz:g} GHz base x "
            f"{per_cycle:g} FP32 FLOPs per cycle per core (FMA pipes: {compute.get('simd') or 'SIMD not stated'}); "
            f"prefill reads it through llama.cpp's fitted CPU efficiency.")
    return tflops, note


def cpu_simd(compute):
    """The widest vector instruction set the sourced SIMD text names: "avx512", "avx2" or None."""
    text = (compute or {}).get("simd") or ""
    if re.search(r"AVX-?512", text, re.I):
        return "avx512"
    if re.search(r"AVX2", text, re.I):
        return "avx2"
    return None


def build_cpu_machines(ref, cur, compute_records=()):
    """curated_cpu_machines.json -> devices of kind cpu: memory = the machine's RAM, bandwidth =
    channels x 8 bytes x MT/s / 1000 (system_ram.json's formula), checked against the platform's own
    figure where it states one; the FP32 peak from sourced cores, clock and FLOPs per cycle
    (sourced_cpu_compute.json) where all three are sourced. No TDP is sourced: it stays null."""
    compute_by_id = {c["device_id"]: c for c in compute_records}
    src = load_json(ref / "system_ram.json")
    platforms = {p["id"]: p for p in src["platforms"]}
    systems = [r.get("system") for r in src["measured_tokens_per_second"] + src["measured_bandwidth"]]
    out = []
    for m in cur["machines"]:
        plat = platforms.get(m["platform"])
        if plat is None:
            raise BuildError(f"cpu machine {m['id']}: platform {m['platform']!r} not in system_ram.json")
        if m.get("system") and m["system"] not in systems:
            raise BuildError(f"cpu machine {m['id']}: system {m['system']!r} not in system_ram.json")
        bw = clean_number(m["channels"] * 8 * m["speed_mt_s"] / 1000)
        stated = plat.get("gbs_theoretical") or plat.get("gbs_theoretical_per_socket") or plat.get(
            "gbs_theoretical_total")
        same_memory = (plat.get("memory") or "").startswith(f"{m['memory_type']}-{m['speed_mt_s']}")
        if stated and same_memory and plat.get("channels") == m["channels"] and abs(stated - bw) > 1.0:
            raise BuildError(f"cpu machine {m['id']}: {bw} GB/s disagrees with the platform's {stated}")
        d = device_skeleton()
        sources = as_list(plat.get("sources"))
        for row in src["measured_tokens_per_second"] + src["measured_bandwidth"]:
            if m.get("system") and row.get("system") == m["system"]:
                sources += as_list(row.get("source"))
        compute = compute_by_id.get(m["id"])
        fp32_tflops, fp32_note = cpu_fp32_peak(compute)
        if fp32_tflops:
            sources += [src_row["source"] for src_row in compute.get("sources", []) if src_row.get("source")]
        notes = [f"CPU-only machine: memory is its system RAM ({m['ram_from']}); bandwidth "
                 f"{m['channels']} channels x 8 bytes x {m['speed_mt_s']} MT/s = {bw} GB/s theoretical "
                 f"(channels: {m['channels_from']}).",
                 fp32_note or "No CPU matrix throughput is sourced (a core count, base clock or FLOPs per cycle "
                               "is missing): no prefill or TTFT."]
        if m.get("measured_note"):
            notes.append(m["measured_note"])
        if m.get("two_sockets"):
            notes.append("Two sockets: each reads its own 12 channels; a model spread over both NUMA nodes "
                         "reads part of its weights across the socket link.")
        d.update({
            "id": m["id"], "name": m["name"], "vendor": cur_vendor(m["vendor"]), "kind": "cpu", "backend": "cpu",
            "aliases": [], "memory_gb_marketed": m["memory_gb"], "memory_type": m["memory_type"],
            "bandwidth_gb_per_s": bw, "fp32_tflops": fp32_tflops, "cpu_simd": cpu_simd(compute),
            "year": m.get("year"), "unified_memory": False,
            "sources": dedupe(sources), "estimated_fields": [], "notes": join_notes(notes),
        })
        if m.get("measured_gb_per_s"):
            d["alt_values"] = {"bandwidth_gb_per_s": {"measured (system_ram.json measured_bandwidth)":
                                                      m["measured_gb_per_s"]}}
        out.append(d)
    return out


def cur_vendor(name):
    vendors = {"AMD": "amd", "Intel": "intel"}
    if name not in vendors:
        raise BuildError(f"cpu machine vendor {name!r} unknown")
    return vendors[name]


# ----------------------------------------------------------------------------- system RAM

def parse_mem(type_str):
    m = re.match(r"^(LPDDR\dX?|DDR\d)-(\d+)", type_str, re.I)
    if not m:
        raise BuildError(f"cannot parse memory type {type_str!r}")
    return m.group(1).upper().replace("X", "x"), int(m.group(2))


def build_system_ram(ref):
    src = load_json(ref / "system_ram.json")
    per = {p["type"]: p for p in src["per_channel_theoretical"]}
    profiles = []

    def add(mem, channels, sources, name=None, platform=None, measured=None, notes=None, pid=None):
        mtype, speed = parse_mem(mem)
        bw = None if channels is None else clean_number(channels * 8 * speed / 1000)
        profiles.append({
            "id": pid or f"{mtype.lower()}-{speed}-{channels}ch",
            "name": name or f"{mtype}-{speed}, {channels} channel{'s' if channels != 1 else ''}",
            "memory_type": mtype,
            "channels": channels,
            "speed_mt_s": speed,
            "bandwidth_gb_per_s": bw,
            "measured_bandwidth_gb_per_s": measured,
            "platform": platform,
            "notes": notes,
            "sources": dedupe(as_list(sources)),
        })

    # Desktop dual-channel (the per-channel table gives one and two channels).
    platform_of = {p.get("memory"): p for p in src["platforms"] if p.get("class") == "desktop"}
    measured_by_mem = {
        "DDR5-6000": (64, "Measured 64 GB/s on a Ryzen 7 7800X3D with 2x DDR5-6000, 'limited by 1 CCD' "
                          "(github.com/ggml-org/llama.cpp/pull/13435); CPUs with two CCDs or Intel parts read faster.",
                      "https://github.com/ggml-org/llama.cpp/pull/13435 (Panchovix, 2025-05-14)"),
    }
    for t, p in per.items():
        srcs = as_list(p["sources"])
        plat = platform_of.get(t)
        if plat:
            srcs += as_list(plat["sources"])
        measured, note = None, None
        if t in measured_by_mem:
            measured, note, msrc = measured_by_mem[t]
            srcs.append(msrc)
        if p.get("gbs_dual_channel") is not None and abs(p["gbs_dual_channel"] - 2 * p["gbs_per_channel"]) > 0.05:
            raise BuildError(f"system_ram {t}: dual-channel figure disagrees with 2x per-channel")
        add(t, 2, srcs, platform="desktop dual channel" if plat else None, measured=measured, notes=note)

    # Platforms with a stated channel count.
    plat_rows = [
        ("amd-epyc-7002-7003-rome-milan", "DDR4-3200", 8, "AMD EPYC 7002/7003 (Rome/Milan), per socket", None),
        ("amd-epyc-9004-genoa", "DDR5-4800", 12, "AMD EPYC 9004 (Genoa), per socket", None),
        ("intel-xeon-sapphire-rapids", "DDR5-4800", 8, "Intel Xeon Sapphire Rapids, per socket", None),
        ("amd-threadripper-pro-7975wx", "DDR5-4800", 8, "AMD Threadripper PRO 7975WX (8-channel DDR5-4800 ECC)", None),
        ("amd-epyc-dual-9135-ddr5-6400", "DDR5-6400", 24, "2x AMD EPYC 9135, 24x DDR5-6400 (two sockets)",
         "The source states 'total memory bandwidth 1228 GB/s' for this system."),
    ]
    plat_by_id = {p["id"]: p for p in src["platforms"]}
    merged = {}
    for pid, mem, ch, platform, note in plat_rows:
        p = plat_by_id[pid]
        key = f"{mem.lower()}-{ch}ch"
        srcs = as_list(p["sources"]) + as_list(per.get(mem, {}).get("sources"))
        if key in merged:
            prof = merged[key]
            prof["platform"] += "; " + platform
            prof["sources"] = dedupe(prof["sources"] + srcs)
            continue
        add(mem, ch, srcs, platform=platform, notes=note)
        merged[key] = profiles[-1]

    # HEDT quad channel: a measured_speeds.json row names 'quad-channel DDR4 ~102 GB/s' (i9-10900X).
    add("DDR4-3200", 4, as_list(per["DDR4-3200"]["sources"]) + [
        "/work/shared/reference/measured_speeds.json (device 'NVIDIA GeForce RTX 2080 8GB + i9-10900X (quad-channel DDR4 ~102 GB/s)')"],
        platform="HEDT quad channel (e.g. Intel i9-10900X)")

    # Integrated-GPU shared-memory examples.
    for ex in src["shared_memory_igpu_examples"]:
        m = re.match(r"^(?:LPDDR5-5600 / )?((?:LP)?DDR\dX?-\d+) dual channel", ex["platform"])
        if not m:
            continue
        mem = m.group(1)
        mtype, speed = parse_mem(mem)
        pid = f"{mtype.lower()}-{speed}-2ch"
        if any(p["id"] == pid for p in profiles):
            prof = next(p for p in profiles if p["id"] == pid)
            prof["sources"] = dedupe(prof["sources"] + [ex["source"]])
            continue
        add(mem, 2, [ex["source"]], platform="integrated-GPU laptop/desktop example: " + ex["platform"],
            notes=f"The source states {ex['gbs']} GB/s for this setup.")

    # Strix Halo: 256-bit LPDDR5x-8000 (= four 64-bit channels), measured ~215 GB/s (gpus.json ryzen-ai-max-plus-395).
    add("LPDDR5x-8000", 4, ["github.com/lhl/strix-halo-testing llm-bench/README.md (commit 5ee14b5b): 128GB LPDDR5x-8000, "
                            "~215 GB/s measured of 256 GB/s theoretical (256-bit 8000 MT/s)"],
        platform="AMD Ryzen AI Max+ 395 (Strix Halo), 256-bit bus", measured=215,
        notes="Four 64-bit channels = the 256-bit bus; ~215 GB/s measured GPU bandwidth.")

    # Measured per-socket bandwidth without a stated channel count.
    p = plat_by_id["intel-xeon-6980p"]
    profiles.append({
        "id": "intel-xeon-6980p", "name": "Intel Xeon 6980P (measured)", "memory_type": None, "channels": None,
        "speed_mt_s": None, "bandwidth_gb_per_s": None, "measured_bandwidth_gb_per_s": p["gbs_measured_per_socket"],
        "platform": "Intel Xeon 6980P, per socket", "notes": "Only the benchmarked bandwidth is sourced; memory speed and channels are not stated.",
        "sources": as_list(p["sources"]),
    })

    ids = [p["id"] for p in profiles]
    if len(ids) != len(set(ids)):
        raise BuildError(f"duplicate system RAM profile ids: {ids}")

    measured_offload = []
    for row in src["measured_tokens_per_second"]:
        e = {k: v for k, v in row.items() if k != "source"}
        e["sources"] = as_list(row.get("source"))
        measured_offload.append(e)
    measured_bw = []
    for row in src["measured_bandwidth"]:
        e = {k: v for k, v in row.items() if k != "source"}
        e["sources"] = as_list(row.get("source"))
        measured_bw.append(e)
    rules = [{"rule": r["rule"], "sources": as_list(r.get("source"))} for r in src.get("rules_of_thumb", [])]
    return {"schema_version": SCHEMA_VERSION,
            "about": "bandwidth_gb_per_s is theoretical: channels x 8 bytes x MT/s / 1000 (one channel = 64 bits; "
                     "a DDR5 DIMM = one channel). " + " ".join(src.get("notes_on_channels", [])),
            "profiles": profiles, "measured_bandwidth": measured_bw, "measured_offload": measured_offload,
            "rules_of_thumb": rules}


# ----------------------------------------------------------------------------- quant types

def build_quant_types(ref):
    q = load_json(ref / "quant_types.json")
    ggml = []
    for t in q["ggml_tensor_types"]["types"]:
        ggml.append({
            "name": t["ggml_type"],
            "id": t["ggml_type_id"],
            "block_elements": t["weights_per_block"],
            "block_bytes": t["bytes_per_block"],
            "bits_per_weight": t["bits_per_weight"],
            "source": t["source"],
        })
    lf = q["llama_file_types"]
    measured = {row["quant"]: row for row in q["measured_llama_3_1_8b"]["rows"]}
    opts = lf["options"]
    ranked = sorted([o for o in opts if o.get("reference_model") == "Llama-3-8B" and o.get("ppl_delta") is not None],
                    key=lambda o: -o["ppl_delta"])
    rank = {o["name"]: i + 1 for i, o in enumerate(ranked)}
    files = []
    for o in opts:
        m = measured.get(o["name"])
        desc = o.get("description_verbatim")
        alias = re.match(r"^alias for (\S+)$", desc or "")
        srcs = [lf["source"]]
        if m:
            srcs.append(q["measured_llama_3_1_8b"]["source"])
        files.append({
            "name": o["name"],
            "description": desc,
            "alias_of": alias.group(1) if alias else None,
            "quality_rank": rank.get(o["name"]),
            "ppl_delta_llama3_8b": o["ppl_delta"] if o.get("reference_model") == "Llama-3-8B" else None,
            "ppl_delta": o.get("ppl_delta"),
            "ppl_reference_model": o.get("reference_model"),
            "nominal_bpw": o.get("nominal_bpw"),
            "size_g_as_printed": o.get("size_G"),
            "measured_bpw_llama3_1_8b": m["bits_per_weight"] if m else None,
            "measured_size_gib_llama3_1_8b": m["size_GiB"] if m else None,
            "source": "; ".join(srcs),
        })
    notes = []
    for k in ("mixes_note", "mxfp4_note", "fp8_block_note"):
        n = q.get(k)
        if n:
            notes.append({"topic": k.replace("_note", ""), "text": n["text"], "sources": as_list(n.get("source")),
                          "caveat": n.get("caveat")})
    return {"schema_version": SCHEMA_VERSION,
            "about": "ggml_types: exact block layouts from the ggml C structs. file_types: llama-quantize mixes; "
                     "quality_rank orders the types measured on Llama-3-8B by perplexity loss (1 = largest loss, "
                     "higher = better); types measured on another model or not at all have null.",
            "ggml_types": ggml, "file_types": files, "notes": notes}


# ----------------------------------------------------------------------------- cloud offers

def reference_offer_rows(ref, cur, device_ids, skipped):
    """cloud_prices.json rows in the form cloud_listings.py reads."""
    src = load_json(ref / "cloud_prices.json")
    rows = []
    for row in src["prices"]:
        gpu = row["gpu"]
        if gpu in cur["skip"]:
            skipped.append({"provider": row["provider"], "gpu": gpu, "reason": cur["skip"][gpu],
                            "sources": as_list(row.get("source"))})
            continue
        if gpu not in cur["gpu_to_device"]:
            raise BuildError(f"cloud_prices: gpu {gpu!r} has no mapping in curated_offers.json")
        mp = cur["gpu_to_device"][gpu]
        dev = mp["device_id"]
        if dev is not None and dev not in device_ids:
            raise BuildError(f"curated_offers.json maps {gpu!r} to unknown device {dev!r}")
        tier = row["tier"]
        if tier not in cur["billing"]:
            raise BuildError(f"cloud_prices: unknown tier {tier!r}")
        rev = re.search(r"commit ([0-9a-f]{7,40})", row.get("source") or "")
        notes = [row.get("notes"), mp.get("note")]
        if dev is None:
            notes.append("device_id null: " + (mp.get("note") or "no matching device"))
        base = {"provider": row["provider"], "instance": row.get("instance_type"), "gpu_name": gpu, "device_id": dev,
                "device_count": row["gpus_per_instance"], "region": row.get("region"), "listing_date": row.get("date"),
                "listing_revision": rev.group(1) if rev else None, "tier_text": tier,
                "sources": as_list(row.get("source")), "notes": [n for n in notes if n], "origin": "reference"}
        on_demand = row["price_usd_per_hour_instance"]
        spot = row.get("spot_usd_per_hour_instance")
        if on_demand is None:
            skipped.append({"provider": row["provider"], "gpu": gpu, "reason": "no price", "sources": base["sources"]})
            continue
        if spot is not None and spot >= on_demand:
            skipped.append({"provider": row["provider"], "gpu": gpu, "sources": base["sources"],
                            "reason": f"the source row lists spot ${spot}/h above on-demand ${on_demand}/h"})
            continue
        rows.append(dict(base, billing=cur["billing"][tier], usd_per_hour=on_demand))
        if spot is not None:
            rows.append(dict(base, billing="spot", usd_per_hour=spot))
    return rows, src["_meta"].get("gaps", [])


def build_offers(ref, cur, device_ids):
    skipped = []
    listings_doc = load_json(SCRIPT_DIR / "sourced_cloud_listings.json")
    listed, left_out = cloud_listings.listing_rows(listings_doc["listings"])
    skipped += left_out
    for r in listed:
        r["origin"] = "listings"
        if r["device_id"] is not None and r["device_id"] not in device_ids:
            raise BuildError(f"cloud_listings maps {r['gpu_name']!r} to unknown device {r['device_id']!r}")
    reference_rows, gaps = reference_offer_rows(ref, cur, device_ids, skipped)
    rows = cloud_listings.group_per_gpu(cloud_listings.newest_first(listed + reference_rows))
    offers, used_ids = [], set()
    for r in rows:
        what = r.get("instance") or f"{r['gpu_name']}-{'-'.join(map(str, r.get('gpu_counts') or [r['device_count']]))}x"
        oid = slug(f"{r['provider']}-{what}-{r['billing']}-{r.get('listing_date') or r.get('listing_revision') or 'undated'}")
        base_oid, k = oid, 2
        while oid in used_ids:
            oid = f"{base_oid}-{k}"
            k += 1
        used_ids.add(oid)
        offer = {
            "id": oid, "provider": r["provider"], "instance": r.get("instance"), "gpu_name": r["gpu_name"],
            "device_id": r["device_id"], "device_count": r["device_count"],
            "usd_per_hour": clean_number(r["usd_per_hour"]),
            "usd_per_gpu_hour": clean_number(r.get("usd_per_gpu_hour") or r["usd_per_hour"] / r["device_count"], 4),
        }
        if r.get("gpu_counts"):
            offer["gpu_counts"] = r["gpu_counts"]
            offer["instances"] = r["instances"]
        offer.update({
            "billing": r["billing"], "tier_text": r.get("tier_text"), "region": r.get("region"),
            "listing_date": r.get("listing_date"), "listing_revision": r.get("listing_revision"),
            "notes": join_notes(r["notes"] + (["device_id null: " + r["notes"][-1]] if r["device_id"] is None and
                                               r["origin"] == "listings" and r["notes"] else [])),
            "sources": r["sources"],
        })
        offers.append(offer)
    return {"schema_version": SCHEMA_VERSION,
            "about": "An offer is one instance (device_count GPUs at usd_per_hour for the whole instance) or, with "
                     "gpu_counts, a per-GPU price (usd_per_gpu_hour) the provider rents at each of those sizes "
                     "(device_count and usd_per_hour are then its smallest). Sources: " + cloud_listings.LISTINGS_NAME +
                     " (SkyPilot catalog CSVs by commit, providers' pricing pages) and the reference's cloud_prices.json; "
                     "listing_date is the listing's date where the source has one, listing_revision the catalog "
                     "commit otherwise. " + "; ".join(gaps),
            "offers": offers, "skipped": skipped}


# ----------------------------------------------------------------------------- engines

def build_engines(cur):
    return {"schema_version": SCHEMA_VERSION, "engines": cur["engines"]}


# ----------------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                    help="directory with the reference facts (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    args = ap.parse_args(argv)
    ref = args.reference
    if not ref.is_dir():
        print(f"build_catalog: reference directory not found: {ref}", file=sys.stderr)
        return 2
    try:
        cur_models = load_json(SCRIPT_DIR / "curated_models.json")
        cur_dev = load_json(SCRIPT_DIR / "curated_devices.json")
        cur_apple = load_json(SCRIPT_DIR / "curated_apple.json")
        cur_offers = load_json(SCRIPT_DIR / "curated_offers.json")
        cur_engines = load_json(SCRIPT_DIR / "curated_engines.json")
        seed_gaps = load_json(SCRIPT_DIR / "curated_seed_gaps.json")

        models, excluded = build_models(ref, dict(cur_models, _seed_gaps=seed_gaps["seed_models"]))
        devices = build_devices(ref, cur_dev, cur_apple)
        devices += build_cpu_machines(ref, load_json(SCRIPT_DIR / "curated_cpu_machines.json"),
                                      load_json(SCRIPT_DIR / "sourced_cpu_compute.json")["cpus"])
        if len({d["id"] for d in devices}) != len(devices):
            raise BuildError("a CPU machine id repeats a device id")
        apply_sourced_prices(devices, sourced_price_records())
        apply_superseded(devices, [load_json(path) for path in sorted(SCRIPT_DIR.glob("sourced_superseded*.json"))])
        apply_sourced_specs(devices, sourced_spec_records())
        apply_stale_launch_prices(devices)
        apply_gpu_packages(devices, cur_dev.get("gpu_packages", {}))
        apply_machine_aliases(devices, cur_dev.get("machine_aliases", {}))
        device_ids = {d["id"] for d in devices}
        outputs = {
            "models.json": {"schema_version": SCHEMA_VERSION, "models": models},
            "models_excluded.json": build_excluded(excluded, seed_gaps),
            "devices.json": {"schema_version": SCHEMA_VERSION, "devices": devices},
            "system_ram.json": build_system_ram(ref),
            "quant_types.json": build_quant_types(ref),
            "cloud_offers.json": build_offers(ref, cur_offers, device_ids),
            "engines.json": build_engines(cur_engines),
        }
    except BuildError as e:
        print(f"build_catalog: error: {e}", file=sys.stderr)
        return 1
    for name, obj in outputs.items():
        write_json(args.out / name, obj)
    print(f"build_catalog: wrote {len(outputs)} files to {args.out}: {len(models)} models, "
          f"{len(excluded)} excluded reference records, {len(devices)} devices, "
          f"{len(outputs['cloud_offers.json']['offers'])} cloud offers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
