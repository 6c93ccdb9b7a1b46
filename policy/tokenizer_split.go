package policy

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below cut text into the pieces that BPE merges never
// cross. Each returns the end of the piece that starts at byte i (always
// > i), implementing a split pattern of HuggingFace tokenizers by hand:
// Go's regexp has no lookahead, which both patterns need.

// Rune classes of the split patterns: \p{L}, \p{N}, \s and everything else.
const (
	classOther uint8 = iota
	classLetter
	classNumber
	classSpace
)

var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for r := range c {
		c[r] = slowClass(rune(r))
	}
	return c
}()

func slowClass(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// classAt returns the class and byte size of the rune at i. Invalid UTF-8
// bytes are one-byte runes of class other.
func classAt(s string, i int) (uint8, int) {
	if s[i] < utf8.RuneSelf {
		return asciiClass[s[i]], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		return classOther, 1
	}
	return slowClass(r), n
}

// runEnd returns the end of the run of class c that starts at i.
func runEnd(s string, i int, c uint8) int {
	for i < len(s) {
		ci, n := classAt(s, i)
		if ci != c {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of 's|'t|'re|'ve|'m|'ll|'d at the start of
// s, or 0; fold makes the letters match either case.
func contraction(s string, fold bool) int {
	if len(s) < 2 || s[0] != '\'' {
		return 0
	}
	lower := func(b byte) byte {
		if fold && 'A' <= b && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(s[1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if len(s) > 2 && lower(s[2]) == 'e' {
			return 3
		}
	case 'l':
		if len(s) > 2 && lower(s[2]) == 'l' {
			return 3
		}
	}
	return 0
}

// spaceEnd matches \s+(?!\S)|\s+ at i, where a whitespace run starts: the
// whole run if it ends the text or is one rune long, else all but its last
// rune (which then leads the next piece).
func spaceEnd(s string, i int) int {
	j := runEnd(s, i, classSpace)
	if j == len(s) {
		return j
	}
	_, last := utf8.DecodeLastRuneInString(s[:j])
	if j-last > i {
		return j - last
	}
	return j
}

// gpt2Next implements GPT-2's split pattern
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func gpt2Next(s string, i int) int {
	if n := contraction(s[i:], false); n > 0 {
		return i + n
	}
	if s[i] == ' ' && i+1 < len(s) {
		if c, _ := classAt(s, i+1); c != classSpace {
			return runEnd(s, i+1, c)
		}
	}
	if c, _ := classAt(s, i); c != classSpace {
		return runEnd(s, i, c)
	}
	return spaceEnd(s, i)
}

// qwen2Next implements Qwen2's split pattern (qwen2Pattern)
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func qwen2Next(s string, i int) int {
	if n := contraction(s[i:], true); n > 0 {
		return i + n
	}
	c0, n0 := classAt(s, i)
	switch {
	case c0 == classLetter:
		return runEnd(s, i, classLetter)
	case c0 == classNumber:
		return i + n0
	case s[i] != '\r' && s[i] != '\n' && i+n0 < len(s):
		if c1, _ := classAt(s, i+n0); c1 == classLetter {
			return runEnd(s, i+n0, classLetter)
		}
	}
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		if c1, _ := classAt(s, i+1); c1 == classOther {
			j = i + 1
		}
	}
	if c, _ := classAt(s, j); c == classOther {
		e := runEnd(s, j, classOther)
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	}
	end := runEnd(s, i, classSpace)
	for k := end - 1; k >= i; k-- { // \s*[\r\n]+: up to the run's last newline
		if s[k] == '\r' || s[k] == '\n' {
			return k + 1
		}
	}
	return spaceEnd(s, i)
}
