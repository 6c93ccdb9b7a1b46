#!/usr/bin/env bash
# The first hour of a new user, scripted: a fresh clone of this checkout,
# the README's two commands, an evaluation on a benchmark found through
# ARTIST_DATA, a run folder given as the checkpoint, a second benchmark
# that cannot run and leaves the first's results alone, and Ctrl-C during
# training, then the resume command the trainer printed; then the finished
# run trained again (nothing changes), a resume with a changed key (refused,
# nothing changes), flag errors that name the flag, and the run served: the
# completion docs/serving.md gives answers, and a request that does not fit,
# an unknown model and a tool_choice without tools are refused by name.
#
#   scripts/newcomer-test.sh [DATA_DIR]
#
# DATA_DIR (default: $ARTIST_DATA, else ../shared/data beside the checkout)
# holds the benchmarks (scripts/fetch-data.sh). Environment:
#   NEWCOMER_STEPS       GRPO steps of the training run (default 20; the
#                        README's run takes 100); the command is otherwise
#                        the README's
#   NEWCOMER_WARMSTART   warm-start steps (default: the config's 1,200), for
#                        a quicker walk on a slow or shared machine
#   NEWCOMER_SKIP_GO_TEST=1  skip `go test ./...` in the clone (.ci/run has
#                        just run that exact command on a fresh clone)
#   NEWCOMER_TIMEOUT     seconds allowed for each long step (default 1800)
# Everything happens in a temporary folder, removed at the end; each step
# is bounded by a timeout, and a failure names the step and shows its log.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${1:-${ARTIST_DATA:-$root/../shared/data}}
[ -d "$data" ] || { echo "newcomer-test: no benchmark data at $data: give DATA_DIR or run scripts/fetch-data.sh" >&2; exit 1; }
data=$(cd "$data" && pwd)
steps=${NEWCOMER_STEPS:-20}
limit=${NEWCOMER_TIMEOUT:-1800}
tmp=$(mktemp -d)
trainpid=
cleanup() {
	if [ -n "$trainpid" ]; then kill -KILL -- "-$trainpid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

step() { echo "== newcomer: $*"; }
fail() {
	echo "newcomer-test: FAIL: $1" >&2
	[ -n "${2:-}" ] && [ -f "$2" ] && { echo "--- $2:" >&2; tail -n 40 "$2" >&2; }
	exit 1
}
# expect FILE TEXT: FILE contains TEXT.
expect() { grep -qF -- "$2" "$1" || fail "$3: output lacks \"$2\"" "$1"; }

step "fresh clone"
git clone -q "$root" "$tmp/artist"
cd "$tmp/artist"
unset ARTIST_DATA ARTIST_REQUIRE_DATA

if [ "${NEWCOMER_SKIP_GO_TEST:-}" != 1 ]; then
	step "go test ./..."
	timeout "$limit" go test ./... >"$tmp/test.log" 2>&1 || fail "go test ./... in the fresh clone" "$tmp/test.log"
fi

# The README's training command, in its own process group as a terminal's
# Ctrl-C finds it; interrupted after its third GRPO step.
train=(go run ./cmd/artist train -config configs/tiny-tool-arith.yaml -set "grpo.steps=$steps")
if [ -n "${NEWCOMER_WARMSTART:-}" ]; then train+=(-set "warmstart.steps=$NEWCOMER_WARMSTART"); fi
step "${train[*]}, Ctrl-C after step 3"
setsid "${train[@]}" >"$tmp/train1.out" 2>"$tmp/train1.err" &
trainpid=$!
deadline=$((SECONDS + limit))
until grep -q "^step 3/$steps " "$tmp/train1.out" 2>/dev/null; do
	kill -0 "$trainpid" 2>/dev/null || fail "training ended before step 3" "$tmp/train1.err"
	[ "$SECONDS" -lt "$deadline" ] || fail "no step 3 within ${limit}s" "$tmp/train1.out"
	sleep 1
done
kill -INT -- "-$trainpid"
rc=0
timeout 300 tail --pid="$trainpid" -f /dev/null || fail "training did not stop within 300s of Ctrl-C" "$tmp/train1.err"
wait "$trainpid" || rc=$?
trainpid=
[ "$rc" -ne 0 ] || fail "an interrupted run exited 0" "$tmp/train1.err"
expect "$tmp/train1.err" "interrupt: stopping at the next safe point" "Ctrl-C"
expect "$tmp/train1.err" "the run resumes from its latest checkpoint, runs/tiny-tool-arith/checkpoints/step-" "Ctrl-C"
resume=$(grep -A1 "to resume:" "$tmp/train1.err" | tail -n 1 | sed 's/^ *//')
[ "$resume" = "${train[*]}" ] || fail "the printed resume command \"$resume\" is not the command that ran (\"${train[*]}\")" "$tmp/train1.err"

step "resume: $resume"
timeout "$limit" bash -c "$resume" >"$tmp/train2.out" 2>"$tmp/train2.err" || fail "the resumed run" "$tmp/train2.err"
ckpt=$(sed -n 's|.*the run resumes from its latest checkpoint, runs/tiny-tool-arith/checkpoints/\([a-z0-9-]*\);.*|\1|p' "$tmp/train1.err")
expect "$tmp/train2.out" "resuming runs/tiny-tool-arith from $ckpt " "resume"
expect "$tmp/train2.out" "step $steps/$steps " "resume"
expect "$tmp/train2.out" "final eval: accuracy" "resume"
if grep -q "^warmstart [0-9]" "$tmp/train2.out"; then fail "the resumed run did the warm start again" "$tmp/train2.out"; fi

go build -buildvcs=true -o artist ./cmd/artist
run=runs/tiny-tool-arith
# fingerprint: every file of the run folder with its content hash, and
# every entry with its size and modification time.
fingerprint() {
	(cd "$run" && find . -type f -print0 | sort -z | xargs -0 sha256sum && find . -printf '%p %s %T@\n' | sort)
}
# unchanged WHAT: the run folder is as fingerprinted in run.before.
unchanged() {
	fingerprint >"$tmp/run.after"
	cmp -s "$tmp/run.before" "$tmp/run.after" || { diff "$tmp/run.before" "$tmp/run.after" >"$tmp/run.diff" || true; fail "$1 changed the run folder" "$tmp/run.diff"; }
}
# refused SECONDS ERRLOG COMMAND...: COMMAND exits non-zero within
# SECONDS, its stderr in ERRLOG.
refused() {
	local limit=$1 err=$2 rc=0
	shift 2
	timeout "$limit" "$@" >/dev/null 2>"$err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$* exited 0" "$err"
}
rerun=(./artist "${train[@]:3}")
fingerprint >"$tmp/run.before"

step "the same training again: the run is finished, nothing changes"
timeout "$limit" "${rerun[@]}" >"$tmp/rerun.out" 2>"$tmp/rerun.err" || fail "training the finished run again" "$tmp/rerun.err"
expect "$tmp/rerun.out" "run $run is finished (GRPO step $steps of $steps): nothing to do" "finished run"
expect "$tmp/rerun.out" "$run/summary.json" "finished run"
unchanged "training the finished run again"

step "resume with grpo.lr changed is refused, naming the key"
rc=0
timeout "$limit" "${rerun[@]}" -set grpo.lr=0.001 -force >"$tmp/changed.out" 2>"$tmp/changed.err" || rc=$?
[ "$rc" -eq 1 ] || fail "resume with a changed grpo.lr exited $rc" "$tmp/changed.err"
expect "$tmp/changed.err" "grpo.lr: run has 0.0002, config says 0.001" "changed key"
expect "$tmp/changed.err" "another run_dir" "changed key"
unchanged "the refused resume"

step "flag errors name the flag and fail early"
refused 120 "$tmp/flag-n.err" ./artist eval -checkpoint "$run" -n 0
expect "$tmp/flag-n.err" "-n 0" "eval -n 0"
refused 120 "$tmp/flag-set.err" ./artist train -config configs/tiny-tool-arith.yaml -set grpo.stpes=5
expect "$tmp/flag-set.err" "grpo.stpes" "-set with a misspelt key"
if grep -q "line [0-9]" "$tmp/flag-set.err"; then fail "the -set error names a YAML line" "$tmp/flag-set.err"; fi
refused 60 "$tmp/flag-addr.err" ./artist serve -checkpoint "$tmp/no-such-checkpoint" -addr 8080
expect "$tmp/flag-addr.err" "-addr" "serve -addr 8080"
if grep -q "no-such-checkpoint" "$tmp/flag-addr.err"; then fail "serve -addr 8080 looked for the checkpoint before checking -addr" "$tmp/flag-addr.err"; fi
refused 120 "$tmp/flag-ckpt.err" ./artist eval -checkpoint "$run/checkpoints" -limit 1
expect "$tmp/flag-ckpt.err" "did you mean" "eval -checkpoint RUN/checkpoints"

# The tiny model has 256 positions: budgets small enough for a short
# MATH-500 problem.
fit=(-set rollout.max_response_tokens=24 -set rollout.max_tool_calls=1 -set rollout.max_result_tokens=8)

step "eval -checkpoint runs/tiny-tool-arith (a run folder)"
timeout "$limit" ./artist eval -checkpoint runs/tiny-tool-arith -limit 20 >"$tmp/held.out" 2>"$tmp/held.err" || fail "held-out eval of the run folder" "$tmp/held.err"
expect "$tmp/held.err" "is a run folder: using its latest checkpoint" "run folder as checkpoint"
expect "$tmp/held.err" "at temperature 0 (the training evaluation's" "held-out eval settings"
expect "$tmp/held.out" '"accuracy"' "held-out eval"

step "ARTIST_DATA=$data eval -bench math500"
ARTIST_DATA=$data timeout "$limit" ./artist eval -checkpoint runs/tiny-tool-arith -bench math500 -limit 2 "${fit[@]}" -out results \
	>"$tmp/bench1.out" 2>"$tmp/bench1.err" || fail "eval -bench math500 through ARTIST_DATA" "$tmp/bench1.err"
expect "$tmp/bench1.out" "math500" "eval table"
[ -s results/summary.json ] && [ -s results/samples.jsonl ] || fail "eval wrote no results" "$tmp/bench1.err"
cp results/summary.json "$tmp/summary.before"

step "eval -bench math500,aime24: aime24 does not fit, nothing runs, results kept"
rc=0
ARTIST_DATA=$data timeout "$limit" ./artist eval -checkpoint runs/tiny-tool-arith -bench math500,aime24 -limit 2 "${fit[@]}" -out results \
	>"$tmp/bench2.out" 2>"$tmp/bench2.err" || rc=$?
[ "$rc" -eq 1 ] || fail "eval with a benchmark that does not fit exited $rc" "$tmp/bench2.err"
expect "$tmp/bench2.err" "aime24" "the refused benchmark"
expect "$tmp/bench2.err" "context" "the refused benchmark"
cmp -s results/summary.json "$tmp/summary.before" || fail "the refused evaluation changed the earlier results" "$tmp/bench2.err"

step "a missing benchmark names -data, ARTIST_DATA and scripts/fetch-data.sh"
rc=0
./artist eval -checkpoint runs/tiny-tool-arith -bench math500 -limit 1 -out "$tmp/none" >/dev/null 2>"$tmp/missing.err" || rc=$?
[ "$rc" -eq 1 ] || fail "eval without data exited $rc" "$tmp/missing.err"
for w in -data ARTIST_DATA scripts/fetch-data.sh; do expect "$tmp/missing.err" "$w" "missing data message"; done

step "serve the run: the README's completion fits, what does not is refused by name"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
api=http://127.0.0.1:$port
model=$(basename "$(ls -d "$run"/checkpoints/step-* | sort | tail -n 1)")
setsid ./artist serve -checkpoint "$run" -addr "127.0.0.1:$port" >"$tmp/serve.out" 2>"$tmp/serve.err" &
trainpid=$!
deadline=$((SECONDS + 120))
until curl -sf "$api/v1/models" >"$tmp/models.json" 2>/dev/null; do
	kill -0 "$trainpid" 2>/dev/null || fail "artist serve exited" "$tmp/serve.err"
	[ "$SECONDS" -lt "$deadline" ] || fail "artist serve did not answer within 120s" "$tmp/serve.err"
	sleep 1
done
expect "$tmp/models.json" '"max_model_len":256' "GET /v1/models"
# post NAME PATH BODY: POST BODY to PATH, the answer in $tmp/NAME.json and its
# status in $tmp/NAME.code.
post() {
	curl -s -o "$tmp/$1.json" -w '%{http_code}' "$api$2" -H 'Content-Type: application/json' -d "$3" >"$tmp/$1.code"
}
post fits /v1/completions '{"model": "'"$model"'", "prompt": "60 boxes hold 286 apples each. How many apples?\n", "max_tokens": 40, "temperature": 0, "stop": ["</code>"]}'
expect "$tmp/fits.code" 200 "the completion that fits the default checkpoint"
expect "$tmp/fits.json" '"text":"\u003cthink\u003e' "the completion that fits the default checkpoint"
tool='{"type": "function", "function": {"name": "multiply", "description": "Multiply two integers.", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}'
post tools /v1/chat/completions '{"model": "'"$model"'", "messages": [{"role": "user", "content": "What is 286 times 60?"}], "tools": ['"$tool"']}'
expect "$tmp/tools.code" 400 "a chat with tools on a 256-token model"
expect "$tmp/tools.json" "the model's context holds 256" "a chat with tools on a 256-token model"
post unknown /v1/completions '{"model": "gpt-4o", "prompt": "1 + 1 =", "max_tokens": 4}'
expect "$tmp/unknown.code" 404 "an unknown model"
expect "$tmp/unknown.json" "$model" "an unknown model names the one served"
post choice /v1/chat/completions '{"model": "'"$model"'", "messages": [{"role": "user", "content": "hi"}], "tool_choice": {"type": "function", "function": {"name": "multiply"}}}'
expect "$tmp/choice.code" 400 "tool_choice without tools"
expect "$tmp/choice.json" '\"multiply\"' "tool_choice without tools names the function sent"
kill "$trainpid"; wait "$trainpid" 2>/dev/null || true
trainpid=

step "help and version"
./artist help >"$tmp/help.out" || fail "artist help exited non-zero" "$tmp/help.out"
./artist -h >/dev/null || fail "artist -h exited non-zero"
./artist version >"$tmp/version.out" || fail "artist version" "$tmp/version.out"
expect "$tmp/version.out" "revision $(git rev-parse HEAD)" "version"
echo "newcomer-test: ok"
