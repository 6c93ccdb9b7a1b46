#!/usr/bin/env bash
# Measures the overlap of generation and training (grpo.max_staleness 1)
# on one rollout server: `artist serve` on a warm-start checkpoint of the
# default task, pinned to one core, and the trainer pinned to another,
# each with GOMAXPROCS=1 and OPENBLAS_NUM_THREADS=1, and the sandbox's
# worker processes (the policy's tool calls) on the server's core, on the
# rollout side (tool.sandbox.cpus). It runs the same STEPS GRPO steps
# twice from that checkpoint on the server: synchronously (max_staleness
# 0: each side measured alone) and with max_staleness 1 (the server
# generates step s+1 while the trainer updates step s). The rollout side
# of a synchronous step is its draw: the weight push, the generation with
# its tool calls, and scoring (timing/weight_sync_s, rollout_s,
# reward_s), all of which the producer runs ahead at max_staleness 1; the
# trainer side is the rest of the step (advantages, the log-prob
# recompute against the servers' log-probs, the update, the step's
# summary), which stays on the trainer's path. It prints the medians over
# steps 3..STEPS-1 (the first steps fill the queue, the last one
# evaluates) and the ratio
#
#	step wall time at max_staleness 1 / max(rollout side, trainer side)
#
# which is 1 for a perfect overlap and (rollout + trainer) / max for none.
# TRAINER_PROCS=N gives the trainer N Go threads (GOMAXPROCS) on its one
# core (default 1); SANDBOX_CORE=C runs the sandbox's workers on core C
# (default 0, the server's; 1 is the trainer's, empty leaves them on the
# trainer's core as its children). ARTIST=PATH times a built artist
# binary instead of building this tree.
#
#	scripts/bench-overlap.sh [STEPS] [WARM_RUN]
#
# WARM_RUN reuses a run folder of the default task (its latest checkpoint:
# the end of the warm start, or a GRPO step, from which the STEPS steps
# go on); by default the script makes one with grpo.steps=0. Speed
# numbers: run it on an otherwise idle machine.
set -euo pipefail
steps=${1:-16}
warm=${2:-}
trainer_procs=${TRAINER_PROCS:-1}
extra=()
sandbox_core=${SANDBOX_CORE-0}
[ -n "$sandbox_core" ] && extra+=(-set "tool.sandbox.cpus=[$sandbox_core]")
root=$(git rev-parse --show-toplevel)
cfg="$root/configs/tiny-tool-arith.yaml"
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
if [ -n "${ARTIST:-}" ]; then
	cp "$ARTIST" "$tmp/artist"
else
	(cd "$root" && go build -o "$tmp/artist" ./cmd/artist)
fi
if [ -z "$warm" ]; then
	warm="$tmp/warm"
	"$tmp/artist" train -config "$cfg" -set run_dir="$warm" -set grpo.steps=0 -set eval.size=16 >/dev/null
fi
one() { # one CORE PROCS COMMAND...: becomes the command on one core, PROCS Go threads (GOMAXPROCS) and one of OpenBLAS
	local core=$1 procs=$2
	shift 2
	GOMAXPROCS=$procs OPENBLAS_NUM_THREADS=1 exec taskset -c "$core" "$@"
}
ck="$warm/checkpoints/$(cat "$warm/checkpoints/latest")"
start=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step"])' "$ck/state.json")
port=$((20000 + RANDOM % 20000))
one 0 1 "$tmp/artist" serve -checkpoint "$ck" -addr "127.0.0.1:$port" >"$tmp/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
	sleep 0.2
done
for k in 0 1; do
	cp -r "$warm" "$tmp/k$k"
	(one 1 "$trainer_procs" "$tmp/artist" train -config "$cfg" -set run_dir="$tmp/k$k" -set grpo.steps=$((start + steps)) \
		-set grpo.max_staleness=$k -set "rollout.servers=[http://127.0.0.1:$port]" \
		-set eval.every=0 -set eval.size=16 -set checkpoint.every=0 "${extra[@]}") >"$tmp/k$k.log"
done
if [ -n "${KEEP:-}" ]; then # KEEP=DIR keeps both runs' metrics and logs
	mkdir -p "$KEEP"
	for k in 0 1; do cp "$tmp/k$k/metrics.jsonl" "$KEEP/metrics-k$k.jsonl"; cp "$tmp/k$k.log" "$KEEP/k$k.log"; done
fi
python3 - "$tmp/k0/metrics.jsonl" "$tmp/k1/metrics.jsonl" "$start" "$steps" <<'EOF'
import json, statistics, sys
start, steps = int(sys.argv[3]), int(sys.argv[4])
def load(path):
    return {r["step"]: r for r in map(json.loads, open(path)) if r.get("step", 0) > start}
sync, stale = load(sys.argv[1]), load(sys.argv[2])
window = range(start + 3, start + steps)
def med(run, key):
    return statistics.median(run[s].get(key) or 0 for s in window)
# What each side does alone, from the synchronous run: the rollout side is
# the whole draw (weight push, generation with its tool calls, scoring),
# which the producer runs ahead at max_staleness 1; the trainer side is
# the rest of the step (advantages, the log-prob recompute, the update,
# the step's summary), which stays on the trainer's critical path.
push, gen, score = (med(sync, k) for k in ("timing/weight_sync_s", "timing/rollout_s", "timing/reward_s"))
seq, up = med(sync, "timing/step_s"), med(sync, "timing/update_s")
ro = push + gen + score
tr = statistics.median(sync[s]["timing/step_s"] - sum(sync[s].get(k) or 0 for k in
    ("timing/weight_sync_s", "timing/rollout_s", "timing/reward_s")) for s in window)
wall, wait = med(stale, "timing/step_s"), med(stale, "timing/wait_rollout_s")
print(f"steps {window.start}..{window.stop - 1}, medians in seconds")
print(f"max_staleness 0: step {seq:.3f} = rollout side {ro:.3f} (weight push {push:.3f}, generation {gen:.3f},"
      f" scoring {score:.3f}) + trainer side {tr:.3f} (of which update {up:.3f})")
print(f"max_staleness 1: step {wall:.3f}, of which waiting for rollouts {wait:.3f};"
      f" generation {med(stale, 'timing/rollout_s'):.3f} and update {med(stale, 'timing/update_s'):.3f} while overlapping")
print(f"ratio step(max_staleness 1) / max(rollout side, trainer side) = {wall / max(ro, tr):.3f}"
      f" (no overlap would be {(ro + tr) / max(ro, tr):.3f})")
EOF
