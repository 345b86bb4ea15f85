#!/usr/bin/env bash
# Fuzzes the readers of hostile input (GGUF headers, safetensors headers and
# indexes, config.json) with libFuzzer under AddressSanitizer and UBSan, each
# from seeds the tests' writers and the catalog make, and fails on any finding
# (crash, UB, leak, timeout, out-of-memory). Findings land in build/fuzz/findings/.
#   scripts/fuzz.sh            20 s per target (about a minute)
#   FUZZ_SECONDS=600 scripts/fuzz.sh
#   build/fuzz/tests/fuzz/fuzz_gguf FILE   replays one input
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}

# clang 14 with Debian's libFuzzer runtime and llvm-symbolizer for readable stacks.
need=()
command -v clang++-14 >/dev/null || need+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
command -v llvm-symbolizer-14 >/dev/null || need+=(llvm-14)
command -v cmake >/dev/null || need+=(cmake)
[[ -f /usr/include/nlohmann/json.hpp ]] || need+=(nlohmann-json3-dev)
if ((${#need[@]})); then
  echo "fuzz: installing ${need[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

build=build/fuzz
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DLLMSIZER_BUILD_FUZZERS=ON -DLLMSIZER_BUILD_TESTS=OFF -DLLMSIZER_BUILD_CLI=OFF >/dev/null
cmake --build "$build" -j2 --target fuzz_gguf fuzz_config fuzz_safetensors make_fuzz_seeds
rm -rf "$build/seeds"
"$build/tests/fuzz/make_fuzz_seeds" "$build/seeds"

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14)
mkdir -p "$build/findings"
failed=()
for target in gguf safetensors config; do
  corpus="$build/corpus/$target"  # grows across runs; the seeds are re-read each time
  mkdir -p "$corpus"
  echo "== fuzz_$target for ${seconds}s"
  if ! "$build/tests/fuzz/fuzz_$target" "$corpus" "$build/seeds/$target" -max_total_time="$seconds" \
       -dict="tests/fuzz/$target.dict" -max_len=131072 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/findings/$target-" >"$build/fuzz_$target.log" 2>&1; then
    failed+=("$target")
    tail -n 60 "$build/fuzz_$target.log"
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/fuzz_$target.log" | tr '\n' ' '
    echo
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}; inputs in $build/findings/" >&2
  exit 1
fi
echo "fuzz: no findings"
