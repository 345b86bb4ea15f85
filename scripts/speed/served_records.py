"""Measured serving runs as llm-sizer requests (speed.served), for fit_served.py.

Reads ../shared/reference/serving_speeds.json and, where present,
data/serving_measurements.json (records gathered with their sources). Each run
becomes a Case: the request that reproduces it and the figures measured. Runs
the engine cannot reproduce are skipped with the reason.

How a run's load is reproduced:
  fixed     a benchmark at a set max concurrency C: batch = C.
  burst     `vllm bench serve` or trtllm-bench at request rate inf, lengths fixed:
            all N prompts at once, so the engine runs as many as it admits
            (batch = N). Only the output throughput is compared: TTFT and TPOT
            there are the drain of a one-off queue, not a steady state. Runs of
            mixed lengths (ShareGPT) are left out: the drain's tail dominates.
  poisson   MLPerf Server / Interactive (Poisson arrivals): the requests in
            flight by Little's law, C = (output tokens/s / O) x (TTFT + (O - 1) x TPOT).
  offline   MLPerf Offline: every sample at once: batch = 4096, the pool decides.
"""
import hashlib
import json
import os
import re
from dataclasses import dataclass, field

from records import HAND_CONFIGS, REPO

REFERENCE = os.path.join(REPO, "..", "shared", "reference", "serving_speeds.json")
GATHERED = os.path.join(REPO, "data", "serving_measurements.json")
MLPERF_LENGTHS = os.path.join(REPO, "data", "mlperf_dataset_lengths.json")

ENGINES = {"vllm": "vllm", "sglang": "sglang", "trt-llm": "tensorrt-llm", "tensorrt-llm": "tensorrt-llm",
           "llama.cpp": "llama.cpp"}

# Device names as the sources spell them -> catalog ids (first match wins).
DEVICES = [
    (r"GB200", "gb200-per-gpu"), (r"B200", "b200"), (r"H200.?NVL", "h200-nvl"), (r"H200", "h200-sxm"),
    (r"H100.?NVL", "h100-nvl"), (r"H100.?PCIe", "h100-pcie"), (r"H100", "h100-sxm"),
    (r"A100.*40", "a100-40gb-sxm"), (r"A100", "a100-80gb-sxm"), (r"L40S", "l40s"),
    (r"RTX PRO 6000", "rtx-pro-6000-blackwell"), (r"MI355X", "mi355x"), (r"MI325X", "mi325x"),
    (r"MI300X", "mi300x"),
]

# Model names -> (catalog id or hand config, quant when the name fixes it). Most specific first.
MODELS = [
    (r"Llama-2-70b", "config:llama-2-70b"), (r"Llama-3\.1-405B", "llama-3.1-405b"),
    (r"Llama-3\.[13]-70B", "llama-3.1-70b"), (r"Llama-3\.1-8B", "llama-3.1-8b"),
    (r"Mixtral-8x7B", "mixtral-8x7b"), (r"DeepSeek-R1-0528", "deepseek-r1-0528"), (r"DeepSeek-R1\b", "deepseek-r1"),
    (r"DeepSeek-V3\.2", "deepseek-v3.2"), (r"DeepSeek-V3-0324", "deepseek-v3-0324"), (r"DeepSeek-V3\b", "deepseek-v3"),
    (r"GLM-4\.5-Air", "glm-4.5-air"), (r"GLM-5\.1", "glm-5.1"), (r"GLM-4\.7-FP8", "glm-4.7-fp8"),
    (r"MiniMax-M2\.7", "minimax-m2.7"), (r"MiniMax-M2\.5", "minimax-m2.5"), (r"Kimi-K2-Instruct\b", "kimi-k2-instruct"),
    (r"Kimi-K2\.5", "kimi-k2.5"), (r"GLM-4\.7-Flash", "glm-4.7-flash"),
    (r"Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b-instruct"), (r"Qwen3-Coder-Next", "qwen3-coder-next"),
    (r"ERNIE-4\.5-21B-A3B", "ernie-4.5-21b-a3b"), (r"Qwen3\.5-122B-A10B", "qwen3.5-122b-a10b"),
    # GLM-4.6 is GLM-4.5's architecture (355B-A32B, the same config but a longer window).
    (r"GLM-4\.[56]-FP8", "glm-4.5-fp8"), (r"GLM-4\.[56]\b", "glm-4.5"),
    (r"gpt-oss-120b", "gpt-oss-120b"), (r"gpt-oss-20b", "gpt-oss-20b"),
    (r"Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3-235b-a22b-fp8"),
    (r"Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b-instruct-2507"), (r"Qwen3-235B-A22B-FP8", "qwen3-235b-a22b-fp8"),
    (r"Qwen3-235B-A22B", "qwen3-235b-a22b"), (r"Qwen3-32B", "qwen3-32b"), (r"Qwen3-14B", "qwen3-14b"),
    (r"Qwen3-8B", "qwen3-8b"), (r"Qwen3-30B-A3B", "qwen3-30b-a3b"),
    # Google's BF16 release; the catalog keeps Gemma 4 31B under NVIDIA's NVFP4
    # re-release, whose text config is the same (models_more.json).
    (r"gemma-4-31B-it", "gemma-4-31b-it-nvfp4"),
]

