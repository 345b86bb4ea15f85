#!/usr/bin/env python3
"""Fits the speed model's constants on ../shared/reference/measured_speeds.json.

  python3 scripts/speed/fit.py [--binary build/speed/llm-sizer] [--write]

Maps every record it can (records.py), asks the built CLI for the work of each
step (bytes, FLOPs: physics without efficiencies), and fits the efficiencies of
model.py on the fit set by coordinate descent on mean |log(predicted/measured)|.
Whole devices are held out (every fourth distinct device): the fit never sees
them. --write stores the constants in data/speed_calibration.json with their
provenance and regenerates engine/src/speed_calibration_data.cpp from it.
Python standard library only.
"""
import argparse
import copy
import datetime
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model  # noqa: E402
import records  # noqa: E402
from runner import DEFAULT_BINARY, Runner  # noqa: E402

CALIBRATION_JSON = os.path.join(records.REPO, "data", "speed_calibration.json")
GENERATED_CPP = os.path.join(records.REPO, "engine", "src", "speed_calibration_data.cpp")

# Rows the engine knows. Bandwidth efficiency belongs to the hardware backend
# (shared by the engines on it); overhead and GEMM efficiency to the engine on
# it. Vulkan on NVIDIA has rows of its own: llama.cpp uses NVIDIA's cooperative
# matrix extension there. So does Vulkan on AMD (Radeon and Strix Halo runs, none
# of Intel's): its prompt kernels reach another share of the FP16 peak than
# Intel's Arc cards do, which keep the generic row. SYCL (Intel's oneAPI
# kernels) has rows of its own: on one Arc Pro B70 and build it decodes dense
# models twice as fast as Vulkan and reads their prompts at half the rate
# (scripts/speed/sourced_intel_sycl.json).
BACKENDS = ["cuda", "rocm", "vulkan", "vulkan/nvidia", "vulkan/amd", "sycl", "metal", "cpu"]
RUNTIMES = ["llama.cpp/cuda", "llama.cpp/rocm", "llama.cpp/vulkan", "llama.cpp/vulkan/nvidia", "llama.cpp/vulkan/amd",
            "llama.cpp/sycl", "llama.cpp/metal",
            "llama.cpp/cpu", "llama.cpp/cpu/avx2", "serving/cuda", "serving/rocm", "mlx/metal"]
WEIGHT_FAMILIES = ["legacy", "float16", "kquant", "iquant", "mxfp4", "fp8", "fp4", "int4"]
# Rows without enough measurements take a neighbour's values (stated in the JSON).
BORROW = {
    ("backends", "cpu", "bandwidth_efficiency"): ("constants", "ram_bandwidth_efficiency"),  # the same CPU reads
    ("runtimes", "llama.cpp/cpu", "layer_overhead_s"): ("runtimes", "llama.cpp/cuda", "layer_overhead_s"),
    ("runtimes", "llama.cpp/cpu/avx2", "layer_overhead_s"): ("runtimes", "llama.cpp/cuda", "layer_overhead_s"),
    ("runtimes", "llama.cpp/cpu/avx2", "prefill_efficiency"): ("runtimes", "llama.cpp/cpu", "prefill_efficiency"),
    ("runtimes", "serving/rocm", "layer_overhead_s"): ("runtimes", "serving/cuda", "layer_overhead_s"),
    ("runtimes", "serving/rocm", "prefill_efficiency"): ("runtimes", "serving/cuda", "prefill_efficiency"),
    # NVIDIA cards that state only FP32, run on Vulkan: CUDA's matrix units, not AMD's or Intel's.
    ("backends", "vulkan/nvidia", "vector_fp32_factor"): ("backends", "cuda", "vector_fp32_factor"),
}
# Backends whose vector_fp32_factor is fitted (on devices that state only FP32):
# Metal's is 1 by definition (its prefill efficiency is fitted against Apple's
# FP32 figures), and so is the CPU's: a CPU machine's FP32 figure is its FMA
# peak (cores x base clock x FLOPs per cycle), which llama.cpp's prefill
# efficiency is fitted against directly.
VECTOR_FP32_BACKENDS = ["cuda", "rocm", "vulkan", "vulkan/nvidia", "vulkan/amd"]

