#!/usr/bin/env bash
# The in-process rollouts of this tree against those of an earlier
# version, side by side on the same warm-started run of each config:
# STEPS GRPO steps with each build, ROUNDS rounds alternating the builds,
# each from a fresh copy of one warm start (made by this tree's build).
# It prints, per config and build, the median over steps and rounds of
# rollout/tokens_per_s (sampled tokens per second of rollout),
# timing/rollout_s and timing/step_s, and the ratio of the medians,
# this tree / before. Both builds sample the same trajectories from the
# same streams (rollout.Streams), so they do the same work.
#
#	BEFORE=REV scripts/bench-batching.sh [STEPS] [ROUNDS] [CONFIG...]
#
# REV is a git revision of this repository (a tag, a commit); its
# artist is built from `git archive REV`. Defaults: 8 steps, 2 rounds,
# configs/tiny-tool-arith.yaml and configs/tiny-tool-multistep.yaml.
# WARMSTART=N shortens each config's warm start to N steps;
# BEFORE_SET="key=value ..." adds -set flags to the earlier build's runs
# (e.g. a rollout.batching value it had). Speed
# numbers: run it on an otherwise idle machine.
set -euo pipefail
steps=${1:-8}
rounds=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(configs/tiny-tool-arith.yaml configs/tiny-tool-multistep.yaml)
[ -n "${BEFORE:-}" ] || { echo "bench-batching: set BEFORE to the git revision to compare with (e.g. BEFORE=HEAD~1)" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src-before"
git -C "$root" archive "$BEFORE" | tar -x -C "$tmp/src-before"
(cd "$tmp/src-before" && go build -o "$tmp/artist-before" ./cmd/artist)
(cd "$root" && go build -o "$tmp/artist-after" ./cmd/artist)
warm=()
[ -z "${WARMSTART:-}" ] || warm=(-set "warmstart.steps=$WARMSTART")
declare -A extra=([before]="" [after]="")
for kv in ${BEFORE_SET:-}; do extra[before]+=" -set $kv"; done
printf '%-34s %-10s %14s %12s %10s\n' config build "rollout tok/s" "rollout s" "step s"
for cfg in "${configs[@]}"; do
	name=$(basename "$cfg" .yaml)
	"$tmp/artist-after" train -config "$root/$cfg" -set "run_dir=$tmp/$name-base" -set grpo.steps=0 "${warm[@]}" >"$tmp/$name-base.log" 2>&1 ||
		{ echo "bench-batching: the warm start of $cfg failed:" >&2; tail -n 20 "$tmp/$name-base.log" >&2; exit 1; }
	for round in $(seq "$rounds"); do
		for build in before after; do
			dir=$tmp/$name-$build-$round
			cp -r "$tmp/$name-base" "$dir"
			"$tmp/artist-$build" train -config "$root/$cfg" -set "run_dir=$dir" -set "grpo.steps=$steps" "${warm[@]}" \
				-set eval.every=0 ${extra[$build]} >"$dir.log" 2>&1 ||
				{ echo "bench-batching: $cfg with the $build build failed:" >&2; tail -n 20 "$dir.log" >&2; exit 1; }
		done
	done
	python3 - "$tmp" "$name" "$rounds" <<'PY'
import json, statistics, sys
tmp, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = ["rollout/tokens_per_s", "timing/rollout_s", "timing/step_s"]
med = {}
for build in ["before", "after"]:
    vals = {k: [] for k in keys}
    for r in range(1, rounds + 1):
        for line in open(f"{tmp}/{name}-{build}-{r}/metrics.jsonl"):
            m = json.loads(line)
            if m.get("step", 0) > 0 and "timing/step_s" in m:
                for k in keys:
                    vals[k].append(m[k])
    med[build] = [statistics.median(vals[k]) for k in keys]
    print(f"{name:<34} {build:<10} {med[build][0]:14.0f} {med[build][1]:12.3f} {med[build][2]:10.3f}")
a, b = med["after"], med["before"]
print(f"{name:<34} {'ratio':<10} {a[0]/b[0]:14.2f} {a[1]/b[1]:12.2f} {a[2]/b[2]:10.2f}")
PY
done
