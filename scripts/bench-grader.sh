#!/usr/bin/env bash
# Compares the math grader's speed at two commits on the same inputs:
# BenchmarkGradeTestdata of reward/mathgrade, run alternately at BASE and
# at HEAD (default: the working tree's HEAD), both on BASE's pair files, so
# that pairs added later do not change the mix. Prints each run and the
# median pairs/s of every sub-benchmark with the ratio HEAD/BASE.
#
#	scripts/bench-grader.sh BASE [ROUNDS]
set -euo pipefail
base=${1:?usage: scripts/bench-grader.sh BASE [ROUNDS]}
rounds=${2:-5}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1; git -C "$root" worktree remove --force "$tmp/head" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
git -C "$root" worktree add -q --detach "$tmp/base" "$base"
git -C "$root" worktree add -q --detach "$tmp/head" HEAD
# HEAD graded on BASE's pairs only.
rm -f "$tmp/head/reward/mathgrade/testdata/"equal*.tsv
cp "$tmp/base/reward/mathgrade/testdata/"equal*.tsv "$tmp/head/reward/mathgrade/testdata/"
for side in base head; do
	(cd "$tmp/$side" && go test -c -o "$tmp/$side.test" ./reward/mathgrade)
done
for i in $(seq "$rounds"); do
	for side in base head; do
		(cd "$tmp/$side/reward/mathgrade" && GOMAXPROCS=1 "$tmp/$side.test" -test.run '^$' -test.bench BenchmarkGradeTestdata -test.benchtime 1s) |
			awk -v s="$side" '/pairs\/s/ { for (k = 1; k <= NF; k++) if ($(k+1) == "pairs/s") print s, $1, $k }' | tee -a "$tmp/runs"
	done
done
awk '{ v[$1" "$2] = v[$1" "$2] " " $3 } END { for (k in v) print k, v[k] }' "$tmp/runs" | sort |
	python3 -c '
import sys, statistics
med = {}
for line in sys.stdin:
    side, name, *vals = line.split()
    med[(side, name)] = statistics.median(float(x) for x in vals)
for name in sorted({n for _, n in med}):
    b, h = med[("base", name)], med[("head", name)]
    print(f"{name}: base {b:.0f} pairs/s, head {h:.0f} pairs/s, head/base {h/b:.3f}")
'
