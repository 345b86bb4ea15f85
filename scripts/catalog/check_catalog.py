#!/usr/bin/env python3
"""Validate the llm-sizer catalog (data/*.json).

Usage (from the repository root):
    python3 scripts/catalog/check_catalog.py [--data DIR]

Checks: schema_version, required fields and their types, unique ids (and aliases that do not
collide with ids), numbers > 0 where not null, allowed enum values, estimated_fields that name
real, non-null fields and come with notes, cloud offers that reference existing device ids (or
null with a note), every model config has a model_type (top level or text_config) unless the
model is listed with a reason in models_excluded.json, device prices (price_kind one of the
reference's kinds, price_low_usd <= price_usd <= price_high_usd, Apple prices name their machine, at
least MIN_PRICED_DEVICES priced devices), engines whose default KV type is one of their KV types, quant block layouts, and system RAM bandwidth = channels x 8 x MT/s / 1000.
Exits 1 and prints one line per problem (file: /json/path: message); exits 0 when clean.
Standard library only.
"""

import argparse
import json
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
FILES = ["models.json", "models_excluded.json", "devices.json", "system_ram.json", "quant_types.json",
         "cloud_offers.json", "engines.json"]

VENDORS = {"nvidia", "amd", "apple", "intel", "huawei", "cambricon", "hygon", "metax", "kunlunxin", "moore-threads",
           "iluvatar", "alibaba"}
KINDS = {"datacenter", "workstation", "consumer", "unified", "apu", "cpu"}
BACKENDS = {"cuda", "rocm", "metal", "sycl", "cann", "vulkan", "musa", "other", "cpu"}
DTYPES = {"bf16", "fp16", "fp32", "fp8", "mxfp4", "nvfp4", "int4", "fp4", None}
BILLING = {"on-demand", "spot", "reserved", "marketplace", "capacity-block"}
ENGINE_IDS = {"llama.cpp", "ollama", "vllm", "sglang", "mlx", "tensorrt-llm"}
PRICE_KINDS = {"list", "launch_msrp", "street_new", "street_used", "analyst_estimate", "server_share", "platform_components"}
# device_prices.json + the earlier prices cover 92 devices; a build that loses some fails.
MIN_PRICED_DEVICES = 90
DATE_RE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9.\-]*$")

# field: (types, required non-null[, "nonneg"]); numbers must be > 0 (>= 0 with "nonneg") where not null
NUM = (int, float)
MODEL_FIELDS = {
    "id": (str, True), "name": (str, True), "family": (str, True), "aliases": (list, True),
    "hf_repo": (str, False), "gguf_repos": (list, True), "license": (str, False), "release_date": (str, False),
    "official_params_total": (int, False), "official_params_active": (int, False),
    "official_params_precise": (bool, True), "official_params_text": (str, False), "native_dtype": (str, False),
    "llama_cpp_unsupported": (str, False), "gguf_default_quant": (str, False), "release_of": (str, False), "max_context_tokens": (int, False),
    "context_extension": (dict, False), "config": (dict, True), "config_provenance": (str, True),
    "estimated_fields": (list, True), "notes": (str, False), "sources": (list, True),
    "uses": (list, True), "uses_sources": (dict, True),
}
USE_TAGS = ("coding", "reasoning", "chat", "vision")
DEVICE_FIELDS = {
    "id": (str, True), "name": (str, True), "vendor": (str, True), "kind": (str, True), "backend": (str, True),
    "memory_gb_marketed": (NUM, True), "driver_memory_mib": (int, False), "gpu_memory_limit_mib": (int, False), "memory_type": (str, False),
    "bandwidth_gb_per_s": (NUM, False), "fp16_tflops": (NUM, False), "fp16_acc16_tflops": (NUM, False),
    "fp8_tflops": (NUM, False), "int8_tops": (NUM, False), "tdp_w": (NUM, False), "interconnect": (str, False),
    "nvlink_gb_per_s": (NUM, False), "price_usd": (NUM, False), "price_kind": (str, False),
    "price_as_of": (str, False), "price_low_usd": (NUM, False), "price_high_usd": (NUM, False),
    "price_machine": (str, False), "price_usd_used": (NUM, False), "price_low_confidence": (bool, False),
    "server_board_gpus": (list, False), "package_gpus": (int, False), "fp32_tflops": (NUM, False), "cpu_simd": (str, False),
    "year": (int, False), "unified_memory": (bool, True), "sources": (list, True),
    "estimated_fields": (list, True), "notes": (str, False),
}
OFFER_FIELDS = {
    "provider": (str, True), "instance": (str, False), "device_id": (str, False), "device_count": (int, True),
    "usd_per_hour": (NUM, True), "billing": (str, True), "region": (str, False), "listing_date": (str, False),
    "sources": (list, True),
}
PROFILE_FIELDS = {
    "id": (str, True), "name": (str, True), "memory_type": (str, False), "channels": (int, False),
    "speed_mt_s": (int, False), "bandwidth_gb_per_s": (NUM, False), "measured_bandwidth_gb_per_s": (NUM, False),
    "sources": (list, True),
}
ENGINE_FIELDS = {
    "id": (str, True), "name": (str, True), "weight_formats": (list, True), "kv_types": (list, True),
    "default_kv_type": (str, True), "backends": (list, True), "sources": (list, True),
}
GGML_FIELDS = {"name": (str, True), "id": (int, True, "nonneg"), "block_elements": (int, True), "block_bytes": (int, True),
               "source": (str, True)}
