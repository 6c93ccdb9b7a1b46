#!/usr/bin/env bash
# Every command in README.md and docs/*.md, run as written: the commands
# of the shell code blocks (```sh, ```bash, ```shell, ```console: every
# line; a block without a language: the lines that start as a command
# does) are listed with file:line, classified by the table below, and the
# ones this machine can run are run in order on a fresh copy of the
# checkout, each checked to exit 0.
#
#   scripts/docs-commands.sh          run them
#   scripts/docs-commands.sh -list    list them with their class, run nothing
#
# Classes:
#   run    runs as written
#   long   a training run: runs as written, plus -set grpo.steps=DOCS_STEPS
#          and -set warmstart.steps=DOCS_WARMSTART where the command does
#          not set those keys itself
#   needs  needs what this machine or CI lacks (the reason says what)
#   ci     .ci/run runs this exact command on the same fresh clone
# A command that no pattern matches fails the script ("unclassified
# command at FILE:LINE"): add it to the table, with its reason.
#
# Environment:
#   ARTIST           a built artist binary to use for ./artist, artist and
#                    go run ./cmd/artist (default: go build in the copy)
#   DOCS_STEPS       GRPO steps of the long commands (default 4)
#   DOCS_WARMSTART   warm-start steps of the long commands (default 100)
#   DOCS_TIMEOUT     seconds allowed for each command (default 900)
# Everything happens in a temporary folder, removed at the end with every
# server the commands started; a failure names the command and shows its
# log.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
steps=${DOCS_STEPS:-4}
warm=${DOCS_WARMSTART:-100}
limit=${DOCS_TIMEOUT:-900}

# The classification table, reviewed: class :: extended regular
# expression matched against the whole command (continuation lines joined
# with a space, a trailing # comment dropped) :: reason. The first matching row decides.
table=(
	'needs :: ^apt-get install  :: root and a package mirror (.ci/run installs openmpi-bin itself)'
	'needs :: ^scripts/fetch-data\.sh( |$) :: downloads the benchmarks from the network (.ci/run runs the same tests on ../shared/data)'
	'needs :: ^export [A-Z_]+=\$SLURM_ :: a Slurm job (the batch script of distributed.md)'
	'needs :: ^srun  :: a Slurm cluster'
	'needs :: ^docker build  :: Docker and a container registry'
	'needs :: ^kubectl  :: a Kubernetes cluster with the MPI Operator'
	'needs :: ^scripts/gpu-check\.sh (build|run)$ :: the GPU device check: run needs a CUDA GPU, and build only makes its binaries'
	'needs :: ^mkdir DIR && cp RUN/ :: the vLLM recipe: placeholders DIR, RUN, step-NNNNNN for a run and a vLLM model folder'
	'needs :: (^|[ ])vllm serve  :: vLLM and a GPU'
	'needs :: rollout\.weight_sync=vllm-reload :: a vLLM server (rollout.servers=[http://host:8000]) and its model folder DIR'
	'ci :: ^go test \./\.\.\.$ :: .ci/run runs this exact command on the fresh clone just before'
	'run :: ^go build -o artist \./cmd/artist$ :: builds ./artist (with ARTIST given, that binary is copied there instead)'
	'run :: ^(go run \./cmd/artist|\./artist) train -config configs/tiny-tool-arith\.yaml$ :: the default run, in full: later commands serve its folder and name its step-000100'
	'run :: ^\./artist serve -checkpoint runs/[a-z0-9-]+( -addr 127\.0\.0\.1:[0-9]+)? &$ :: a server, in the background until the script ends'
	"run :: ^curl -s http://127\\.0\\.0\\.1:8080/v1/completions  :: a completion from the server started above (an error object fails it)"
	'run :: ^\./artist init -model-config configs/models/[a-z0-9.-]+\.json  :: random weights in a small model folder'
	'run :: ^\./artist bench -serve -checkpoint runs/qwen-shapes  :: serve throughput of the folder above, 2 rounds'
	'run :: ^artist plan -config configs/[a-z0-9.-]+\.yaml  :: a memory plan, printed without running (exits 1 when it does not fit)'
	'run :: ^go test \./envs/pysandbox -run .\^\$. -bench Versus -benchtime [0-9]+x$ :: the Python tool against python3 -c and the Go sandbox, side by side'
	'run :: ^go test \./envs/pysandbox -run .\^\$. -bench ForkFloor -benchtime [0-9]+x$ :: the fork and exit floor under a fresh-runner call, against python3 -c'
	'run :: ^scripts/pure-calls\.sh( runs/[a-z0-9-]+)+$ :: counts the pure Python tool calls of run folders made by the commands before it'
	'long :: ^(mpirun -np [0-9]+ )?\./artist train -config configs/tiny-tool-(arith|multistep)(-python)?\.yaml( -set [^ ]+)*$ :: a training run in its own run folder'
)

