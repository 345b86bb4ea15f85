#!/usr/bin/env python3
"""Writes data/embedded/*.json: the catalog as the engine and the page read it,
without the sources, notes and alternative values that stay in data/*.json.
This is what the build compiles into the CLI and the wasm module, so the page
downloads only what it uses. The models' config.json files go to
model_configs.tsv, one "id<TAB>config" line per model, apart from models.json:
the engine parses a config when that model is first asked for, and starting
up parses only the small list. `--check` fails when the copies are out of date.
"""
import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
OUT = DATA / "embedded"

MODEL_KEYS = ["id", "name", "family", "aliases", "hf_repo", "gguf_repos", "ollama_tags", "license",
              "official_params_total", "official_params_active", "official_params_precise", "native_dtype", "llama_cpp_unsupported", "gguf_default_quant", "release_of",
              "max_context_tokens", "context_extension", "uses", "config", "config_provenance", "estimated_fields"]
# Config keys no reader uses though the engine names them elsewhere: audio
# towers, label maps, loader hooks, generation defaults. vision_config stays:
# the vision reader (engine/src/vision_config.cpp) sizes the mmproj from it.
DROP_CONFIG_KEYS = {"audio_config", "id2label", "label2id", "auto_map", "task_specific_params",
                    "bad_words_ids", "begin_suppress_tokens", "suppress_tokens", "forced_decoder_ids"}
DEVICE_DROP_KEYS = {"sources", "notes", "alt_values", "street_prices", "interconnect", "price_date"}


def engine_names():
    """Every quoted identifier in the engine's sources. The readers look config
    fields up by literal name (no name is built at run time), so a config key
    that is not among these is read by nothing: rope_theta, hidden_act, token
    ids, dropout rates... (a third of the configs' bytes). A reader that starts
    asking for a new field makes this list, and --check, pick it up."""
    names = set()
    for path in sorted((ROOT / "engine").rglob("*.[ch]pp")):
        names.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', path.read_text(encoding="utf-8")))
    return names


ENGINE_NAMES = engine_names()


def compact_config(config):
    if not isinstance(config, dict):
        return config
    out = {}
    for key, value in config.items():
        if key in DROP_CONFIG_KEYS or key not in ENGINE_NAMES:
            continue
        if key in ("text_config", "llm_config", "language_config", "vision_config"):
            value = compact_config(value)
        elif key == "quantization_config" and isinstance(value, dict):
            # Keep the method and format (scalars the reader looks at), drop the
            # per-module lists and maps: one NVFP4 config's quantized_layers
            # and config_groups were 55 KB of the 172 KB of configs.
            value = {k: v for k, v in value.items()
                     if not isinstance(v, (list, dict)) or k == "weight_block_size"}
        out[key] = value
    return out


def compact(name, doc):
    if name == "models.json":
        models = []
        for m in doc["models"]:
            entry = {k: m[k] for k in MODEL_KEYS if k in m and k != "config"}
            models.append(entry)
        return {"schema_version": doc.get("schema_version", 1), "models": models}
    # Devices and offers, like configs, keep the fields the engine names (no
    # int8 TOPS, release year, offer region or listing date: nothing reads them).
    if name == "devices.json":
        # The host RAM kinds (system_ram.json's profiles with a bandwidth) ride
        # with the devices: the page offers them next to the RAM size.
        ram = json.loads((DATA / "system_ram.json").read_text(encoding="utf-8"))
        profiles = sorted((p for p in ram["profiles"] if p.get("bandwidth_gb_per_s")),
                          key=lambda p: (p["bandwidth_gb_per_s"], p["id"]))
        return {"schema_version": doc.get("schema_version", 1),
                "devices": [{k: v for k, v in d.items() if k not in DEVICE_DROP_KEYS and k in ENGINE_NAMES}
                            for d in doc["devices"]],
                "ram_profiles": [{"id": p["id"], "name": p["name"], "bandwidth_gb_per_s": p["bandwidth_gb_per_s"],
                                  "platform": p.get("platform")} for p in profiles]}
    if name == "cloud_offers.json":
        return {"schema_version": doc.get("schema_version", 1),
                "offers": [{k: v for k, v in o.items() if k not in ("sources", "notes") and k in ENGINE_NAMES}
                           for o in doc["offers"]]}
    raise ValueError(name)


def render(doc):
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def render_configs(doc):
    # Compact JSON escapes every control character, so no config holds a raw
    # tab or newline; ids are checked for them.
    lines = []
    for m in doc["models"]:
        if "\t" in m["id"] or "\n" in m["id"]:
            raise ValueError(f"model id {m['id']!r} holds a tab or a newline")
        lines.append(m["id"] + "\t" + render(compact_config(m["config"])).rstrip("\n"))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when data/embedded is out of date")
    args = parser.parse_args()
    stale = []
    outputs = []
    for name in ("models.json", "devices.json", "cloud_offers.json"):
        doc = json.loads((DATA / name).read_text(encoding="utf-8"))
        outputs.append((name, render(compact(name, doc))))
        if name == "models.json":
            outputs.append(("model_configs.tsv", render_configs(doc)))
    for name, text in outputs:
        target = OUT / name
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(str(target.relative_to(ROOT)))
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if stale:
        print("compact_catalog: out of date (run python3 scripts/catalog/compact_catalog.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    print("compact_catalog: " + ("up to date" if args.check else "wrote data/embedded"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
