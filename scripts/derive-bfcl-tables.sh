#!/usr/bin/env bash
# Regenerates the BFCL v3 tables that package bfcl embeds,
# envs/bfcl/tables/reference_tables.json and long_context_extensions.json
# (or writes them into $1), from the reference environments' Python sources
# at the pinned gorilla commit: it fetches the nine sources (same URLs and
# sha256 as fetch-data.sh, listed in scripts/sources.sh) into a temporary
# folder and runs `artist derive bfcl`. See envs/bfcl/tables/NOTICE.
#
# Environment: ARTIST_FETCH_BASE and ARTIST_BIN as for fetch-data.sh.
set -euo pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sources.sh"

out=${1:-$ARTIST_ROOT/envs/bfcl/tables}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch_list "$BFCL_SOURCE_FILES" "$tmp/bfcl"
run_artist derive bfcl -src "$tmp/bfcl" -out "$out"