FILETYPE_FIELDS = {"name": (str, True), "description": (str, False), "quality_rank": (int, False),
                   "ppl_delta_llama3_8b": (NUM, False), "source": (str, True)}


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, file, path, msg):
        self.errors.append(f"{file}: {path or '/'}: {msg}")

    def fields(self, file, path, obj, spec):
        if not isinstance(obj, dict):
            self.err(file, path, "must be an object")
            return False
        for k, (types, required, *opt) in spec.items():
            p = f"{path}/{k}"
            if k not in obj:
                self.err(file, p, "missing field")
                continue
            v = obj[k]
            if v is None:
                if required:
                    self.err(file, p, "must not be null")
                continue
            if types is int or types == (int,):
                ok = isinstance(v, int) and not isinstance(v, bool)
            elif types is NUM:
                ok = isinstance(v, NUM) and not isinstance(v, bool)
            else:
                ok = isinstance(v, types)
            if not ok:
                self.err(file, p, f"wrong type {type(v).__name__}")
                continue
            if isinstance(v, NUM) and not isinstance(v, bool):
                if "nonneg" in opt:
                    if v < 0:
                        self.err(file, p, f"must be >= 0 (got {v})")
                elif not v > 0:
                    self.err(file, p, f"must be > 0 (got {v})")
            if isinstance(v, str) and not v.strip():
                self.err(file, p, "must not be empty")
        return True

    def sources(self, file, path, obj, key="sources"):
        src = obj.get(key)
        if not isinstance(src, list) or not src:
            self.err(file, f"{path}/{key}", "needs at least one source")
        elif not all(isinstance(s, str) and s.strip() for s in src):
            self.err(file, f"{path}/{key}", "sources must be non-empty strings")

    def estimated(self, file, path, obj):
        est = obj.get("estimated_fields") or []
        for i, f in enumerate(est):
            if f.startswith("config.") and isinstance(obj.get("config"), dict):
                # A config field the catalog filled in: it must be in the config.
                if f[len("config."):] not in obj["config"]:
                    self.err(file, f"{path}/estimated_fields/{i}", f"names config field {f!r} that the config lacks")
                continue
            if f not in obj:
                self.err(file, f"{path}/estimated_fields/{i}", f"names unknown field {f!r}")
            elif obj[f] is None:
                self.err(file, f"{path}/estimated_fields/{i}", f"field {f!r} is null but listed as estimated")
        if est and not (obj.get("notes") and "estimat" in obj["notes"].lower()):
            self.err(file, f"{path}/notes", "estimated_fields is not empty but the notes do not say how it was estimated")

    def unique(self, file, path, items, what):
        seen = {}
        for i, x in enumerate(items):
            if x is None:
                continue
            if x in seen:
                self.err(file, f"{path}/{i}", f"duplicate {what} {x!r} (first at index {seen[x]})")
            else:
                seen[x] = i
        return seen