# Weight formats as the records state them -> llm-sizer quantization names.
QUANTS = {"BF16": "native", "FP16": "native", "FP8": "FP8", "FP4": "NVFP4", "NVFP4": "NVFP4", "MXFP4": "MXFP4",
          "INT4": "AWQ", "AWQ": "AWQ", "GPTQ": "GPTQ-INT4"}

OFFLINE_BATCH = 4096


def catalog_models():
    with open(os.path.join(REPO, "data", "models.json")) as f:
        return json.load(f)["models"]


def text_config(model):
    """The language model's config (a multimodal release nests it under text_config)."""
    config = model.get("config") or {}
    return config.get("text_config") or config


NATIVE_DTYPES = {m["id"]: m.get("native_dtype") for m in catalog_models()}
# Models with multi-head latent attention (a latent KV: kv_lora_rank).
MLA_MODELS = {m["id"] for m in catalog_models() if text_config(m).get("kv_lora_rank")}
# Hybrid models: layers with a recurrent token mixer (Gated DeltaNet linear
# attention, Mamba2) beside a few attention layers.
HYBRID_MODELS = {m["id"] for m in catalog_models()
                 if any(t in ("linear_attention", "mamba") for t in text_config(m).get("layer_types") or [])
                 or (text_config(m).get("full_attention_interval") or 0) > 1
                 or text_config(m).get("hybrid_override_pattern")}
# NVIDIA ModelOpt checkpoints benchmarked in TensorRT-LLM's perf overview whose
# KV cache is FP8 (kv_cache_quant_algo in hf_quant_config.json). Evidence in
# scripts/speed/sourced_kv_dtypes.json: TensorRT-LLM's accuracy tests load the
# Llama 3.3 70B FP4 and Llama 4 Maverick FP8 exports with dtype 'auto' and assert
# an FP8 KV cache; ModelOpt's hf_ptq.py exports FP8 KV unless told otherwise
# (--kv_cache_qformat default fp8), as DeepSeek-R1-0528-NVFP4 (modelopt 0.31)
# shows. For the Qwen3 and Llama 3.3 FP8 exports (no file found) this is that
# default, an inference; the two exports seen without it are of modelopt 0.17
# and 0.23 (2024 to early 2025), older than every checkpoint here.
MODELOPT_FP8_KV = {
    "nvidia/Llama-3.3-70B-Instruct-FP4",
    "nvidia/Llama-3.3-70B-Instruct-FP8",
    "nvidia/Qwen3-235B-A22B-FP4",
    "nvidia/Qwen3-235B-A22B-FP8",
    "nvidia/Qwen3-30B-A3B-FP4",
    "nvidia/Llama-4-Maverick-17B-128E-Instruct-FP8",
    "nvidia/Llama-4-Maverick-17B-128E-Instruct-NVFP4",
}


