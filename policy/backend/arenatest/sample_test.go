//go:build unix

package arenatest

import (
	"math"
	"testing"
)

// TestDrawRow checks the host reference on rows worked by hand: greedy
// takes the first largest logit with Gap +Inf; four equal logits at
// u = 0.3 take token 1 (running sums 0.25, 0.5, ...) with Gap 0.05;
// topP 1 keeps a token of negligible weight, which u = 1 takes as the
// last in index order; top_p 0.6 over {1, 2, 0, 1} needs the two
// largest and keeps the tie with the lower of them too; a NaN or
// an infinite largest logit gives token −1 and NaN log-probs.
func TestDrawRow(t *testing.T) {
	const eps = 1e-12
	if d := DrawRow([]float32{1, 3, 3, 0}, 0, 1, 0.9); d.Token != 1 || !math.IsInf(d.Gap, 1) || d.LogProb != d.Nucleus {
		t.Errorf("greedy: %+v, want token 1, Gap +Inf, equal log-probs", d)
	}
	d := DrawRow([]float32{0, 0, 0, 0}, 1, 1, 0.3)
	if d.Token != 1 || math.Abs(d.Gap-0.05) > eps || math.Abs(d.LogProb-math.Log(0.25)) > eps || math.Abs(d.Nucleus-d.LogProb) > eps {
		t.Errorf("uniform row at u 0.3: %+v, want token 1, Gap 0.05, log-probs log 1/4", d)
	}
	if d := DrawRow([]float32{0, 0, -200}, 1, 1, 1); d.Token != 2 {
		t.Errorf("top_p 1 at u 1: token %d, want 2 (every token is in the nucleus)", d.Token)
	}
	d = DrawRow([]float32{1, 2, 0, 1}, 1, 0.6, 1)
	if want := 3; d.Token != want {
		t.Errorf("top_p 0.6 at u 1: token %d, want %d (the nucleus {1, 0, 3})", d.Token, want)
	}
	e1, e2 := math.Exp(1), math.Exp(2)
	if want := 1 - math.Log(2*e1+e2); math.Abs(d.Nucleus-want) > eps {
		t.Errorf("top_p 0.6: nucleus log-prob %g, want %g", d.Nucleus, want)
	}
	for _, x := range [][]float32{{0, float32(math.NaN())}, {0, float32(math.Inf(1))}} {
		if d := DrawRow(x, 1, 1, 0.5); d.Token != -1 || !math.IsNaN(d.LogProb) || !math.IsNaN(d.Nucleus) {
			t.Errorf("row %v: %+v, want token −1 and NaN log-probs", x, d)
		}
	}
}
