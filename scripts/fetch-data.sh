#!/usr/bin/env bash
# Downloads the benchmark data that configs refer to into data/ (or $1):
# MATH-500, AIME 2024 and 2025, AMC 2023, OlympiadBench and the MATH train
# split, from the public repositories they are published in.
set -euo pipefail
out=${1:-data}
mkdir -p "$out"/{math500,aime24,aime25,amc23,olympiadbench,math_train}

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
echo "AIME 2025 is published as separate problem files by eth-sri/matharena; see its data/aime folder."
echo "done: $out"
