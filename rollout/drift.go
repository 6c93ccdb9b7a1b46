package rollout

// Chat templates that are not append-only (Config.TemplateDrift): the
// check after each tool or user turn, and the split that starts a new
// sequence from the template's rendering.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/artist-rl/artist/chat"
)

// RenderNext renders a whole conversation with the generation prompt:
// the text the template prompts the policy's next assistant turn with.
func (c *Chat) RenderNext(msgs []chat.Message) (string, error) {
	opts := c.opts()
	opts.AddGenerationPrompt = true
	return c.Template.Render(msgs, opts)
}

// driftMark is what checkTurn last found a row's current sequence to
// hold: the template's rendering of the conversation then, with the
// generation prompt, and the number of the sequence's ids it matched.
// The zero value, ids 0, is no check yet (a sequence is never empty).
type driftMark struct {
	text string
	ids  int
}

// driftWindow is how many bytes of the last checked rendering the
// incremental check encodes again with the new text (appends), so that
// the tokenizer reads the new text's start in its context.
const driftWindow = 32

// decodeTail is how many ids before the new ones appends decodes with
// them, to check that decoding them apart is decoding them together.
const decodeTail = 8

// checkTurn checks, after a tool or user turn was appended to a chat
// row, that the template's rendering of the conversation so far, with
// the generation prompt, is the text of the ids the row's current
// sequence holds. The comparison is of text: the ids' decoding against
// the decoding of the rendering's encoding (the rendering as the
// tokenizer reads it back), so that a policy's token split that differs
// from the tokenizer's own (the same text in other ids) is no drift,
// and text the template re-renders is. When they differ, Config.
// TemplateDrift fail returns a driftError; split closes the sequence and
// starts the next from the rendering's encoding, which the session is
// fed afresh (splitSession). A row whose response budget is spent ends
// here and is not checked (its trajectory's TemplateDiffers says). The
// new sequence has the session room of the old: a template that drops
// text (Qwen3) renders fewer tokens than the ids held; one that renders
// more could overflow it, and the session's Step then fails.
//
// The check is incremental: when the rendering extends the one last
// checked (w.drift) as text, only the new text and the ids appended
// since are encoded and decoded (appends), so a rollout's checks cost
// time linear in its length. The first check of a sequence, a rendering
// that rewrites earlier text, and anything appends cannot decide, are
// checked whole (checkWhole), with the verdict and error of the whole
// comparison.
func (r *runner) checkTurn(w *row) error {
	if w.chat == nil || w.model >= r.cfg.MaxResponseTokens {
		return nil
	}
	text, err := w.chat.RenderNext(w.msgs)
	if err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	if r.appends(w, text) {
		w.drift = driftMark{text: text, ids: len(w.traj.Tokens)}
		return nil
	}
	return r.checkWhole(w, text)
}

// checkWhole compares the decoding of the whole rendering text's
// encoding with that of the ids the row's current sequence holds, and on
// a difference fails or splits as Config.TemplateDrift says (checkTurn).
// It leaves w.drift at what the sequence then holds.
func (r *runner) checkWhole(w *row, text string) error {
	tok := r.e.Tokenizer
	ids := tok.Encode(text)
	want, held := tok.Decode(ids), tok.Decode(w.traj.Tokens)
	if want == held {
		w.drift = driftMark{text: text, ids: len(w.traj.Tokens)}
		return nil
	}
	if r.cfg.TemplateDrift == DriftFail {
		return driftError(w, held, want)
	}
	w.traj.split(ids)
	w.feed = ids // the row's next request does not extend what its session holds: it restarts
	w.drift = driftMark{text: text, ids: len(ids)}
	return nil
}

// appends reports whether checkWhole would find the rendering text to be
// what the row's current sequence holds, deciding it from the text and
// ids added since the last check (w.drift), which matched: true only
// when text extends that check's rendering m.text by a suffix s, and the
// decoding of the encoding of m.text's last driftWindow bytes w with s
// is that of w alone followed by the decoding of the ids appended since.
// That is checkWhole's verdict for a tokenizer that reads text locally:
// two checks test that it does around the cut before w (cleanCut), and
// that decoding the new ids apart from the last decodeTail held is
// decoding them together; when either fails, or the verdict is false
// (a drift, or an encoding that differs only near the cut), appends
// returns false and checkWhole decides. It encodes len(s) plus about
// 5·driftWindow bytes (cuts move back to a UTF-8 sequence's start), and
// decodes the new ids twice and decodeTail held ones.
func (r *runner) appends(w *row, text string) bool {
	m, t := w.drift, w.traj.Tokens
	if m.ids == 0 || m.ids > len(t) || !strings.HasPrefix(text, m.text) {
		return false
	}
	tok := r.e.Tokenizer
	added := tok.Decode(t[m.ids:])
	k := max(m.ids-decodeTail, 0)
	if tok.Decode(t[k:]) != tok.Decode(t[k:m.ids])+added {
		return false
	}
	c := runeCut(m.text, len(m.text)-driftWindow)
	win, ok := cleanCut(tok, m.text, c)
	return ok && decoded(tok, text[c:]) == win+added
}

// cleanCut reports whether the tokenizer reads s apart at byte c as it
// reads it whole, judged on the driftWindow bytes before c and what
// follows c: the decoding of their encoding together is the decodings
// of each apart. win is the decoding of the encoding of s[c:].
func cleanCut(tok Tokenizer, s string, c int) (win string, ok bool) {
	b := runeCut(s, c-driftWindow)
	win = decoded(tok, s[c:])
	return win, decoded(tok, s[b:]) == decoded(tok, s[b:c])+win
}

// decoded is the text of s as tok reads it back: its encoding decoded.
func decoded(tok Tokenizer, s string) string { return tok.Decode(tok.Encode(s)) }

// runeCut is i, or the start of the UTF-8 sequence byte i of s falls
// in, for an i below len(s); 0 for an i at or below 0.
func runeCut(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// driftError names the template, the message after which it renders
// the conversation otherwise and where the two texts part.
func driftError(w *row, held, want string) error {
	i := len(w.msgs) - 1
	at := 0
	for at < len(held) && at < len(want) && held[at] == want[at] {
		at++
	}
	return fmt.Errorf("rollout: the chat template of %s is not append-only: after message %d (%s), it renders the conversation other than the ids the trajectory holds, from byte %d (ids: %q, template: %q); rollout.template_drift is %s: set it to %s to go on in a new training sequence from the template's rendering, or use a template that only appends",
		w.chat.Template.Origin(), i, w.msgs[i].Role, at, excerpt(held, at), excerpt(want, at), DriftFail, DriftSplit)
}

// excerpt is up to 40 bytes of s from at.
func excerpt(s string, at int) string {
	s = s[at:]
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
