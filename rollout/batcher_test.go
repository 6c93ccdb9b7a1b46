package rollout

import (
	"context"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestPausedRowHoldsNoStep: a row that paused (its trajectory runs a
// tool call) is not waited for. Without the pause, each step of the
// other row waits at least minLinger for it; with it, steps go at once.
func TestPausedRowHoldsNoStep(t *testing.T) {
	const steps = 100
	tok := taggedTok()
	p := &scriptPolicy{tok: tok, next: func(int, string, string) string { return "a" }}
	for _, tc := range []struct {
		name  string
		pause bool
	}{{"paused", true}, {"not paused", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(func() Rows { return p.NewSession(0, 0).(*scriptSession) }, 0, len(tok.vocab))
			ctx := context.Background()
			away, busy := b.Join(ctx, steps+2), b.Join(ctx, steps+2)
			defer away.Close()
			defer busy.Close()
			if _, err := away.Step([][]int{{1}}); err != nil {
				t.Fatal(err)
			}
			if tc.pause {
				away.Pause()
			}
			began := time.Now()
			for range steps {
				if _, err := busy.Step([][]int{{1}}); err != nil {
					t.Fatal(err)
				}
			}
			took := time.Since(began)
			// Waiting out the linger costs steps×minLinger at least; a
			// step of the script policy costs microseconds.
			if waited := took >= steps*minLinger; waited == tc.pause {
				t.Errorf("%d steps took %v (linger %v each): paused %v", steps, took, minLinger, tc.pause)
			}
		})
	}
}

// deviceRows is Rows that draws on the "device" with the host sampler at
// whatever sampler it is asked for, counting its steps of each kind and
// the most sequences one StepSample drew for.
type deviceRows struct {
	Rows
	steps, samples, widest int
}

func (d *deviceRows) Step(feed [][]int) ([][]float32, error) {
	d.steps++
	return d.Rows.Step(feed)
}

func (d *deviceRows) CanSampleOnDevice() bool { return true }

func (d *deviceRows) StepSample(feed [][]int, us []float64, temperature, topP float64) ([]int, []float32, []float32, error) {
	d.samples++
	logits, err := d.Rows.Step(feed)
	if err != nil {
		return nil, nil, nil, err
	}
	toks, lps, nucs := make([]int, len(feed)), make([]float32, len(feed)), make([]float32, len(feed))
	fed := 0
	for i, l := range logits {
		toks[i] = -1
		if l == nil {
			continue
		}
		fed++
		if toks[i], lps[i], nucs[i], err = (sampler{temperature, topP}).draw(l, us[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	d.widest = max(d.widest, fed)
	return toks, lps, nucs, nil
}

// TestBatcherDraws: rows that ask for draws get them from the session on
// the device when every row of a step draws with one sampler, and from
// their logits on the host otherwise (rows that draw with two samplers,
// or a row that needs its logits): the tokens are those of a batch that
// never draws on the device, whichever way each step went.
func TestBatcherDraws(t *testing.T) {
	const steps = 30
	tok := taggedTok()
	p := &scriptPolicy{tok: tok, peak: 1, rowless: true, next: func(int, string, string) string { return "a" }}
	samplers := [2]sampler{{1, 0.9}, {1, 0.9}}
	cases := []struct {
		name   string
		second sampler // the second row's sampler
		logits bool    // the second row asks for logits (Step) and draws itself
		device bool    // every step draws on the device
	}{
		{"one sampler", samplers[1], false, true},
		{"two samplers", sampler{0.7, 1}, false, false},
		{"logits asked", samplers[1], true, false},
	}
	roll := func(open func() Rows, second sampler, logits bool) ([2][]int, BatchStats) {
		b := NewBatcher(open, 0, len(tok.vocab))
		rows := [2]*BatchRow{b.Join(context.Background(), steps+1), b.Join(context.Background(), steps+1)}
		var got [2][]int
		var wg sync.WaitGroup
		for k, r := range rows {
			wg.Go(func() {
				defer r.Close()
				s, rng := samplers[0], rand.New(rand.NewSource(int64(k+1)))
				if k == 1 {
					s = second
				}
				feed := []int{1}
				for range steps {
					u := rng.Float64()
					var d drawn
					var err error
					if k == 1 && logits {
						var l [][]float32
						if l, err = r.Step([][]int{feed}); err == nil {
							d, err = hostDraw(l[0], u, s)
						}
					} else {
						d, err = r.stepDraw(feed, u, s)
					}
					if err != nil {
						t.Error(err)
						return
					}
					got[k], feed = append(got[k], d.tok), []int{d.tok}
				}
			})
		}
		wg.Wait()
		b.Drain()
		return got, b.Stats()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, _ := roll(func() Rows { return p.NewSession(0, 0).(Rows) }, c.second, c.logits)
			dev := &deviceRows{Rows: p.NewSession(0, 0).(Rows)}
			got, st := roll(func() Rows { return dev }, c.second, c.logits)
			for k := range got {
				if !slices.Equal(got[k], want[k]) {
					t.Errorf("row %d drew %v on the device batch, %v on the host batch", k, got[k], want[k])
				}
			}
			if st.Drawn != dev.samples || st.Steps != dev.samples+dev.steps {
				t.Errorf("stats %+v, session %d draws and %d steps", st, dev.samples, dev.steps)
			}
			if c.device && dev.steps != 0 {
				t.Errorf("%d of %d steps brought logits back, want none", dev.steps, st.Steps)
			}
			if !c.device && dev.widest > 1 {
				t.Errorf("a step drew %d rows on the device that differ in sampler or need logits", dev.widest)
			}
		})
	}
}

// TestBatchRowRestart: a restarted row keeps its place and starts a new
// sequence (the session empties it before its next feed); the other row
// goes on.
func TestBatchRowRestart(t *testing.T) {
	tok := taggedTok()
	p := &scriptPolicy{tok: tok, peak: 40, rowless: true, next: func(int, string, string) string { return "a" }}
	sess := p.NewSession(0, 0).(*scriptSession)
	b := NewBatcher(func() Rows { return sess }, 0, len(tok.vocab))
	ctx := context.Background()
	r0, r1 := b.Join(ctx, 8), b.Join(ctx, 8)
	for _, feed := range []([]int){{1, 2, 3}, {4}} {
		for _, r := range []*BatchRow{r0, r1} {
			r.Pause() // each Step alone, in turn
			if _, err := r.Step([][]int{feed}); err != nil {
				t.Fatal(err)
			}
		}
	}
	r1.Restart()
	if _, err := r1.Step([][]int{{5, 6, 7, 8, 9, 10, 11}}); err != nil {
		t.Fatalf("a restarted row has its whole room again: %v", err)
	}
	r0.Close()
	r1.Close()
	b.Drain()
	if want := [][]int{{1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11}}; !slices.EqualFunc(sess.seqs, want, slices.Equal) {
		t.Errorf("sequences %v, want %v", sess.seqs, want)
	}
}
