"""Cloud offers from the sourced listings (sourced_cloud_listings.json) and the
reference's cloud_prices.json, as the catalog's offers.

A listing is one instance type as its source lists it (SkyPilot's catalog
CSVs, a provider's pricing page): provider, GPU, count, hourly price. Three
steps make offers of them:

1. Each listing's GPU is named in free text ("H100", "A100-80GB",
   "H100 (GpuInfo name NVIDIA-H100-80GB-HBM3)"): `listing_device` maps it to a
   catalog device where the text (or the provider's own naming, said in the
   note) settles the part, and to None where it does not (an H100 whose form
   factor is unstated runs at 2.0 or 3.35 TB/s: no guess).
2. One instance listed by several sources keeps the newest (the listings file
   over the older reference); a spot price is kept only below its on-demand
   price (RunPod's L40S row lists spot above on-demand, and the row is dropped).
3. The sizes one provider rents at one per-GPU price become one offer priced
   per GPU with those `gpu_counts`; an instance alone at its price stays a
   fixed offer. The engine rents such an offer at each size
   (engine/src/planner_offers.cpp).
"""
import re

LISTINGS_NAME = "scripts/catalog/sourced_cloud_listings.json"

# Listings that are not offers one can rent as priced (kept out, with why).
SKIP_BILLING = {
    "VM-only": "the VM without its GPUs (GCP bills the GPUs apart): not an instance price",
    "superseded": "an older snapshot of a price the provider has since changed",
}


def norm(text):
    return re.sub(r"[\s_\-]", "", (text or "").upper())


def memory_gib(text, count=1):
    """Per-GPU memory a listing states ("81920 MiB per GPU", "GpuInfo total 163840 MiB"
    over count GPUs, "A100-80GB"), or None."""
    m = re.search(r"(\d{4,7}) MIB PER GPU", (text or "").upper())
    if m:
        return round(int(m.group(1)) / 1024)
    m = re.search(r"TOTAL (\d{4,7}) MIB", (text or "").upper())
    if m:
        return round(int(m.group(1)) / 1024 / max(count, 1))
    m = re.search(r"(\d{2,3})\s*G(B|I?B)?\b", (text or "").upper())
    return int(m.group(1)) if m else None


