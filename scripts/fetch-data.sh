#!/usr/bin/env bash
# Downloads the benchmark data that configs refer to into data/ (or $1):
# MATH-500, AIME 2024, AMC 2023, OlympiadBench, the MATH train split and the
# BFCL v3 multi-turn files, from the public repositories they are published
# in.
set -euo pipefail
out=${1:-data}
mkdir -p "$out"/{math500,aime24,amc23,olympiadbench,math_train}

fetch() { # url dest
	echo "fetching $2"
	curl -fsSL --retry 3 -o "$2.tmp" "$1"
	mv "$2.tmp" "$2"
}

qwen=https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/a45202bd16f1ec06f433442dc1152d0074773465/evaluation/data
fetch "https://raw.githubusercontent.com/hkust-nlp/simpleRL-reason/cf1c7858bfc145a27aa733e75d930d34f0d318a6/examples/simplelr_math_eval/data/math500/test.jsonl" "$out/math500/test.jsonl"
fetch "$qwen/aime24/test.jsonl" "$out/aime24/test.jsonl"
fetch "$qwen/amc23/test.jsonl" "$out/amc23/test.jsonl"
fetch "$qwen/olympiadbench/test.jsonl" "$out/olympiadbench/test.jsonl"
fetch "https://raw.githubusercontent.com/agentica-project/deepscaler/95ef74ffee001cce89463f2d61dfdce1d03576c1/deepscaler/data/train/math.json" "$out/math_train/math.json"

# BFCL v3 multi-turn: questions, ground truth and function docs.
bfcl=https://raw.githubusercontent.com/ShishirPatil/gorilla/cd9429ccf3d4d04156affe883c495b3b047e6b64/berkeley-function-call-leaderboard/bfcl_eval/data
mkdir -p "$out"/bfcl_v3/{possible_answer,multi_turn_func_doc}
for c in base miss_func miss_param long_context; do
	fetch "$bfcl/BFCL_v3_multi_turn_$c.json" "$out/bfcl_v3/BFCL_v3_multi_turn_$c.json"
	fetch "$bfcl/possible_answer/BFCL_v3_multi_turn_$c.json" "$out/bfcl_v3/possible_answer/BFCL_v3_multi_turn_$c.json"
done
for api in gorilla_file_system math_api message_api posting_api ticket_api trading_bot travel_booking vehicle_control; do
	fetch "$bfcl/multi_turn_func_doc/$api.json" "$out/bfcl_v3/multi_turn_func_doc/$api.json"
done

echo "AIME 2025 is published as separate problem files by eth-sri/matharena; see its data/aime folder."
echo "BFCL replay also needs reference_tables.json and long_context_extensions.json, derived from the"
echo "reference environments' source; they are not downloadable as files."
echo "done: $out"
