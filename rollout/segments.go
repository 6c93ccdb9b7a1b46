package rollout

// The agent loop: each trajectory sampled on its own, a segment per
// request to a Completer (rows of the engine's continuous batcher,
// rollout servers, or the in-process LocalCompleter that reproduces
// them), its tool calls and user turns run between requests.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
)

// Completer continues one trajectory segment: a completions server's work
// for one request whose prompt is given as token ids. Complete samples as
// Complete does (the same sampler, one rand.Float64 per token from
// rand.NewSource(req.Seed) unless greedy) and returns every sampled token
// with its log-probability at temperature 1, the stopping token included.
// It must be safe for concurrent use.
type Completer interface {
	Complete(ctx context.Context, req SegmentRequest) (Completion, error)
}

// SegmentRequest is one request of a trajectory: continue Prompt (the
// trajectory so far) for at most Config.MaxTokens tokens, stopping at
// Config.Stop or a stop token, sampling from Seed.
type SegmentRequest struct {
	Prompt []int
	Config CompleteConfig // OnToken is not sent
	Seed   int64
}

// LocalCompleter completes segments with a policy in process, exactly as
// an artist serve rollout server holding the same weights does.
type LocalCompleter struct {
	Policy    Policy
	Tokenizer Tokenizer
}

// Complete runs Complete on the policy.
func (c LocalCompleter) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	return Complete(ctx, c.Policy, c.Tokenizer, req.Prompt, req.Config, rand.New(rand.NewSource(req.Seed)))
}

// RowOpener is a Completer that can keep what one trajectory's requests
// share (its tokens in a KV cache) from one request to the next. The
// engine opens a row per trajectory and sends that trajectory's requests
// to it, in order.
type RowOpener interface {
	Completer
	// OpenRow returns the Completer of one trajectory's requests, which
	// hold at most maxLen tokens, and the function that releases it.
	OpenRow(maxLen int) (Completer, func())
}

// LocalRows is LocalCompleter as a RowOpener: each trajectory keeps one
// session of the policy (on a Batcher's Policy: one row of the batch).
type LocalRows LocalCompleter

// Complete is LocalCompleter's.
func (c LocalRows) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	return LocalCompleter(c).Complete(ctx, req)
}

// OpenRow keeps one session of the policy for the trajectory: a request
// whose prompt extends what the session holds feeds only the new tokens
// (the last sampled one, a tool result, a user turn), as the batched
// engine does; any other starts a new session.
//
// The row's session starts at once (on a Batcher: rows opened one after
// another take the batch's sequences in that order). Until its first
// request a batch's steps wait for it, as for any row that is not paused
// (Pause).
func (c LocalRows) OpenRow(maxLen int) (Completer, func()) {
	r := &localRow{c: LocalCompleter(c), maxLen: maxLen, sess: c.Policy.NewSession(1, maxLen)}
	return r, r.close
}

// Pause pauses the row's session, when it can pause (a batch row).
func (r *localRow) Pause() {
	if p, ok := r.sess.(pauser); ok {
		p.Pause()
	}
}

// localRow is LocalCompleter's row: sess holds held, every token of the
// trajectory so far but the last one sampled.
type localRow struct {
	c      LocalCompleter
	maxLen int
	sess   Session
	held   []int
}

func (r *localRow) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	feed := req.Prompt
	switch rs, ok := r.sess.(restarter); {
	case r.sess != nil && len(r.held) < len(feed) && slices.Equal(r.held, feed[:len(r.held)]):
		feed = feed[len(r.held):]
	case ok && len(req.Prompt)+req.Config.MaxTokens <= r.maxLen:
		rs.Restart() // a trajectory split into a new sequence: same row, emptied
	default:
		r.close()
		r.sess = r.c.Policy.NewSession(1, max(r.maxLen, len(req.Prompt)+req.Config.MaxTokens))
	}
	comp, err := completeIn(ctx, r.sess, r.c.Tokenizer, feed, req.Config, rand.New(rand.NewSource(req.Seed)))
	if err != nil {
		r.close()
		return comp, err
	}
	r.held = append(slices.Clone(req.Prompt), comp.Tokens[:len(comp.Tokens)-1]...)
	if p, ok := r.sess.(pauser); ok {
		p.Pause() // the trajectory's tool call or user turn comes next: the batch goes on without it
	}
	return comp, nil
}

// restarter is a session of one sequence that can empty it and keep its
// place (*BatchRow).
type restarter interface{ Restart() }

// pauser is a session that can say it will not step for a while
// (*BatchRow).
type pauser interface{ Pause() }

func (r *localRow) close() {
	if r.sess != nil {
		closeSession(r.sess)
	}
	r.sess, r.held = nil, nil
}

