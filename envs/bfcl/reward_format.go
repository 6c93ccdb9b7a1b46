package bfcl

import (
	"github.com/artist-rl/artist/reward"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// FormatFC scores 0.025 for each of the reasoning, tool and result tag
// pairs present in t.Response (an opening tag followed, anywhere later, by
// its closing tag), plus 0.1 when the response is in the strict order; at
// most 0.175. It always applies. The reasoning, tool and result tags are
// the format's think, code and output tags; f must be valid (Lookup
// checks it).
//
// Strict order: the tagged blocks of the response, in order, form the
// regular language
//
//	(R (C O)*)+   with at least one C
//
// where R, C and O are reasoning, tool and result blocks. So the response
// opens with reasoning, every tool block is followed directly by its
// result block, and reasoning may come again after any result. A block is
// an opening tag, then text, then the first following closing tag of the
// same name; the text of a reasoning or tool block holds no tag of the
// format, and the text of a result block (the tool's) is not inspected.
// Text outside blocks (replies and user messages of later turns) is
// allowed, but a tag of the format outside a well-formed block (an
// unclosed block or a stray closing tag) breaks the order.
func FormatFC(f format.Format) reward.Func {
	names := fcNames(f)
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		score := 0.0
		for _, n := range names {
			if format.HasPair(t.Response, n) {
				score += fcPerTag
			}
		}
		if seq, ok := fcBlocks(t.Response, names); ok && fcStrict(seq) {
			score += fcStrictScore
		}
		return score, true
	}
}

// fcNames are the reasoning, tool and result tags of the
// function-calling text, indexed by the block kinds below.
func fcNames(f format.Format) [3]string { return [3]string{f.Think, f.Code, f.Output} }

// Block kinds of the function-calling text, indexes into fcNames.
const (
	fcReasoning = iota
	fcTool
	fcResult
)

// fcBlocks returns the kinds of the tagged blocks of s in order; ok is
// false when a tag of the format lies outside a well-formed block.
func fcBlocks(s string, names [3]string) (seq []int, ok bool) {
	for {
		k, at := nextTag(s, names)
		if at < 0 {
			return seq, true
		}
		open := format.Open(names[k])
		if !strings.HasPrefix(s[at:], open) {
			return nil, false
		}
		rest, ok := format.CloseBlock(s[at+len(open):], names[:], k, fcResult)
		if !ok {
			return nil, false
		}
		s = rest
		seq = append(seq, k)
	}
}

// nextTag finds the first opening or closing tag of the format in s: its
// kind and byte offset, or offset -1 when there is none.
func nextTag(s string, names [3]string) (kind, at int) {
	at = -1
	for k, n := range names {
		for _, tag := range [2]string{format.Open(n), format.Close(n)} {
			if i := strings.Index(s, tag); i >= 0 && (at < 0 || i < at) {
				kind, at = k, i
			}
		}
	}
	return kind, at
}

// fcStrict reports whether seq is in (R (C O)*)+ with at least one C.
func fcStrict(seq []int) bool {
	if len(seq) == 0 || seq[0] != fcReasoning {
		return false
	}
	calls := 0
	for i := 0; i < len(seq); i++ {
		switch seq[i] {
		case fcTool:
			if i+1 == len(seq) || seq[i+1] != fcResult {
				return false
			}
			calls++
			i++
		case fcResult:
			return false
		}
	}
	return calls > 0
}
