#!/usr/bin/env bash
# Writes data/embedded/model_facts.json: the model list's facts (parameter
# counts, badges, largest context) as the engine reads them from each config,
# embedded so that the page's startup reads no config. Run it after changing
# data/embedded (compact_catalog.py) or how the engine reads
# configs or counts parameters; test_catalog fails until the file is current.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target llmsizer_model_facts >/dev/null
build/native-release/tests/llmsizer_model_facts > data/embedded/model_facts.json.tmp
mv data/embedded/model_facts.json.tmp data/embedded/model_facts.json
echo "wrote data/embedded/model_facts.json"
