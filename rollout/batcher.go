package rollout

// Continuous batching: sequences that come and go share one Rows session
// (a KV cache of rows that can be added and reset), and every decode step
// is one Step over the rows ready for it. A sequence joins as a new row
// (its first feed goes in the next step, beside the others' single
// tokens) and leaves when it ends, is cancelled or fails; its slot is then
// reset for the next one. artist serve decodes its requests on one, and
// the engine its trajectories (Engine.Completer = LocalCompleter over
// Batcher.Policy).

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
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

// Rows is a Session whose sequences can be added and reset: what a
// continuous batcher decodes on. A *policy.Session is one.
type Rows interface {
	Session
	Add() int    // appends an empty sequence and returns its index
	Reset(i int) // empties sequence i for reuse
	Size() int   // the sequences, empty ones included
}

// Batcher decodes sequences on one model together, as they come and go.
// A goroutine (loop) runs while rows are joined; it alone touches the
// session, which open makes when the first row joins and which is closed
// when the last leaves.
type Batcher struct {
	open    func() Rows
	context int // the most tokens of a sequence (Policy.Context)
	vocab   int // token ids must be below it

	mu      sync.Mutex
	sess    Rows          // nil while no row is joined
	slots   []*BatchRow   // row by session index; nil: free
	free    []int         // free session indices
	freed   []int         // indices of rows that left, to reset before reuse
	joining []*BatchRow   // rows without an index yet
	active  int           // rows joined and not left
	away    int           // joined rows that paused (Pause) and have not stepped since
	ready   int           // rows whose feed waits for the next step
	running bool          // loop runs
	stopped chan struct{} // closed when the running loop ends
	linger  time.Duration
	turn    time.Duration // the longest recent time a row took between its steps, decaying
	kick    chan struct{} // wakes loop; buffered 1

	// stats, for tests and the benchmark
	steps, widest, stepped, drawn int
}

// NewBatcher returns a batcher whose session open makes (for a model:
// NewSession(0, its context)); sequences hold at most context tokens (0:
// no limit), each below vocab (0: the session checks them).
func NewBatcher(open func() Rows, context, vocab int) *Batcher {
	return &Batcher{open: open, context: context, vocab: vocab, kick: make(chan struct{}, 1), linger: minLinger}
}

// BatchRow is one sequence in the batch: a Session of one sequence (for
// Complete), which Close takes out of the batch.
type BatchRow struct {
	b      *Batcher
	ctx    context.Context
	slot   int       // session index; -1 until the loop gives one
	maxLen int       // tokens the row may hold, as its NewSession asked
	held   int       // tokens fed so far
	back   time.Time // when the row's last step returned; zero before its first
	feed   []int
	ready  bool
	away   bool     // paused: the steps do not wait for it until its next Step
	want   *drawReq // with feed: draw the next token in the step (nil: return the logits)
	fresh  bool     // Restart: the session's sequence is emptied before the next feed
	left   bool
	done   chan stepResult // buffered 1
}

// drawReq asks a step to draw a row's next token at u with s.
type drawReq struct {
	u float64
	s sampler
}

// stepResult is what a step gives one row: its logits, or the token the
// session drew (drawn set).
type stepResult struct {
	logits []float32
	drawn  bool
	tok    int
	lp     float32
	nuc    float32
	err    error
}