# commands FILE...: FILE<TAB>LINE<TAB>COMMAND for every command of the
# shell code blocks. A line ending in \ or inside an open '...' goes on.
commands() {
	awk '
	BEGIN { prefix = "^(\\./artist|artist|go (run|build|test)|mpirun|curl|(bash )?scripts/|[A-Z][A-Z0-9_]*=[^ ]* )" }
	FNR == 1 { inb = 0; cont = 0 }
	/^[ \t]*(```|~~~)/ {
		if (!inb) {
			info = $0; sub(/^[ \t]*(`+|~+)[ \t]*/, "", info); sub(/[ \t{].*/, "", info)
			kind = info ~ /^(sh|bash|shell|console)$/ ? "sh" : (info == "" ? "plain" : "other")
			inb = 1; cont = 0
		} else inb = 0
		next
	}
	inb && kind != "other" {
		line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
		if (cont) cmd = cmd " " line
		else {
			if (line == "" || line ~ /^#/) next
			sub(/^\$ /, "", line)
			if (kind == "plain" && line !~ prefix) next
			cmd = line; start = FNR
		}
		if (cmd ~ /\\$/) { sub(/[ \t]*\\$/, "", cmd); cont = 1; next }
		if (gsub(/'\''/, "'\''", cmd) % 2 == 1) { cont = 1; next }
		cont = 0
		if (cmd !~ /["'\'']/) sub(/[ \t]+#.*$/, "", cmd)
		print FILENAME "\t" start "\t" cmd
	}' "$@"
}

# classify COMMAND: prints class<TAB>reason, or fails.
classify() {
	local row class re reason
	for row in "${table[@]}"; do
		class=${row%% :: *}; re=${row#* :: }; reason=${re##* :: }; re=${re% :: *}
		if [[ $1 =~ $re ]]; then printf '%s\t%s\n' "$class" "$reason"; return 0; fi
	done
	return 1
}

cd "$root"
docs=(README.md docs/*.md)
list=$(commands "${docs[@]}")
[ -n "$list" ] || { echo "docs-commands: no commands found in ${docs[*]}" >&2; exit 1; }
declare -A count=()
classes=()
bad=0
while IFS=$'\t' read -r file line cmd; do
	if ! c=$(classify "$cmd"); then
		echo "docs-commands: unclassified command at $file:$line: $cmd" >&2
		bad=1
		continue
	fi
	classes+=("$c")
	count[${c%%$'\t'*}]=$(( ${count[${c%%$'\t'*}]:-0} + 1 ))
done <<<"$list"
[ "$bad" = 0 ] || { echo "docs-commands: add a row to the table in scripts/docs-commands.sh" >&2; exit 1; }
echo "docs-commands: $(wc -l <<<"$list") commands: run ${count[run]:-0}, long ${count[long]:-0}, needs ${count[needs]:-0}, ci ${count[ci]:-0}"

if [ "${1:-}" = -list ]; then
	i=0
	while IFS=$'\t' read -r file line cmd; do
		c=${classes[$i]}; i=$((i + 1))
		printf '%-5s %s:%s: %s\n      (%s)\n' "${c%%$'\t'*}" "$file" "$line" "$cmd" "${c#*$'\t'}"
	done <<<"$list"
	exit 0
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do timeout 30 tail --pid="$p" -f /dev/null 2>/dev/null || kill -KILL -- "-$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "docs-commands: FAIL: $1" >&2
	[ -n "${2:-}" ] && [ -f "$2" ] && { echo "--- $2:" >&2; tail -n 40 "$2" >&2; }
	exit 1
}

# A fresh copy of the checkout: tracked files and untracked ones that git
# does not ignore, as they are now.
mkdir "$tmp/artist" "$tmp/bin"
git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$tmp/artist" -xf -
cd "$tmp/artist"
unset ARTIST_DATA ARTIST_REQUIRE_DATA
if [ -n "${ARTIST:-}" ]; then
	cp "$ARTIST" "$tmp/bin/artist" || fail "cannot copy ARTIST=$ARTIST"
else
	echo "== docs-commands: go build (for artist on PATH and go run ./cmd/artist)"
	go build -o "$tmp/bin/artist" ./cmd/artist || fail "go build ./cmd/artist"
fi
export PATH="$tmp/bin:$PATH"
# distributed.md: Open MPI refuses root unless told (as in containers).
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

# shorten COMMAND: the command with the long class's -set keys added
# where it does not set them.
shorten() {
	local c=$1
	[[ $c =~ -set\ grpo\.steps= ]] || c+=" -set grpo.steps=$steps"
	[[ $c =~ -set\ warmstart\.steps= ]] || c+=" -set warmstart.steps=$warm"
	printf '%s' "$c"
}

declare -A seen=()
i=0
n=0
start=$SECONDS
while IFS=$'\t' read -r -u 3 file line cmd; do
	c=${classes[$i]}; i=$((i + 1))
	class=${c%%$'\t'*}
	case $class in
	needs | ci) echo "-- $class $file:$line: $cmd (${c#*$'\t'})"; continue ;;
	esac
	run=$cmd
	[ "$class" = long ] && run=$(shorten "$cmd")
	# go run ./cmd/artist is the binary on PATH; go build -o artist with
	# ARTIST given copies it.
	run=${run/#go run .\/cmd\/artist /artist }
	if [ -n "${ARTIST:-}" ] && [ "$run" = "go build -o artist ./cmd/artist" ]; then run="cp $tmp/bin/artist artist"; fi
	key=${run/#artist /.\/artist }
	if [ -n "${seen[$key]:-}" ]; then echo "-- same as ${seen[$key]}: $file:$line"; continue; fi
	seen[$key]=$file:$line
	n=$((n + 1))
	log="$tmp/$n.log"
	t0=$SECONDS
	if [[ $run == *' &' ]]; then
		run=${run% &}
		echo "== $class $file:$line: $run & (background)"
		setsid bash -c "$run" </dev/null >"$log" 2>&1 &
		pids+=($!)
		addr=127.0.0.1:8080
		[[ $run =~ -addr\ ([0-9.:]+) ]] && addr=${BASH_REMATCH[1]}
		deadline=$((SECONDS + limit))
		until curl -sf "http://$addr/v1/models" >/dev/null 2>&1; do
			kill -0 "${pids[-1]}" 2>/dev/null || fail "$file:$line: the server exited" "$log"
			[ "$SECONDS" -lt "$deadline" ] || fail "$file:$line: no answer on $addr within ${limit}s" "$log"
			sleep 1
		done
		echo "   serving on $addr ($((SECONDS - t0))s)"
		continue
	fi
	echo "== $class $file:$line: $run"
	timeout "$limit" bash -c "$run" </dev/null >"$log" 2>&1 || fail "$file:$line: exit status $?: $run" "$log"
	if [[ $run == curl* ]]; then
		grep -q '"error"' "$log" && fail "$file:$line: the server answered an error" "$log"
		echo "   $(head -c 400 "$log")"
	fi
	grep -E '^(final eval|summary):' "$log" | sed 's/^/   /' || true
	echo "   ok ($((SECONDS - t0))s)"
done 3<<<"$list"
echo "docs-commands: ok: $n commands ran in $((SECONDS - start))s"
