#!/usr/bin/env bash
# Downloads the benchmark data that the configs, `artist eval -bench ...`,
# `artist bfcl replay` and the BFCL training task read, into data/ at the
# module root (or into $1):
#
#   math500/test.jsonl, aime24/test.jsonl, amc23/test.jsonl,
#   olympiadbench/test.jsonl, math_train/math.json    verbatim
#   bfcl_v3/ questions, possible_answer/, multi_turn_func_doc/   verbatim
#   bfcl_v3/reference_tables.json, long_context_extensions.json  derived
#   aime25/test.jsonl                                  derived
#   tau_bench/{airline,retail}/ databases, wiki.md     verbatim
#   tau_bench/*/tasks_<split>.json, rules.json         derived
#   bfcl_v3/func_source_code/, aime25/source/,
#   tau_bench/source/                                  verbatim (upstream sources)
#   bfcl_v3/conformance/                               recorded (needs python3 with mpmath)
#
# Every file comes from a public repository at a pinned commit and is
# checked against its sha256 (scripts/sources.sh lists them); a mismatch
# stops the script and names the file. The derived files are built by
# `artist derive` from upstream sources, which are kept beside them: the
# BFCL v3 reference environments' Python sources and matharena's AIME 2025
# problem and answer files. When python3 can import mpmath (Debian's
# python3-mpmath), the conformance traces that the BFCL tests compare the
# Go ports with are recorded on the reference environments by
# scripts/record_conformance.py (every entry whose id is a multiple of 10);
# without it they are left out, and only those tests skip. Needs bash, curl
# and Go.
#
# Environment: ARTIST_FETCH_BASE replaces https://raw.githubusercontent.com
# (files are fetched from $ARTIST_FETCH_BASE/REPOSITORY/COMMIT/PATH);
# ARTIST_BIN names an artist binary to use instead of `go run ./cmd/artist`.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sources.sh"

out=${1:-$ARTIST_ROOT/data}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
# On failure, remove the folders left empty (the destination folder too,
# when nothing was fetched into it) and say how to fetch from elsewhere.
cleanup() {
	local rc=$?
	rm -rf "$tmp"
	if [ "$rc" -ne 0 ]; then
		find "$out" -depth -type d -empty -delete 2>/dev/null || true
		echo "fetch-data.sh failed; files already fetched and verified are kept, and a rerun skips them." >&2
		echo "To fetch from a mirror laid out as REPOSITORY/COMMIT/PATH, set ARTIST_FETCH_BASE (now $ARTIST_FETCH_BASE), e.g. ARTIST_FETCH_BASE=file:///srv/mirror scripts/fetch-data.sh" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT

fetch_list "$DATA_FILES" "$out"
fetch_list "$BFCL_SOURCE_FILES" "$out/bfcl_v3/func_source_code"
fetch_list "$AIME25_SOURCE_FILES" "$out/aime25/source"
fetch_list "$TAU_BENCH_SOURCE_FILES" "$out/tau_bench/source"

run_artist derive bfcl -src "$out/bfcl_v3/func_source_code" -out "$out/bfcl_v3"
run_artist derive aime25 -src "$out/aime25/source" -out "$out/aime25/test.jsonl"
run_artist derive taubench -src "$out/tau_bench/source" -out "$out/tau_bench"

# Conformance traces: the ground truth replayed on the reference
# environments, laid out as the package they import from.
py=${PYTHON:-python3}
if "$py" -c 'import mpmath' 2>/dev/null; then
	pkg="$tmp/ref/bfcl_eval/eval_checker/multi_turn_eval/func_source_code"
	mkdir -p "$pkg" "$out/bfcl_v3/conformance"
	for d in bfcl_eval bfcl_eval/eval_checker bfcl_eval/eval_checker/multi_turn_eval bfcl_eval/eval_checker/multi_turn_eval/func_source_code; do
		: >"$tmp/ref/$d/__init__.py"
	done
	cp "$out/bfcl_v3/func_source_code/"*.py "$pkg/"
	for c in base miss_func miss_param long_context; do
		echo "recording bfcl_v3/conformance/$c.jsonl"
		ids=$(seq 0 10 190 | sed "s/^/multi_turn_${c}_/")
		# shellcheck disable=SC2086
		"$py" "$ARTIST_ROOT/scripts/record_conformance.py" "$tmp/ref" "$out/bfcl_v3" "$c" $ids >"$tmp/$c.jsonl"
		mv -f "$tmp/$c.jsonl" "$out/bfcl_v3/conformance/$c.jsonl"
	done
else
	echo "note: $py cannot import mpmath (apt-get install python3-mpmath): bfcl_v3/conformance/ not recorded; the tests that compare with it skip"
fi
echo "done: $out"