// Join adds a row for a sequence of at most maxLen tokens (and at most
// the batcher's context). Its Step gives up, with ctx's error, when ctx
// ends first.
func (b *Batcher) Join(ctx context.Context, maxLen int) *BatchRow {
	if b.context > 0 {
		maxLen = min(maxLen, b.context)
	}
	r := &BatchRow{b: b, ctx: ctx, slot: -1, maxLen: maxLen, done: make(chan stepResult, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.joining = append(b.joining, r)
	b.active++
	if !b.running {
		b.running = true
		b.stopped = make(chan struct{})
		go b.loop()
	}
	return r
}

// Close takes r out of the batch; its index is reset before reuse. It
// may be called more than once.
func (r *BatchRow) Close() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.left {
		return
	}
	r.left = true
	b.active--
	if r.away {
		r.away = false
		b.away--
	}
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

// Pause says the row will not step again soon (its trajectory runs a
// tool call or waits for a user): until its next Step the batch's steps
// neither wait for it nor count the pause in the rows' turn. A row that
// left, or is waiting in a Step, is not paused.
func (r *BatchRow) Pause() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.left || r.away || r.ready {
		return
	}
	r.away = true
	b.away++
	b.wake()
}

// Restart empties the row's sequence, keeping its place in the batch:
// its next Step starts a new sequence (a trajectory that split at a
// template that rewrote its history).
func (r *BatchRow) Restart() {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	r.fresh, r.held = true, 0
}

func (b *Batcher) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Step feeds feed[0] to the row in the batch's next step and returns its
// logits (Session, for one sequence). It returns the context's error when
// the row's context ends first.
func (r *BatchRow) Step(feed [][]int) ([][]float32, error) {
	if len(feed) != 1 {
		panic(fmt.Sprintf("rollout: a batch row is one sequence, fed %d", len(feed)))
	}
	if len(feed[0]) == 0 {
		return [][]float32{nil}, nil
	}
	res, err := r.submit(feed[0], nil)
	return [][]float32{res.logits}, err
}

// stepDraw feeds feed (not empty) to the row in the batch's next step and
// draws its next token at u with s: on the device when the batch's
// session samples there and every row of the step draws with the same
// s, else on the host from the row's logits.
func (r *BatchRow) stepDraw(feed []int, u float64, s sampler) (drawn, error) {
	res, err := r.submit(feed, &drawReq{u: u, s: s})
	if err != nil {
		return drawn{}, err
	}
	if res.drawn {
		return drawn{tok: res.tok, lp: res.lp, nuc: res.nuc}, nil
	}
	return hostDraw(res.logits, u, s)
}

// submit queues f (not empty) for the batch's next step and waits for
// the row's result.
func (r *BatchRow) submit(f []int, want *drawReq) (stepResult, error) {
	if n := r.held + len(f); n > r.maxLen {
		return stepResult{}, fmt.Errorf("rollout: sequence would hold %d tokens, over its room %d", n, r.maxLen)
	}
	for _, tok := range f {
		if V := r.b.vocab; V > 0 && (tok < 0 || tok >= V) {
			return stepResult{}, fmt.Errorf("rollout: token %d outside the vocabulary [0, %d)", tok, V)
		}
	}
	b := r.b
	b.mu.Lock()
	if r.left {
		b.mu.Unlock()
		return stepResult{}, fmt.Errorf("rollout: Step on a row that left the batch")
	}
	r.feed, r.want, r.ready = f, want, true
	if r.away { // back from a pause: its absence says nothing of a row's turn
		r.away = false
		b.away--
	} else if !r.back.IsZero() {
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
		return res, res.err
	case <-r.ctx.Done():
		b.mu.Lock()
		if r.ready { // not taken into a step yet
			r.ready = false
			b.ready--
		}
		b.mu.Unlock()
		return stepResult{}, r.ctx.Err()
	}
}

// loop runs steps while rows are joined.
func (b *Batcher) loop() {
	for {
		feed, rows := b.collect()
		if rows == nil {
			return
		}
		began := time.Now()
		results := b.stepRows(feed, rows)
		took := time.Since(began)
		b.mu.Lock()
		b.linger = min(maxLinger, max(minLinger, 2*took, 2*b.turn))
		b.steps++
		b.stepped += len(rows)
		b.widest = max(b.widest, len(rows))
		if results[0].drawn {
			b.drawn++
		}
		b.mu.Unlock()
		for k, r := range rows {
			r.done <- results[k]
		}
		// The rows woken above run next on this thread, and the loop
		// after them, in turn: without yielding, a request that waits
		// to join could starve for a whole time slice.
		runtime.Gosched()
	}
}

// stepRows runs one step of the rows (feed by session index) and returns
// each row's result: the tokens the session drew, when it samples on the
// device and every row asks for a draw with the same sampler (onDevice),
// else the logits.
func (b *Batcher) stepRows(feed [][]int, rows []*BatchRow) []stepResult {
	out := make([]stepResult, len(rows))
	if ds, s, ok := b.onDevice(rows); ok {
		us := make([]float64, len(feed))
		for _, r := range rows {
			us[r.slot] = r.want.u
		}
		toks, lps, nucs, err := sampleOnDevice(ds, feed, us, s)
		for k, r := range rows {
			out[k].err = err
			if err == nil {
				out[k] = stepResult{drawn: true, tok: toks[r.slot], lp: lps[r.slot], nuc: nucs[r.slot]}
			}
		}
		return out
	}
	logits, err := b.sess.Step(feed)
	for k, r := range rows {
		out[k].err = err
		if err == nil {
			out[k].logits = logits[r.slot]
		}
	}
	return out
}

// onDevice returns the session as a DeviceSession, and the sampler of
// the step, when the session samples on the device and every row of the
// step asks for a draw with one sampler.
func (b *Batcher) onDevice(rows []*BatchRow) (DeviceSession, sampler, bool) {
	ds, ok := b.sess.(DeviceSession)
	if !ok || !ds.CanSampleOnDevice() {
		return nil, sampler{}, false
	}
	s := sampler{}
	for k, r := range rows {
		if r.want == nil || k > 0 && r.want.s != s {
			return nil, sampler{}, false
		}
		s = r.want.s
	}
	return ds, s, true
}

// collect waits until every joined row that is not paused is ready, or
// some are and the linger has passed since the first, then gives indices to joining rows,
// resets those of rows that left, and takes the ready rows' feeds. It
// returns nil rows, and ends the loop, when no row is joined.
func (b *Batcher) collect() ([][]int, []*BatchRow) {
	var deadline time.Time
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		b.mu.Lock()
		if b.active == 0 {
			b.running = false
			if b.sess != nil {
				closeSession(b.sess) // its caches, in device memory on a device backend
			}
			b.sess, b.slots, b.free, b.freed = nil, nil, nil, nil
			close(b.stopped)
			b.mu.Unlock()
			return nil, nil
		}
		now := time.Now()
		if b.ready > 0 && (b.ready == b.active-b.away || !deadline.IsZero() && !now.Before(deadline)) {
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
func (b *Batcher) take() ([][]int, []*BatchRow) {
	if b.sess == nil {
		b.sess = b.open()
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
	var rows []*BatchRow
	for i, r := range b.slots {
		if r != nil && r.ready {
			if r.fresh {
				b.sess.Reset(i)
				r.fresh = false
			}
			feed[i], r.ready = r.feed, false
			rows = append(rows, r)
		}
	}
	b.ready = 0
	return feed, rows
}

// BatchStats are a batcher's counters: steps run, the most rows one step
// decoded, rows decoded over all steps, and the steps whose tokens the
// session drew on the device.
type BatchStats struct{ Steps, Widest, Rows, Drawn int }

// Stats returns the counters so far.
func (b *Batcher) Stats() BatchStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BatchStats{b.steps, b.widest, b.stepped, b.drawn}
}

// Idle says whether no row is joined and the loop has ended (the session
// is closed).
func (b *Batcher) Idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.active == 0 && !b.running
}

// Drain waits until no row is joined and the loop has closed the
// session; rows that join meanwhile are waited for too.
func (b *Batcher) Drain() {
	for {
		b.mu.Lock()
		running, stopped := b.running, b.stopped
		b.mu.Unlock()
		if !running {
			return
		}
		<-stopped
	}
}

// Policy is the batcher as a Policy whose sessions are single rows
// joined with ctx; closing a session (Complete and the engine do) takes
// its row out.
func (b *Batcher) Policy(ctx context.Context) Policy { return batchPolicy{b, ctx} }

type batchPolicy struct {
	b   *Batcher
	ctx context.Context
}

// NewSession joins the batch; a row decodes one sequence.
func (p batchPolicy) NewSession(n, maxLen int) Session {
	if n != 1 {
		panic(fmt.Sprintf("rollout: a batch row decodes one sequence, asked for %d", n))
	}
	return p.b.Join(p.ctx, maxLen)
}

// Context is the batcher's.
func (p batchPolicy) Context() int { return p.b.context }
