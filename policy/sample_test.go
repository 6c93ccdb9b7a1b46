package policy

import (
	"fmt"
	"github.com/artist-rl/artist/policy/backend/cpu"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestLogProbsMatchesReference(t *testing.T) {
	for _, tied := range []bool{false, true} {
		t.Run(fmt.Sprintf("tied=%t", tied), func(t *testing.T) {
			m := testModel(t, tied, 21)
			seqs := randomSeqs(rand.New(rand.NewSource(22)), m.Config.VocabSize, 9, 1, 0, 30, 17)
			got := logProbs(t, m, seqs)
			for i, s := range seqs {
				if len(got[i]) != len(s) {
					t.Fatalf("row %d: %d log-probs for %d tokens", i, len(got[i]), len(s))
				}
			}
			if d := maxAbsDiff(got, refLogProbs(m, seqs)); d > 1e-4 {
				t.Errorf("max abs diff %.3g", d)
			}
		})
	}
}

// TestSessionStep feeds sequences in several schedules and checks every
// returned logit row against the reference's full-forward distribution and
// LogProbs. schedule[s][i] is how many tokens step s feeds to row i.
func TestSessionStep(t *testing.T) {
	cases := []struct {
		name     string
		tied     bool
		schedule [][]int
	}{
		{"one token at a time", false, repeat([]int{1, 1, 1}, 12)},
		{"chunks of different sizes", true, [][]int{{5, 2, 1}, {3, 2, 7}, {1, 2, 1}, {4, 2, 3}}},
		{"skipped rows, different lengths", false, [][]int{{3, 0, 1, 6}, {0, 0, 1, 1}, {1, 4, 0, 1}, {0, 1, 0, 0}, {2, 1, 1, 1}}},
		{"prompt then decode", true, append([][]int{{8, 6}}, repeat([]int{1, 1}, 8)...)},
	}
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := testModel(t, tc.tied, int64(30+ci))
			rows := len(tc.schedule[0])
			lens := make([]int, rows)
			for _, step := range tc.schedule {
				for i, n := range step {
					lens[i] += n
				}
			}
			seqs := randomSeqs(rand.New(rand.NewSource(int64(40+ci))), m.Config.VocabSize, lens...)
			ref := make([][][]float64, rows)
			for i, s := range seqs {
				ref[i] = refLogSoftmax(m, s)
			}
			plain := logProbs(t, m, seqs)
			s := m.NewSession(rows, 64)
			fed := make([]int, rows)
			worst := 0.0
			for si, step := range tc.schedule {
				feed := make([][]int, rows)
				for i, n := range step {
					feed[i] = seqs[i][fed[i] : fed[i]+n]
				}
				out := mustStep(t, s, feed)
				for i, n := range step {
					fed[i] += n
					if (out[i] == nil) != (n == 0) {
						t.Fatalf("step %d row %d: fed %d tokens, got row %v", si, i, n, out[i])
					}
					if n == 0 {
						continue
					}
					worst = math.Max(worst, compareLogits(t, out[i], ref[i][fed[i]-1], plain[i], seqs[i], fed[i]))
					if s.Len(i) != fed[i] {
						t.Fatalf("row %d holds %d tokens, want %d", i, s.Len(i), fed[i])
					}
				}
			}
			if worst > 1e-4 {
				t.Errorf("max abs diff to full forward %.3g", worst)
			}
		})
	}
}

// compareLogits returns the largest difference between log softmax(logits)
// and the reference distribution, and between the log-prob it gives the
// next token and LogProbs' value for it.
func compareLogits(t *testing.T, logits []float32, ref []float64, plain []float32, seq []int, pos int) float64 {
	t.Helper()
	if len(logits) != len(ref) {
		t.Fatalf("got %d logits, want %d", len(logits), len(ref))
	}
	lse := cpu.LogSumExp(logits)
	worst := 0.0
	for j, z := range logits {
		worst = math.Max(worst, math.Abs(float64(z)-lse-ref[j]))
	}
	if pos < len(seq) {
		lp := float64(logits[seq[pos]]) - lse
		worst = math.Max(worst, math.Abs(lp-float64(plain[pos])))
	}
	return worst
}

func repeat(step []int, n int) [][]int {
	out := make([][]int, n)
	for i := range out {
		out[i] = step
	}
	return out
}

func TestSessionEmptyFeed(t *testing.T) {
	m := testModel(t, true, 50)
	s := m.NewSession(3, 8)
	out := mustStep(t, s, [][]int{nil, {}, nil})
	if len(out) != 3 || out[0] != nil || out[1] != nil || out[2] != nil {
		t.Fatalf("empty feed gave %v", out)
	}
	if s.Len(0)+s.Len(1)+s.Len(2) != 0 {
		t.Fatal("empty feed changed the sequences")
	}
}

func TestSessionPanics(t *testing.T) {
	m := testModel(t, true, 51)
	cases := []struct {
		name string
		run  func()
		want string
	}{
		{"wrong feed count", func() { m.NewSession(2, 8).Step([][]int{{1}}) }, "2 sequences"},
		{"token out of range", func() { m.NewSession(1, 8).Step([][]int{{40}}) }, "outside the vocabulary"},
		{"bad session size", func() { m.NewSession(-1, 8) }, "NewSession"},
		{"LogProbs too long", func() { m.LogProbs([][]int{make([]int, 65)}) }, "max_position_embeddings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "policy: ") || !strings.Contains(msg, tc.want) {
					t.Fatalf("panic %v, want one mentioning %q", r, tc.want)
				}
			}()
			tc.run()
		})
	}
}

// TestSessionOverflow checks that a Step past a sequence's room (maxLen
// or max_position_embeddings) is an error naming the limit.
func TestSessionOverflow(t *testing.T) {
	m := testModel(t, true, 51)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"over maxLen", func() error {
			s := m.NewSession(1, 4)
			mustStep(t, s, [][]int{{1, 2, 3}})
			_, err := s.Step([][]int{{4, 5}})
			return err
		}, "maxLen 4"},
		{"over max_position_embeddings", func() error {
			_, err := m.NewSession(1, 1000).Step([][]int{make([]int, 65)})
			return err
		}, "max_position_embeddings 64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.HasPrefix(err.Error(), "policy: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// mustStep is s.Step for inputs that fit.
func mustStep(tb testing.TB, s *Session, feed [][]int) [][]float32 {
	tb.Helper()
	out, err := s.Step(feed)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestSessionOverflowKeepsState checks that a rejected Step changes
// nothing, so the session stays usable.
func TestSessionOverflowKeepsState(t *testing.T) {
	m := testModel(t, false, 52)
	s := m.NewSession(2, 4)
	mustStep(t, s, [][]int{{1, 2}, {3}})
	if _, err := s.Step([][]int{{4}, {5, 6, 7, 8}}); err == nil { // row 1 would hold 5 tokens
		t.Fatal("Step did not fail")
	}
	if s.Len(0) != 2 || s.Len(1) != 1 {
		t.Fatalf("lengths %d, %d after a rejected Step, want 2, 1", s.Len(0), s.Len(1))
	}
	seq := []int{1, 2, 9}
	got := mustStep(t, s, [][]int{{9}, nil})[0]
	want := refLogSoftmax(m, seq)[2]
	lse := cpu.LogSumExp(got)
	for j, z := range got {
		if d := math.Abs(float64(z) - lse - want[j]); d > 1e-4 {
			t.Fatalf("logit %d off by %.3g after a rejected Step", j, d)
		}
	}
}
