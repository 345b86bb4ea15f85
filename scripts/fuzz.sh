#!/usr/bin/env bash
# Fuzzes the readers of hostile input (GGUF headers, safetensors headers and
# indexes, config.json, pasted llama-bench output and load logs) with libFuzzer under AddressSanitizer and UBSan, each
# from seeds the tests' writers and the catalog make, and fails on any finding
# (crash, UB, leak, timeout, out-of-memory). Findings land in build/fuzz/findings/.
#   scripts/fuzz.sh            20 s per target (about a minute)
#   FUZZ_SECONDS=600 scripts/fuzz.sh
#   build/native-sanitize/tests/fuzz/fuzz_gguf FILE   replays one input
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}

# The fuzzers build in the sanitizer tree (the native-sanitize preset, clang
# 14), where scripts/test.sh has already built them with its tests.
./scripts/setup.sh native
cmake --preset native-sanitize >/dev/null
cmake --build --preset native-sanitize --target fuzz_gguf fuzz_config fuzz_safetensors fuzz_measurements make_fuzz_seeds
bin=build/native-sanitize/tests/fuzz
out=build/fuzz  # seeds, corpus, findings and logs
mkdir -p "$out"
rm -rf "$out/seeds"
"$bin/make_fuzz_seeds" "$out/seeds"
# Pasted measurements: the public llama-bench outputs and load logs the tests keep.
mkdir -p "$out/seeds/measurements"
cp tests/fixtures/llama_bench/[0-9]* tests/fixtures/load_logs/[0-9]* "$out/seeds/measurements/"

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14)
mkdir -p "$out/findings"
failed=()
for target in gguf safetensors config measurements; do
  corpus="$out/corpus/$target"  # grows across runs; the seeds are re-read each time
  mkdir -p "$corpus"
  echo "== fuzz_$target for ${seconds}s"
  if ! "$bin/fuzz_$target" "$corpus" "$out/seeds/$target" -max_total_time="$seconds" \
       -dict="tests/fuzz/$target.dict" -max_len=131072 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/findings/$target-" >"$out/fuzz_$target.log" 2>&1; then
    failed+=("$target")
    tail -n 60 "$out/fuzz_$target.log"
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$out/fuzz_$target.log" | tr '\n' ' '
    echo
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}; inputs in $out/findings/" >&2
  exit 1
fi
echo "fuzz: no findings"
