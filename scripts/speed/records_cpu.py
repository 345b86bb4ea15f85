"""Maps ../shared/reference/system_ram.json's measured CPU-only speeds onto llm-sizer
scenarios (records.py does measured_speeds.json and speed_facts.json).

Only llama.cpp runs with every layer on the CPU and a stated RAM setup are mapped:
their decode rate follows the RAM bandwidth, which is what these records measure.
Record i of measured_tokens_per_second is case 20000 + i; its held-out id is
'system_ram.json|<i>' (records.held_out applies the same hash rule).
"""
import json
import os

from records import REPO, Case, Skip

SYSTEM_RAM = os.path.normpath(os.path.join(REPO, "..", "shared", "reference", "system_ram.json"))
INDEX_BASE = 20000

# system (as the record names it) -> (model, quant, device flags, device key, note).
# Catalog CPU machines where the catalog has the machine; otherwise a custom CPU
# device whose bandwidth is channels x 8 bytes x MT/s (system_ram.json's formula).
# A custom device's memory only has to hold the model: it does not enter decode.
SYSTEMS = {
    "Ryzen 9 5900X, 128 GB DDR4-3600": (
        "mixtral-8x7b", "Q8_0", ["--gpu", "ryzen-9-5900x-128gb-ddr4-3600"], "ryzen-9-5900x-128gb-ddr4-3600", None),
    "Ryzen 9 7950X, 128 GB DDR5-3600": (
        "mixtral-8x7b", "Q8_0", ["--gpu", "ryzen-9-7950x-128gb-ddr5-3600"], "ryzen-9-7950x-128gb-ddr5-3600", None),
    # 16 DIMMs of DDR5-6400 over two sockets: 16 x 8 x 6400 / 1000 = 819.2 GB/s.
    # RAM size not stated; 4.31 tok/s is the rate after the page cache warmed.
    "2x EPYC 9175F, 16 x DDR5-6400": (
        "llama-3.1-70b", "F16", ["--gpu-memory-gib", "1024", "--gpu-bandwidth-gbs", "819.2", "--gpu-vendor", "cpu"],
        "2x-epyc-9175f", "custom CPU device: 16 channels of DDR5-6400, 819.2 GB/s"),
    # Channels and speed are not stated ('Overclocked'): taken as the quad-channel
    # DDR4-3200 HEDT profile of data/system_ram.json (102.4 GB/s), Threadripper
    # 3000's platform. An assumption, said so in docs/accuracy.md's notes.
    "Threadripper 3970X, 64 GB RAM (speed/channels not stated; 'Overclocked')": (
        "llama-3.1-8b", "Q4_K_M", ["--gpu-memory-gib", "64", "--gpu-bandwidth-gbs", "102.4", "--gpu-vendor", "cpu"],
        "threadripper-3970x", "custom CPU device: assumed 4 channels of DDR4-3200, 102.4 GB/s"),
}


def is_cpu_only(row):
    engine = row.get("engine", "")
    return engine.startswith("llama.cpp") and any(k in engine for k in ("CPU only", "CPU backend", "llama-bench, CPU"))


def map_row(index, row):
    if not is_cpu_only(row):
        return Skip(index, row, "not a llama.cpp run with every layer on the CPU (%s)" % row.get("engine"))
    if row.get("tokens_per_s") is None:
        return Skip(index, row, "no decode rate (prompt only)")
    mapped = SYSTEMS.get(row["system"])
    if mapped is None:
        return Skip(index, row, "RAM setup or quantization not stated well enough to map")
    model, quant, flags, key, note = mapped
    args = ["--model", model, "--quant", quant, "--engine", "llama.cpp"] + flags + ["--ctx", "512"]
    record = dict(row, quant=quant, backend="llama.cpp cpu", device=row["system"], source=row.get("source", ""))
    case = Case(index, record, model, args, "decode_tokens_per_s", "llama.cpp cpu", key, "cpu",
                [note] if note else [])
    case.key = "system_ram.json|%d" % (index - INDEX_BASE)
    return case


def map_all():
    with open(SYSTEM_RAM) as f:
        rows = json.load(f)["measured_tokens_per_second"]
    return [map_row(INDEX_BASE + i, r) for i, r in enumerate(rows)]
