#!/usr/bin/env bash
# Side-by-side speed of the Go model (artist bench) and its PyTorch peer
# (scripts/peer_bench.py) on the same cores: one training step (forward,
# backward, AdamW) and greedy decoding with a key/value cache, split into
# the prompt step (prefill) and the decoding steps. Each round runs every
# Go backend in BACKENDS, then PyTorch; the table shows the median of the
# rounds and each Go backend's ratio to PyTorch measured in the same run.
#
# Run from anywhere inside the repository. Settings (environment):
#   MODEL=tiny            tiny: the default training model (vocab 521, 32 x 96
#                         tokens a step, 64 sequences decoded); qwen-shapes:
#                         Qwen2.5-0.5B's layer shapes, 4 layers, vocab 32000
#                         (2 x 256 tokens a step, 4 sequences decoded); or a
#                         HuggingFace config.json (then set the sizes below)
#   BATCH= SEQ=           training sequences and tokens per sequence
#   DECODE_BATCH= PROMPT= NEW_TOKENS=   decoding sequences, prompt and new tokens
#   BACKENDS="go openblas"  ARTIST_BACKEND values to time (openblas needs
#                         libopenblas0-pthread; artist bench says if it is absent)
#   ROUNDS=3              rounds of (each Go backend, PyTorch)
#   STEPS=3               timed repetitions in each measurement of a round
#   THREADS=2             GOMAXPROCS for Go, torch.set_num_threads for PyTorch
#   PY_BLAS_THREADS=1     OPENBLAS_NUM_THREADS for PyTorch
#   PY_OMP_WAIT=passive   OMP_WAIT_POLICY for PyTorch; with "active" (GNU
#                         OpenMP's spinning default) two torch threads run
#                         about ten times slower when another process is
#                         busy on the same cores
#   PYTHON=/usr/bin/python3  a Python with torch (Debian: python3-torch)
#   ARTIST=               a built artist binary to time (default: build this tree)
#   OPENBLAS_CORETYPE=    the OpenBLAS kernels of both sides (default: Haswell
#                         on a CPU with AVX2 and FMA, as artist chooses)
set -euo pipefail

MODEL=${MODEL:-tiny}
BACKENDS=${BACKENDS:-go openblas}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-3}
# shellcheck source=bench-common.sh
. "$(dirname "$0")/bench-common.sh" "$@"

root=$(cd "$(dirname "$0")/.." && pwd)
command -v go >/dev/null || die "go is not on PATH"
[ -x "$PYTHON" ] || command -v "$PYTHON" >/dev/null || die "no Python at $PYTHON (set PYTHON=...)"
[ "$("$PYTHON" -c 'import torch; print("torch ok")' 2>/dev/null)" = "torch ok" ] ||
	die "$PYTHON cannot import torch; on Debian/Ubuntu: apt-get install -y python3-torch libopenblas0-pthread (or set PYTHON to a Python that has torch)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$MODEL" in
tiny)
	config=$tmp/config.json
	cat >"$config" <<-'EOF'
	{"vocab_size": 521, "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2,
	 "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256,
	 "rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": true}
	EOF
	: "${BATCH:=32}" "${SEQ:=96}" "${DECODE_BATCH:=64}" "${PROMPT:=32}" "${NEW_TOKENS:=64}"
	;;
qwen-shapes)
	config=$tmp/config.json
	cat >"$config" <<-'EOF'
	{"vocab_size": 32000, "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 4,
	 "num_attention_heads": 14, "num_key_value_heads": 2, "max_position_embeddings": 512,
	 "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": true}
	EOF
	: "${BATCH:=2}" "${SEQ:=256}" "${DECODE_BATCH:=4}" "${PROMPT:=64}" "${NEW_TOKENS:=16}"
	;;
*)
	[ -f "$MODEL" ] || die "MODEL=$MODEL is not tiny, qwen-shapes or a config.json file"
	config=$MODEL
	: "${BATCH:=8}" "${SEQ:=128}" "${DECODE_BATCH:=8}" "${PROMPT:=32}" "${NEW_TOKENS:=32}"
	;;
esac

