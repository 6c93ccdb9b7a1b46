package rollout

// Trajectories sampled one by one, a segment per request: the engine's
// path when it decodes through a Completer (rollout servers, or the
// in-process LocalCompleter that reproduces them).

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
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
func (c LocalRows) OpenRow(maxLen int) (Completer, func()) {
	r := &localRow{c: LocalCompleter(c), maxLen: maxLen}
	return r, r.close
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
	if r.sess != nil && len(r.held) < len(feed) && slices.Equal(r.held, feed[:len(r.held)]) {
		feed = feed[len(r.held):]
	} else {
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

// runSegments is Run through e.Completer: each trajectory is sampled on
// its own (at most e.Parallel at once; 0 means all), request by request.
// A request continues the trajectory's tokens with the rest of the
// response budget and the format's stop strings (Format.StopStrings); its
// tokens go through the row's state machine one by one, exactly as the
// batched path feeds them, and the tokens after the one that paused or
// ended the row are dropped. Tool calls and user replies run between
// requests, in the trajectory's goroutine. Request k of a trajectory
// samples from SegmentSeed(seed, k), seed its Streams.Trajectory, which is
// the stream the batched path draws its segment k from: the trajectories
// depend on the Streams alone, not on timing, on which server answered,
// or on whether they decode here or in the batched path. (The two part
// only if a request stops at a stop string where the row does not pause;
// Format.StopStrings are the row's pause tags, so they do not.)
//
// With a RowOpener each trajectory's requests go to a row of its own,
// which holds at most maxLen tokens.
func (e *Engine) runSegments(ctx context.Context, r *runner, rows []*row, maxLen int, report *reporter) ([]*Trajectory, error) {
	workers := e.Parallel
	if workers <= 0 || workers > len(rows) {
		workers = len(rows)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		next     = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := r.runRow(ctx, rows[i], maxLen); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("rollout: sequence %d: %w", i, err); cancel() })
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
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	return r.collect(rows)
}

// runRow drives one row to its end through the engine's Completer (a row
// of it, for a RowOpener).
func (r *runner) runRow(ctx context.Context, w *row, maxLen int) error {
	comp := r.e.Completer
	if o, ok := comp.(RowOpener); ok {
		c, release := o.OpenRow(maxLen)
		defer release()
		comp = c
	}
	seed := w.seed
	stops := r.e.Format.StopStrings()
	for k := 0; w.state != done; {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch w.state {
		case calling:
			r.apply(w, w.loop.call(ctx, w.code))
			continue
		case replying:
			msg, ended := w.loop.reply(ctx, w.said)
			r.applyReply(w, msg, ended)
			continue
		}
		req := SegmentRequest{Prompt: w.traj.Tokens, Seed: SegmentSeed(seed, k), Config: CompleteConfig{
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
			if w.state != generating {
				break
			}
		}
		w.feed = nil // the next request sends the whole trajectory
	}
	return nil
}