// SegmentSeed is the seed of request k of the trajectory whose seed is
// seed (splitmix64 of the pair), so that consecutive requests draw from
// unrelated streams.
func SegmentSeed(seed int64, k int) int64 {
	z := uint64(seed) + uint64(k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64((z ^ (z >> 31)) >> 1)
}

// runSegments is Run through comp (e.Completer, or LocalRows over the
// engine's own Batcher): each trajectory is sampled on its own (at most
// e.Parallel at once; 0 means all), request by request.
// A request continues the trajectory's tokens with the rest of the
// response budget and the format's stop strings (Format.StopStrings); its
// tokens go through the row's state machine one by one, and the tokens
// after the one that paused or ended the row are dropped. Tool calls and
// user replies run between requests, in the trajectory's goroutine, while
// the other trajectories decode. Request k of a trajectory samples from
// SegmentSeed(seed, k), seed its Streams.Trajectory: the trajectories
// depend on the Streams alone, not on timing, on which server answered,
// or on how requests were batched. (Format.StopStrings are the row's
// pause tags, so a request never stops where the row goes on.)
//
// With a RowOpener each trajectory's requests go to a row of its own,
// which holds at most maxLen tokens; the rows are opened in trajectory
// order before any request, so row i of a Batcher is trajectory i.
func (e *Engine) runSegments(ctx context.Context, r *runner, rows []*row, maxLen int, comp Completer, report *reporter) ([]*Trajectory, error) {
	workers := e.Parallel
	if workers <= 0 || workers > len(rows) {
		workers = len(rows)
	}
	comps := make([]Completer, len(rows))
	for i := range comps {
		comps[i] = comp
	}
	if o, ok := comp.(RowOpener); ok {
		for i := range comps {
			c, release := o.OpenRow(maxLen)
			defer release()
			comps[i] = c
			if p, ok := c.(pauser); ok && i >= workers {
				p.Pause() // it waits for a worker: the batch does not wait for it
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg   sync.WaitGroup
		errs = make([]error, len(rows))
		next = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = r.runRow(ctx, rows[i], comps[i]); errs[i] != nil {
					cancel()
					continue
				}
				report.add()
			}
		}()
	}
	for i := range rows {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := rowError(errs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	return r.collect(rows)
}

// callTaker is a generator that decides a call of its own text: the
// input the tool gets, and a result in the tool's place when it has one
// (RemoteChat's rows: a native call's arguments, and the adapter's error
// for arguments it could not read).
type callTaker interface {
	takeCall(code string) (input string, res envs.Result, answered bool)
}

// call runs the row's pending call once fewer than r.tools calls of the
// run are running (tools may be compute: the code sandbox), as comp
// decides it (callTaker).
func (r *runner) call(ctx context.Context, w *row, comp Completer) envs.Result {
	if ct, ok := comp.(callTaker); ok {
		input, res, answered := ct.takeCall(w.code)
		if w.code = input; answered {
			return res
		}
	}
	select {
	case r.tools <- struct{}{}:
		defer func() { <-r.tools }()
	case <-ctx.Done():
		return envs.Result{Status: envs.StatusError, Output: "error: canceled", Error: ctx.Err().Error()}
	}
	return w.loop.call(ctx, w.code)
}

// rowError is the error that ended the rollout: that of the first
// trajectory that failed of itself, not because another's failure
// cancelled it (the first cancelled one when all were).
func rowError(errs []error) error {
	var cancelled error
	for i, err := range errs {
		switch {
		case err == nil:
		case !errors.Is(err, context.Canceled):
			return &seqError{i, err}
		case cancelled == nil:
			cancelled = &seqError{i, err}
		}
	}
	return cancelled
}

// seqError is the error that ended trajectory i's rollout.
type seqError struct {
	i   int
	err error
}

func (e *seqError) Error() string {
	return fmt.Sprintf("rollout: sequence %d: %s", e.i, strings.TrimPrefix(e.err.Error(), "rollout: "))
}

func (e *seqError) Unwrap() error { return e.err }

// runRow drives one row to its end through comp.
func (r *runner) runRow(ctx context.Context, w *row, comp Completer) error {
	stops := r.e.Format.StopStrings()
	nucleus := r.cfg.Temperature != 0 && r.cfg.TopP < 1
	for k := 0; w.state != done; {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch w.state {
		case calling:
			r.apply(w, r.call(ctx, w, comp))
			continue
		case replying:
			msg, ended := w.loop.reply(ctx, w.said)
			r.applyReply(w, msg, ended)
			continue
		}
		req := SegmentRequest{Prompt: w.traj.Tokens, Seed: SegmentSeed(w.seed, k), Config: CompleteConfig{
			MaxTokens: r.cfg.MaxResponseTokens - w.model, Temperature: r.cfg.Temperature, TopP: r.cfg.TopP, Stop: stops}}
		k++
		c, err := comp.Complete(ctx, req)
		if err != nil {
			return err
		}
		if len(c.Tokens) == 0 || len(c.LogProbs) != len(c.Tokens) {
			return fmt.Errorf("completer answered %d tokens with %d log-probs", len(c.Tokens), len(c.LogProbs))
		}
		for j, tok := range c.Tokens {
			r.advance(w, tok, c.LogProbs[j])
			if nucleus && len(c.NucleusLogProbs) == len(c.Tokens) {
				w.traj.setNucleus(c.NucleusLogProbs[j])
			}
			if w.state != generating {
				break
			}
		}
		w.feed = nil // the next request sends the whole trajectory
	}
	return nil
}