@dataclass
class Case:
    id: str
    record: dict
    kind: str                 # fixed | burst | poisson | offline
    request: dict
    measured: dict            # per_user, total, ttft_s: what the run measured (None: not compared)
    group: dict = field(default_factory=dict)  # engine, backend, device, model, concurrency band


def _first(patterns, text):
    for pattern, value in patterns:
        if re.search(pattern, text, re.I):
            return value
    return None


def _totals(quote):
    """(requests, max concurrency or None, total input, total generated) from a vllm bench serve quote."""
    m = re.search(r"Successful requests (\d+), Max concurrency (\w+), Total input (\d+), Total generated (\d+)", quote)
    if not m:
        return None
    conc = None if m.group(2) == "None" else int(m.group(2))
    return int(m.group(1)), conc, int(m.group(3)), int(m.group(4))


def _mlperf_output(notes):
    m = re.search(r"Mean output tokens/sample ([\d.]+)", notes or "")
    return float(m.group(1)) if m else None


def _mlperf_benchmark(model):
    m = re.search(r"MLPerf ([\w.\-]+)\)", model)
    return m.group(1) if m else None


def _quant(record, model_text, model=None):
    # "FP8 (native block-FP8 checkpoint)": the format is the first word, the rest a note.
    q = (record.get("quant") or "").upper().split(" (")[0].strip()
    if model and NATIVE_DTYPES.get(model) == "int4" and q == "INT4":
        return "native"  # the model's own INT4 release (Kimi K2.5's compressed-tensors W4A16)
    if q in ("UNSET", ""):
        q = "FP8" if "FP8" in model_text.upper() else ""
    if record.get("model", "").startswith("openai/gpt-oss"):
        return "native"  # MXFP4 experts as published
    return QUANTS.get(q)


def _older_scheduler(record):
    """Runs on engines older than the V1 scheduler generation (vLLM < 0.8, SGLang < 0.5,
    TensorRT-LLM < 1.0) schedule prompts with other budgets and defaults."""
    version = record.get("engine_version") or ""
    m = re.search(r"(\d+)\.(\d+)", version)
    if not m:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    engine = (record.get("engine") or "").lower()
    floor = {"vllm": (0, 8), "sglang": (0, 5), "trt-llm": (1, 0)}.get(engine)
    if floor and (major, minor) < floor and "MLPerf" not in (record.get("test") or ""):
        return "%s %s: an older scheduler generation than the one modelled" % (engine, version.split()[0])
    return None
    return None


def load_mlperf_lengths():
    if not os.path.exists(MLPERF_LENGTHS):
        return {}
    with open(MLPERF_LENGTHS) as f:
        return json.load(f).get("benchmarks", {})


