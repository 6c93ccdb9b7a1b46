#!/usr/bin/env bash
# The full training step of a model (forward, backward, AdamW on BATCH x
# SEQ tokens) in the Go trainer (artist bench) and in its PyTorch peer
# (scripts/peer_bench.py --only train_step), back to back on the same
# cores, with each one's peak resident memory, the ratios, the sgemm
# speed of the OpenBLAS kernels that ran (BenchmarkMatMul at the 0.5B
# MLP's shapes) and the load average before and after.
#
# Run from anywhere inside the repository. Settings (environment):
#   MODEL=configs/models/qwen2.5-0.5b.json   a HuggingFace config.json
#   BATCH=8 SEQ=192       training sequences and tokens per sequence
#   GO_FLAGS=             more artist bench flags, e.g. "-recompute"
#   STEPS=1 WARMUP=1      timed and untimed steps on each side
#   THREADS=2             GOMAXPROCS for Go, torch.set_num_threads for PyTorch
#   PY_BLAS_THREADS=1     OPENBLAS_NUM_THREADS for PyTorch
#   PY_OMP_WAIT=passive   OMP_WAIT_POLICY for PyTorch
#   SIDES="go torch"      which sides to run
#   PYTHON=/usr/bin/python3
#   ARTIST=               a built artist binary to time (default: build this tree)
# OPENBLAS_CORETYPE selects the OpenBLAS kernels of both sides (default:
# Haswell on a CPU with AVX2 and FMA, as artist chooses).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
MODEL=${MODEL:-$root/configs/models/qwen2.5-0.5b.json}
BATCH=${BATCH:-8}
SEQ=${SEQ:-192}
GO_FLAGS=${GO_FLAGS:-}
STEPS=${STEPS:-1}
WARMUP=${WARMUP:-1}
SIDES=${SIDES:-go torch}
# shellcheck source=bench-common.sh
. "$(dirname "$0")/bench-common.sh" "$@"
[ -f "$MODEL" ] || die "MODEL=$MODEL is not a file (a HuggingFace config.json)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
artist=${ARTIST:-$tmp/artist}
[ -n "${ARTIST:-}" ] || (cd "$root" && go build -o "$tmp/artist" ./cmd/artist) || die "go build failed"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for side in $SIDES; do
	case $side in
	go)
		# shellcheck disable=SC2086 # GO_FLAGS holds several flags
		GOMAXPROCS=$THREADS "$artist" bench -model-config "$MODEL" -batch "$BATCH" -seq "$SEQ" \
			-steps "$STEPS" -warmup "$WARMUP" -prompt 8 -new-tokens 1 $GO_FLAGS >"$tmp/go.out" 2>"$tmp/go.err" ||
			{ cat "$tmp/go.err" >&2; die "artist bench failed"; }
		"$PYTHON" -c 'import json, sys
r = json.load(sys.stdin)
print("go    train step %.1f s  %.1f tokens/s  peak RSS %.0f MiB  (%s, kernels %s)" % (
    r["train_step_s"], r["train_tokens_per_s"], r["peak_rss_mib"], r["backend"], r.get("core", "-")))' <"$tmp/go.out" | tee -a "$tmp/sum"
		;;
	torch)
		run_peer --only train_step --model-config "$MODEL" --batch "$BATCH" --seq "$SEQ" --threads "$THREADS" \
			--warmup "$WARMUP" --repeats "$STEPS"
		"$PYTHON" -c 'import json, sys
r = json.loads(sys.stdin.readline())
print("torch train step %.1f s  %.1f tokens/s  peak RSS %.0f MiB" % (r["ms"] / 1e3, r["tokens_per_s"], r["peak_rss_mib"]))' <"$tmp/py.out" | tee -a "$tmp/sum"
		;;
	*) die "SIDES holds $side; the sides are go and torch" ;;
	esac
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$(wc -l <"$tmp/sum")" = 2 ]; then
	awk '{ tps[NR] = $6; rss[NR] = $10 } END { printf "go / torch: speed %.2fx, peak RSS %.2fx\n", tps[1] / tps[2], rss[1] / rss[2] }' "$tmp/sum"
fi
echo "sgemm (OpenBLAS, GOMAXPROCS=$THREADS):"
(cd "$root" && GOMAXPROCS=$THREADS go test -run x -bench 'MatMul/openblas' -benchtime 10x ./policy/backend/cpu) |
	awk '/GFLOP/ { print "  " $1, $(NF-1), "GFLOP/s" }'