# Borrowed even where records move them: the CPU-only runs (a handful, all of
# them long decode steps) cannot tell a fixed cost per layer from a lower
# bandwidth efficiency, so only the efficiency is fitted on them.
ALWAYS_BORROWED = {("runtimes", "llama.cpp/cpu", "layer_overhead_s"),
                   ("runtimes", "llama.cpp/cpu/avx2", "layer_overhead_s")}

# Constants set from physics or documentation, not fitted (the data cannot pin them).
ASSUMED = {
    "ram_bandwidth_efficiency": (0.8, "CPU decode from DDR in llama.cpp: about 0.8 of the theoretical bandwidth in "
                                 "../shared/reference/system_ram.json measured_tokens_per_second (Mixtral 8x7B Q8_0 "
                                 "3.58 tok/s on dual DDR4-3600 = 0.85; 3.37 on DDR5-3600 = 0.80; Llama 3.1 8B Q4_K_M "
                                 "16.8 tok/s on 4-channel DDR4-3200 = 0.80)"),
    "pcie_bytes_per_s": (25e9, "PCIe 4.0 x16: 31.5 GB/s per direction raw, about 25 GB/s in pinned copies"),
    # llama.cpp's RPC between whole machines, worked out by hand from the one
    # clean series (the records' builds predate the local fit's newest Strix
    # Halo records by over 2000, which records.py skips as outdated).
    # Each boundary costs hop + bytes / rate, the bytes being the pass's
    # activations as the engine counts them (hidden x 2 B per token,
    # speed_work.cpp kActivationBytes): decode 2880 x 2 = 5,760 B, a 512-token
    # pass 2,949,120 B (gpt-oss-120b's hidden size 2880).
    "network_hop_s": (5.71e-3, "llama.cpp's RPC between machines (--rpc), per pass and machine boundary: from "
                      "lhl/strix-halo-testing rpc-test/README.md (scripts/speed/sourced_rpc_speeds.json records 0-7), "
                      "gpt-oss-120b MXFP4 on 1, 2, 3 and 4 Strix Halo machines, build 6097. tg128 33.50, 28.87, 23.02, "
                      "21.61 tok/s = 29.85, 34.64, 43.44, 46.28 ms per token: +4.79, +13.59, +16.43 ms over 1, 2, 3 "
                      "boundaries, least squares through zero (4.79 + 2 x 13.59 + 3 x 16.43) / 14 = 5.803 ms per "
                      "boundary = hop + 5,760 B / rate. pp512 404.67, 374.82, 363.54, 368.13 tok/s = 1.2652, 1.3660, "
                      "1.4084, 1.3908 s per pass: +0.1008, +0.1432, +0.1256 s, least squares 54.56 ms per boundary = "
                      "hop + 2,949,120 B / rate. Solved together: rate = 2,943,360 B / 48.75 ms = 6.04e7 B/s, hop = "
                      "5.803 - 0.095 = 5.71 ms. Check: two DGX Sparks over ConnectX-7 (LLMKube#1423, records 41-44) "
                      "add 80.5 - 77.9 = 2.6 ms"),
    "network_bytes_per_s": (6.04e7, "... and the rate a pass's activations cross the boundary at, solved with "
                            "network_hop_s from the same series (see there)"),
}
# Fitted constants with their search ranges.
FITTED_CONSTANTS = {"hbm_bandwidth_factor": (0.1, 1.5), "hbm_prefill_factor": (0.1, 3.0),
                    "layer_split_hop_s": (1e-6, 3e-3), "pressure_onset_fill": (0.3, 0.99),
                    "pressure_slowdown": (0.01, 20.0), "gemm_half_rows": (0.5, 2000.0),
                    "allreduce_latency_s": (1e-6, 3e-4), "moe_layer_overhead_factor": (0.5, 20.0),
                    "multi_die_bandwidth_factor": (0.5, 1.2), "hbm_bandwidth_factor_rocm": (0.1, 1.5),
                    "integrated_prefill_factor": (0.1, 2.0), "expert_gemm_half_rows": (0.5, 2000.0),
                    "expert_gemm_rate_factor": (0.1, 3.0), "pipeline_overlap_without_p2p": (0.01, 1.0)}
