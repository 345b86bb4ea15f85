"""Runs the built llm-sizer for mapped records (records.py) and keeps the JSON."""
import atexit
import json
import os
import shutil
import subprocess
import tempfile

from records import HAND_CONFIGS, REPO

DEFAULT_BINARY = os.path.join(REPO, "build", "speed", "llm-sizer")


class Runner:
    def __init__(self, binary=DEFAULT_BINARY):
        if not os.path.exists(binary):
            raise SystemExit("llm-sizer not found at %s; build it first (or pass --binary)" % binary)
        self.binary = binary
        self.configs = tempfile.mkdtemp(prefix="llmsizer-speed-")
        atexit.register(shutil.rmtree, self.configs, True)
        for name, entry in HAND_CONFIGS.items():
            with open(os.path.join(self.configs, name + ".json"), "w") as f:
                json.dump(entry["config"], f)

    def _args(self, args):
        out = list(args)
        if "--config" in out:
            i = out.index("--config") + 1
            out[i] = os.path.join(self.configs, out[i] + ".json")
        return out

    def estimate(self, args):
        # Measured configurations ran: their speed is wanted even where the
        # estimate says they would not fit.
        cmd = [self.binary, "estimate"] + self._args(args) + ["--speed-even-if-no-fit", "--json"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), done.stderr.strip()))
        return json.loads(done.stdout)

    def run_case(self, case):
        """(estimate JSON, arguments used) for a case, or (None, reason) when it cannot
        be reproduced. With auto_offload, the smallest offload that fits, in steps of
        one layer (whole layers for Ollama, experts first for llama.cpp)."""
        j = self.estimate(case.args)
        if case.must_fit and j["memory"]["fits"] is False:
            return None, "does not fit the GPU and the record does not say how it was split"
        if case.field != "decode_tokens_per_s" and not j["speed"]["basis"]["peak_flops"]:
            return None, "the catalog has no dense throughput for this device"
        if not case.auto_offload or j["memory"]["fits"] in (True, None):
            return j, case.args
        layers = j["speed"]["breakdown"]["decode"]["work"]["layers"] or 1
        mode = "layers" if "ollama" in case.args else "auto"
        for n in range(1, layers + 1):
            args = case.args + ["--offload", "%.6f" % (n / layers), "--offload-mode", mode]
            j = self.estimate(args)
            if j["memory"]["fits"]:
                return j, args
        return j, args
