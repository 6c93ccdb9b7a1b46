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
#
# Every file comes from a public repository at a pinned commit and is
# checked against its sha256 (scripts/sources.sh lists them); a mismatch
# stops the script and names the file. The derived files are built by
# `artist derive` from upstream sources fetched into a temporary folder:
# the BFCL v3 reference environments' Python sources and matharena's AIME
# 2025 problem and answer files. Needs bash, curl and Go.
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
trap 'rm -rf "$tmp"' EXIT

fetch_list "$DATA_FILES" "$out"
fetch_list "$BFCL_SOURCE_FILES" "$tmp/bfcl"
fetch_list "$AIME25_SOURCE_FILES" "$tmp/aime25"

run_artist derive bfcl -src "$tmp/bfcl" -out "$out/bfcl_v3"
run_artist derive aime25 -src "$tmp/aime25" -out "$out/aime25/test.jsonl"
echo "done: $out"