# What the fitted constants stand for and which records set them (written to the JSON).
CONSTANT_NOTES = {
    "pipeline_overlap_without_p2p": "llama.cpp's layer split over several GPUs pipelines a batch's micro-batches "
                                    "(-b 2048, -ub 512); GPUs with peer access (8x A100 PCIe, 8x MI300X) realize "
                                    "the ideal saving ((M + B (G - 1)) / (M G) of one GPU's time), GeForce cards, "
                                    "whose copies to each other go through host memory, this share of it: fitted on "
                                    "the fit records' multi-GeForce prompts (4x RTX 4090 at pp8192 gain 1.1-1.2x over "
                                    "pp512 where 2.3x is ideal, a 2026 build; 2x RTX 4090 at -ub 32 and 64 on a 2024 build gained "
                                    "about 60% of the ideal and are now predicted 20-40% slow)",
    "expert_gemm_half_rows": "llama.cpp's routed-expert GEMMs in a prompt (mul_mat_id): the token rows per expert "
                             "at which they run at half their full-tile rate, gemm_half_rows' counterpart; fitted "
                             "with expert_gemm_rate_factor on the fit records' MoE prompt rates",
    "expert_gemm_rate_factor": "llama.cpp's routed-expert GEMMs at full tiles: their share of the dense GEMM rate "
                               "(rows gathered per expert); before it, MoE prompts with many rows per expert "
                               "(-ub 2048-4096 on an RTX 4090) were predicted 50-140% fast and those with 16 rows "
                               "per expert (gpt-oss-120b at -ub 512) 30-60% slow",
    "integrated_prefill_factor": "llama.cpp's prompt kernels on AMD's integrated GPUs (Strix Halo's Radeon "
                                 "8060S, LPDDR shared with the CPU under one power budget): the share of the "
                                 "rate the Vulkan/ROCm rows give discrete Radeons; fitted on the fit records' "
                                 "Strix Halo prompt rates",
    "hbm_bandwidth_factor_rocm": "llama.cpp's HIP kernels on AMD's HBM parts (CDNA: MI100, MI210, MI300X): the "
                                 "share of what they reach on GDDR Radeons, hbm_bandwidth_factor's counterpart "
                                 "(that one is CUDA's, held by A100/H100/V100); fitted on the fit records "
                                 "measured on MI210 and 8x MI300X (DeepSeek-V3) decode",
    "multi_die_bandwidth_factor": "Apple Ultra parts, two Max dies joined by UltraFusion (catalog Ultras by "
                                  "name, records.py's custom stand-ins by --gpu-dies 2): the share of one die's "
                                  "bandwidth efficiency the GPU reaches; fitted on the fit records measured on "
                                  "M1, M2 and M3 Ultras (llama.cpp and MLX decode)",
}
# Rows the reference has no measurements for, set by assumption (stated in the JSON).
ASSUMED_ROWS = {
    ("runtimes", "serving/cuda", "layer_overhead_s"): (
        3e-5, "two single-stream vLLM measurements only (Nemotron on B200): CUDA-graph replay and sampling "
              "assumed at 30 us per layer, which puts both within 10-40%"),
    ("runtimes", "serving/cuda", "prefill_efficiency"): (
        0.5, "no prompt-processing measurement of vLLM/SGLang/TensorRT-LLM in the reference: half of dense peak"),
    # A Battlemage card that states only its FP32 rate (the Arc B580) under SYCL:
    # its XMX rate is the B60's ratio of the two on the same BMG-G21 chip.
    ("backends", "sycl", "vector_fp32_factor"): (
        8.0, "Battlemage's XMX FP16 rate over its vector FP32 rate, from the Arc Pro B60 (the B580's BMG-G21 chip): "
             "98.3 TFLOPS BF16 (ai-dynamo/aiconfigurator systems/b60.yaml) over 12.29 TFLOPS FP32 "
             "(technical.city, Arc Pro B60 Dual, per GPU) = 8.0; no SYCL prompt of a card that states only FP32 "
             "is mapped"),
}