echo "bench: building artist" >&2
if [ -n "${ARTIST:-}" ]; then
	cp "$ARTIST" "$tmp/artist" || die "cannot copy ARTIST=$ARTIST"
else
	(cd "$root" && go build -o "$tmp/artist" ./cmd/artist) || die "go build failed"
fi
go_args=(-model-config "$config" -batch "$BATCH" -seq "$SEQ" -decode-batch "$DECODE_BATCH"
	-prompt "$PROMPT" -new-tokens "$NEW_TOKENS" -steps "$STEPS")
py_args=(--model-config "$config" --batch "$BATCH" --seq "$SEQ" --sample-seqs "$DECODE_BATCH"
	--prompt "$PROMPT" --new-tokens "$NEW_TOKENS" --threads "$THREADS" --warmup 1 --repeats "$STEPS")

# Results accumulate as "measurement side tokens/s" lines in $tmp/results;
# the side is a Go backend's name or "torch".
for round in $(seq 1 "$ROUNDS"); do
	for be in $BACKENDS; do
		echo "bench: round $round/$ROUNDS: Go, ARTIST_BACKEND=$be" >&2
		ARTIST_BACKEND=$be GOMAXPROCS=$THREADS "$tmp/artist" bench "${go_args[@]}" >"$tmp/go.out" 2>"$tmp/go.err" ||
			{ cat "$tmp/go.err" >&2; die "artist bench failed with ARTIST_BACKEND=$be"; }
		if [ "$round" = 1 ]; then sed 's/^/bench:   /' "$tmp/go.err" >&2; fi
		"$PYTHON" -c 'import json, sys
r = json.load(sys.stdin)
side = sys.argv[1]
for m in ("train", "prefill", "decode"):
    print(m, side, r[m + "_tokens_per_s"])' "$be" <"$tmp/go.out" >>"$tmp/results" ||
			{ cat "$tmp/go.out" >&2; die "artist bench printed no JSON object"; }
	done

	echo "bench: round $round/$ROUNDS: PyTorch" >&2
	run_peer "${py_args[@]}"
	if [ "$round" = 1 ]; then grep '^peer_bench:' "$tmp/py.err" >&2 || true; fi
	"$PYTHON" -c 'import json, sys
names = {"train_step": "train", "prefill": "prefill", "decode": "decode"}
for line in sys.stdin:
    if line.strip():
        r = json.loads(line)
        if r["name"] in names:
            print(names[r["name"]], "torch", r["tokens_per_s"])' <"$tmp/py.out" >>"$tmp/results" ||
		{ cat "$tmp/py.out" >&2; die "peer_bench.py printed something other than JSON lines"; }
	tail -n $((3 * ($(echo "$BACKENDS" | wc -w) + 1))) "$tmp/results" | sed 's/^/bench:   /' >&2
done

echo
echo "model $MODEL: train $BATCH x $SEQ tokens, decode $DECODE_BATCH x ($PROMPT prompt + $NEW_TOKENS new); Go GOMAXPROCS=$THREADS vs PyTorch (torch threads $THREADS, OPENBLAS_NUM_THREADS=$PY_BLAS_THREADS, OMP_WAIT_POLICY=$PY_OMP_WAIT); tokens/s, median of $ROUNDS rounds"
awk -v backends="$BACKENDS" '
function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ vals[$1 " " $2] = vals[$1 " " $2] " " $3 }
END {
	nb = split(backends, be, " ")
	printf "%-10s %12s", "measure", "PyTorch"
	for (b = 1; b <= nb; b++) printf " %12s %8s", be[b], "ratio"
	printf "\n"
	split("train prefill decode", order, " ")
	for (k = 1; k <= 3; k++) {
		m = order[k]
		if (!((m " torch") in vals)) { printf "%-10s missing results\n", m; bad = 1; continue }
		p = median(vals[m " torch"])
		printf "%-10s %12.0f", m, p
		for (b = 1; b <= nb; b++) {
			if (!((m " " be[b]) in vals)) { printf " %12s %8s", "-", "-"; bad = 1; continue }
			g = median(vals[m " " be[b]])
			printf " %12.0f %8.2f", g, (p > 0 ? g / p : 0)
		}
		printf "\n"
	}
	exit bad
}' "$tmp/results"
