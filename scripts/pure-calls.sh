#!/usr/bin/env bash
# Counts the Python tool calls in the sample files of run folders
# (RUN/samples/*.jsonl: warm start, every eval step, final) and how many
# of them envs/pysandbox/pure.py finds pure, so that a plain worker runs
# them in a kept runner instead of a fresh one (docs/tools.md).
#
#   scripts/pure-calls.sh RUN [RUN...]
#
# For each run it prints "RUN: N tool calls, P pure (X%)" and the most
# frequent calls that are not, cut to 60 characters. It needs python3
# (the jail's interpreter, /usr/bin/python3 by default; PYTHON to change).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -eq 0 ]; then
	echo "usage: scripts/pure-calls.sh RUN [RUN...] (run folders of a run with tool.kind: python)" >&2
	exit 2
fi
exec "${PYTHON:-/usr/bin/python3}" -I - "$root/envs/pysandbox/pure.py" "$@" <<'PY'
import collections, glob, json, os, re, sys

exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"))
modules = pure_modules()
for run in sys.argv[2:]:
    files = sorted(glob.glob(os.path.join(run, "samples", "*.jsonl")))
    if not files:
        sys.exit("%s: no samples/*.jsonl: not a run folder, or a run that saved no samples" % run)
    calls, impure = 0, collections.Counter()
    for path in files:
        with open(path) as f:
            for line in f:
                for seg in json.loads(line)["segments"]:
                    if seg["kind"] != "tool_call":
                        continue
                    code = re.sub(r"^<code>|</code>$", "", seg["text"])
                    calls += 1
                    tree = parse(code)
                    if tree is None or not pure(tree, modules):
                        impure[code[:60]] += 1
    n = calls - sum(impure.values())
    print("%s: %d tool calls, %d pure (%.1f%%)" % (run, calls, n, 100.0 * n / max(calls, 1)))
    for code, k in impure.most_common(5):
        print("  not pure, %d times: %r" % (k, code))
PY