def starting_calibration():
    return {
        "backends": {k: {"bandwidth_efficiency": 0.8, "vector_fp32_factor": 1.0} for k in BACKENDS},
        "runtimes": {k: {"layer_overhead_s": 3e-5, "prefill_efficiency": 0.5} for k in RUNTIMES},
        "weights": {k: {"bandwidth_factor": 1.0, "prefill_factor": 1.0, "prefill_factor_mma": 1.0}
                    for k in WEIGHT_FAMILIES},
        "constants": {
            "hbm_bandwidth_factor": 0.7,
            "hbm_prefill_factor": 1.0,
            "layer_split_hop_s": 2e-5,
            "pressure_onset_fill": 0.8,
            "pressure_slowdown": 1.0,
            "gemm_half_rows": 16.0,
            "moe_layer_overhead_factor": 1.0,
            "allreduce_latency_s": 8e-6,
            "multi_die_bandwidth_factor": 1.0,
            "hbm_bandwidth_factor_rocm": 0.7,
            "integrated_prefill_factor": 1.0,
            "expert_gemm_half_rows": 63.69,
            "expert_gemm_rate_factor": 1.0,
            "pipeline_overlap_without_p2p": 1.0,
            **{k: v[0] for k, v in ASSUMED.items()},
        },
    }


# (path, low, high): the fitted parameters, searched on a log scale.
def parameter_space():
    space = [(("backends", b, "bandwidth_efficiency"), 0.2, 1.0) for b in BACKENDS]
    space += [(("backends", b, "vector_fp32_factor"), 0.1, 8.0) for b in VECTOR_FP32_BACKENDS]
    for r in RUNTIMES:
        space += [(("runtimes", r, "layer_overhead_s"), 1e-7, 5e-4), (("runtimes", r, "prefill_efficiency"), 0.02, 1.5)]
    for w in WEIGHT_FAMILIES:
        if w == "legacy":
            continue  # the reference: Q4_0/Q8_0 kernels
        space += [(("weights", w, "bandwidth_factor"), 0.3, 1.5), (("weights", w, "prefill_factor"), 0.2, 3.0)]
    for w in WEIGHT_FAMILIES:
        if w != "legacy":  # the reference on the MMQ path too
            space += [(("weights", w, "prefill_factor_mma"), 0.2, 3.0)]
    space += [(("constants", c), lo, hi) for c, (lo, hi) in FITTED_CONSTANTS.items()]
    return space


def get(cal, path):
    v = cal
    for p in path:
        v = v[p]
    return v


def put(cal, path, value):
    v = cal
    for p in path[:-1]:
        v = v[p]
    v[path[-1]] = value


def features(runner, cases):
    out = []
    for c in cases:
        j, args = runner.run_case(c)
        if j is None:
            c.skip_reason = args
            continue
        speed = j["speed"]
        if speed["decode_tokens_per_s"] is None:
            continue
        step = model.FIELD_STEP[c.field]
        batch = j["scenario"]["batch"]
        tokens = {"decode_tokens_per_s": 1, "decode_tokens_per_s_total": batch,
                  "prefill_tokens_per_s": j["scenario"]["prompt"]}[c.field]
        family, backend = c.group.split(" ")
        # The engine reads Vulkan's rows for an Intel GPU older than Battlemage
        # under SYCL (speed.cpp, calibration_backend); its basis names the row.
        if backend == "sycl" and speed["basis"].get("runtime", "").startswith("llama.cpp/vulkan"):
            backend = "vulkan"
        out.append({
            "index": c.index, "field": c.field, "tokens": tokens, "family": family, "backend": backend,
            "vendor": c.vendor,
            "work": speed["breakdown"][step]["work"], "basis": speed["basis"], "measured": c.measured,
            "utilization": j["memory"].get("utilization"),
            "cli": speed[c.field], "held_out": records.held_out(c), "group": c.group, "args": args,
            "case": c,
        })
    return out


def errors(feats, cal):
    out = []
    for f in feats:
        p = model.predict(f, cal)
        if p is not None and p > 0:
            out.append((f, p, math.log(p / f["measured"])))
    return out


def setup_key(f):
    """The setup a record measures apart from its context or prompt length: a
    sweep over lengths on one setup (tg64/tg128/tg256) counts as one setup."""
    args = f["args"]
    drop = {"--ctx", "--prompt"}
    kept = [a for i, a in enumerate(args) if a not in drop and (i == 0 or args[i - 1] not in drop)]
    return (f["field"], tuple(kept))


def weights_of(feats):
    counts = {}
    for f in feats:
        counts[setup_key(f)] = counts.get(setup_key(f), 0) + 1
    return {id(f): 1.0 / counts[setup_key(f)] for f in feats}


