#!/usr/bin/env bash
# Builds llm-sizer. The browser page arrives with issue 5; until then this builds
# the command-line tool and shows how to use it.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release >/dev/null
bin=build/native-release/llm-sizer

cat <<MSG
llm-sizer is built: $bin
The web page is not part of this build yet; the command line gives every figure:

  $bin list models
  $bin estimate --model llama-3.1-8b --gpu rtx-4090 --ctx 32768
  $bin estimate --model qwen3-30b-a3b --quant Q4_K_M --gpu rtx-4090 --offload 0.5 --json
  $bin params --config path/to/config.json

MSG
"$bin" estimate --model llama-3.1-8b --gpu rtx-4090 --ctx 32768
