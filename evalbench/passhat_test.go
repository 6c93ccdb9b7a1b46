package evalbench

import (
	"math"
	"testing"

	"github.com/artist-rl/artist/envs/taubench"
)

// TestPassHat checks pass^k against the closed form and against
// tau-bench's own estimator on the same trials.
func TestPassHat(t *testing.T) {
	for i, tc := range []struct {
		correct []bool
		k       int
		want    float64
	}{
		{[]bool{true, true, true, true}, 4, 1},
		{[]bool{true, true, true, false}, 1, 0.75},
		{[]bool{true, true, true, false}, 2, 0.5},        // C(3,2)/C(4,2)
		{[]bool{true, true, true, false}, 4, 0},          // one failure breaks k = n
		{[]bool{true, false, true, false, true}, 3, 0.1}, // C(3,3)/C(5,3)
		{[]bool{false, false}, 1, 0},
		{[]bool{true}, 2, 0}, // fewer samples than k
	} {
		ss := make([]Sample, len(tc.correct))
		rs := make([]float64, len(tc.correct))
		for j, c := range tc.correct {
			ss[j].Correct = c
			if c {
				rs[j] = 1
			}
		}
		got := passHat(ss, tc.k)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("case %d: pass^%d = %v, want %v", i, tc.k, got, tc.want)
		}
		if tc.k <= len(rs) {
			ref, err := taubench.PassHatK([][]float64{rs}, tc.k)
			if err != nil || math.Abs(ref-got) > 1e-12 {
				t.Errorf("case %d: taubench.PassHatK = %v, %v; evalbench %v", i, ref, err, got)
			}
		}
	}
}
