#!/usr/bin/env bash
# The device check of the cuda backend (docs/gpu.md), in two halves:
#
#   scripts/gpu-check.sh build
#       On a machine with Go: the artist binary and the test binaries of
#       the packages that check a backend against pure Go, built with
#       CGO_ENABLED=0 and compressed into bin/gpu/ (ignored by git).
#   scripts/gpu-check.sh run [--allow-no-device]
#       On the GPU machine, from the repository root with bin/gpu/: needs
#       bash, nvidia-smi, xz or python3, and python3 with torch (and
#       transformers, optional); no Go. Writes $OUT/gpu-check.json (OUT
#       defaults to .) and the raw logs in $OUT/gpu-check-logs/. Without
#       a GPU every device part is recorded as "no device" and the exit
#       status is 2, 0 with --allow-no-device.
#
# Each part runs under `timeout` within one budget (GPU_CHECK_BUDGET_S,
# 280 s), in order; a part that finds too little time left is recorded as
# skipped. GPU_CHECK_PARTS lists the parts to run (default all, in this
# order): inventory smoke kernels policy grpo speed-0.5b speed-1.5b
# lora-7b emulator policy-full. GPU_CHECK_BACKEND=cudaemu runs the same parts on
# the CPU emulator at tiny shapes, with PyTorch on the CPU: a dry run of
# the script itself, not of a GPU.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/bin/gpu
# Packages whose tests compare a backend with pure Go, built by `build`;
# those outside the cuda backend only when their tests link it.
TEST_PKGS=(policy/backend/cuda policy/backend/cuda/kernels policy trainer)
# A test binary that would bring more than this (compressed) is left out.
MAX_TEST_BYTES=$((16 << 20))

die() { echo "gpu-check: $*" >&2; exit 1; }

# ---------------------------------------------------------------- build