def case_for(index, record, source, mlperf_lengths):
    """A Case, or a reason string."""
    text = record.get("model", "")
    quote = record.get("quote") or ""
    notes = record.get("notes") or ""
    engine = ENGINES.get((record.get("engine") or "").lower())
    if not engine:
        return "engine %r is not one llm-sizer models" % record.get("engine")
    # Drafted tokens (EAGLE, MTP) where the run's command or table says so, or
    # its notes say it was on ("no speculative decoding" is not).
    if re.search(r"EAGLE|speculative-algorithm|--speculative|\bMTP\b", quote + " " + (record.get("test") or ""), re.I) or \
            re.search(r"Speculative decoding \(|with speculative decoding|speculative decoding on", notes, re.I):
        return "speculative decoding"
    # The run's own parallel layout (a quoted table header may name other columns').
    parallel = record.get("parallel") or ""
    # Attention data parallel over all the run's GPUs (DEP-n: attention DP and
    # expert parallel n; SGLang's --enable-dp-attention with --dp = --tp).
    attention_dp = re.search(r"dp-attention|\bDEP\d|attention.dp|\bdp\d", parallel, re.I) is not None or \
        re.search(r"enable-dp-attention", quote) is not None
    device = _first(DEVICES, record.get("device") or "")
    if not device:
        return "device %r not in the catalog" % record.get("device")
    if re.search(r"A100", record.get("device") or "") and not re.search(r"40|80", record.get("device") or ""):
        return "an A100 whose memory (40 or 80 GB: 1.6 or 2.0 TB/s) the run does not state"
    if re.search(r"Modal", record.get("device") or ""):
        return "a run through a cloud endpoint (Modal): its times include the network"
    model = _first(MODELS, text)
    if not model:
        return "model %r not in the catalog" % text
    quant = _quant(record, text, model)
    if quant == "native" and NATIVE_DTYPES.get(model) == "int4" and engine == "sglang":
        # Kimi K2.5's INT4 experts under SGLang 0.5.6.post2 (8x H200): output 258 tok/s at 16 in flight and 254
        # at 100 (TPOT 53 -> 365 ms), 2 TFLOPS a GPU: no bandwidth or compute factor a row could fit. The
        # engine's sglang/cuda/int4 row says so instead of a fitted figure (fit_served.py BORROW).
        return ("SGLang's INT4 MoE kernels (W4A16): output flat from 16 to 100 in flight, a kernel limit no "
                "serving factor reproduces")
    backend = re.search(r"--attention-backend (\w+)", record.get("notes") or "")
    if engine == "sglang" and (record.get("backend") or "cuda") == "cuda" and model in MLA_MODELS and \
            backend and backend.group(1) == "triton":
        # GLM-4.7-Flash on one B200 as its cookbook page launches it: at one in
        # flight the time per token grows 1.08 us per cached token (8.75 ms at
        # 821 tokens, 12.63 ms at 4,405; 54 KB of latent cache a token: 50 GB/s
        # of the part's 8 TB/s). The CUDA row stands for SGLang's own MLA
        # kernels on NVIDIA (TRT-LLM MLA, FlashMLA, FlashInfer), which DeepSeek
        # R1's runs on the same part measure within ~10%; fitted with them, these
        # runs pulled the row's compute factor to its floor for every model.
        return ("SGLang's Triton MLA kernels on NVIDIA (--attention-backend triton), not its default MLA kernels "
                "the CUDA row stands for: decode slows 1.08 us per cached token at one in flight")
    if quant == "native" and (record.get("quant") or "").upper() in ("BF16", "FP16") and \
            NATIVE_DTYPES.get(model) not in (None, "bf16", "fp16"):
        quant = record["quant"].upper()  # a 16-bit release of a model the catalog keeps quantized
    if not quant:
        return "weight format %r" % record.get("quant")
    gpus = int(record.get("gpus") or 1)
    test = record.get("test") or ""
    tpot_ms = record.get("tpot_ms")
    ttft_ms = record.get("ttft_ms")
    total = record.get("decode_tokens_per_s_total")
    per_user = record.get("decode_tokens_per_s") or (1000.0 / tpot_ms if tpot_ms else None)

    inp = record.get("input_tokens")
    out = record.get("output_tokens")
    conc = record.get("concurrency")
    kind = None
    measured = {"per_user": per_user, "total": total, "ttft_s": ttft_ms / 1000.0 if ttft_ms else None}
    totals = _totals(quote)
    if totals:
        n, max_conc, tin, tout = totals
        inp, out = tin / n, tout / n
        if max_conc:
            kind, conc = "fixed", max_conc
        elif "ShareGPT" in test:
            return ("ShareGPT at request rate inf: a one-off queue of prompts and outputs of every length, whose "
                    "drain (the last long answers alone) is no steady state")
        else:
            kind, conc = "burst", n
            measured["ttft_s"] = None
            measured["per_user"] = None
    elif "MLPerf" in test:
        bench = _mlperf_benchmark(text)
        # llama2-70b-99 and -99.9 are one dataset at two accuracy targets.
        lengths = mlperf_lengths.get(bench or "") or mlperf_lengths.get(re.sub(r"-99(\.9)?$", "", bench or ""), {})
        # A submission's parallel layout is not in the summary. A model that fits
        # a few of the system's GPUs may run as several replicas (the fit on the
        # 2026-12-04 lengths put 8-way tensor parallel 80-90% off on PCIe H200 NVL
        # and RTX PRO 6000 systems), and DeepSeek-R1 as attention data parallel
        # with expert parallel; llm-sizer's GPUs split every layer.
        if bench in ("llama2-70b-99", "llama2-70b-99.9", "llama3.1-8b", "mixtral-8x7b", "deepseek-r1") and \
                parallel in ("", "None"):
            return ("MLPerf %s: the submission does not state its parallel layout (replicas, tensor, expert or "
                    "attention data parallel), which decides the step" % bench)
        inp = lengths.get("mean_input_tokens")
        out = _mlperf_output(notes) or lengths.get("mean_output_tokens")
        if not inp or not out:
            return "MLPerf %s: the dataset's mean input length is not sourced" % bench
        if "Offline" in test:
            kind, conc = "offline", OFFLINE_BATCH
            measured = {"per_user": None, "total": total, "ttft_s": None}
        elif "Server" in test or "Interactive" in test:
            if not (total and ttft_ms and tpot_ms):
                return "MLPerf run without TTFT and TPOT"
            seconds = ttft_ms / 1000.0 + (out - 1) * tpot_ms / 1000.0
            kind, conc = "poisson", max(1, round(total / out * seconds))
        else:
            return "MLPerf %s: single-stream runs are the local speed model's" % test
    elif inp and out and conc:
        kind = "fixed"
        # A fixed-concurrency run of one or two waves of requests (all sent at
        # once, all of one length) measures the first wave's prompts queueing,
        # not a steady state.
        prompts = record.get("num_prompts")
        if prompts and prompts <= 2 * conc:
            return "%d prompts at concurrency %d: one or two waves, no steady state" % (prompts, conc)
        if not prompts and conc >= 256:
            return "concurrency %d with the number of prompts not stated: it may be a wave or two" % conc
    elif inp and out and record.get("request_rate") is None and record.get("num_prompts"):
        if "ShareGPT" in test:
            return ("ShareGPT at request rate inf: a one-off queue of prompts and outputs of every length, whose "
                    "drain (the last long answers alone) is no steady state")
        kind, conc = "burst", int(record["num_prompts"])
        measured["ttft_s"] = None
        measured["per_user"] = None
    else:
        return "input/output lengths or the load are not stated"
    old = _older_scheduler(record)
    if old:
        return old
    if kind == "burst" and inp >= 10 * out:
        return ("a prompt-throughput run (a one-off queue of %d-token prompts with %d-token answers): its output "
                "rate is the queue's drain, not a served steady state" % (inp, out))
    inp, out = int(round(inp)), int(round(out))
    request = {"quant": quant, "engine": engine, "gpu": device, "gpus": gpus, "batch": min(int(conc), OFFLINE_BATCH),
               "prompt": inp, "output_tokens": out, "ctx": inp + out, "speed_if_no_fit": True}
    if model.startswith("config:"):
        request["config"] = json.dumps(HAND_CONFIGS[model[len("config:"):]]["config"])
    else:
        request["model"] = model
    if re.search(r"kv-cache-dtype[ =]fp8|kv_cache_dtype[ =]fp8", quote, re.I):
        request["kv"] = "fp8"
    # TensorRT-LLM's perf overview (the page the runs come from) sets
    # kv_cache_config dtype fp8 for DeepSeek R1, and for GPT-OSS except on
    # Hopper ("# Hopper: use auto"), in the llm_options.yml it lists.
    blackwell = device.startswith(("b200", "b300", "gb200", "gb300"))
    perf_overview = "perf-overview.md" in (record.get("source") or "")
    if perf_overview and (model.startswith("deepseek-r1") or (model.startswith("gpt-oss") and blackwell)):
        request["kv"] = "fp8"
    # Its Llama 3.3, Qwen3 and Llama 4 recipes leave kv_cache_config.dtype at
    # 'auto', which follows the checkpoint's hf_quant_config.json; NVIDIA's
    # ModelOpt exports of 2025 carry an FP8 KV cache (sourced_kv_dtypes.json).
    if perf_overview and (record.get("model") or "") in MODELOPT_FP8_KV:
        request["kv"] = "fp8"
    if attention_dp:
        request["attention_data_parallel"] = True
    rid = "%s|%d" % (source, index)
    band = "1-8" if conc <= 8 else "9-64" if conc <= 64 else "65+"
    group = {"engine": engine, "backend": "rocm" if device.startswith("mi") else "cuda", "device": device,
             "model": model.replace("config:", ""), "kind": kind, "concurrency": band}
    return Case(rid, record, kind, request, measured, group)


