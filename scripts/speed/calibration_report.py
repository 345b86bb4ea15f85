#!/usr/bin/env python3
"""The calibration section of docs/accuracy.md: every public llama-bench paste in
tests/fixtures/llama_bench calibrated with `llm-sizer calibrate`, each row's
estimate before and after; and every public load log in tests/fixtures/load_logs
beside the estimate with `llm-sizer check-log`. From the CLI's own answers.

    python3 scripts/speed/calibration_report.py [--bin build/native-release/llm-sizer] [--write]

--write replaces the section between its markers in docs/accuracy.md; without
it the section is printed.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "llama_bench"
LOGS = ROOT / "tests" / "fixtures" / "load_logs"
DOC = ROOT / "docs" / "accuracy.md"
BEGIN = "<!-- calibration report: scripts/speed/calibration_report.py -->"
END = "<!-- end of calibration report -->"


def run(binary, record):
    args = [binary, "calibrate", "--llama-bench", str(FIXTURES / record["file"]), "--json"]
    # The device the source names, else the one a user would choose where the
    # text leaves it open (device_chosen, with its reason in the record).
    device = record.get("device") or record.get("device_chosen")
    if device:
        args += ["--gpu", device]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().removeprefix("llm-sizer: ")
    return json.loads(done.stdout), None


def check_log(binary, record):
    args = [binary, "check-log", str(LOGS / record["file"].strip()), "--json"]
    if record.get("device"):
        args += ["--gpu", record["device"]]
    if record.get("model"):  # where the log itself does not print its parameter count
        args += ["--model", record["model"]]
        quant = {"MXFP4": "MXFP4_MOE"}.get(record.get("quant"), record.get("quant"))
        if quant and " " not in quant:  # a file type's name, not a description of the file
            args += ["--quant", quant]
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        return None, done.stderr.strip().removeprefix("llm-sizer: ").replace(str(ROOT) + "/", "")
    return json.loads(done.stdout), None


def log_rows(binary):
    lines = ["", "### Load logs beside the estimate", "",
             "Each log in `tests/fixtures/load_logs` (sources in its `sources.json`) checked with `llm-sizer check-log`",
             "on the device its source names, at the log's own settings: the largest difference of each kind of",
             "buffer the estimate sizes (weights on the GPUs, KV cache, compute buffer).", "",
             "| Log | Sized as | Weights | KV cache | Compute |", "|---|---|---|---|---|"]
    for r in json.loads((LOGS / "sources.json").read_text()):
        answer, error = check_log(binary, r)
        if answer is None:
            lines.append(f"| {r['file']} | {error} | — | — | — |")
            continue
        def worst(kind):
            diffs = [l["difference_pct"] for l in answer["lines"] if l["estimate_mib"] is not None and kind(l["item"])]
            return f"{max(diffs, key=abs):+.1f}%" if diffs else "—"
        weights = worst(lambda item: "model buffer" in item and "system RAM" not in item and "all GPUs" not in item)
        kv = worst(lambda item: "KV" in item or "context" in item)
        compute = worst(lambda item: "compute" in item)
        lines.append(f"| {r['file']} | {answer['model']} {answer['quant']} on {answer['device']}, "
                     f"{answer['context_tokens']} x {answer['sequences']} | {weights} | {kv} | {compute} |")
    return lines


def section(binary):
    records = json.loads((FIXTURES / "sources.json").read_text())
    lines = [BEGIN, "", "## Calibration on public llama-bench pastes (issue 34)", "",
             "Each paste in `tests/fixtures/llama_bench` (sources in its `sources.json`) calibrated on the device",
             "its source names (or, where the text leaves it open, the one a user would choose: `device_chosen`,",
             "with its reason): the rows' error before calibration (the fitted model alone) and after (this",
             "machine's factors, fitted on these rows). With as many rows as factors a paste is reproduced by",
             "construction; the rows beyond them are the check.", "",
             "| Paste | Device | Rows used | Factors fitted | Error before, median / max | After, max |",
             "|---|---|---|---|---|---|"]
    for r in records:
        answer, error = run(binary, r)
        if answer is None:
            lines.append(f"| {r['file']} | {r.get('device') or r.get('device_chosen') or r.get('device_as_stated')} | none | — | {error} | — |")
            continue
        used = [x for x in answer["rows"] if x["left_out"] is None]
        before = sorted(abs(x["estimated_tokens_per_s"] / x["measured_tokens_per_s"] - 1) * 100 for x in used)
        after = max(abs(x["residual_pct"]) for x in used)
        median = before[len(before) // 2] if len(before) % 2 else (before[len(before) // 2 - 1] + before[len(before) // 2]) / 2
        fitted = ", ".join(f.removesuffix("_factor") for f in answer["fitted"])
        lines.append(f"| {r['file']} | {answer['device']} | {len(used)} of {len(answer['rows'])} | {fitted} | "
                     f"{median:.1f}% / {before[-1]:.1f}% | {after:.1f}% |")
    lines += log_rows(binary)
    lines += ["", END]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "build" / "native-release" / "llm-sizer"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    text = section(args.bin)
    if not args.write:
        print(text)
        return 0
    doc = DOC.read_text()
    if BEGIN in doc:
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        doc = head + text + tail
    else:
        marker = "## Served speed under load"
        head, tail = doc.split(marker, 1)
        doc = head + text + "\n\n" + marker + tail
    DOC.write_text(doc)
    print(f"wrote the calibration section of {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
