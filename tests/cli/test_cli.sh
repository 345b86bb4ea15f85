#!/usr/bin/env bash
# Contract tests of the llm-sizer CLI (DESIGN.md "Contract of the native CLI"):
# JSON fields, exit codes, one clear stderr line on bad input.
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect_error NAME ARGS...: exit code 2, exactly one stderr line starting "llm-sizer: ", no stdout.
expect_error() {
  local name=$1; shift
  "$bin" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $rc -eq 2 && $lines -eq 1 && ! -s $work/out ]] && grep -q '^llm-sizer: ' "$work/err"; then ok
  else bad "$name: rc=$rc stderr lines=$lines: $(head -c 300 "$work/err")"; fi
}

# json_check NAME PYTHON-EXPRESSION ARGS...: run with --json and evaluate the expression on j.
json_check() {
  local name=$1 expr=$2; shift 2
  if ! "$bin" "$@" --json >"$work/out.json" 2>"$work/err"; then bad "$name: exit $? $(cat "$work/err")"; return; fi
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($expr) else 1)" "$work/out.json"; then ok
  else bad "$name: $expr is false for $(head -c 400 "$work/out.json")"; fi
}

# Contract fields.
json_check "estimate fields" "all(k in j['memory'] for k in ['weights_bytes','kv_cache_bytes','runtime_bytes','offload_bytes','required_bytes','usable_bytes','utilization','fits','per_gpu']) and all(k in j['speed'] for k in ['decode_tokens_per_s','decode_tokens_per_s_total','prefill_tokens_per_s','ttft_s']) and 'usd_per_million_tokens' in j['cost'] and isinstance(j['warnings'], list) and j['params']['total'] > 0" \
  estimate --model llama-3.1-8b
json_check "no device: device figures null" "j['memory']['fits'] is None and j['speed']['decode_tokens_per_s'] is None and j['memory']['usable_bytes'] is None" \
  estimate --model llama-3.1-8b
# Issue 2: Llama-3.1-8B at 131072 tokens, f16 -> 16384 MiB of KV, exactly.
json_check "llama 8B KV at 128K" "j['memory']['kv_cache_bytes'] == 16384 * 2**20" \
  estimate --model llama-3.1-8b --ctx 131072 --kv-type f16
json_check "bytes are integers" "isinstance(j['memory']['weights_bytes'], int) and isinstance(j['memory']['required_bytes'], int)" \
  estimate --model qwen3-30b-a3b --gpu rtx-4090
json_check "fit with a catalog GPU" "j['memory']['fits'] is True and 0 < j['memory']['utilization'] < 1 and len(j['memory']['per_gpu']) == 1" \
  estimate --model llama-3.1-8b --gpu rtx-4090 --ctx 8192
json_check "custom device flags" "j['memory']['usable_bytes'] == 48 * 2**30 - 457 * 2**20 and j['speed']['decode_tokens_per_s'] > 0" \
  estimate --model llama-3.1-8b --gpu-memory-gib 48 --gpu-bandwidth-gbs 1000 --gpu-tflops 100 --gpu-vendor nvidia
json_check "two GPUs, per-GPU array" "len(j['memory']['per_gpu']) == 2" \
  estimate --model llama-3.1-70b --gpu rtx-4090 --gpus 2
json_check "params contract" "j['total'] == 8030261248 and j['active'] == 8030261248 and j['embedding'] == 525336576" \
  params --model llama-3.1-8b
json_check "list models" "len(j) >= 90 and all('id' in m for m in j)" list models
json_check "list gpus" "len(j) >= 60" list gpus
json_check "list quants" "'Q4_K_M' in j and 'UD-Q4_K_XL' in j" list quants
json_check "list engines" "'llama.cpp' in j and 'vllm' in j" list engines

# A config file goes through the same path as the catalog.
cat >"$work/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
 "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256}
JSON
json_check "config file" "j['total'] == 8030261248" params --config "$work/config.json"

# Human-readable output labels both units.
if "$bin" estimate --model llama-3.1-8b --gpu rtx-4090 | grep -q 'GiB (.* GB)'; then ok; else bad "table lacks 'GiB (... GB)'"; fi

# Bad input: one line, exit 2, never a crash.
expect_error "no arguments" 
expect_error "unknown command" frobnicate
expect_error "unknown model" estimate --model no-such-model
expect_error "unknown gpu" estimate --model llama-3.1-8b --gpu no-such-gpu
expect_error "unknown quant" estimate --model llama-3.1-8b --quant Q9_Z
expect_error "unknown engine" estimate --model llama-3.1-8b --engine foo
expect_error "unknown kv type" estimate --model llama-3.1-8b --kv-type q3
expect_error "ctx not a number" estimate --model llama-3.1-8b --ctx abc
expect_error "ctx zero" estimate --model llama-3.1-8b --ctx 0
expect_error "ctx huge" estimate --model llama-3.1-8b --ctx 99999999999999999
expect_error "negative batch" estimate --model llama-3.1-8b --batch -3
expect_error "gpus zero" estimate --model llama-3.1-8b --gpus 0
expect_error "offload out of range" estimate --model llama-3.1-8b --offload 2
expect_error "offload nan" estimate --model llama-3.1-8b --offload nan
expect_error "missing value" estimate --model
expect_error "two sources" estimate --model llama-3.1-8b --config "$work/config.json"
expect_error "gpu and custom" estimate --model llama-3.1-8b --gpu rtx-4090 --gpu-memory-gib 24
expect_error "custom without memory" estimate --model llama-3.1-8b --gpu-bandwidth-gbs 1000
expect_error "negative memory" estimate --model llama-3.1-8b --gpu-memory-gib -1
expect_error "missing file" params --config "$work/absent.json"
expect_error "directory as file" params --config "$work"
printf '{"model_type": "llama", "hidden_size": ' >"$work/broken.json"
expect_error "malformed json" params --config "$work/broken.json"
printf '{"model_type": "llama", "hidden_size": 4096}' >"$work/partial.json"
expect_error "missing field" params --config "$work/partial.json"
if grep -q 'num_hidden_layers' "$work/err"; then ok; else bad "missing field not named: $(cat "$work/err")"; fi
truncate -s 64M "$work/huge.json"
expect_error "huge file" params --config "$work/huge.json"
expect_error "gguf not yet" params --gguf "$work/model.gguf"
expect_error "list nothing" list
expect_error "list unknown" list widgets

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
