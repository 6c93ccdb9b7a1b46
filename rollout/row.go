package rollout

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// The state machine of one trajectory: the tokens it samples, the pauses
// for tool calls and user turns, what the engine appends after them.

type rowState uint8

const (
	generating rowState = iota // sampling model tokens
	calling                    // paused at a closing code tag; the call runs before the next Step
	replying                   // ended its turn; the user's reply (envs.UserSession) comes before the next Step
	done
)

// row is the state machine of one trajectory:
// generating -> calling -> generating ... -> done.
type row struct {
	traj  *Trajectory
	state rowState
	feed  []int          // tokens in traj not yet fed to the session
	seg   []int          // model tokens since the prompt or the last tool result
	model int            // model tokens sampled so far
	code  string         // input of the pending call while calling
	said  string         // what the policy said in the turn it ended, while replying
	stop  StopReason     // how that turn ended, while replying
	loop  *toolLoop      // the trajectory's tool side: session, calls, turns
	turns []string       // rendered later user turns of the task, in order
	seed  int64          // the trajectory's stream (Streams.Trajectory)
	segs  int            // segments begun so far
	rng   *rand.Rand     // the current segment's stream (segmentRNG)
	msgs  []chat.Message // with Engine.Chat: the conversation so far
	chat  *Chat          // Engine.Chat with the task's tools, or nil
	err   error          // a turn that could not be rendered; Run fails with it
	drift driftMark      // with Engine.Chat: what the last drift check found (checkTurn)
}

// draw is the row's next uniform: from a fresh segment stream when the
// row starts generating after text the policy did not write (the prompt,
// a tool result, a user turn), else from the current one.
func (w *row) draw() float64 {
	if t := w.traj; w.rng == nil || !t.Kinds[len(t.Kinds)-1].Sampled() {
		w.rng = segmentRNG(w.seed, w.segs)
		w.segs++
	}
	return w.rng.Float64()
}

// advance records a sampled token and moves the row's state machine.
func (r *runner) advance(w *row, tok int, lp float32) {
	w.traj.Append([]int{tok}, KindModel, []float32{lp})
	w.model++
	w.seg = append(w.seg, tok)
	w.feed = []int{tok}
	if slices.Contains(r.stops, tok) {
		r.endTurn(w, StopEOS)
		return
	}
	switch ev, code := r.event(w.seg); ev {
	case format.EventAnswer:
		r.endTurn(w, StopAnswer)
	case format.EventCall:
		w.traj.markCall(r.callTokens(w.seg))
		if len(w.traj.Calls) >= r.cfg.MaxToolCalls {
			w.end(StopMaxTurns)
			return
		}
		w.code, w.state = code, calling
	default:
		if w.model >= r.cfg.MaxResponseTokens {
			w.end(StopLength)
		}
	}
}

func (w *row) end(s StopReason) {
	w.state, w.feed, w.traj.Stop = done, nil, s
}

// endTurn ends the policy's turn: the rollout stops with s, unless the
// task has a later user turn and the response budget is not spent; then
// the engine appends that turn's message with mask 0, the tool session
// hears of it (toolLoop.endTurn), and the policy goes on.
//
// With an envs.UserTool the next message comes from the trajectory's user
// instead: the row waits (replying) until startTools has asked for it.
func (r *runner) endTurn(w *row, s StopReason) {
	if r.maxReplies > 0 {
		if w.model >= r.cfg.MaxResponseTokens {
			w.end(StopLength)
			return
		}
		said := w.seg
		if n := len(said); n > 0 && slices.Contains(r.stops, said[n-1]) {
			said = said[:n-1]
		}
		w.said, w.stop, w.state = r.e.Tokenizer.Decode(said), s, replying
		return
	}
	next, stop := w.loop.endTurn(s, w.model >= r.cfg.MaxResponseTokens)
	if stop != "" {
		w.end(stop)
		return
	}
	if err := r.pushTurn(w, "user", r.e.Tokenizer.Encode(r.afterStop(w, w.turns[next])), w.traj.Task.Turns[next]); err != nil {
		w.fail(err)
		return
	}
	w.seg = w.seg[:0]
}

// applyReply appends a user's reply (rendered by UserTurn, cut to
// replyLimit tokens) to a replying row and resumes it, or ends the row
// with the stop of its last turn when the conversation is over.
func (r *runner) applyReply(w *row, msg string, done bool) {
	if done {
		w.end(w.stop)
		return
	}
	text, err := r.renderTurn(w.chat, msg)
	if err != nil {
		w.fail(err)
		return
	}
	ids, _ := fitResult(r.e.Tokenizer.Encode(r.afterStop(w, text)), r.replyLimit, r.mark)
	if err := r.pushTurn(w, "user", ids, msg); err != nil {
		w.fail(err)
		return
	}
	w.seg, w.said, w.stop, w.state = w.seg[:0], "", "", generating
}

// closeTools ends the rows' tool sessions.
func closeTools(rows []*row) {
	for _, w := range rows {
		w.loop.close()
	}
}

// apply appends a call's result (defused, see resultText; art style:
// every line prefixed, see Format.ResultText) to a paused row and resumes
// it.
func (r *runner) apply(w *row, res envs.Result) {
	f, n := r.e.Format, len(w.traj.Calls)+1
	body, cut := fitResult(r.e.Tokenizer.Encode(f.ResultBody(n, res.Output)), r.cfg.MaxResultTokens, r.mark)
	w.loop.record(w.code, res, cut)
	var out []int
	if r.e.Chat != nil {
		var text string
		var err error
		if out, text, err = r.chatResult(w.chat, body); err != nil {
			w.fail(err)
			return
		}
		if err = r.pushTurn(w, "tool", out, text); err != nil {
			w.fail(err)
			return
		}
	} else {
		open := r.openOut
		if f.ART() && (n > 1 || !strings.HasSuffix(r.fresh(w.seg), "\n")) {
			open = r.e.Tokenizer.Encode(r.artOpen(w.seg, n))
		}
		out = slices.Concat(open, body, r.closeOut)
		w.traj.Append(out, KindToolResult, nil)
		w.feed = append(w.feed, out...)
	}
	w.seg, w.code, w.state = w.seg[:0], "", generating
	if w.model >= r.cfg.MaxResponseTokens {
		w.end(StopLength)
	}
}

// fitResult cuts ids to at most limit tokens by keeping a head and a tail
// around mark; the head gets the odd token.
func fitResult(ids []int, limit int, mark []int) ([]int, bool) {
	if len(ids) <= limit {
		return ids, false
	}
	keep := limit - len(mark)
	head := (keep + 1) / 2
	return slices.Concat(ids[:head], mark, ids[len(ids)-(keep-head):]), true
}

// collect fills the responses and checks every trajectory.
func (r *runner) collect(rows []*row) ([]*Trajectory, error) {
	out := make([]*Trajectory, len(rows))
	for i, w := range rows {
		if w.err != nil {
			return nil, fmt.Errorf("%w (task %q, sequence %d)", w.err, w.traj.Task.ID, i)
		}
		t := w.traj
		if len(t.NucleusLogProbs) > 0 {
			t.padNucleus()
		}
		t.Response = r.e.Tokenizer.Decode(t.Tokens[t.PromptLen:])
		if w.chat != nil {
			t.Response = r.transcript(w)
		}
		if err := r.checkTemplate(w); err != nil {
			return nil, fmt.Errorf("%w (sequence %d)", err, i)
		}
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("%w (sequence %d)", err, i)
		}
		out[i] = t
	}
	return out, nil
}