def load(c, data_dir, name):
    p = data_dir / name
    try:
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        c.err(name, "", f"file not found ({p}); run scripts/catalog/build_catalog.py")
        return None
    except json.JSONDecodeError as e:
        c.err(name, "", f"invalid JSON: {e}")
        return None
    if not isinstance(doc, dict) or doc.get("schema_version") != 1:
        c.err(name, "/schema_version", "must be 1")
    return doc


def check_uses(c, F, p, m):
    """uses: tags from USE_TAGS in that order, each with the words it comes from."""
    uses, why = m["uses"], m["uses_sources"]
    if any(t not in USE_TAGS for t in uses) or len(set(uses)) != len(uses):
        c.err(F, p + "/uses", f"must be distinct tags of {USE_TAGS}, got {uses}")
    elif uses != [t for t in USE_TAGS if t in uses]:
        c.err(F, p + "/uses", f"must be in the order {USE_TAGS}")
    if set(why) != set(uses):
        c.err(F, p + "/uses_sources", "must give one source for each tag in uses, no more")
    for t, text in why.items():
        if not isinstance(text, str) or not text.strip():
            c.err(F, p + f"/uses_sources/{t}", "must say where the tag comes from")
    repo = (m.get("hf_repo") or "").lower()
    if "chat" in uses and (repo.endswith("-base") or "-base-" in repo):
        c.err(F, p + "/uses", "a base release gets no chat tag")


def check_context_extension(c, F, p, m):
    """context_extension: YaRN past the config's maximum, up to a larger one, with its source."""
    x = m.get("context_extension")
    if x is None:
        return
    if x.get("method") != "yarn":
        c.err(F, p + "/context_extension/method", "must be yarn")
    for k in ("factor", "original_context_tokens", "max_context_tokens", "rope_theta"):
        if not isinstance(x.get(k), (int, float)) or isinstance(x.get(k), bool) or x[k] <= 0:
            c.err(F, p + f"/context_extension/{k}", "must be a number > 0")
    if not isinstance(x.get("source"), str) or not x["source"].strip():
        c.err(F, p + "/context_extension/source", "must say where it comes from")
    if all(isinstance(x.get(k), (int, float)) for k in ("factor", "original_context_tokens", "max_context_tokens")):
        if x["original_context_tokens"] * x["factor"] != x["max_context_tokens"]:
            c.err(F, p + "/context_extension", "max_context_tokens must be original_context_tokens x factor")
        if m.get("max_context_tokens") and x["max_context_tokens"] <= m["max_context_tokens"]:
            c.err(F, p + "/context_extension/max_context_tokens", "must exceed the model's max_context_tokens")


def check_gguf_defaults(c, models_doc, quants_doc):
    """A model's default GGUF type is one llama.cpp's file types name."""
    names = {q.get("name") for q in quants_doc.get("file_types") or [] if isinstance(q, dict)}
    for i, m in enumerate(models_doc.get("models") or []):
        q = m.get("gguf_default_quant") if isinstance(m, dict) else None
        if q is not None and q not in names:
            c.err("models.json", f"/models/{i}/gguf_default_quant", f"{q!r} is not a GGUF file type in quant_types.json")