build() {
	command -v go >/dev/null || die "build needs the Go toolchain"
	command -v xz >/dev/null || die "build needs xz (Debian: apt-get install xz-utils)"
	cd "$ROOT" || die "no repository at $ROOT"
	rm -rf "$BIN" && mkdir -p "$BIN"
	echo "building artist"
	CGO_ENABLED=0 go build -ldflags="-s -w" -o "$BIN/artist" ./cmd/artist || die "go build ./cmd/artist failed"
	for pkg in "${TEST_PKGS[@]}"; do
		name=$(basename "$pkg")
		if ! compgen -G "$pkg/*_test.go" >/dev/null; then
			echo "skipping ./$pkg: no such package or no tests in it"
			continue
		fi
		if [[ $pkg != policy/backend/cuda* ]] && ! go list -test -deps "./$pkg" | grep -qx 'github.com/artist-rl/artist/policy/backend/cuda'; then
			echo "skipping ./$pkg: its test binary does not link the cuda backend, so it cannot test it"
			continue
		fi
		echo "building ./$pkg tests"
		CGO_ENABLED=0 go test -c -ldflags="-s -w" -o "$BIN/$name.test" "./$pkg" || die "go test -c ./$pkg failed"
	done
	echo "compressing"
	for f in "$BIN"/*; do
		xz -T0 -6 "$f" || die "xz $f failed"
		if [[ $f == *.test && $(stat -c %s "$f.xz") -gt $MAX_TEST_BYTES ]]; then
			echo "leaving out $(basename "$f"): over $((MAX_TEST_BYTES >> 20)) MiB compressed"
			rm -f "$f.xz"
		fi
	done
	{
		echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) with $(go version | cut -d' ' -f3)"
		echo "revision $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' with local changes')"
		(cd "$BIN" && sha256sum ./*.xz)
	} >"$BIN/MANIFEST"
	ls -l "$BIN"
	local bins tree
	bins=$(du -cb "$BIN"/* | tail -1 | cut -f1)
	tree=$(git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
	echo "bin/gpu: $((bins >> 20)) MiB; with the working tree: $(((bins + tree) >> 20)) MiB"
}

# ---------------------------------------------------------------- run

BUDGET=${GPU_CHECK_BUDGET_S:-280}
BACKEND=${GPU_CHECK_BACKEND:-cuda}
PARTS=${GPU_CHECK_PARTS:-inventory smoke kernels policy grpo speed-0.5b speed-1.5b lora-7b emulator policy-full}
PY=${PYTHON:-python3}

left() { echo $((DEADLINE - SECONDS)); }

# limit WANT: the seconds a part may take, WANT or what is left less a
# margin; 0 when under 10.
limit() {
	local t=$(($(left) - 5))
	((t > $1)) && t=$1
	((t < 10)) && t=0
	echo "$t"
}

helper() { "$PY" "$WORK/helper.py" "$@"; }

# record NAME STATUS SECONDS LOG [KEY=JSON ...]: one part's result.
record() { helper record "$PARTS_DIR" "$@" || echo "gpu-check: could not record $1" >&2; }

# run_for SECONDS LOG CMD...: runs CMD under timeout; its status.
run_for() {
	local t=$1 log=$2
	shift 2
	echo "+ $*" >>"$LOGS/$log"
	timeout -k 5 "$t" "$@" >>"$LOGS/$log" 2>&1
}

# status_of RC: the part status of an exit status.
status_of() {
	case $1 in
	0) echo pass ;;
	124 | 137) echo timeout ;;
	*) echo fail ;;
	esac
}

# gpumem_start / gpumem_stop: the largest GPU memory in use (MiB) while
# a part runs, sampled by nvidia-smi every 200 ms.
gpumem_start() {
	: >"$WORK/gpumem"
	if [[ $DEVICE == gpu ]]; then
		nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$WORK/gpumem" 2>/dev/null &
		GPUMEM_PID=$!
	fi
}
gpumem_stop() {
	if [[ -n ${GPUMEM_PID:-} ]]; then
		kill "$GPUMEM_PID" 2>/dev/null
		wait "$GPUMEM_PID" 2>/dev/null
		GPUMEM_PID=
	fi
	sort -n "$WORK/gpumem" 2>/dev/null | tail -1 | tr -dc 0-9
}

unpack() {
	[[ -d $BIN ]] || die "no $BIN: run scripts/gpu-check.sh build first (on a machine with Go)"
	for f in "$BIN"/*.xz; do
		[[ -e $f ]] || die "no binaries in $BIN"
		local out=$WORK/$(basename "$f" .xz)
		if command -v xz >/dev/null; then
			xz -dc "$f" >"$out"
		else
			"$PY" -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$f" "$out"
		fi || die "cannot unpack $f"
		chmod +x "$out"
	done
	cp "$BIN/MANIFEST" "$LOGS/" 2>/dev/null
}

write_models() {
	local m=$WORK/models
	mkdir -p "$m"
	cp "$ROOT/configs/models/qwen2.5-0.5b.json" "$m/qwen2.5-0.5b.json"
	# Qwen2.5-1.5B and -7B's shapes (their config.json), positions cut to 32768.
	cat >"$m/qwen2.5-1.5b.json" <<-'EOF'
		{"vocab_size": 151936, "hidden_size": 1536, "intermediate_size": 8960, "num_hidden_layers": 28,
		 "num_attention_heads": 12, "num_key_value_heads": 2, "max_position_embeddings": 32768,
		 "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": true}
	EOF
	cat >"$m/qwen2.5-7b.json" <<-'EOF'
		{"vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
		 "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768,
		 "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": false}
	EOF
	cat >"$m/tiny.json" <<-'EOF'
		{"vocab_size": 512, "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2,
		 "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256,
		 "rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": true}
	EOF
	# The 7B LoRA step keeps LORA_LAYERS of the 28 layers (random weights
	# for all 28 take minutes to draw on one CPU thread).
	"$PY" - "$m" "$LORA_LAYERS" <<-'EOF'
		import json, sys
		d, n = sys.argv[1], int(sys.argv[2])
		c = json.load(open(d + "/qwen2.5-7b.json"))
		c["num_hidden_layers"] = n
		json.dump(c, open(d + "/qwen2.5-7b-lora.json", "w"))
	EOF
}

# ---- parts

part_inventory() {
	local log=inventory.log
	{
		echo "== nvidia-smi"
		nvidia-smi 2>&1
		echo "== nvidia-smi -q (excerpt)"
		nvidia-smi -q 2>&1 | grep -E 'Driver Version|CUDA Version|Product Name|Product Architecture|Total' | head -20
		echo "== ldconfig"
		ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libcublasLt\.so|libnccl\.so'
		echo "== python"
		"$PY" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1
		"$PY" -c 'import transformers; print("transformers", transformers.__version__)' 2>&1 | tail -1
	} >"$LOGS/$log" 2>&1
	helper inventory "$LOGS/$log" "$DEVICE" >"$WORK/inv.json" 2>>"$LOGS/$log"
	record inventory pass 0 "$log" "found=@$WORK/inv.json"
}

part_smoke() {
	local t log=smoke.log rc
	t=$(limit 40)
	((t)) || { record smoke skipped 0 "" 'note="out of time"'; return; }
	local s=$SECONDS
	ARTIST_BACKEND=$BACKEND run_for "$t" $log "$ART" bench -model-config "$WORK/models/tiny.json" \
		-batch 2 -seq 16 -prompt 8 -new-tokens 4 -steps 1 -warmup 1
	rc=$?
	record smoke "$(status_of $rc)" $((SECONDS - s)) $log "bench=$(helper lastjson "$LOGS/$log")" \
		'what="artist bench on a 2-layer tiny model: the backend opens, names the GPU and the libraries, trains and decodes"'
}

# test_binary PART BINARY DIR PATTERN SECONDS [ENV...] [-- FLAGS...]: one
# test binary in its package folder, verbose, summarised.
test_binary() {
	local name=$1 bin=$2 dir=$3 pat=$4 want=$5 t log=$1.log rc env=() flags=()
	shift 5
	while (($#)); do
		[[ $1 == -- ]] && { shift; flags=("$@"); break; }
		env+=("$1")
		shift
	done
	t=$(limit "$want")
	((t)) || { record "$name" skipped 0 "" 'note="out of time"'; return; }
	[[ -x $WORK/$bin.test ]] || { record "$name" skipped 0 "" "note=\"no $bin.test in bin/gpu: see its build output\""; return; }
	local s=$SECONDS
	(cd "$ROOT/$dir" && env ARTIST_BACKEND="$BACKEND" "${env[@]}" timeout -k 5 "$t" "$WORK/$bin.test" -test.v -test.count=1 -test.run "$pat" "${flags[@]}") >"$LOGS/$log" 2>&1
	rc=$?
	record "$name" "$(status_of $rc)" $((SECONDS - s)) $log "tests=$(helper gotest "$LOGS/$log")" \
		"env=\"ARTIST_BACKEND=$BACKEND ${env[*]}\"" "flags=\"-test.run $pat ${flags[*]}\""
}

# The cuda package's device tests (they open the GPU with cuda.Open and
# skip without one): TestGPUKernels, every kernel case and MatMul on odd
# sizes against pure Go; TestModelEmuAndGPU, a 2-layer model's log-probs,
# every gradient and decoding logits against pure Go; TestGPUMatMulBF16
# and TestGPUModelBF16, compute dtype bf16; TestDevicePlanQwen7B;
# BenchmarkGPUMatMul, f32 products in TFLOP/s.
part_kernels() {
	test_binary kernels cuda policy/backend/cuda 'GPU|DevicePlan|Devices' 45 "${NOEMU[@]}" -- \
		-test.bench 'GPU' -test.benchtime 20x
}

# The rest of both packages' tests: the CPU emulator (g++), the PTX and
# argument checks. They say nothing of the GPU; run last, to show the
# binaries work here.
part_emulator() {
	test_binary emulator-kernels kernels policy/backend/cuda/kernels . 40
	test_binary emulator-cuda cuda policy/backend/cuda . 40
}

# Every backend that opens against pure Go on the model (log-probs, every
# gradient, decoding logits), PyTorch's references (logits, gradients, 16
# greedy tokens of two prompts) and the GRPO step, on the selected
# backend; CXX names no compiler so that cudaemu stays out of the way.
POLICY_TESTS='^(TestBackendsAgree|TestHF.*|TestGRPOStepLowersLoss|TestBackwardGradCheck|TestLoRAGradCheck|TestRecomputeMatchesSaving.*|TestFusedHeadMatchesUnfused|TestSession.*|TestStepSample.*|TestLogProbsMatchesReference|TestTemperatureLogProbs|TestArena.*|TestFreeze16Forward|TestMemoryPlanSameBits)$'

part_policy() {
	grpo_reference_start
	test_binary policy policy policy "$POLICY_TESTS" 75 "${NOEMU[@]}"
}

part_policy_full() {
	test_binary policy-full policy policy . 600 "${NOEMU[@]}"
}

# The default tiny run (2 layers, Qwen2-shaped) for 80 warm-start steps
# and one GRPO step, on pure Go (started early: it runs on the CPU) and
# on the selected backend; compared by the helper.
grpo_reference_start() {
	[[ -n ${GRPO_REF_PID:-} ]] && return
	GRPO_SETS=(-set warmstart.steps="$GRPO_WARM" -set grpo.steps=1 -set eval.size=8 -set checkpoint.keep=4)
	local t
	t=$(limit 150)
	(cd "$ROOT" && ARTIST_BACKEND=go GOMAXPROCS=8 timeout -k 5 "$((t > 10 ? t : 10))" "$ART" train -config configs/tiny-tool-arith.yaml \
		"${GRPO_SETS[@]}" -set run_dir="$WORK/train-go" >"$LOGS/grpo-go.log" 2>&1) &
	GRPO_REF_PID=$!
}

part_grpo() {
	local t log=grpo.log rc s=$SECONDS
	t=$(limit 75)
	((t)) || { record grpo skipped 0 "" 'note="out of time"'; return; }
	grpo_reference_start
	(cd "$ROOT" && ARTIST_BACKEND=$BACKEND run_for "$t" $log "$ART" train -config configs/tiny-tool-arith.yaml \
		"${GRPO_SETS[@]}" -set run_dir="$WORK/train-$BACKEND")
	rc=$?
	wait "$GRPO_REF_PID"
	local rrc=$?
	local st
	st=$(status_of $rc)
	((rrc)) && st=fail
	helper compare-runs "$WORK/train-go" "$WORK/train-$BACKEND" >"$WORK/grpo.json" 2>>"$LOGS/$log"
	[[ $st == pass ]] && ! grep -q '"agree": true' "$WORK/grpo.json" && st=differs
	record grpo "$st" $((SECONDS - s)) "$log grpo-go.log" "compare=@$WORK/grpo.json" \
		"exit=[$rc, $rrc]" "what=\"artist train configs/tiny-tool-arith.yaml, $GRPO_WARM warm-start steps and one GRPO step, on pure Go (exit status second) and on the backend: weights after AdamW, the step metrics, greedy held-out rollouts\""
}

# bench NAME SECONDS ARGS...: one artist bench run, its JSON and the
# largest GPU memory in use, in $WORK/NAME.json.
bench() {
	local name=$1 want=$2 t rc s=$SECONDS mem
	shift 2
	t=$(limit "$want")
	((t)) || { echo '{"status": "skipped", "note": "out of time"}' >"$WORK/$name.json"; return; }
	gpumem_start
	ARTIST_BACKEND=$BACKEND run_for "$t" "$name.log" "$ART" bench "$@"
	rc=$?
	mem=$(gpumem_stop)
	helper runrec "$WORK/$name.json" "$(status_of $rc)" $((SECONDS - s)) "$mem" "$LOGS/$name.log" "$*"
}

peer() {
	local name=$1 want=$2 t rc s=$SECONDS
	shift 2
	t=$(limit "$want")
	((t)) || { echo '{"status": "skipped", "note": "out of time"}' >"$WORK/$name.json"; return; }
	run_for "$t" "$name.log" "$PY" "$ROOT/scripts/gpu_peer.py" --device "$PEER_DEVICE" --out "$WORK/$name.out.json" "$@"
	rc=$?
	helper runrec "$WORK/$name.json" "$(status_of $rc)" $((SECONDS - s)) "" "$LOGS/$name.log" "$*"
}

# speed PART MODEL SECONDS: artist's training step at B x T and decoding
# at batch 1 and 16, then PyTorch's (f32 and bf16) at the same shapes.
speed() {
	local part=$1 model=$2 want=$3 s=$SECONDS cfg=$WORK/models/$2.json
	local dec=(-prompt "$PROMPT" -new-tokens "$NEW" -steps 3)
	bench "artist-$part-train" "$want" -model-config "$cfg" -batch "$B" -seq "$T" -decode-batch 16 "${dec[@]}" -warmup 1
	bench "artist-$part-decode1" "$want" -model-config "$cfg" -batch 1 -seq 8 -decode-batch 1 "${dec[@]}" -warmup 0
	# shellcheck disable=SC2086 # PEER_SHAPE is a list of flags
	peer "pytorch-$part" "$want" --model-config "$cfg" $PEER_SHAPE --dtypes f32,bf16 --batch "$B" --seq "$T" \
		--decode-batch 1,16 --prompt "$PROMPT" --new-tokens "$NEW" --steps 3 --warmup 1
	helper speed "$WORK/artist-$part-train.json" "$WORK/artist-$part-decode1.json" "$WORK/pytorch-$part.json" >"$WORK/$part.json"
	record "$part" "$(helper field "$WORK/$part.json" status)" $((SECONDS - s)) \
		"artist-$part-train.log artist-$part-decode1.log pytorch-$part.log" "model=\"$model\"" "speed=@$WORK/$part.json"
}

part_lora_7b() {
	local s=$SECONDS
	bench artist-lora-7b 60 -model-config "$WORK/models/$M7.json" -lora-rank 16 -batch "$B" -seq "$T" \
		-decode-batch 1 -prompt 16 -new-tokens 4 -steps 2 -warmup 1
	record lora-7b "$(helper field "$WORK/artist-lora-7b.json" status)" $((SECONDS - s)) artist-lora-7b.log \
		"bench=@$WORK/artist-lora-7b.json" \
		"what=\"LoRA rank 16 on all seven targets, Qwen2.5-7B layer shapes with $LORA_LAYERS of its 28 layers (full vocabulary), training step at ${B} x ${T}; GPU memory from nvidia-smi\""
}

run_part() {
	case $1 in
	inventory) part_inventory ;;
	smoke) part_smoke ;;
	kernels) part_kernels ;;
	emulator) part_emulator ;;
	policy) part_policy ;;
	policy-full) part_policy_full ;;
	grpo) part_grpo ;;
	speed-0.5b) speed speed-0.5b "$M05" 60 ;;
	speed-1.5b) speed speed-1.5b "$M15" 75 ;;
	lora-7b) part_lora_7b ;;
	*) echo "gpu-check: unknown part $1" >&2 ;;
	esac
}

run() {
	local allow=0
	[[ ${1:-} == --allow-no-device ]] && allow=1
	OUTDIR=${OUT:-.}
	mkdir -p "$OUTDIR" || die "cannot write $OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd)
	LOGS=$OUTDIR/gpu-check-logs
	rm -rf "$LOGS" && mkdir -p "$LOGS"
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
	PARTS_DIR=$WORK/parts
	mkdir -p "$PARTS_DIR"
	trap 'rm -rf "$WORK"' EXIT
	DEADLINE=$((SECONDS + BUDGET))
	command -v "$PY" >/dev/null || die "run needs python3"
	write_helper "$WORK/helper.py"

	B=8 T=1024 PROMPT=128 NEW=64 M05=qwen2.5-0.5b M15=qwen2.5-1.5b M7=qwen2.5-7b-lora LORA_LAYERS=4 GRPO_WARM=80 PEER_DEVICE=cuda PEER_SHAPE=
	NOEMU=(CXX=gpu-check-no-emulator) # cudaemu does not open: TestBackendsAgree compares the GPU alone
	if [[ $BACKEND == cudaemu ]]; then # the dry run: tiny shapes, PyTorch on the CPU
		NOEMU=()
		DEVICE=emulated B=2 T=16 PROMPT=8 NEW=4 LORA_LAYERS=1 PEER_DEVICE=cpu PEER_SHAPE="--layers 1 --vocab 512"
		M05=tiny M15=tiny M7=tiny GRPO_WARM=4
	elif nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
		DEVICE=gpu
	else
		DEVICE=none
	fi
	echo "gpu-check: device $DEVICE, backend $BACKEND, budget ${BUDGET}s, logs in $LOGS"
	write_models
	if [[ $DEVICE != none ]]; then
		unpack
		ART=$WORK/artist
	fi
	for p in $PARTS; do
		if [[ $DEVICE == none && $p != inventory ]]; then
			[[ $p == emulator ]] && p="emulator-kernels emulator-cuda"
			for q in $p; do
				record "$q" "no device" 0 "" 'note="nvidia-smi lists no GPU"'
			done
			continue
		fi
		echo "gpu-check: $p ($(left)s left)"
		run_part "$p"
	done
	[[ -n ${GRPO_REF_PID:-} ]] && kill "$GRPO_REF_PID" 2>/dev/null
	helper merge "$PARTS_DIR" "$OUTDIR/gpu-check.json" "$DEVICE" "$BACKEND" "$BUDGET" "$SECONDS" "$PARTS" ||
		die "could not write $OUTDIR/gpu-check.json"
	echo "gpu-check: wrote $OUTDIR/gpu-check.json in ${SECONDS}s"
	[[ $DEVICE == none && $allow == 0 ]] && return 2
	return 0
}

# write_helper FILE: the run half's Python helpers (stdlib only).
write_helper() {
	cat >"$1" <<'PY'
import glob
import json
import math
import os
import re
import struct
import sys
import time
from array import array


def load_json(s):
    try:
        return json.loads(s)
    except ValueError:
        return s


def record(parts_dir, name, status, seconds, logs, *kvs):
    """One part's result as parts_dir/NN-name.json; KEY=JSON values, or
    KEY=@FILE for a file's JSON."""
    rec = {"status": status, "seconds": int(seconds), "logs": logs.split()}
    for kv in kvs:
        k, _, v = kv.partition("=")
        if v.startswith("@"):
            try:
                v = open(v[1:]).read()
            except OSError as e:
                v = json.dumps(f"unreadable: {e}")
        rec[k] = load_json(v) if v.strip() else None
    n = len(os.listdir(parts_dir))
    with open(os.path.join(parts_dir, f"{n:02d}-{name}.json"), "w") as f:
        json.dump({"name": name, **rec}, f)


def lastjson(log):
    """The last line of log that is a JSON object, or null."""
    out = None
    for line in open(log, errors="replace"):
        line = line.strip()
        if line.startswith("{"):
            try:
                out = json.loads(line)
            except ValueError:
                pass
    print(json.dumps(out))


def jsonlines(log):
    out = []
    for line in open(log, errors="replace"):
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def runrec(out, status, seconds, mem, log, args):
    """One run of artist bench or gpu_peer.py: its JSON lines, its status,
    the largest GPU memory in use (MiB) when sampled."""
    rows = jsonlines(log) if os.path.exists(log) else []
    rec = {"status": status, "seconds": int(seconds), "log": os.path.basename(log), "args": args,
           "report": rows[-1] if rows else None}
    if mem.strip():
        rec["gpu_mem_used_mib"] = int(mem)
    if len(rows) > 1:
        rec["results"] = rows
    if not rows:
        tail = open(log, errors="replace").read().splitlines()[-5:] if os.path.exists(log) else []
        rec["log_tail"] = tail
    with open(out, "w") as f:
        json.dump(rec, f)


def gotest(log):
    """Counts, failures and skips (with their reasons) of go test -v output."""
    lines = open(log, errors="replace").read().splitlines()
    res = {"pass": 0, "fail": 0, "skip": 0, "failed": [], "skipped": {}, "passed": [], "slowest": []}
    times = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)--- (PASS|FAIL|SKIP): (\S+) \(([\d.]+)s\)", line)
        if not m:
            continue
        top = m.group(1) == ""
        kind, name = m.group(2).lower(), m.group(3)
        if top:
            res[kind] += 1
            times.append((float(m.group(4)), name))
        if kind == "fail":
            res["failed"].append(name)
        elif kind == "skip" and top:
            why = ""
            for back in reversed(lines[max(0, i - 40):i]):
                if back.startswith("=== RUN   " + name):
                    break
                if back.startswith(" ") and ".go:" in back:
                    why = back.strip()
            res["skipped"][name] = why[:200]
        elif kind == "pass" and top:
            res["passed"].append(name)
    res["slowest"] = [f"{n} {t:.2f}s" for t, n in sorted(times, reverse=True)[:5]]
    bench = [" ".join(l.split()) for l in lines if l.startswith("Benchmark") and "ns/op" in l]
    if bench:
        res["benchmarks"] = bench
    res["crash"] = next((l[:300] for l in lines if re.match(r"(panic:|fatal error:|SIGSEGV|unexpected fault|unexpected signal)", l)), None)
    res["final"] = next((l for l in reversed(lines) if l in ("PASS", "FAIL")), "none (killed?)")
    logged = [l.strip() for l in lines if "largest relative difference" in l]
    if logged:
        res["logged"] = logged[:40]
    print(json.dumps(res))


def inventory(log, device):
    text = open(log, errors="replace").read()
    inv = {"device": device}
    for key, pat in [("driver", r"Driver Version\s*:\s*(\S+)"), ("cuda_driver_api", r"CUDA Version\s*:\s*(\S+)")]:
        m = re.search(pat, text)
        inv[key] = m.group(1) if m else None
    inv["gpus"] = re.findall(r"Product Name\s*:\s*(.+)", text)
    m = re.search(r"^(\S+) torch (\S+) cuda (\S+) available (\S+)", text, re.M)
    inv["python"] = m.group(0) if m else None
    m = re.search(r"^transformers (\S+)", text, re.M)
    inv["transformers"] = m.group(1) if m else None
    inv["libraries"] = libraries()
    print(json.dumps(inv))


def libraries():
    """Where the cuda backend's search (policy/backend/cuda LibraryCandidates)
    finds each library: ARTIST_CUDA_LIBDIR, the loader cache, the standard
    folders, the NVIDIA wheels; every existing file, in that order."""
    libdir = os.environ.get("ARTIST_CUDA_LIBDIR", "").strip()
    std = ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"]
    cache = os.popen("ldconfig -p 2>/dev/null").read()
    sites = []
    for p in [os.environ.get("VIRTUAL_ENV"), os.environ.get("CONDA_PREFIX"), "/usr/local", "/usr",
              os.path.expanduser("~/.local")]:
        if p:
            for kind in ("site-packages", "dist-packages"):
                sites += sorted(glob.glob(os.path.join(p, "lib", "python3*", kind)), reverse=True)
    out = {"ARTIST_CUDA_LIBDIR": libdir or None}
    for lib, sonames, wheels in [("driver", ["libcuda.so.1"], False),
                                 ("cublasLt", ["libcublasLt.so.13", "libcublasLt.so.12"], True)]:
        found = []
        dirs = ([libdir] if libdir else []) + std
        if wheels:
            dirs += [os.path.join(s, w) for s in sites for w in ("nvidia/cu13/lib", "nvidia/cublas/lib")]
        for so in sonames:
            for m in re.finditer(r"^\s*" + re.escape(so) + r" .*=> (\S+)$", cache, re.M):
                found.append(m.group(1) + " (loader cache)")
        for d in dirs:
            for so in sonames:
                p = os.path.join(d, so)
                if os.path.exists(p) and p not in found:
                    found.append(p)
        out[lib] = found
    return out


def safetensors(path):
    """The F32 tensors of a safetensors file, name -> array('f')."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in head.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        a, b = t["data_offsets"]
        arr = array("f")
        arr.frombytes(data[a:b])
        out[name] = arr
    return out


def weight_diff(ref_path, got_path):
    """max |got - ref| over max |ref|, per tensor; the worst tensor."""
    ref, got = safetensors(ref_path), safetensors(got_path)
    worst, at = 0.0, None
    for name, r in ref.items():
        g = got.get(name)
        if g is None or len(g) != len(r):
            return {"error": f"tensor {name} missing or resized"}
        scale = max((abs(x) for x in r), default=0.0) or 1.0
        d = max((abs(x - y) for x, y in zip(g, r)), default=0.0) / scale
        if math.isnan(d) or d > worst:
            worst, at = d, name
            if math.isnan(d):
                break
    return {"tensors": len(ref), "max_rel_diff": worst, "at": at}


def samples(path):
    rows = []
    for line in open(path):
        r = json.loads(line)
        text = "".join(s["text"] for s in r.get("segments", []))
        rows.append((r.get("task"), text, r.get("model_tokens", 0)))
    return rows


def compare_runs(ref_dir, got_dir):
    """Pure Go's run against the backend's: weights of every checkpoint
    both wrote, the GRPO step's metrics, the held-out greedy rollouts."""
    out = {"reference": "go"}
    ckpts = {}
    for p in sorted(glob.glob(os.path.join(ref_dir, "checkpoints", "*", "model.safetensors"))):
        name = os.path.basename(os.path.dirname(p))
        q = os.path.join(got_dir, "checkpoints", name, "model.safetensors")
        ckpts[name] = weight_diff(p, q) if os.path.exists(q) else {"error": "not written by the backend's run"}
    out["weights"] = ckpts

    def metrics(d):
        try:
            return {r.get("step"): r for r in map(json.loads, open(os.path.join(d, "metrics.jsonl")))}
        except OSError:
            return {}

    mr, mg = metrics(ref_dir), metrics(got_dir)
    skip = ("timing/", "throughput/", "sys/", "rollout/tokens_per_s")
    diffs = {}
    for step, r in mr.items():
        g = mg.get(step, {})
        for k, v in r.items():
            if isinstance(v, (int, float)) and not k.startswith(skip) and k != "step":
                w = g.get(k)
                if isinstance(w, (int, float)):
                    diffs[f"step {step} {k}"] = abs(w - v) / max(abs(v), 1e-12) if v else abs(w)
    out["metrics_compared"] = len(diffs)
    out["metrics_worst"] = dict(sorted(diffs.items(), key=lambda kv: -kv[1])[:6])
    greedy = {}
    for p in sorted(glob.glob(os.path.join(ref_dir, "samples", "*.jsonl"))):
        q = os.path.join(got_dir, "samples", os.path.basename(p))
        if not os.path.exists(q):
            greedy[os.path.basename(p)] = {"error": "not written by the backend's run"}
            continue
        a, b = samples(p), samples(q)
        same = sum(x == y for x, y in zip(a, b))
        first = next(({"task": x[0], "go": x[1][-200:], "backend": y[1][-200:]} for x, y in zip(a, b) if x != y), None)
        greedy[os.path.basename(p)] = {"rollouts": len(a), "identical": same if len(a) == len(b) else 0,
                                        "model_tokens": sum(x[2] for x in a), "first_difference": first}
    out["greedy_rollouts"] = greedy
    # The warm start is deterministic (supervised steps on fixed demos);
    # the GRPO step samples at temperature 1, where one token drawn
    # differently changes the rollouts, so its weights and metrics are
    # reported, not judged (pure Go against OpenBLAS diverges there too).
    ws = {k: v for k, v in ckpts.items() if k.startswith("warmstart")}
    g0 = greedy.get("warmstart.jsonl", {})
    out["agree"] = bool(ws) and all("error" not in v and v["max_rel_diff"] <= 1e-3 for v in ws.values()) and \
        bool(g0.get("rollouts")) and g0.get("identical") == g0.get("rollouts")
    out["agree_means"] = ("the warm-start checkpoint's weights (after its AdamW steps) within 1e-3 of pure Go's "
                          "(max |diff| / max |w| per tensor) and its 8 greedy held-out rollouts identical; "
                          "the GRPO step's weights, metrics and final rollouts are reported only")
    print(json.dumps(out))


def speed(train_path, dec1_path, peer_path):
    """artist's numbers beside PyTorch's, with artist / PyTorch ratios."""
    def load(p):
        try:
            return json.load(open(p))
        except (OSError, ValueError) as e:
            return {"status": "fail", "error": str(e)}

    tr, d1, pe = (load(p) for p in (train_path, dec1_path, peer_path))
    a = tr.get("report") or {}
    b = d1.get("report") or {}
    art = {"train_tokens_per_s": a.get("train_tokens_per_s"), "train_step_s": a.get("train_step_s"),
           "decode16_tokens_per_s": a.get("decode_tokens_per_s"), "prefill16_tokens_per_s": a.get("prefill_tokens_per_s"),
           "decode1_tokens_per_s": b.get("decode_tokens_per_s"), "gpu_mem_used_mib_train": tr.get("gpu_mem_used_mib"),
           "peak_rss_mib": a.get("peak_rss_mib"), "backend": a.get("backend"), "core": a.get("core")}
    torch = {}
    for r in pe.get("results") or ([pe["report"]] if pe.get("report") else []):
        d = {"train_tokens_per_s": r.get("train_tokens_per_s"), "train_peak_mib": r.get("train_peak_mib"),
             "implementation": r.get("implementation"), "error": r.get("error")}
        for dec in r.get("decode") or []:
            d[f"decode{dec['decode_batch']}_tokens_per_s"] = dec["decode_tokens_per_s"]
        torch[r["dtype"]] = d
    ratios = {}
    for dt, d in torch.items():
        for k in ("train_tokens_per_s", "decode1_tokens_per_s", "decode16_tokens_per_s"):
            if art.get(k) and d.get(k):
                ratios[f"{k.split('_')[0]} vs pytorch {dt}"] = round(art[k] / d[k], 3)
    ok = [tr.get("status"), d1.get("status"), pe.get("status")]
    st = "pass" if ok == ["pass"] * 3 else ("partial" if "pass" in ok else (ok[0] or "fail"))
    print(json.dumps({"status": st, "artist": art, "pytorch": torch,
                      "ratios_artist_over_pytorch": ratios, "runs": {"artist_train": tr, "artist_decode1": d1, "pytorch": pe}}))


def field(path, key):
    try:
        print(json.load(open(path)).get(key) or "fail")
    except (OSError, ValueError):
        print("fail")


def merge(parts_dir, out, device, backend, budget, seconds, parts):
    rec = {"check": "scripts/gpu-check.sh run", "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "device": device, "backend": backend, "budget_s": int(budget), "elapsed_s": int(seconds),
           "parts_asked": parts.split(), "parts": {}}
    for p in sorted(os.listdir(parts_dir)):
        r = json.load(open(os.path.join(parts_dir, p)))
        rec["parts"][r.pop("name")] = r
    rec["summary"] = {k: v["status"] for k, v in rec["parts"].items()}
    with open(out, "w") as f:
        json.dump(rec, f, indent=1)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"record": record, "lastjson": lastjson, "runrec": runrec, "gotest": gotest, "inventory": inventory,
     "compare-runs": compare_runs, "speed": speed, "field": field, "merge": merge}[cmd](*args)
PY
}

case ${1:-} in
build) build ;;
run)
	shift
	run "$@"
	exit $?
	;;
*)
	echo "usage: scripts/gpu-check.sh build | run [--allow-no-device]" >&2
	exit 2
	;;
esac
exit 0
