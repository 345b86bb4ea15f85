#!/usr/bin/env python3
"""Which catalog devices get a decode speed, a prefill speed and a TTFT for one model.

  python3 scripts/speed/coverage.py [--binary build/native-release/llm-sizer]
                                    [--model llama-3.1-8b] [--quant Q4_K_M]

A device with a sourced bandwidth must get decode; one with a sourced
throughput (dense FP16, or vector FP32 where that is all its vendor states) must get prefill and TTFT
(asked with --speed-even-if-no-fit; devices the model does not fit are listed).
Prints every device that lacks one with the reason (the figure the catalog
lacks), and exits 1 when a device has the figure but not the speed.
Python standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "native-release", "llm-sizer"))
    ap.add_argument("--model", default="llama-3.1-8b")
    ap.add_argument("--quant", default="Q4_K_M")
    args = ap.parse_args()
    with open(os.path.join(REPO, "data", "devices.json")) as f:
        devices = json.load(f)["devices"]
    wrong, missing = [], []
    for d in devices:
        # Speed even where the model does not fit: the CLI leaves speed out of an
        # estimate that does not fit, and this asks whether the physics has its figures.
        cmd = [args.binary, "estimate", "--model", args.model, "--quant", args.quant, "--gpu", d["id"],
               "--speed-even-if-no-fit", "--json"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            wrong.append("%s: the CLI failed: %s" % (d["id"], done.stderr.strip()[:200]))
            continue
        j = json.loads(done.stdout)
        speed = j.get("speed") or {}
        if j["memory"].get("fits") is False:
            missing.append("%s (%s): does not fit (without --speed-even-if-no-fit the CLI gives no speed)"
                           % (d["id"], d["kind"]))
        has_bw = bool(d.get("bandwidth_gb_per_s"))
        has_flops = bool(d.get("fp16_tflops")) or bool(d.get("fp32_tflops"))
        decode, prefill, ttft = (speed.get(k) for k in ("decode_tokens_per_s", "prefill_tokens_per_s", "ttft_s"))
        if has_bw and not decode:
            wrong.append("%s: has a bandwidth but no decode" % d["id"])
        if has_bw and has_flops and not (prefill and ttft):
            wrong.append("%s: has a throughput but no prefill or TTFT" % d["id"])
        if not has_bw:
            missing.append("%s (%s): no decode, prefill or TTFT: the catalog has no memory bandwidth for it"
                           % (d["id"], d["kind"]))
        elif not has_flops:
            reason = ("no CPU matrix throughput is sourced" if d["kind"] == "cpu"
                      else "the catalog has no FP16 or FP32 throughput for it")
            missing.append("%s (%s): decode only, no prefill or TTFT: %s" % (d["id"], d["kind"], reason))
    print("%d devices; %s %s" % (len(devices), args.model, args.quant))
    for line in missing:
        print("  " + line)
    for line in wrong:
        print("WRONG " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