def check_release_of(c, models_doc):
    """A release of another model (its FP8 or NVFP4 checkpoint) names a catalog model of the same shape."""
    models = [m for m in models_doc.get("models") or [] if isinstance(m, dict)]
    by_id = {m.get("id"): m for m in models}
    shape = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size")
    for i, m in enumerate(models):
        base_id = m.get("release_of")
        if base_id is None:
            continue
        p = f"/models/{i}/release_of"
        base = by_id.get(base_id)
        if base is None or base_id == m.get("id") or base.get("release_of"):
            c.err("models.json", p, f"{base_id!r} is not another catalog model released as its publisher released it")
            continue
        text = lambda x: (x.get("config") or {}).get("text_config") or x.get("config") or {}
        differ = [k for k in shape if text(m).get(k) != text(base).get(k)]
        if differ:
            c.err("models.json", p, f"{base_id!r} differs in {', '.join(differ)}: not the same model")


def check_models(c, doc, excluded_doc):
    F = "models.json"
    models = doc.get("models")
    if not isinstance(models, list) or not models:
        c.err(F, "/models", "must be a non-empty array")
        return set()
    excluded_ids = {}
    if excluded_doc:
        ex = excluded_doc.get("excluded")
        if not isinstance(ex, list):
            c.err("models_excluded.json", "/excluded", "must be an array")
        else:
            for i, e in enumerate(ex):
                p = f"/excluded/{i}"
                if not isinstance(e, dict) or not isinstance(e.get("reason"), str) or not e["reason"].strip():
                    c.err("models_excluded.json", p, "needs a non-empty reason")
                    continue
                if e.get("id") is None and not e.get("seed_name"):
                    c.err("models_excluded.json", p, "needs an id or a seed_name")
                if e.get("id") is not None:
                    excluded_ids[e["id"]] = e["reason"]
            c.unique("models_excluded.json", "/excluded", [e.get("id") for e in ex if isinstance(e, dict)], "id")
    ids = c.unique(F, "/models", [m.get("id") if isinstance(m, dict) else None for m in models], "id")
    all_names = set(ids)
    for i, m in enumerate(models):
        p = f"/models/{i}"
        if not c.fields(F, p, m, MODEL_FIELDS):
            continue
        mid = m["id"]
        check_uses(c, F, p, m)
        check_context_extension(c, F, p, m)
        if not ID_RE.match(mid or ""):
            c.err(F, f"{p}/id", f"id {mid!r} must be lowercase [a-z0-9.-]")
        if mid in excluded_ids:
            c.err(F, f"{p}/id", f"model {mid} is also listed in models_excluded.json")
        for j, a in enumerate(m.get("aliases") or []):
            if a in all_names:
                c.err(F, f"{p}/aliases/{j}", f"alias {a!r} collides with an id or another alias")
            all_names.add(a)
        cfg = m["config"]
        tc = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
        if not (cfg.get("model_type") or tc.get("model_type")):
            c.err(F, f"{p}/config", f"config of {mid} has no model_type (top level or text_config) "
                                    "and the model is not listed with a reason in models_excluded.json")
        if m["native_dtype"] not in DTYPES:
            c.err(F, f"{p}/native_dtype", f"unknown dtype {m['native_dtype']!r}")
        if m["release_date"] and not DATE_RE.match(m["release_date"]):
            c.err(F, f"{p}/release_date", "must be YYYY, YYYY-MM or YYYY-MM-DD")
        if m["hf_repo"] and (" " in m["hf_repo"] or "(" in m["hf_repo"] or "*" in m["hf_repo"]
                             or m["hf_repo"].count("/") != 1):
            c.err(F, f"{p}/hf_repo", f"not a clean repo id: {m['hf_repo']!r}")
        for j, g in enumerate(m["gguf_repos"]):
            if not isinstance(g, str) or g.count("/") != 1 or " " in g:
                c.err(F, f"{p}/gguf_repos/{j}", f"not a clean repo id: {g!r}")
        tot, act = m["official_params_total"], m["official_params_active"]
        if tot is not None and act is not None and act > tot:
            c.err(F, f"{p}/official_params_active", "active parameters exceed total")
        if m["official_params_precise"] and tot is None:
            c.err(F, f"{p}/official_params_precise", "precise but official_params_total is null")
        if m["config_provenance"] not in ("verbatim_copy", "derived"):
            c.err(F, f"{p}/config_provenance", f"unexpected value {m['config_provenance']!r}")
        c.sources(F, p, m)
        c.estimated(F, p, m)
    return set(ids)


