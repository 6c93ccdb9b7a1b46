package server

// Continuous batching: the requests decoding on one weights version share
// one policy.Session, and every decode step is one Session.Step over the
// rows ready for it. A request joins as a new row (its prompt is its
// row's feed in the next step, beside the others' single tokens) and
// leaves when it ends, is cancelled or fails; its slot is then reset for
// the next request.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// A step waits for the rows still sampling their last token (or writing
// it to a client) for twice the longer of the last step's time and the
// time rows lately took between two steps (turn), within these bounds,
// then goes without them: they join the next one. Waiting out a row's
// turn keeps rows in phase: with a linger shorter than the time a row
// takes between two steps, rows would alternate, each step decoding one
// of them (small models decode a step in less time than a busy machine
// takes to run a row's goroutine).
const (
	minLinger = time.Millisecond
	maxLinger = 10 * time.Millisecond
)

// batcher decodes every request on one model together. A goroutine (loop)
// runs while rows are joined; it alone touches the session.
type batcher struct {
	m *policy.Model

	mu      sync.Mutex
	sess    *policy.Session // nil while no row is joined
	slots   []*row          // row by session index; nil: free
	free    []int           // free session indices
	freed   []int           // indices of rows that left, to reset before reuse
	joining []*row          // rows without an index yet
	active  int             // rows joined and not left
	ready   int             // rows whose feed waits for the next step
	running bool            // loop runs
	linger  time.Duration
	turn    time.Duration // the longest recent time a row took between its steps, decaying
	kick    chan struct{} // wakes loop; buffered 1

	// stats, for tests and the benchmark
	steps, widest, stepped int
}

func newBatcher(m *policy.Model) *batcher {
	return &batcher{m: m, kick: make(chan struct{}, 1), linger: minLinger}
}

// row is one request's sequence in the batch: a rollout.Session of one
// sequence for rollout.Complete.
type row struct {
	b      *batcher
	ctx    context.Context
	slot   int       // session index; -1 until the loop gives one
	maxLen int       // tokens the row may hold, as its NewSession asked
	held   int       // tokens fed so far
	back   time.Time // when the row's last step returned; zero before its first
	feed   []int
	ready  bool
	left   bool
	done   chan stepResult // buffered 1
}

type stepResult struct {
	logits []float32
	err    error
}

// join adds a row for a sequence of at most maxLen tokens.
func (b *batcher) join(ctx context.Context, maxLen int) *row {
	r := &row{b: b, ctx: ctx, slot: -1, maxLen: maxLen, done: make(chan stepResult, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.joining = append(b.joining, r)
	b.active++
	if !b.running {
		b.running = true
		go b.loop()
	}
	return r
}

// leave takes r out of the batch; its index is reset before reuse.
func (r *row) leave() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.left {
		return
	}
	r.left = true
	b.active--
	if r.ready {
		r.ready = false
		b.ready--
	}
	if r.slot >= 0 {
		b.freed = append(b.freed, r.slot)
		b.slots[r.slot] = nil
	} else {
		for i, j := range b.joining {
			if j == r {
				b.joining = append(b.joining[:i], b.joining[i+1:]...)
				break
			}
		}
	}
	b.wake()
}

func (b *batcher) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Step feeds feed[0] to the row in the batch's next step and returns its
// logits (rollout.Session, for one sequence). It returns the context's
// error when the request ends first.
func (r *row) Step(feed [][]int) ([][]float32, error) {
	if len(feed) != 1 {
		panic(fmt.Sprintf("server: a batch row is one sequence, fed %d", len(feed)))
	}
	f := feed[0]
	if len(f) == 0 {
		return [][]float32{nil}, nil
	}
	if n := r.held + len(f); n > r.maxLen {
		return nil, fmt.Errorf("server: sequence would hold %d tokens, over its room %d", n, r.maxLen)
	}
	for _, tok := range f {
		if V := r.b.m.Config.VocabSize; tok < 0 || tok >= V {
			return nil, fmt.Errorf("server: token %d outside the vocabulary [0, %d)", tok, V)
		}
	}
	b := r.b
	b.mu.Lock()
	if r.left {
		b.mu.Unlock()
		return nil, fmt.Errorf("server: Step on a row that left the batch")
	}
	r.feed, r.ready = f, true
	if !r.back.IsZero() {
		b.turn = max(time.Since(r.back), b.turn-b.turn/8)
	}
	b.ready++
	b.wake()
	b.mu.Unlock()
	select {
	case res := <-r.done:
		if res.err == nil {
			r.held += len(f)
		}
		r.back = time.Now()
		return [][]float32{res.logits}, res.err
	case <-r.ctx.Done():
		b.mu.Lock()
		if r.ready { // not taken into a step yet
			r.ready = false
			b.ready--
		}
		b.mu.Unlock()
		return nil, r.ctx.Err()
	}
}

// loop runs steps while rows are joined.
func (b *batcher) loop() {
	for {
		feed, rows := b.collect()
		if rows == nil {
			return
		}
		began := time.Now()
		logits, err := b.sess.Step(feed)
		took := time.Since(began)
		b.mu.Lock()
		b.linger = min(maxLinger, max(minLinger, 2*took, 2*b.turn))
		b.steps++
		b.stepped += len(rows)
		b.widest = max(b.widest, len(rows))
		b.mu.Unlock()
		for _, r := range rows {
			res := stepResult{err: err}
			if err == nil {
				res.logits = logits[r.slot]
			}
			r.done <- res
		}
		// The rows woken above run next on this thread, and the loop
		// after them, in turn: without yielding, a request that waits
		// to join could starve for a whole time slice.
		runtime.Gosched()
	}
}

// collect waits until every joined row is ready, or some are and the
// linger has passed since the first, then gives indices to joining rows,
// resets those of rows that left, and takes the ready rows' feeds. It
// returns nil rows, and ends the loop, when no row is joined.
func (b *batcher) collect() ([][]int, []*row) {
	var deadline time.Time
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if b.active == 0 {
			b.running = false
			if b.sess != nil {
				b.sess.Close() // its caches, in device memory on a device backend
			}
			b.sess, b.slots, b.free, b.freed = nil, nil, nil, nil
			b.mu.Unlock()
			return nil, nil
		}
		now := time.Now()
		if b.ready > 0 && (b.ready == b.active || !deadline.IsZero() && !now.Before(deadline)) {
			feed, rows := b.take()
			b.mu.Unlock()
			return feed, rows
		}
		if b.ready > 0 && deadline.IsZero() {
			deadline = now.Add(b.linger)
		}
		b.mu.Unlock()
		if deadline.IsZero() {
			<-b.kick
			continue
		}
		timer.Reset(time.Until(deadline))
		select {
		case <-b.kick:
		case <-timer.C:
		}
	}
}