_WEIGHTS = {}


def objective(feats, cal):
    """Mean |log(predicted / measured)| (robust to the few records that disagree
    with their own neighbours: older builds, odd flags), each setup weighted
    once however many lengths it was swept over."""
    for dst in ALWAYS_BORROWED:  # follow their source while it is fitted
        put(cal, dst, get(cal, BORROW[dst]))
    key = id(feats)
    if key not in _WEIGHTS:
        _WEIGHTS[key] = weights_of(feats)
    w = _WEIGHTS[key]
    errs = errors(feats, cal)
    total = sum(w[id(f)] for f, _, _ in errs)
    return sum(w[id(f)] * abs(e) for f, _, e in errs) / total if errs else 0.0


def golden(fn, lo, hi, steps=28):
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fn(math.exp(c)), fn(math.exp(d))
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = fn(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = fn(math.exp(d))
    return math.exp((a + b) / 2)


def influential(feats, cal, path):
    """Fit records whose prediction moves with this parameter."""
    base = [model.predict(f, cal) for f in feats]
    trial = copy.deepcopy(cal)
    put(trial, path, get(cal, path) * 1.3)
    n = 0
    for f, b in zip(feats, base):
        p = model.predict(f, trial)
        if b and p and abs(p / b - 1) > 1e-6:
            n += 1
    return n


def nelder_mead(fn, x0, step=0.3, iterations=4000, tolerance=1e-7):
    """Minimise fn over a list of floats (here: logs of the parameters)."""
    n = len(x0)
    points = [list(x0)] + [[x + (step if i == j else 0.0) for j, x in enumerate(x0)] for i in range(n)]
    values = [fn(p) for p in points]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda i: values[i])
        points, values = [points[i] for i in order], [values[i] for i in order]
        if values[-1] - values[0] < tolerance:
            break
        centre = [sum(p[i] for p in points[:-1]) / n for i in range(n)]
        worst = points[-1]
        reflected = [c + (c - w) for c, w in zip(centre, worst)]
        fr = fn(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = fn(expanded)
            points[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            points[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = fn(contracted)
            if fc < values[-1]:
                points[-1], values[-1] = contracted, fc
            else:
                for j in range(1, n + 1):
                    points[j] = [b + 0.5 * (x - b) for b, x in zip(points[0], points[j])]
                    values[j] = fn(points[j])
    return points[0], values[0]


def fit(feats, cal, sweeps=8, min_records=3, only=None):
    """Coordinate descent (golden section per parameter), then Nelder-Mead over
    all of them together: efficiencies and overheads trade off against each other.
    `only`: names ("backends/cuda/vector_fp32_factor") of the parameters to move;
    the others keep their starting values (a new term fitted beside a settled fit)."""
    cal = copy.deepcopy(cal)
    # The all-reduce latency moves only tensor-parallel records, of which the fit
    # set has few, and each backend's FP32 factor only the prompt records of its
    # FP32-only devices, and the AVX2 CPUs' prefill efficiency only the prompt
    # records of the one AVX2 CPU measured (Ryzen 9 5900X): fitted on one or more.
    few = lambda p: p in (("constants", "allreduce_latency_s"), ("runtimes", "llama.cpp/cpu/avx2", "prefill_efficiency")) \
        or p[-1] == "vector_fp32_factor"
    eligible = [(p, lo, hi) for p, lo, hi in parameter_space()
                if p not in ALWAYS_BORROWED and influential(feats, cal, p) >= (1 if few(p) else min_records)]
    space = [e for e in eligible if only is None or "/".join(e[0]) in only]
    for sweep in range(sweeps):
        before = objective(feats, cal)
        for path, lo, hi in space:
            def fn(v, path=path):
                put(cal, path, v)
                return objective(feats, cal)
            put(cal, path, golden(fn, lo, hi))
        after = objective(feats, cal)
        print("sweep %d: objective %.4f -> %.4f" % (sweep + 1, before, after), file=sys.stderr)
        if before - after < 1e-5:
            break

    def joint(x):
        for (path, lo, hi), v in zip(space, x):
            put(cal, path, min(hi, max(lo, math.exp(v))))
        return objective(feats, cal)
    x = [math.log(get(cal, path)) for path, _, _ in space]
    for round_ in range(3):
        x, value = nelder_mead(joint, x)
        print("simplex %d: objective %.4f" % (round_ + 1, value), file=sys.stderr)
    joint(x)
    counts = {path: influential(feats, cal, path) for path, _, _ in eligible}
    return cal, counts


def summarize(feats, cal, label, out=sys.stdout):
    errs = errors(feats, cal)
    groups = {}
    for f, p, e in errs:
        groups.setdefault(f["group"], []).append(abs(p / f["measured"] - 1) * 100)
    allv = [abs(p / f["measured"] - 1) * 100 for f, p, _ in errs]
    print("%s: n=%d median %.1f%% mean %.1f%%" % (label, len(allv), statistics.median(allv) if allv else 0,
                                                  statistics.mean(allv) if allv else 0), file=out)
    for g in sorted(groups):
        v = groups[g]
        print("  %-24s n=%3d median %5.1f%% mean %5.1f%%" % (g, len(v), statistics.median(v), statistics.mean(v)),
              file=out)


def round_sig(x, digits=4):
    return float("%.*g" % (digits, x)) if x else 0.0


def rounded(cal):
    out = copy.deepcopy(cal)
    for table in ("backends", "runtimes", "weights"):
        for row in out[table].values():
            for k in row:
                row[k] = round_sig(row[k])
    for k in out["constants"]:
        out["constants"][k] = round_sig(out["constants"][k])
    return out


def row_records(feats, table, key):
    """Fit records that use a row (after the engine's fallbacks)."""
    n = 0
    for f in feats:
        if f["held_out"]:
            continue
        if table == "backends":
            hit = _row_key(f, "backends") == key
        elif table == "runtimes":
            hit = _row_key(f, "runtimes") == key
        else:
            hit = f["basis"]["weight_family"] == key
        n += 1 if hit else 0
    return n


def _row_key(f, table):
    backend, vendor = f["backend"], f["vendor"]
    if table == "runtimes" and f["family"] == "mlx":
        backend = "metal"
    prefix = "" if table == "backends" else f["family"] + "/"
    keys = BACKENDS if table == "backends" else RUNTIMES
    for b in (backend, model.NEIGHBOUR.get(backend, "cuda"), "cuda"):
        for k in ("%s%s/%s" % (prefix, b, vendor), "%s%s" % (prefix, b)):
            if k in keys:
                return k
    return None


def provenance(feats, counts):
    return {
        "fitted_on": "../shared/reference/measured_speeds.json, ../shared/reference/speed_facts.json, "
                     "../shared/reference/system_ram.json and scripts/catalog/sourced_cpu_compute.json "
                     "(fit records only)",
        "held_out_rule": records.HELD_OUT_RULE,
        "method": "scripts/speed/fit.py: records mapped by scripts/speed/records.py onto catalog models and "
                  "devices (or stated custom devices); the CLI gives each pass's work (bytes, FLOPs, layers); "
                  "the constants below are fitted on the fit records by coordinate descent (golden section on "
                  "a log scale) and a Nelder-Mead polish, minimising mean |log(predicted/measured)|. About a quarter "
                  "of the records, chosen by hashing their ids (held_out_rule), is held out and never seen by "
                  "the fit.",
        "date": datetime.date.today().isoformat(),
        "fit_records": sorted(f["index"] for f in feats if not f["held_out"]),
        "held_out_records": sorted(f["index"] for f in feats if f["held_out"]),
        "records_moving_each_parameter": {"/".join(p): n for p, n in counts.items()},
    }


def write(cal, feats, counts):
    cal = rounded(cal)
    fitted = {path for path in counts}
    for path, (value, _) in ASSUMED_ROWS.items():
        if path not in fitted:
            put(cal, path, value)
    borrowed = {}
    for dst, src in BORROW.items():
        if dst not in fitted:
            put(cal, dst, get(cal, src))
            borrowed["/".join(dst)] = "/".join(src)
    unfitted = ["/".join(p) for p, _, _ in parameter_space()
                if p not in fitted and "/".join(p) not in borrowed and p not in ASSUMED_ROWS]

    def split(key):
        parts = key.split("/")
        return parts + [""] * (3 - len(parts))

    doc = {
        "schema_version": 1,
        "description": "Fitted constants of the llm-sizer speed model (engine/src/speed.cpp, "
                       "docs/accuracy.md). Compiled into engine/src/speed_calibration_data.cpp by "
                       "scripts/speed/fit.py --write; tests/test_speed.cpp checks the two agree.",
        "provenance": provenance(feats, counts),
        "backends": [{"backend": b.split("/")[0], "vendor": (b.split("/") + [""])[1], **cal["backends"][b],
                      "fitted_records": row_records(feats, "backends", b)} for b in BACKENDS],
        "runtimes": [{"engine": split(r)[0], "backend": split(r)[1], "vendor": split(r)[2], **cal["runtimes"][r],
                      "fitted_records": row_records(feats, "runtimes", r)} for r in RUNTIMES],
        "weights": [{"family": w, **cal["weights"][w], "fitted_records": row_records(feats, "weights", w)}
                    for w in WEIGHT_FAMILIES],
        "constants": cal["constants"],
        "assumed_constants": {k: v[1] for k, v in ASSUMED.items()},
        "fitted_constant_notes": CONSTANT_NOTES,
        "assumed_rows": {"/".join(p): v[1] for p, v in ASSUMED_ROWS.items() if p not in fitted},
        "borrowed": borrowed,
        "not_fitted_defaults": unfitted,
    }
    # The serving rows are fit_served.py's: kept as they are.
    if os.path.exists(CALIBRATION_JSON):
        with open(CALIBRATION_JSON) as f:
            previous = json.load(f)
        if "served" in previous:
            doc["served"] = previous["served"]
    with open(CALIBRATION_JSON, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_cpp(doc)
    print("wrote %s and %s" % (os.path.relpath(CALIBRATION_JSON, records.REPO),
                               os.path.relpath(GENERATED_CPP, records.REPO)))


# SpeedConstants' fields in declaration order (speed_calibration.hpp).
CONSTANT_ORDER = ["ram_bandwidth_efficiency", "hbm_bandwidth_factor", "hbm_prefill_factor", "pcie_bytes_per_s",
                  "allreduce_latency_s", "layer_split_hop_s", "pressure_onset_fill", "pressure_slowdown",
                  "moe_layer_overhead_factor", "gemm_half_rows", "multi_die_bandwidth_factor",
                  "hbm_bandwidth_factor_rocm", "integrated_prefill_factor", "expert_gemm_half_rows",
                  "expert_gemm_rate_factor", "network_hop_s", "network_bytes_per_s", "pipeline_overlap_without_p2p"]

ENGINE_ENUM = {"llama.cpp": "EngineFamily::llama_cpp", "serving": "EngineFamily::serving", "mlx": "EngineFamily::mlx"}


def cpp_number(x):
    return repr(float(x))


def write_cpp(doc):
    k = doc["constants"]
    lines = [
        "// Generated by scripts/speed/fit.py from data/speed_calibration.json. Do not edit;",
        "// tests/test_speed.cpp checks these equal the JSON.",
        '#include "llmsizer/speed_calibration.hpp"',
        "",
        "namespace llmsizer {",
        "",
        "// backend, vendor, bandwidth_efficiency, vector_fp32_factor, fitted_records",
        "extern const BackendCalibration kBackendCalibrations[] = {",
    ]
    lines += ['    {Backend::%s, "%s", %s, %s, %d},' % (b["backend"], b["vendor"], cpp_number(b["bandwidth_efficiency"]),
                                                       cpp_number(b["vector_fp32_factor"]), b["fitted_records"])
              for b in doc["backends"]]
    lines += [
        "};",
        "extern const std::size_t kBackendCalibrationCount = sizeof(kBackendCalibrations) / sizeof(kBackendCalibrations[0]);",
        "",
        "// engine, backend, vendor, layer_overhead_s, prefill_efficiency, fitted_records",
        "extern const RuntimeCalibration kRuntimeCalibrations[] = {",
    ]
    lines += ['    {%s, Backend::%s, "%s", %s, %s, %d},' % (
        ENGINE_ENUM[r["engine"]], r["backend"], r["vendor"], cpp_number(r["layer_overhead_s"]),
        cpp_number(r["prefill_efficiency"]), r["fitted_records"]) for r in doc["runtimes"]]
    lines += [
        "};",
        "extern const std::size_t kRuntimeCalibrationCount = sizeof(kRuntimeCalibrations) / sizeof(kRuntimeCalibrations[0]);",
        "",
        "// family, bandwidth_factor, prefill_factor, prefill_factor_mma, fitted_records",
        "extern const WeightCalibration kWeightCalibrations[] = {",
    ]
    lines += ["    {WeightFamily::%s, %s, %s, %s, %d}," % (w["family"], cpp_number(w["bandwidth_factor"]),
                                                         cpp_number(w["prefill_factor"]),
                                                         cpp_number(w["prefill_factor_mma"]), w["fitted_records"])
              for w in doc["weights"]]
    lines += [
        "};",
        "extern const std::size_t kWeightCalibrationCount = sizeof(kWeightCalibrations) / sizeof(kWeightCalibrations[0]);",
        "",
        "// " + ", ".join(CONSTANT_ORDER[:4]) + ",",
        "// " + ", ".join(CONSTANT_ORDER[4:]),
        "extern const SpeedConstants kSpeedConstants = {%s};" % ", ".join(
            cpp_number(k[name]) for name in CONSTANT_ORDER),
        "",
        "}  // namespace llmsizer",
        "",
    ]
    with open(GENERATED_CPP, "w") as f:
        f.write("\n".join(lines))


def load_calibration(path=CALIBRATION_JSON):
    """data/speed_calibration.json in model.py's form."""
    with open(path) as f:
        doc = json.load(f)

    def key(*parts):
        return "/".join(p for p in parts if p)
    return {
        "backends": {key(b["backend"], b["vendor"]): b for b in doc["backends"]},
        "runtimes": {key(r["engine"], r["backend"], r["vendor"]): r for r in doc["runtimes"]},
        "weights": {w["family"]: w for w in doc["weights"]},
        "constants": doc["constants"],
    }


def warm_start(path):
    """A calibration JSON's values as a starting point; parameters it lacks keep the fixed start."""
    start = starting_calibration()
    old = load_calibration(path)
    for table in ("backends", "runtimes", "weights"):
        for key, row in start[table].items():
            for name in row:
                if isinstance(old[table].get(key, {}).get(name), (int, float)):
                    row[name] = float(old[table][key][name])
    for name in start["constants"]:
        if name in old["constants"] and name not in ASSUMED:
            start["constants"][name] = float(old["constants"][name])
    return start


def collect(binary):
    mapped = records.map_all()
    # A mapping that raises (a field a source lacks) would drop its records from
    # the fit and the check without a word: stop instead.
    broken = [m for m in mapped if isinstance(m, records.Skip) and m.reason.startswith("mapping error")]
    if broken:
        raise SystemExit("records.py could not map %d records (first: #%d, %s): fix the mapping before fitting"
                         % (len(broken), broken[0].index, broken[0].reason))
    cases = [m for m in mapped if isinstance(m, records.Case)]
    records.choose_held_out(cases)
    return features(Runner(binary), cases), mapped


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=DEFAULT_BINARY)
    ap.add_argument("--write", action="store_true", help="write data/speed_calibration.json and the generated C++")
    ap.add_argument("--start", help="start the search from this calibration JSON (e.g. the last fit) instead of "
                                    "the fixed starting values; the fit is deterministic for a given start")
    ap.add_argument("--only", help="comma-separated parameters to fit (e.g. backends/cuda/vector_fp32_factor); "
                                   "the others keep the --start values")
    args = ap.parse_args()
    feats, _ = collect(args.binary)
    fit_set = [f for f in feats if not f["held_out"]]
    held = [f for f in feats if f["held_out"]]
    only = set(args.only.split(",")) if args.only else None
    if only and not args.start:
        ap.error("--only needs --start: the parameters not fitted keep its values")
    cal, counts = fit(fit_set, starting_calibration() if not args.start else warm_start(args.start), only=only)
    print("fit objective (mean |log(predicted/measured)|, fit records): %.5f" % objective(fit_set, cal))
    summarize(fit_set, cal, "fit")
    summarize(held, cal, "held-out")
    print(json.dumps(rounded(cal), indent=1))
    if args.write:
        write(cal, feats, counts)


if __name__ == "__main__":
    main()