def check_devices(c, doc):
    F = "devices.json"
    devs = doc.get("devices")
    if not isinstance(devs, list) or not devs:
        c.err(F, "/devices", "must be a non-empty array")
        return set()
    if len(devs) < 60:
        c.err(F, "/devices", f"expected at least 60 devices, found {len(devs)}")
    ids = c.unique(F, "/devices", [d.get("id") if isinstance(d, dict) else None for d in devs], "id")
    names = set(ids)
    priced = 0
    for i, d in enumerate(devs):
        p = f"/devices/{i}"
        if not c.fields(F, p, d, DEVICE_FIELDS):
            continue
        if not ID_RE.match(d["id"]):
            c.err(F, f"{p}/id", f"id {d['id']!r} must be lowercase [a-z0-9.-]")
        for j, a in enumerate(d.get("aliases") or []):
            if a in names:
                c.err(F, f"{p}/aliases/{j}", f"alias {a!r} collides with an id or another alias")
            names.add(a)
        if d["vendor"] not in VENDORS:
            c.err(F, f"{p}/vendor", f"unknown vendor {d['vendor']!r}")
        if d["kind"] not in KINDS:
            c.err(F, f"{p}/kind", f"unknown kind {d['kind']!r}")
        if d["backend"] not in BACKENDS:
            c.err(F, f"{p}/backend", f"unknown backend {d['backend']!r}")
        if d["price_as_of"] and not DATE_RE.match(d["price_as_of"]):
            c.err(F, f"{p}/price_as_of", "must be YYYY, YYYY-MM or YYYY-MM-DD")
        if d.get("package_gpus") is not None and d["package_gpus"] < 2:
            c.err(F, f"{p}/package_gpus", "must be the GPUs in one card or module (2 or more), or null")
        boards = d.get("server_board_gpus")
        if boards is not None and (not boards or not all(isinstance(n, int) and n >= 2 for n in boards)):
            c.err(F, f"{p}/server_board_gpus", "must list the GPU counts of its baseboards (integers >= 2)")
        price = d["price_usd"]
        if price is None:
            for k in ("price_kind", "price_as_of", "price_low_usd", "price_high_usd", "price_machine",
                      "price_low_confidence"):
                if d[k] is not None:
                    c.err(F, f"{p}/{k}", "set but price_usd is null")
        else:
            if d["price_kind"] not in PRICE_KINDS:
                c.err(F, f"{p}/price_kind", f"must be one of {sorted(PRICE_KINDS)} when price_usd is set "
                                            f"(got {d['price_kind']!r})")
            low, high = d["price_low_usd"], d["price_high_usd"]
            if isinstance(low, NUM) and low > price:
                c.err(F, f"{p}/price_low_usd", f"{low} is above price_usd {price}")
            if isinstance(high, NUM) and high < price:
                c.err(F, f"{p}/price_high_usd", f"{high} is below price_usd {price}")
            if d["kind"] in ("unified", "apu") and d["vendor"] == "apple" and not d["price_machine"]:
                c.err(F, f"{p}/price_machine", "an Apple price needs the machine it buys")
        priced += price is not None
        if d["year"] is not None and not 2000 <= d["year"] <= 2100:
            c.err(F, f"{p}/year", f"implausible year {d['year']}")
        if d["driver_memory_mib"] is not None and d["memory_gb_marketed"]:
            ratio = d["driver_memory_mib"] / 1024 / d["memory_gb_marketed"]
            if not 0.85 <= ratio <= 1.05:
                c.err(F, f"{p}/driver_memory_mib", f"driver total {d['driver_memory_mib']} MiB is implausible for "
                                                    f"{d['memory_gb_marketed']} GB marketed")
        if d["vendor"] == "apple" and not d["unified_memory"]:
            c.err(F, f"{p}/unified_memory", "Apple devices have unified memory")
        c.sources(F, p, d)
        c.estimated(F, p, d)
    if priced < MIN_PRICED_DEVICES:
        c.err(F, "/devices", f"expected at least {MIN_PRICED_DEVICES} devices with a purchase price, found {priced}")
    return set(ids)