def listing_device(provider, gpu, instance, count):
    """(device id or None, note): the catalog part a listing names."""
    t = norm(f"{gpu} {instance}")
    raw = f"{gpu} {instance}"
    # NVL (the PCIe NVL cards) is not NVLINK (an SXM board's NVLink named in an instance).
    nvl = re.search(r"NVL(?!INK)", t) is not None
    if "GH200" in t:
        return "gh200-96gb", None
    if "H200" in t:
        if nvl:
            return "h200-nvl", None
        return "h200-sxm", None if "SXM" in t else "H200 without 'NVL' is the SXM part of HGX H200 boards (assumption)"
    if "H100" in t:
        if nvl:
            return "h100-nvl", None
        if "SXM" in t:
            return "h100-sxm", None
        if "HBM3" in t:
            return "h100-sxm", "the listing's 'H100-80GB-HBM3' is the SXM5 part (the PCIe card has HBM2e)"
        if re.search(r"P5\.48XLARGE|P5EN", t):
            return "h100-sxm", "p5.48xlarge = 8x H100 SXM (AWS instance type)"
        if "PCIE" in t:
            return "h100-pcie", None
        if provider == "RunPod":
            return "h100-pcie", "RunPod lists H100 PCIe apart from H100 SXM and H100 NVL: the plain H100 is the PCIe card (assumption)"
        if provider == "DigitalOcean":
            return "h100-sxm", "DigitalOcean's H100 GPU Droplets are HGX (SXM) systems (assumption, as in curated_offers.json)"
        return None, "the listing does not say which H100 (SXM, PCIe)"
    if "A800" in t:
        return None, "an 80 GB A800 PCIe: not in the catalog"
    if "A100" in t:
        mem = memory_gib(raw, count)
        if re.search(r"P4DE", t):
            mem = 80
        elif re.search(r"P4D", t):
            mem = 40
        sxm = bool(re.search(r"SXM|NVLINK|DGX|P4D", t))
        pcie = bool(re.search(r"PCIE|PCI\b|PCI[^E]|PCI$", t))
        if mem not in (40, 80):
            return None, "A100 memory (40 or 80 GB) not stated"
        if not sxm and not pcie and provider == "RunPod" and mem == 80:
            return "a100-80gb-pcie", "RunPod lists A100 PCIe apart from A100 SXM: the plain A100-80GB is the PCIe card (assumption)"
        if sxm:
            return f"a100-{mem}gb-sxm", None
        if pcie:
            return f"a100-{mem}gb-pcie", None
        return None, "the listing does not say which A100 (SXM4, PCIe)"
    if "B200" in t:
        return "b200", None
    for part, dev in (("MI355X", "mi355x"), ("MI325X", "mi325x"), ("MI300X", "mi300x"), ("MI250X", "mi250x")):
        if part in t:
            return dev, None
    if "RTXPRO6000" in t:
        return "rtx-pro-6000-blackwell", "clouds rent the Server Edition: 96 GB like the catalog's Workstation Edition"
    if "RTX6000ADA" in t:
        return "rtx-6000-ada", None
    if "RTXA6000" in t or t.startswith("A6000"):
        return "rtx-a6000", None
    if "RTX6000" in t:
        return None, "Quadro RTX 6000 (24 GB, Turing): not in the catalog"
    if "RTX4000ADA" in t:
        return "rtx-4000-ada", None
    if "RTXA5000" in t or t.startswith("A5000"):
        return "rtx-a5000", None
    if "RTXA4500" in t:
        return None, "RTX A4500: not in the catalog"
    if "RTXA4000" in t or t.startswith("A4000"):
        return "rtx-a4000", None
    for part, dev in (("RTX5090", "rtx-5090"), ("RTX4090", "rtx-4090"), ("RTX3090", "rtx-3090"),
                      ("RTX4080S", "rtx-4080-super"), ("RTX5070TI", "rtx-5070-ti"), ("RTX3060", "rtx-3060-12gb")):
        if part in t:
            return dev, None
    # The L4 family by the GPU's own name: joined with an instance name
    # ("L40" + "1x_L40_SECURE") the text would read "...L40SECURE".
    g = re.sub(r"^(NVIDIA|AMD)", "", norm(gpu))
    if g.startswith("L40S"):
        return "l40s", None
    if g.startswith("L40"):
        return None, "L40: not in the catalog"
    if g.startswith("L4"):
        return "l4", None
    if t.startswith("A40"):
        return "a40", None
    if "A10G" in t:
        return None, "AWS's A10G: not in the catalog"
    if re.match(r"A10(\b|[^0-9G])", t) or t == "A10":
        return "nvidia-a10", None
    if "V100" in t:
        mem = memory_gib(raw, count)
        if "32G" in t or mem == 32:
            return "tesla-v100", None
        return None, "a 16 GB V100: the catalog's V100 is the 32 GB card"
    if t.startswith("T4"):
        return "tesla-t4", None
    return None, "no catalog device for this GPU"


def provider_name(p):
    m = re.match(r"(Shadeform|Prime Intellect) \(upstream: ([^)]+)\)", p)
    if m:
        return f"{m.group(2).replace('_', ' ').title()} via {m.group(1)}"
    return p


def billing_of(text):
    for key, why in SKIP_BILLING.items():
        if key in text:
            return None, why
    if "marketplace" in text:
        return "marketplace", None
    if text.startswith("on-demand"):
        return "on-demand", None
    return None, f"billing {text!r} not understood"


