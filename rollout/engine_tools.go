package rollout

// The engine's tool calls: started when rows pause, running while the
// session decodes the other rows.

import (
	"context"
	"sync"

	"github.com/artist-rl/artist/envs"
)

// startTools starts the calls of all paused rows, and asks the users of
// all replying rows, concurrently; nil when no row is paused. Tool calls
// may be compute (the code sandbox) and run at most GOMAXPROCS at once;
// user replies wait on a simulator (often a server) and all run at once.
func (r *runner) startTools(ctx context.Context, rows []*row) *toolCalls {
	c := &toolCalls{done: make(chan struct{})}
	for _, w := range rows {
		if w.state == calling || w.state == replying {
			c.paused = append(c.paused, w)
		}
	}
	if len(c.paused) == 0 {
		return nil
	}
	c.results = make([]envs.Result, len(c.paused))
	c.replies = make([]string, len(c.paused))
	c.ended = make([]bool, len(c.paused))
	var calls []int
	var users sync.WaitGroup
	for k, w := range c.paused {
		if w.state != replying {
			calls = append(calls, k)
			continue
		}
		users.Go(func() { c.replies[k], c.ended[k] = w.loop.reply(ctx, w.said) })
	}
	go func() {
		defer close(c.done)
		parallel(len(calls), func(i int) {
			k := calls[i]
			c.results[k] = c.paused[k].loop.call(ctx, c.paused[k].code)
		})
		users.Wait()
	}()
	return c
}

// toolCalls are the calls and user replies of the rows that paused in one
// step, run concurrently (see startTools) while the session decodes the
// other rows' next tokens.
type toolCalls struct {
	paused  []*row
	results []envs.Result
	replies []string
	ended   []bool
	done    chan struct{}
}

// finish waits for the calls and applies their results in row order,
// which resumes the rows; a nil c does nothing.
func (c *toolCalls) finish(r *runner) {
	if c == nil {
		return
	}
	<-c.done
	for k, w := range c.paused {
		if w.state == replying {
			r.applyReply(w, c.replies[k], c.ended[k])
			continue
		}
		r.apply(w, c.results[k])
	}
}