def check_offers(c, doc, device_ids):
    F = "cloud_offers.json"
    offers = doc.get("offers")
    if not isinstance(offers, list) or not offers:
        c.err(F, "/offers", "must be a non-empty array")
        return
    c.unique(F, "/offers", [o.get("id") for o in offers if isinstance(o, dict)], "id")
    for i, o in enumerate(offers):
        p = f"/offers/{i}"
        if not c.fields(F, p, o, OFFER_FIELDS):
            continue
        if o["device_id"] is None:
            if not (o.get("notes") or "").strip():
                c.err(F, f"{p}/device_id", "null device_id needs a note saying why")
        elif o["device_id"] not in device_ids:
            c.err(F, f"{p}/device_id", f"unknown device id {o['device_id']!r}")
        if o["billing"] not in BILLING:
            c.err(F, f"{p}/billing", f"unknown billing {o['billing']!r}")
        if o["listing_date"] and not DATE_RE.match(o["listing_date"]):
            c.err(F, f"{p}/listing_date", "must be YYYY, YYYY-MM or YYYY-MM-DD")
        c.sources(F, p, o)
        counts = o.get("gpu_counts")
        if counts is not None:
            if (not isinstance(counts, list) or not counts or any(not isinstance(n, int) or n < 1 for n in counts)
                    or counts != sorted(set(counts))):
                c.err(F, f"{p}/gpu_counts", "must be ascending whole numbers >= 1 without repeats")
            if not (isinstance(o.get("usd_per_gpu_hour"), (int, float)) and o["usd_per_gpu_hour"] > 0):
                c.err(F, f"{p}/usd_per_gpu_hour", "a per-GPU offer needs its positive per-GPU price")
    check_offer_copies(c, F, offers)


def offer_sizes(o):
    return o.get("gpu_counts") or [o.get("device_count")]


def offer_price_at(o, n):
    if o.get("gpu_counts"):
        return round(o["usd_per_gpu_hour"] * n, 4)
    return o.get("usd_per_hour")


def check_offer_copies(c, F, offers):
    """Errors a copy makes: one instance listed twice (the same provider, GPU,
    size and billing), one instance type named for two GPUs, two GPUs of a
    provider at the same price where nothing (instance, region) tells the rows
    apart, and a spot price not below the on-demand price of the same instance."""
    seen, by_instance, by_price, on_demand = {}, {}, {}, {}
    for i, o in enumerate(offers):
        if not isinstance(o, dict) or not o.get("device_id"):
            continue
        if o.get("instance"):
            other = by_instance.setdefault((o["provider"], o["instance"]), i)
            if offers[other]["device_id"] != o["device_id"]:
                c.err(F, f"/offers/{i}", f"{o['provider']} instance {o['instance']!r} is named for {o['device_id']} "
                      f"and {offers[other]['device_id']} (/offers/{other}): a copied row?")
        for n in offer_sizes(o):
            key = (o["provider"], o["device_id"], n, o.get("billing"))
            if key in seen:
                c.err(F, f"/offers/{i}", f"{o['provider']} {n}x {o['device_id']} ({o.get('billing')}) is listed twice "
                      f"(also /offers/{seen[key]})")
            seen[key] = i
            price = offer_price_at(o, n)
            if not o.get("instance") and not o.get("region"):
                pkey = (o["provider"], n, o.get("billing"), price)
                other = by_price.setdefault(pkey, i)
                if offers[other]["device_id"] != o["device_id"]:
                    c.err(F, f"/offers/{i}", f"{o['provider']} {n}x {o['device_id']} and {n}x {offers[other]['device_id']} "
                          f"(/offers/{other}) carry the same ${price}/h with nothing to tell them apart: a copied row?")
            if o.get("billing") == "on-demand":
                on_demand[(o["provider"], o["device_id"], n)] = price
    for i, o in enumerate(offers):
        if not isinstance(o, dict) or o.get("billing") != "spot":
            continue
        for n in offer_sizes(o):
            od = on_demand.get((o["provider"], o.get("device_id"), n))
            if od is not None and offer_price_at(o, n) >= od:
                c.err(F, f"/offers/{i}", f"spot ${offer_price_at(o, n)}/h is not below on-demand ${od}/h "
                      f"for {o['provider']} {n}x {o.get('device_id')} (reversed?)")


