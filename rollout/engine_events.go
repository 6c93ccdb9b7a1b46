package rollout

// The engine's detection of what a sampled token finished: a tool call
// to run or an answer that ends the turn, in either style of Format.

import (
	"strings"

	"github.com/artist-rl/artist/rollout/format"
)

// event says what the last token of seg finished: a call (with its
// input), an answer, or nothing. In the tags style that is a closing code
// or answer tag (closed); in the art style, a newline that ends a call or
// answer line (Format.artEvent), the segment's start counting as a line
// start.
func (r *runner) event(seg []int) (format.Event, string) {
	if !r.e.Format.ART() {
		switch r.closed(seg) {
		case r.closeAnswer:
			return format.EventAnswer, ""
		case r.closeCode:
			return format.EventCall, r.codeInput(seg)
		}
		return format.EventNone, ""
	}
	fresh := r.fresh(seg)
	if fresh == "" || !strings.Contains(fresh, "\n") {
		return format.EventNone, ""
	}
	text := r.e.Tokenizer.Decode(seg)
	return r.e.Format.LineEvent(text, max(0, len(text)-len(fresh)))
}

// fresh is the text the last token of seg added.
func (r *runner) fresh(seg []int) string {
	cur, n := r.tail(seg, 2)
	return cur[len(cur)-n:]
}

// tail decodes the last w tokens of seg and says how many bytes at the
// end of that text the last token added (0 when it added none, as when it
// completes a character with the next one).
func (r *runner) tail(seg []int, w int) (text string, fresh int) {
	tok := r.e.Tokenizer
	win := seg[max(0, len(seg)-w):]
	text = tok.Decode(win)
	return text, max(0, len(text)-len(tok.Decode(win[:len(win)-1])))
}

// closed returns the closing tag (code or answer) that the last token of
// seg completed, or "". The tag may span several tokens, and the last
// token may carry text past the tag.
func (r *runner) closed(seg []int) string {
	cur, fresh := r.tail(seg, r.window)
	if fresh == 0 {
		return ""
	}
	best, bestEnd := "", len(cur)+1
	for _, tag := range []string{r.closeCode, r.closeAnswer} {
		i := strings.LastIndex(cur, tag)
		if end := i + len(tag); i >= 0 && end > len(cur)-fresh && end < bestEnd {
			best, bestEnd = tag, end
		}
	}
	return best
}

// codeInput is the text between the last opening code tag of the segment
// and its closing tag, or the whole segment before the closing tag.
func (r *runner) codeInput(seg []int) string {
	text := r.e.Tokenizer.Decode(seg)
	if end := strings.LastIndex(text, r.closeCode); end >= 0 {
		text = text[:end]
	}
	return codeAfterOpen(text, r.openCode)
}

// artOpen is what the engine writes before the n-th call's result in the
// art style: ResultPrefix(n), on a line of its own. When the token that
// ended the call line carried text past its newline, a newline comes
// first, so the result still starts a line.
func (r *runner) artOpen(seg []int, n int) string {
	if strings.HasSuffix(r.fresh(seg), "\n") {
		return r.e.Format.ResultOpen(n)
	}
	return "\n" + r.e.Format.ResultOpen(n)
}

// callTokens is how many tokens at the end of seg, whose last token just
// finished a call, write that call: from the token that starts the
// opening code tag (tags style; the whole segment when there is none) or
// the call line (art style) to the last token.
func (r *runner) callTokens(seg []int) int {
	tok := r.e.Tokenizer
	text := tok.Decode(seg)
	start := 0
	if r.e.Format.ART() {
		fresh := r.fresh(seg)
		start = artCallStart(text, max(0, len(text)-len(fresh)))
	} else if i := strings.LastIndex(text, r.openCode); i >= 0 {
		start = i
	}
	// The largest k whose suffix seg[k:] still decodes to the call's text.
	want := len(text) - start
	lo, hi := 0, len(seg)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(tok.Decode(seg[mid:])) >= want {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return len(seg) - lo
}

// artCallStart is the byte offset in text of the start of the call line
// that a newline at or after from ended (as Format.artEvent finds it).
func artCallStart(text string, from int) int {
	j := strings.IndexByte(text[from:], '\n')
	if j < 0 {
		return 0
	}
	return strings.LastIndexByte(text[:from+j], '\n') + 1
}
