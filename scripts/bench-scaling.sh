#!/usr/bin/env bash
# Data-parallel scaling of a training run: the same config at -np 1 and at
# -np N (default 2) under mpirun, one thread per rank (GOMAXPROCS=1,
# OPENBLAS_NUM_THREADS=1, each rank bound to a core), the same global
# batch. Prints each run's wall time, warm-start time and held-out
# accuracy, and the scaling efficiency T1/(N*TN). Needs Open MPI
# (apt-get install openmpi-bin) and N free cores; as root set
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
#
#	scripts/bench-scaling.sh [CONFIG] [N] [ROUNDS]
set -euo pipefail
config=${1:-configs/tiny-tool-arith.yaml}
n=${2:-2}
rounds=${3:-1}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/artist" ./cmd/artist)
export GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1
for r in $(seq "$rounds"); do
	for np in 1 "$n"; do
		out="$tmp/np$np-$r.log"
		start=$(date +%s.%N)
		(cd "$root" && mpirun -np "$np" --bind-to core -x GOMAXPROCS -x OPENBLAS_NUM_THREADS \
			"$tmp/artist" train -config "$config" -set run_dir="$tmp/run-np$np-$r") >"$out" 2>&1
		end=$(date +%s.%N)
		warm=$(awk '/^warmstart [0-9]+\/[0-9]+ /{ e = $NF } END { print e }' "$out")
		acc=$(awk '/^final eval:/{ print $4 }' "$out")
		echo "round $r np $np wall $(echo "$end - $start" | bc) s warm start $warm final accuracy $acc" | tee -a "$tmp/walls"
	done
done
awk -v n="$n" '{ w[$4] += $6; c[$4]++ } END { t1 = w[1] / c[1]; tn = w[n] / c[n]; printf "mean wall: np 1 %.1f s, np %d %.1f s; scaling efficiency T1/(%d*T%d) = %.3f\n", t1, n, tn, n, n, t1 / (n * tn) }' "$tmp/walls"
