package evalbench

import (
	"math"
	"testing"
)

// TestPassHat checks pass^k against the closed form C(c, k) / C(n, k).
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
		{[]bool{true, false, true, false}, 2, 1.0 / 6},
		{[]bool{true, false, true, false}, 1, 0.5},
	} {
		ss := make([]Sample, len(tc.correct))
		for j, c := range tc.correct {
			ss[j].Correct = c
		}
		got := passHat(ss, tc.k)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("case %d: pass^%d = %v, want %v", i, tc.k, got, tc.want)
		}
	}
}
