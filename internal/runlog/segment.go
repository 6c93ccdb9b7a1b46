package runlog

import (
	"sort"
	"strings"

	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Segments splits t into its prompt, model, tool_call, tool_result and
// user_turn segments (see the package doc). Code and output tag names
// come from f. dec decodes t's tokens: the tokenizer the rollout was
// sampled with.
//
// In the art style of f a tool_call is a call line (format.Format.CallLine,
// its "Qn: " label included) with the newline that ends it, or to the end
// of the run when it is unfinished; a tool_result is a run of result lines
// ("#n: …") with their newlines (and the newline before them that starts
// an engine-written run, see rollout.Engine.Run).
func Segments(t *rollout.Trajectory, dec Decoder, f format.Format) []Segment {
	calls := func(text string) [][2]int { return blocks(text, format.Open(f.Code), format.Close(f.Code), false) }
	results := func(text string) [][2]int { return blocks(text, format.Open(f.Output), format.Close(f.Output), true) }
	if f.ART() {
		calls = func(text string) [][2]int {
			return artLines(text, func(l string) bool { _, ok := f.CallLine(l); return ok })
		}
		results = func(text string) [][2]int {
			spans := artLines(text, func(l string) bool { _, _, ok := format.ResultLine(l); return ok })
			if len(spans) > 0 && spans[0][0] == 1 && text[0] == '\n' {
				spans[0][0] = 0 // the newline the engine writes when a call line's token ran past it
			}
			return spans
		}
	}
	n := min(len(t.Tokens), len(t.Mask))
	pl := max(0, min(t.PromptLen, n))
	var out []Segment
	if pl > 0 {
		out = append(out, Segment{Kind: Prompt, Text: dec.Decode(t.Tokens[:pl]), Tokens: pl, Masked: true})
	}
	call := 0
	for i := pl; i < n; {
		j := i + 1
		for j < n && t.Mask[j] == t.Mask[i] {
			j++
		}
		run := t.Tokens[i:j]
		if t.Mask[i] != 0 {
			out = append(out, split(run, dec, Model, ToolCall, calls, false)...)
		} else {
			for _, s := range split(run, dec, UserTurn, ToolResult, results, true) {
				if s.Kind == ToolResult && call < len(t.Calls) {
					s.Status, s.Truncated = string(t.Calls[call].Result.Status), t.Calls[call].Truncated
					call++
				}
				out = append(out, s)
			}
		}
		i = j
	}
	return out
}

// split cuts one run of equal-mask tokens into segments of kind inner
// (the byte spans that find returns for the run's text) and kind base
// (the rest). With masked, the segments are masked.
func split(run []int, dec Decoder, base, inner Kind, find func(string) [][2]int, masked bool) []Segment {
	full := dec.Decode(run)
	spans := find(full)
	if len(spans) == 0 {
		return []Segment{{Kind: base, Text: full, Tokens: len(run), Masked: masked}}
	}
	o := &offsets{run: run, dec: dec, full: full, memo: map[int]prefix{}}
	var out []Segment
	add := func(k Kind, a, b int) {
		if b > a {
			out = append(out, Segment{Kind: k, Text: o.text(a, b), Tokens: b - a, Masked: masked})
		}
	}
	prev := 0
	for _, sp := range spans {
		a := max(o.atOrBefore(sp[0]), prev)
		b := max(o.atOrAfter(sp[1]), a)
		add(base, prev, a)
		add(inner, a, b)
		prev = b
	}
	add(base, prev, len(run))
	return out
}

// blocks returns the byte spans of the open...close blocks of text; an
// unclosed block runs to the end. With nl, a block takes one newline
// after its closing tag.
func blocks(text, open, close string, nl bool) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], open)
		if i < 0 {
			break
		}
		start := pos + i
		e := strings.Index(text[start+len(open):], close)
		if e < 0 {
			out = append(out, [2]int{start, len(text)})
			break
		}
		end := start + len(open) + e + len(close)
		if nl && end < len(text) && text[end] == '\n' {
			end++
		}
		out = append(out, [2]int{start, end})
		pos = end
	}
	return out
}

// artLines returns the byte spans of the runs of consecutive lines of
// text for which is holds, each with its newline (the last line of text
// may lack one). A line starts at the start of text or after a newline.
func artLines(text string, is func(line string) bool) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		if is(strings.TrimSuffix(text[pos:end], "\n")) {
			if n := len(out); n > 0 && out[n-1][1] == pos {
				out[n-1][1] = end
			} else {
				out = append(out, [2]int{pos, end})
			}
		}
		pos = end
	}
	return out
}

// prefix is the decoding of the first k tokens of a run: its length, and
// whether it is a prefix of the run's decoding.
type prefix struct {
	n  int
	ok bool
}

// offsets maps token indices of a run to byte offsets of its decoding,
// decoding only the prefixes a binary search asks for.
type offsets struct {
	run  []int
	dec  Decoder
	full string
	memo map[int]prefix
}

func (o *offsets) at(k int) prefix {
	if k <= 0 {
		return prefix{0, true}
	}
	if k >= len(o.run) {
		return prefix{len(o.full), true}
	}
	p, ok := o.memo[k]
	if !ok {
		s := o.dec.Decode(o.run[:k])
		p = prefix{len(s), strings.HasPrefix(o.full, s)}
		o.memo[k] = p
	}
	return p
}

// atOrBefore is the last token boundary at or before byte b: the token
// that holds byte b starts the segment.
func (o *offsets) atOrBefore(b int) int {
	return sort.Search(len(o.run)+1, func(k int) bool { return o.at(k).n > b }) - 1
}

// atOrAfter is the first token boundary at or after byte b: the token
// that holds byte b-1 ends the segment.
func (o *offsets) atOrAfter(b int) int {
	return min(sort.Search(len(o.run)+1, func(k int) bool { return o.at(k).n >= b }), len(o.run))
}

// text is the decoding of tokens a..b: a slice of the run's decoding when
// both boundaries fall inside it, else the tokens decoded on their own.
func (o *offsets) text(a, b int) string {
	pa, pb := o.at(a), o.at(b)
	if pa.ok && pb.ok && pa.n <= pb.n {
		return o.full[pa.n:pb.n]
	}
	return o.dec.Decode(o.run[a:b])
}
