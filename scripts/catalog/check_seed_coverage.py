#!/usr/bin/env python3
"""Coverage of the seed pages: every device and model they name must resolve to a
catalog entry, or (models only) be listed in data/models_excluded.json with its
reason. Names are matched through data/seed_names.json (seed name -> catalog id)
and, failing that, by exact normalized display name."""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"


def norm(text):
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def seed_lists(text):
    devices_block = text.split("Evaluate This Model on Other GPUs", 1)[1].split("Evaluate Other Models", 1)[0]
    devices = re.findall(r"(.+?) \((\d+GB)\)", devices_block.strip())
    models_block = text.split("Evaluate Other Models on This Hardware", 1)[1].split("Can You Run", 1)[0]
    return [d[0].strip() for d in devices], models_block


def main():
    seed_file = SEEDS / "000_ab78916065f69a72.txt"
    if not seed_file.exists():
        print(f"seed coverage: {seed_file} not found; skipped")
        return 0
    text = seed_file.read_text(encoding="utf-8")
    devices, models_block = seed_lists(text)
    names = json.loads((ROOT / "data" / "seed_names.json").read_text(encoding="utf-8"))
    catalog_devices = json.loads((ROOT / "data" / "devices.json").read_text(encoding="utf-8"))["devices"]
    catalog_models = json.loads((ROOT / "data" / "models.json").read_text(encoding="utf-8"))["models"]
    excluded = json.loads((ROOT / "data" / "models_excluded.json").read_text(encoding="utf-8"))["excluded"]
    device_ids = {d["id"] for d in catalog_devices} | {a for d in catalog_devices for a in d.get("aliases", [])}
    device_names = {norm(d["name"]): d["id"] for d in catalog_devices}
    model_ids = {m["id"] for m in catalog_models} | {a for m in catalog_models for a in m.get("aliases", [])}
    problems = []
    for name in devices + ["Instinct MI300X 192GB"]:  # the page's own device, named in its title
        if name in names.get("missing_devices", {}):
            continue
        target = names["devices"].get(name) or device_names.get(norm(name))
        if target not in device_ids:
            problems.append(f"device '{name}' resolves to no catalog device")
    excluded_names = {norm(e.get("seed_name") or "") for e in excluded if e.get("reason")}
    for name, target in names["models"].items():
        if name not in text:
            problems.append(f"model '{name}' in seed_names.json is not on the seed page")
        elif target is None:
            if norm(name) not in excluded_names:
                problems.append(f"model '{name}' is neither in the catalog nor excluded with a reason")
        elif target not in model_ids:
            problems.append(f"model '{name}' maps to unknown id {target}")
    for p in problems:
        print("seed coverage:", p, file=sys.stderr)
    if problems:
        return 1
    print(f"seed coverage: {len(devices)} devices and {len(names['models'])} models of the seed page resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
