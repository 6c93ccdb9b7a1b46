#!/usr/bin/env bash
# Side-by-side speed of the Go model and its PyTorch peer on the tiny
# default model: one training step (32 x 96 tokens) and batched sampling
# with a key/value cache (64 sequences, 32-token prompt, 64 decoded tokens).
# The Go benchmarks (trainer/bench_test.go) and scripts/peer_bench.py run
# alternately, ROUNDS times each; the table shows the median of the rounds.
#
# Run from anywhere inside the repository. Settings (environment):
#   ROUNDS=3              rounds of (Go, PyTorch)
#   BENCHTIME=3x          go test -benchtime for each Go benchmark
#   WARMUP=1 REPEATS=3    untimed and timed runs per PyTorch measurement
#   THREADS=2             GOMAXPROCS for Go, torch.set_num_threads for PyTorch
#   PY_BLAS_THREADS=1     OPENBLAS_NUM_THREADS for PyTorch
#   PY_OMP_WAIT=passive   OMP_WAIT_POLICY for PyTorch; with "active" (GNU
#                         OpenMP's spinning default) two torch threads run
#                         about ten times slower when another process is
#                         busy on the same cores
#   TAGS=                 Go build tags, e.g. TAGS=openblas (needs libopenblas-dev)
#   PYTHON=/usr/bin/python3  a Python with torch (Debian: python3-torch)
set -euo pipefail

ROUNDS=${ROUNDS:-3}
BENCHTIME=${BENCHTIME:-3x}
WARMUP=${WARMUP:-1}
REPEATS=${REPEATS:-3}
THREADS=${THREADS:-2}
PY_BLAS_THREADS=${PY_BLAS_THREADS:-1}
PY_OMP_WAIT=${PY_OMP_WAIT:-passive}
TAGS=${TAGS:-}
PYTHON=${PYTHON:-/usr/bin/python3}

die() { echo "bench: $*" >&2; exit 1; }

case "${1:-}" in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 0
	;;
"") ;;
*) die "takes no arguments (settings are environment variables; see --help)" ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
command -v go >/dev/null || die "go is not on PATH"
[ -x "$PYTHON" ] || command -v "$PYTHON" >/dev/null || die "no Python at $PYTHON (set PYTHON=...)"
[ "$("$PYTHON" -c 'import torch; print("torch ok")' 2>/dev/null)" = "torch ok" ] ||
	die "$PYTHON cannot import torch; on Debian/Ubuntu: apt-get install -y python3-torch libopenblas0-pthread (or set PYTHON to a Python that has torch)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench: building the Go benchmarks${TAGS:+ with -tags $TAGS}" >&2
(cd "$root" && go test -c ${TAGS:+-tags "$TAGS"} -o "$tmp/trainer.test" ./trainer/) ||
	die "go test -c failed${TAGS:+ (TAGS=openblas needs: apt-get install -y libopenblas-dev)}"

# Results accumulate as "measurement side tokens/s" lines in $tmp/results.
for round in $(seq 1 "$ROUNDS"); do
	echo "bench: round $round/$ROUNDS: Go" >&2
	(cd "$root/trainer" && GOMAXPROCS=$THREADS "$tmp/trainer.test" -test.run '^$' \
		-test.bench 'BenchmarkTrainStep|BenchmarkSampleKV' -test.benchtime "$BENCHTIME") >"$tmp/go.out" ||
		{ cat "$tmp/go.out" >&2; die "Go benchmarks failed"; }
	awk '/^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) if ($(i+1) == "tokens/s") v = $i
		if (name == "BenchmarkTrainStep") print "train_step go " v
		if (name == "BenchmarkSampleKV") print "sample_kv go " v }' "$tmp/go.out" >"$tmp/round"
	[ "$(grep -c . "$tmp/round")" = 2 ] || { cat "$tmp/go.out" >&2; die "no tokens/s in the Go benchmark output"; }
	cat "$tmp/round" >>"$tmp/results"

	echo "bench: round $round/$ROUNDS: PyTorch" >&2
	OPENBLAS_NUM_THREADS=$PY_BLAS_THREADS OMP_WAIT_POLICY=$PY_OMP_WAIT "$PYTHON" "$root/scripts/peer_bench.py" \
		--threads "$THREADS" --warmup "$WARMUP" --repeats "$REPEATS" >"$tmp/py.out" 2>"$tmp/py.err" ||
		{ cat "$tmp/py.err" >&2; die "peer_bench.py failed"; }
	if [ "$round" = 1 ]; then grep '^peer_bench:' "$tmp/py.err" >&2 || true; fi
	"$PYTHON" -c 'import json, sys
for line in sys.stdin:
    if line.strip():
        r = json.loads(line)
        print(r["name"], "torch", r["tokens_per_s"])' <"$tmp/py.out" >"$tmp/round" ||
		{ cat "$tmp/py.out" >&2; die "peer_bench.py printed something other than JSON lines"; }
	[ "$(grep -c . "$tmp/round")" = 2 ] || { cat "$tmp/py.out" >&2; die "peer_bench.py did not report both measurements"; }
	cat "$tmp/round" >>"$tmp/results"
	grep . "$tmp/results" | tail -n 4 | sed 's/^/bench:   /' >&2
done

blas=gonum
case ",$TAGS," in *,openblas,*) blas=openblas ;; esac
echo
echo "Go (BLAS $blas${TAGS:+, tags $TAGS}, GOMAXPROCS=$THREADS) vs PyTorch (torch threads $THREADS, OPENBLAS_NUM_THREADS=$PY_BLAS_THREADS, OMP_WAIT_POLICY=$PY_OMP_WAIT); median of $ROUNDS rounds"
awk '
function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ vals[$1 " " $2] = vals[$1 " " $2] " " $3; seen[$1] = 1 }
END {
	printf "%-12s %14s %14s %10s\n", "measurement", "Go tok/s", "PyTorch tok/s", "Go/PyTorch"
	split("train_step sample_kv", order, " ")
	for (k = 1; k <= 2; k++) {
		m = order[k]
		if (!((m " go") in vals) || !((m " torch") in vals)) { printf "%-12s missing results\n", m; bad = 1; continue }
		g = median(vals[m " go"]); p = median(vals[m " torch"])
		printf "%-12s %14.0f %14.0f %10.2f\n", m, g, p, (p > 0 ? g / p : 0)
	}
	exit bad
}' "$tmp/results"
