"""The speed model's time formula in Python, mirroring engine/src/speed.cpp, so the
fit can try constants without rebuilding. validate.py checks that the built CLI
and this mirror agree.

A calibration here is a dict:
  backends: {"cuda": {...}, "vulkan/nvidia": {...}}          bandwidth_efficiency
  runtimes: {"llama.cpp/cuda": {...}, "llama.cpp/vulkan/nvidia": {...}}
                                                             layer_overhead_s, prefill_efficiency
  weights:  {"kquant": {...}}                                bandwidth_factor, prefill_factor
  constants: {...}                                           SpeedConstants
"""

FIELD_STEP = {
    "decode_tokens_per_s": "decode",
    "decode_tokens_per_s_total": "decode_batch",
    "prefill_tokens_per_s": "prefill",
}

# Neighbours for backends without measurements (speed_calibration.cpp).
NEIGHBOUR = {"sycl": "vulkan", "cpu": "cpu"}


def _lookup(rows, prefix, backend, vendor):
    for b in (backend, NEIGHBOUR.get(backend, "cuda"), "cuda"):
        for key in ("%s%s/%s" % (prefix, b, vendor), "%s%s" % (prefix, b)):
            if key in rows:
                return rows[key]
    return next(v for k, v in rows.items() if k.startswith(prefix))


def backend_row(cal, backend, vendor):
    return _lookup(cal["backends"], "", backend, vendor)


def runtime_row(cal, family, backend, vendor):
    if family == "mlx":
        backend = "metal"
    return _lookup(cal["runtimes"], family + "/", backend, vendor)


def ratio(num, rate):
    return num / rate if rate > 0 and num > 0 else 0.0


def step_seconds(work, basis, hw, rt, k, gemm_factor, weight_factor, pressure=1.0, sequences=1, prompt=False):
    hbm = basis["hbm_llama"]
    # A serving engine's steps take its serving row's factors (speed.cpp
    # serving_engine_step): alone as under load.
    served = basis.get("serving_factors") or {}
    hbm_factor = k["hbm_bandwidth_factor_rocm"] if basis.get("backend") == "rocm" else k["hbm_bandwidth_factor"]
    kv_rate = basis["peak_bandwidth_bytes_per_s"] * hw["bandwidth_efficiency"] * (
        hbm_factor if hbm else 1.0) * (
        k["multi_die_bandwidth_factor"] if basis.get("memory_dies", 1) > 1 else 1.0)
    kv_rate *= served.get("bandwidth_factor", 1.0)
    weight_rate = kv_rate * weight_factor
    ram_rate = basis["ram_bandwidth_bytes_per_s"] * k["ram_bandwidth_efficiency"]
    peak = basis["peak_flops"] or 0.0
    if basis.get("flops_basis") == "fp32_vector":  # speed.cpp set_dense_flops
        peak = basis["vector_fp32_flops"] * hw["vector_fp32_factor"]
    matrix = peak * rt["prefill_efficiency"] * (k["hbm_prefill_factor"] if hbm else 1.0) * (
        k.get("integrated_prefill_factor", 1.0) if basis.get("integrated_amd") else 1.0) * \
        served.get("compute_factor", 1.0)
    memory = (ratio(work["weight_bytes"], weight_rate) + ratio(work["kv_bytes"], kv_rate)) * pressure
    flops = work["flops"]
    if work.get("gemm_rows", 0) > 0:
        m0 = k["gemm_half_rows"]
        flops = (work["flops"] - work["expert_flops"]) * (1.0 + m0 / work["gemm_rows"])
        if work["expert_flops"] > 0 and work["expert_rows"] > 0:
            # speed.cpp effective_rates: llama.cpp's mul_mat_id terms; the dense ones elsewhere.
            llama = basis.get("family") == "llama.cpp"
            half = k.get("expert_gemm_half_rows", m0) if llama else m0
            share = k.get("expert_gemm_rate_factor", 1.0) if llama else 1.0
            flops += work["expert_flops"] * (1.0 + half / work["expert_rows"]) / share
    compute = ratio(flops, matrix * gemm_factor)
    layers = work["layers"] + (k["moe_layer_overhead_factor"] - 1.0) * work.get("moe_layers", 0)
    overhead = layers * work["passes"] * rt["layer_overhead_s"]
    if served:
        overhead += work["passes"] * served["step_overhead_s"]
    gpu = max(memory, compute) + overhead
    if work.get("moe_layers", 0) > 0:
        # speed.cpp step_time: a measured slowdown of MoE passes (the basis carries it).
        gpu *= basis.get("moe_prompt_time_factor", 1.0) if work.get("gemm_rows", 0) > 1 else \
            basis.get("moe_decode_time_factor", 1.0)
    g, m, b = work.get("pipeline_stages", 1), work["passes"], max(work.get("batches", 1), 1)
    if g > 1 and m > 0:  # speed.cpp: the realized share of the ideal pipelining saving
        overlap = 1.0 if basis.get("peer_access", True) else k["pipeline_overlap_without_p2p"]
        gpu *= 1.0 - overlap * (1.0 - (m + b * (g - 1.0)) / (m * g))
    t = gpu
    t += ratio(work["ram_bytes"], ram_rate)
    t += ratio(work["host_to_gpu_bytes"], k["pcie_bytes_per_s"])
    if work["tensor_parallel"] > 1:
        tp = float(work["tensor_parallel"])
        moved = work["allreduce_bytes"] * 2.0 * (tp - 1.0) / tp
        t += work["allreduces"] * (ratio(moved, basis["link_bytes_per_s"]) +
                                   k["allreduce_latency_s"] * served.get("allreduce_latency_factor", 1.0))
    if work["layer_split_gpus"] > 1:
        network = work.get("over_network", False)  # llama.cpp's RPC between machines
        hop = k["network_hop_s"] if network else k["layer_split_hop_s"]
        link = k["network_bytes_per_s"] if network else k["pcie_bytes_per_s"]
        t += (work["layer_split_gpus"] - 1) * (work["passes"] * hop + ratio(work.get("boundary_bytes", 0.0), link))
    if served:  # the host's work for each running sequence, every step
        t += served["sequence_overhead_s"] * sequences * max(work["passes"], 1)
    if served and prompt:  # speed_served.cpp prompt_pass_overhead_s: no CUDA graphs for prompt passes
        t += served.get("prompt_pass_layer_overhead_s", 0.0) * work["layers"] * max(work["passes"], 1)
    return t


