#!/usr/bin/env bash
# Lockstep against continuous batching of the in-process rollouts
# (rollout.batching), side by side on the same warm-started run of each
# config: STEPS GRPO steps in each mode, ROUNDS rounds alternating the
# modes, each from a fresh copy of the warm start. It prints, per config
# and mode, the median over steps and rounds of rollout/tokens_per_s
# (sampled tokens per second of rollout), timing/rollout_s and
# timing/step_s, and the ratio of the medians, continuous / lockstep.
# Both modes sample the same trajectories (rollout.Streams), so they do
# the same work.
#
#	scripts/bench-batching.sh [STEPS] [ROUNDS] [CONFIG...]
#
# Defaults: 8 steps, 2 rounds, configs/tiny-tool-arith.yaml and
# configs/tiny-tool-multistep.yaml. WARMSTART=N shortens each config's
# warm start to N steps; ARTIST=PATH times a built artist binary instead
# of building this tree. Speed numbers: run it on an otherwise idle
# machine.
set -euo pipefail
steps=${1:-8}
rounds=${2:-2}
shift $(( $# > 2 ? 2 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(configs/tiny-tool-arith.yaml configs/tiny-tool-multistep.yaml)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${ARTIST:-}
if [ -z "$bin" ]; then
	bin=$tmp/artist
	(cd "$root" && go build -o "$bin" ./cmd/artist)
fi
warm=()
[ -z "${WARMSTART:-}" ] || warm=(-set "warmstart.steps=$WARMSTART")
printf '%-34s %-10s %14s %12s %10s\n' config batching "rollout tok/s" "rollout s" "step s"
for cfg in "${configs[@]}"; do
	name=$(basename "$cfg" .yaml)
	"$bin" train -config "$root/$cfg" -set "run_dir=$tmp/$name-base" -set grpo.steps=0 "${warm[@]}" >"$tmp/$name-base.log" 2>&1 ||
		{ echo "bench-batching: the warm start of $cfg failed:" >&2; tail -n 20 "$tmp/$name-base.log" >&2; exit 1; }
	for round in $(seq "$rounds"); do
		for mode in lockstep continuous; do
			dir=$tmp/$name-$mode-$round
			cp -r "$tmp/$name-base" "$dir"
			"$bin" train -config "$root/$cfg" -set "run_dir=$dir" -set "grpo.steps=$steps" "${warm[@]}" \
				-set rollout.batching=$mode -set eval.every=0 >"$dir.log" 2>&1 ||
				{ echo "bench-batching: $cfg with rollout.batching=$mode failed:" >&2; tail -n 20 "$dir.log" >&2; exit 1; }
		done
	done
	python3 - "$tmp" "$name" "$rounds" <<'PY'
import json, statistics, sys
tmp, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = ["rollout/tokens_per_s", "timing/rollout_s", "timing/step_s"]
med = {}
for mode in ["lockstep", "continuous"]:
    vals = {k: [] for k in keys}
    for r in range(1, rounds + 1):
        for line in open(f"{tmp}/{name}-{mode}-{r}/metrics.jsonl"):
            m = json.loads(line)
            if m.get("step", 0) > 0 and "timing/step_s" in m:
                for k in keys:
                    vals[k].append(m[k])
    med[mode] = [statistics.median(vals[k]) for k in keys]
    print(f"{name:<34} {mode:<10} {med[mode][0]:14.0f} {med[mode][1]:12.3f} {med[mode][2]:10.3f}")
c, l = med["continuous"], med["lockstep"]
print(f"{name:<34} {'ratio':<10} {c[0]/l[0]:14.2f} {c[1]/l[1]:12.2f} {c[2]/l[2]:10.2f}")
PY
done
