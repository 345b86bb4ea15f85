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


def step_seconds(work, basis, hw, rt, k, gemm_factor, weight_factor):
    dc = basis["datacenter"]
    kv_rate = basis["peak_bandwidth_bytes_per_s"] * hw["bandwidth_efficiency"] * (
        k["datacenter_bandwidth_factor"] if dc else 1.0)
    weight_rate = kv_rate * weight_factor
    ram_rate = basis["ram_bandwidth_bytes_per_s"] * k["ram_bandwidth_efficiency"]
    matrix = (basis["peak_flops"] or 0.0) * rt["prefill_efficiency"] * (k["datacenter_prefill_factor"] if dc else 1.0)
    memory = ratio(work["weight_bytes"], weight_rate) + ratio(work["kv_bytes"], kv_rate)
    compute = ratio(work["flops"], matrix * gemm_factor)
    t = max(memory, compute)
    t += ratio(work["ram_bytes"], ram_rate)
    t += ratio(work["host_to_gpu_bytes"], k["pcie_bytes_per_s"])
    if work["tensor_parallel"] > 1:
        tp = float(work["tensor_parallel"])
        moved = work["allreduce_bytes"] * 2.0 * (tp - 1.0) / tp
        t += work["allreduces"] * (ratio(moved, basis["link_bytes_per_s"]) + k["allreduce_latency_s"])
    if work["layer_split_gpus"] > 1:
        t += (work["layer_split_gpus"] - 1) * work["passes"] * k["layer_split_hop_s"]
    t += work["layers"] * work["passes"] * rt["layer_overhead_s"]
    return t


def predict(feature, cal):
    """tokens/s for one mapped record's feature (see fit.features)."""
    family, backend, vendor = feature["family"], feature["backend"], feature["vendor"]
    hw = backend_row(cal, backend, vendor)
    rt = runtime_row(cal, family, backend, vendor)
    wcal = cal["weights"].get(feature["basis"]["weight_family"], {"bandwidth_factor": 1.0, "prefill_factor": 1.0})
    prefill = feature["field"] == "prefill_tokens_per_s"
    if prefill and not feature["basis"]["peak_flops"]:
        return None
    gemm = wcal["prefill_factor"] if prefill else 1.0
    t = step_seconds(feature["work"], feature["basis"], hw, rt, cal["constants"], gemm, wcal["bandwidth_factor"])
    if t <= 0:
        return None
    return feature["tokens"] / t