// take (b.mu held, the loop between steps) settles indices and returns
// the ready rows' feeds.
func (b *batcher) take() ([][]int, []*row) {
	if b.sess == nil {
		b.sess = b.m.NewSession(0, b.m.Context())
	}
	for _, i := range b.freed {
		b.sess.Reset(i)
		b.free = append(b.free, i)
	}
	b.freed = b.freed[:0]
	for _, r := range b.joining {
		if n := len(b.free); n > 0 {
			r.slot, b.free = b.free[n-1], b.free[:n-1]
		} else {
			r.slot = b.sess.Add()
			b.slots = append(b.slots, nil)
		}
		b.slots[r.slot] = r
	}
	b.joining = b.joining[:0]
	feed := make([][]int, b.sess.Size())
	var rows []*row
	for i, r := range b.slots {
		if r != nil && r.ready {
			feed[i], r.ready = r.feed, false
			rows = append(rows, r)
		}
	}
	b.ready = 0
	return feed, rows
}

// batchStats are a batcher's counters: steps run, the most rows one step
// decoded, and rows decoded over all steps.
type batchStats struct{ steps, widest, rows int }

func (b *batcher) stats() batchStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return batchStats{b.steps, b.widest, b.stepped}
}

// batchPolicy is the rollout.Policy of one request on a batcher: its one
// session is a row of the batch, which leave takes out.
type batchPolicy struct {
	b   *batcher
	ctx context.Context
	r   *row
}

var _ rollout.Policy = (*batchPolicy)(nil)

// NewSession joins the batch; a request decodes one sequence.
func (p *batchPolicy) NewSession(n, maxLen int) rollout.Session {
	if n != 1 || p.r != nil {
		panic("server: a request decodes one sequence in one session")
	}
	p.r = p.b.join(p.ctx, min(maxLen, p.b.m.Context()))
	return p.r
}

// Context is the model's context.
func (p *batchPolicy) Context() int { return p.b.m.Context() }

// leave takes the request's row, if any, out of the batch.
func (p *batchPolicy) leave() {
	if p.r != nil {
		p.r.leave()
	}
}

// eachChoice runs choice for i < n at once, so that the choices of one
// request decode as rows of one batch. The first error cancels the
// others and is returned (an error other than the cancellation it caused
// when there is one).
func eachChoice(ctx context.Context, n int, choice func(ctx context.Context, i int) error) error {
	if n == 1 {
		return choice(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if errs[i] = choice(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	return first
}
