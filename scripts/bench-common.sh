# shellcheck shell=bash
# Sourced, with the script's arguments, by the benchmarks that time artist
# against its PyTorch peer (bench.sh, bench-full-step.sh): the settings
# both read (see their --help), both sides on the same OpenBLAS kernels
# (openblas-core.sh), die, -h/--help printing the script's header comment,
# and a refusal of any other argument (settings are environment
# variables). run_peer runs scripts/peer_bench.py with its arguments
# under the peer's thread settings, into $tmp/py.out and $tmp/py.err.

THREADS=${THREADS:-2}
PY_BLAS_THREADS=${PY_BLAS_THREADS:-1}
PY_OMP_WAIT=${PY_OMP_WAIT:-passive}
PYTHON=${PYTHON:-/usr/bin/python3}
bench_scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=openblas-core.sh
. "$bench_scripts/openblas-core.sh" # both sides on the same OpenBLAS kernels

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

case "${1:-}" in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 0
	;;
"") ;;
*) die "takes no arguments (settings are environment variables; see --help)" ;;
esac

run_peer() {
	OPENBLAS_NUM_THREADS=$PY_BLAS_THREADS OMP_WAIT_POLICY=$PY_OMP_WAIT "$PYTHON" "$bench_scripts/peer_bench.py" \
		"$@" >"$tmp/py.out" 2>"$tmp/py.err" ||
		{ cat "$tmp/py.err" >&2; die "peer_bench.py failed"; }
}