def load_cases():
    """(cases, skipped [(id, reason)])."""
    mlperf_lengths = load_mlperf_lengths()
    cases, skipped = [], []
    for path, name in ((REFERENCE, "serving_speeds.json"), (GATHERED, "serving_measurements.json")):
        if not os.path.exists(path):
            continue
        with open(path) as f:
            recs = json.load(f)["records"]
        for i, r in enumerate(recs):
            c = case_for(i, r, name, mlperf_lengths)
            if isinstance(c, Case):
                cases.append(c)
            else:
                skipped.append(("%s|%d" % (name, i), c))
    drop_cold_start_times(cases)
    return cases, skipped


def drop_cold_start_times(cases):
    """A run whose mean TTFT is over ten times that of a run of the same source,
    setup, concurrency and prompt length (at concurrency 1 the answer's length
    cannot reach the first token) paid a cold start: kernels compiled or graphs
    captured on its first requests. ERNIE-4.5-21B-A3B on one MI300X, the SGLang
    cookbook's first run: 4152.58 ms against 32.59 for the same 610-token prompts
    in the next one. Its speed per user (from the TPOT) is kept; its TTFT is not
    compared, and neither is its output rate: a closed loop at concurrency 1
    spends TTFT + O x TPOT per request, so the slow first tokens set it (ERNIE:
    10 x (4.15 s + 422 x 4.07 ms) = 58.7 s for 4220 tokens, the 71.87 tok/s it
    printed, where the next run's 240)."""
    groups = {}
    for c in cases:
        if c.measured.get("ttft_s") and c.request.get("batch") == 1:
            key = (c.record.get("source"), setup_key(c), round(c.request.get("prompt", 0), -1))
            groups.setdefault(key, []).append(c)
    for runs in groups.values():
        low = min(c.measured["ttft_s"] for c in runs)
        for c in runs:
            if c.measured["ttft_s"] > 10.0 * low:
                c.measured["ttft_s"] = None
                c.measured["total"] = None


def setup_key(case):
    """One serving setup: the runs of it at several loads stay on one side of the split."""
    r = case.request
    return "|".join(str(x) for x in (r["engine"], r["gpu"], r["gpus"], r.get("model", "llama-2-70b"), r["quant"]))


def held_out(case):
    """Every fourth run by a hash of its id: the fit never sees these. (By run,
    not by setup: most engine x platform rows have two or three setups.)"""
    return int(hashlib.sha1(case.id.encode()).hexdigest()[:8], 16) % 4 == 0