def check_system_ram(c, doc):
    F = "system_ram.json"
    profs = doc.get("profiles")
    if not isinstance(profs, list) or not profs:
        c.err(F, "/profiles", "must be a non-empty array")
        return
    c.unique(F, "/profiles", [x.get("id") for x in profs if isinstance(x, dict)], "id")
    for i, x in enumerate(profs):
        p = f"/profiles/{i}"
        if not c.fields(F, p, x, PROFILE_FIELDS):
            continue
        if x["channels"] and x["speed_mt_s"]:
            want = x["channels"] * 8 * x["speed_mt_s"] / 1000
            if x["bandwidth_gb_per_s"] is None or abs(x["bandwidth_gb_per_s"] - want) > 1e-6 * want:
                c.err(F, f"{p}/bandwidth_gb_per_s", f"must be channels x 8 x MT/s / 1000 = {want}")
        if x["bandwidth_gb_per_s"] is None and x["measured_bandwidth_gb_per_s"] is None:
            c.err(F, p, "needs a theoretical or a measured bandwidth")
        c.sources(F, p, x)
    for i, x in enumerate(doc.get("measured_offload") or []):
        c.sources(F, f"/measured_offload/{i}", x)


def check_quants(c, doc):
    F = "quant_types.json"
    g = doc.get("ggml_types")
    if not isinstance(g, list) or not g:
        c.err(F, "/ggml_types", "must be a non-empty array")
    else:
        c.unique(F, "/ggml_types", [t.get("name") for t in g], "name")
        c.unique(F, "/ggml_types", [t.get("id") for t in g], "ggml id")
        for i, t in enumerate(g):
            c.fields(F, f"/ggml_types/{i}", t, GGML_FIELDS)
        known = {t.get("name"): t for t in g}
        expect = {"F32": (1, 4), "F16": (1, 2), "BF16": (1, 2), "Q8_0": (32, 34), "Q4_0": (32, 18), "Q4_1": (32, 20),
                  "Q5_0": (32, 22), "Q5_1": (32, 24), "Q2_K": (256, 84), "Q3_K": (256, 110), "Q4_K": (256, 144),
                  "Q5_K": (256, 176), "Q6_K": (256, 210), "IQ1_S": (256, 50), "IQ1_M": (256, 56),
                  "IQ2_XXS": (256, 66), "IQ2_XS": (256, 74), "IQ2_S": (256, 82), "IQ3_XXS": (256, 98),
                  "IQ3_S": (256, 110), "IQ4_NL": (32, 18), "IQ4_XS": (256, 136), "MXFP4": (32, 17)}
        for name, (el, by) in expect.items():
            t = known.get(name)
            if t is None:
                c.err(F, "/ggml_types", f"missing type {name}")
            elif (t.get("block_elements"), t.get("block_bytes")) != (el, by):
                c.err(F, "/ggml_types", f"{name} block must be ({el}, {by}) per DESIGN.md")
    f = doc.get("file_types")
    if not isinstance(f, list) or not f:
        c.err(F, "/file_types", "must be a non-empty array")
        return
    c.unique(F, "/file_types", [t.get("name") for t in f], "name")
    c.unique(F, "/file_types", [t.get("quality_rank") for t in f], "quality_rank")
    names = {t.get("name") for t in f}
    for i, t in enumerate(f):
        c.fields(F, f"/file_types/{i}", t, FILETYPE_FIELDS)
        if t.get("alias_of") and t["alias_of"] not in names:
            c.err(F, f"/file_types/{i}/alias_of", f"unknown file type {t['alias_of']!r}")
    ranked = sorted([t for t in f if t.get("quality_rank") is not None], key=lambda t: t["quality_rank"])
    for a, b in zip(ranked, ranked[1:]):
        if a.get("ppl_delta_llama3_8b") is None or b.get("ppl_delta_llama3_8b") is None:
            c.err(F, "/file_types", "ranked file types need ppl_delta_llama3_8b")
        elif not a["ppl_delta_llama3_8b"] > b["ppl_delta_llama3_8b"]:
            c.err(F, "/file_types", f"quality_rank order disagrees with ppl delta ({a['name']} vs {b['name']})")