def listing_rows(listings):
    """Each listing as rows (on-demand or marketplace, and spot where it is
    below), with device, source and notes; and the listings left out."""
    rows, skipped = [], []
    for x in listings:
        billing, why = billing_of(x.get("billing") or "")
        src = x["source"]
        if billing is None or x.get("usd_per_hour") is None:
            skipped.append({"provider": x["provider"], "gpu": x["gpu_name"], "reason": why or "no price", "sources": [src]})
            continue
        dev, note = listing_device(x["provider"], x["gpu_name"], x.get("instance"), x["gpu_count"])
        spot = x.get("spot_usd_per_hour")
        notes = [x.get("notes"), note]
        if spot is not None and spot >= x["usd_per_hour"]:
            # The row contradicts itself (spot costs less by definition): neither
            # figure can be trusted, so the row is no offer.
            skipped.append({"provider": x["provider"], "gpu": x["gpu_name"],
                            "reason": f"the source row lists spot ${spot}/h above on-demand ${x['usd_per_hour']}/h",
                            "sources": [src]})
            continue
        commit = re.search(r"@([0-9a-f]{7,40})", src)
        base = {"provider": provider_name(x["provider"]), "instance": x.get("instance"), "gpu_name": x["gpu_name"],
                "device_id": dev, "device_count": x["gpu_count"],
                "region": ", ".join(x["regions"]) if x.get("regions") else None,
                "listing_date": x.get("source_date"), "listing_revision": commit.group(1)[:8] if commit else None,
                "tier_text": x.get("billing"), "sources": [src],
                "quote": x.get("quote")}
        if billing == "marketplace" and x.get("rows_in_source"):
            notes.append(f"cheapest of {x['rows_in_source']} host offers in the snapshot"
                         + (f" (median ${x['median_usd_per_hour']}/h)" if x.get("median_usd_per_hour") else ""))
        rows.append(dict(base, billing=billing, usd_per_hour=x["usd_per_hour"], notes=[n for n in notes if n]))
        if spot is not None:
            rows.append(dict(base, billing="spot", usd_per_hour=spot, notes=[n for n in notes if n]))
    return rows, skipped


def newest_first(rows):
    """One row per (provider, GPU, count, billing): the listings file's row over
    the older reference's; within the listings, the cheapest configuration
    (Nebius lists one GPU with several CPU and RAM sizes); within the
    reference, the newest listing date (DigitalOcean's page was copied twice)."""
    out, seen = [], {}
    for r in rows:
        key = (r["provider"], r["device_id"] or r["gpu_name"], r["device_count"], r["billing"])
        if key not in seen:
            seen[key] = len(out)
            out.append(r)
            continue
        kept = out[seen[key]]
        if r["origin"] != kept["origin"]:
            continue  # the listings file (read first) wins
        better = (r["usd_per_hour"] < kept["usd_per_hour"]) if r["origin"] == "listings" else \
            ((r.get("listing_date") or "") > (kept.get("listing_date") or ""))
        if better:
            out[seen[key]] = r
    return out


def group_per_gpu(rows):
    """Rows of one provider, device and billing at one per-GPU price: one offer
    rented at each of their sizes; the rest stay single instances."""
    groups = {}
    order = []
    for r in rows:
        if r["device_id"] is None:
            order.append(("single", r))
            continue
        per_gpu = round(r["usd_per_hour"] / r["device_count"], 4)
        key = (r["provider"], r["device_id"], r["billing"], per_gpu)
        if key not in groups:
            groups[key] = []
            order.append(("group", key))
        groups[key].append(r)
    out = []
    for kind, item in order:
        if kind == "single":
            out.append(item)
            continue
        members = sorted(groups[item], key=lambda r: r["device_count"])
        counts = sorted({r["device_count"] for r in members})
        if len(counts) == 1:
            out.extend(members[:1])
            continue
        first = members[0]
        out.append(dict(first, instance=None, device_count=counts[0], usd_per_hour=first["usd_per_hour"],
                        gpu_counts=counts, usd_per_gpu_hour=item[3],
                        instances={str(r["device_count"]): r.get("instance") for r in members},
                        sources=sorted({s for r in members for s in r["sources"]}),
                        notes=first["notes"] + [f"rented as {', '.join(map(str, counts))} GPUs at "
                                                f"${item[3]}/GPU-hour (one listing per size)"]))
    return out
