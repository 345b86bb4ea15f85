"""Maps measured CPU-only speeds onto llm-sizer scenarios (records.py does
measured_speeds.json and speed_facts.json).

Decode: ../shared/reference/system_ram.json. Only llama.cpp runs with every layer
on the CPU and a stated RAM setup are mapped: their decode rate follows the RAM
bandwidth, which is what these records measure. Record i of
measured_tokens_per_second is case 20000 + i; its held-out id is
'system_ram.json|<i>' (records.held_out applies the same hash rule).

Prefill: scripts/catalog/sourced_cpu_compute.json's prompt_measurements, on the
catalog's CPU machines whose FP32 peak is sourced (cores, base clock, FLOPs per
cycle). Record i is case 21000 + i, held-out id 'sourced_cpu_compute.json|<i>'.
"""
import json
import os

from records import REPO, Case, Skip

SYSTEM_RAM = os.path.normpath(os.path.join(REPO, "..", "shared", "reference", "system_ram.json"))
CPU_COMPUTE = os.path.join(REPO, "scripts", "catalog", "sourced_cpu_compute.json")
INDEX_BASE = 20000
PROMPT_INDEX_BASE = 21000

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


# CPU (as the record names it) -> catalog CPU machine. Prompt processing is
# compute-bound: the machine's RAM size and speed do not enter it, so a run on
# the same CPU with other RAM measures the same prefill.
PROMPT_CPUS = {
    "AMD Ryzen 9 7950X": "ryzen-9-7950x-128gb-ddr5-3600",
    "AMD Ryzen 9 5900X": "ryzen-9-5900x-128gb-ddr4-3600",
    "AMD Ryzen 7 7800X3D": "ryzen-7-7800x3d-192gb-ddr5-6000",
}
PROMPT_MODELS = {
    "llama-3.1-8b-instruct": "llama-3.1-8b", "llama-3.1-8b": "llama-3.1-8b",
    "meta llama 3.1 8b instruct": "llama-3.1-8b", "qwen2.5 14b instruct": "qwen2.5-14b",
}


def prompt_engine_note(engine):
    """The runs whose kernels are mainline llama.cpp's, with what the mapping assumes; None otherwise.
    LocalScore runs llamafile, whose CPU matrix kernels (tinyBLAS) mainline llama.cpp took in
    (llama.cpp PR 6414, 2024): the same GEMMs. ik_llama.cpp's own kernels are not llama.cpp's."""
    if engine.startswith("llama.cpp mainline"):
        return None, ""
    if engine.startswith("LocalScore"):
        return None, ("LocalScore's average prompt rate over its suite (pp16..pp4096, llamafile), mapped as a "
                      "512-token prompt")
    return "engine not modelled as llama.cpp's CPU kernels (%s)" % engine, ""


def calibration_vendor(device):
    """speed.cpp calibration_vendor: a CPU without AVX-512 reads the llama.cpp/cpu/avx2 rows."""
    return "avx2" if device.get("kind") == "cpu" and device.get("cpu_simd") == "avx2" else device["vendor"]


def map_prompt_row(index, row, devices):
    device = PROMPT_CPUS.get(row.get("cpu"))
    if device is None or not (devices.get(device) or {}).get("fp32_tflops"):
        return Skip(index, row, "CPU not a catalog machine with a sourced FP32 peak (%s)" % row.get("cpu"))
    skip, note = prompt_engine_note(row.get("engine", ""))
    if skip:
        return Skip(index, row, skip)
    model = PROMPT_MODELS.get(row.get("model", "").lower())
    if model is None:
        return Skip(index, row, "model not mapped (%s)" % row.get("model"))
    quant = row.get("quant")
    if quant not in ("Q4_0", "Q4_K_M", "Q4_K_S", "Q5_0", "Q8_0", "IQ3_S", "BF16"):
        return Skip(index, row, "quantization not stated as a GGUF type (%s)" % quant)
    if "N_KV 0" not in row.get("test", "") and not row.get("test", "").startswith(("pp512", "LocalScore")):
        return Skip(index, row, "not a prompt test from an empty cache (%s)" % row.get("test"))
    args = ["--model", model, "--quant", quant, "--engine", "llama.cpp", "--gpu", device, "--ctx", "1024",
            "--prompt", "512"]
    record = dict(row, tokens_per_s=row["prompt_tokens_per_s"], quant=quant, backend="llama.cpp cpu",
                  device=row["system"], source=row.get("source", ""))
    case = Case(index, record, model, args, "prefill_tokens_per_s", "llama.cpp cpu", device,
                calibration_vendor(devices[device]), [note] if note else [])
    case.key = "sourced_cpu_compute.json|%d" % (index - PROMPT_INDEX_BASE)
    return case


def map_all():
    with open(SYSTEM_RAM) as f:
        rows = json.load(f)["measured_tokens_per_second"]
    out = [map_row(INDEX_BASE + i, r) for i, r in enumerate(rows)]
    with open(os.path.join(REPO, "data", "devices.json")) as f:
        devices = {d["id"]: d for d in json.load(f)["devices"]}
    with open(CPU_COMPUTE) as f:
        prompts = json.load(f)["prompt_measurements"]
    out += [map_prompt_row(PROMPT_INDEX_BASE + i, r, devices) for i, r in enumerate(prompts)]
    return out