def check_engines(c, doc):
    F = "engines.json"
    eng = doc.get("engines")
    if not isinstance(eng, list) or not eng:
        c.err(F, "/engines", "must be a non-empty array")
        return
    ids = c.unique(F, "/engines", [e.get("id") for e in eng], "id")
    missing = ENGINE_IDS - set(ids)
    if missing:
        c.err(F, "/engines", f"missing engines {sorted(missing)}")
    for i, e in enumerate(eng):
        p = f"/engines/{i}"
        if not c.fields(F, p, e, ENGINE_FIELDS):
            continue
        if e["default_kv_type"] not in e["kv_types"]:
            c.err(F, f"{p}/default_kv_type", "must be one of kv_types")
        bits = e.get("kv_type_bits") or {}
        for k in e["kv_types"]:
            if k not in bits:
                c.err(F, f"{p}/kv_type_bits", f"no bits per element for KV type {k!r}")
            elif bits[k] is not None and not (isinstance(bits[k], NUM) and bits[k] > 0):
                c.err(F, f"{p}/kv_type_bits/{k}", "must be > 0 or null")
        for j, b in enumerate(e["backends"]):
            if b not in BACKENDS:
                c.err(F, f"{p}/backends/{j}", f"unknown backend {b!r}")
        c.sources(F, p, e)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Validate the llm-sizer catalog in data/.")
    ap.add_argument("--data", type=Path, default=REPO_ROOT / "data", help="catalog directory (default: %(default)s)")
    args = ap.parse_args(argv)
    c = Checker()
    docs = {name: load(c, args.data, name) for name in FILES}
    if docs["models.json"]:
        check_models(c, docs["models.json"], docs["models_excluded.json"])
        check_release_of(c, docs["models.json"])
        if docs["quant_types.json"]:
            check_gguf_defaults(c, docs["models.json"], docs["quant_types.json"])
    device_ids = set()
    if docs["devices.json"]:
        device_ids = check_devices(c, docs["devices.json"])
    if docs["cloud_offers.json"]:
        check_offers(c, docs["cloud_offers.json"], device_ids)
    if docs["system_ram.json"]:
        check_system_ram(c, docs["system_ram.json"])
    if docs["quant_types.json"]:
        check_quants(c, docs["quant_types.json"])
    if docs["engines.json"]:
        check_engines(c, docs["engines.json"])
    if c.errors:
        for e in c.errors:
            print(f"check_catalog: {e}", file=sys.stderr)
        print(f"check_catalog: FAILED with {len(c.errors)} problem(s)", file=sys.stderr)
        return 1
    n = {k: len((docs[f] or {}).get(k) or []) for f, k in
         [("models.json", "models"), ("devices.json", "devices"), ("cloud_offers.json", "offers")]}
    print(f"check_catalog: OK ({n['models']} models, {n['devices']} devices, {n['offers']} cloud offers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