def pressure_of(feature, k):
    """Apple near its wired limit (speed.cpp memory_pressure)."""
    fill = feature.get("utilization")
    onset = k["pressure_onset_fill"]
    if feature["vendor"] != "apple" or fill is None or fill <= onset or onset >= 1.0:
        return 1.0
    return 1.0 + k["pressure_slowdown"] * (fill - onset) / (1.0 - onset)


def predict(feature, cal):
    """tokens/s for one mapped record's feature (see fit.features)."""
    family, backend, vendor = feature["family"], feature["backend"], feature["vendor"]
    hw = backend_row(cal, backend, vendor)
    rt = runtime_row(cal, family, backend, vendor)
    wcal = cal["weights"].get(feature["basis"]["weight_family"],
                              {"bandwidth_factor": 1.0, "prefill_factor": 1.0, "prefill_factor_mma": 1.0})
    prefill = feature["field"] == "prefill_tokens_per_s"
    if prefill and not feature["basis"]["peak_flops"]:
        return None
    mma = family == "llama.cpp" and backend in ("cuda", "rocm")
    gemm = (wcal["prefill_factor_mma"] if mma else wcal["prefill_factor"]) if prefill else 1.0
    pressure = 1.0 if prefill else pressure_of(feature, cal["constants"])
    basis = dict(feature["basis"], hbm_llama=family == "llama.cpp" and feature["basis"]["memory_class"] == "hbm",
                 backend=backend, family=family,
                 # speed.cpp integrated_amd_gpu: an AMD GPU on LPDDR (not a CPU machine)
                 integrated_amd=family == "llama.cpp" and vendor == "amd" and backend != "cpu" and
                 feature["basis"]["memory_class"] == "lpddr")
    sequences = 1 if prefill else max(1, round(feature["work"].get("gemm_rows") or 1))
    t = step_seconds(feature["work"], basis, hw, rt, cal["constants"], gemm, wcal["bandwidth_factor"], pressure,
                     sequences, prefill)
    if t <= 0:
        return None
    return feature["tokens"] / t
