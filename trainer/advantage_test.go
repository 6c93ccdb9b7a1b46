package trainer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEstimatorsByHand(t *testing.T) {
	tests := []struct {
		name string
		est  string
		in   AdvantageInput
		want []float64
		zero int
	}{
		// {0, 1, 2, 5}: mean 2, each minus the mean of the other three.
		{"rloo", "rloo", AdvantageInput{Rewards: []float64{0, 1, 2, 5}, GroupSize: 4},
			[]float64{0 - 8.0/3, 1 - 7.0/3, 2 - 6.0/3, 5 - 3.0/3}, 0},
		{"rloo equal", "rloo", AdvantageInput{Rewards: []float64{0.1, 0.1, 0.1}, GroupSize: 3}, []float64{0, 0, 0}, 1},
		// {0, 2}, {1, 1}: returns {0, 2, 1, 1}, mean 1, sample variance
		// 2/3; the zero-spread group stays at 0 after whitening.
		{"reinforce_pp", "reinforce_pp", AdvantageInput{Rewards: []float64{0, 2, 1, 1}, GroupSize: 2},
			[]float64{-1 / math.Sqrt(2.0/3+1e-8), 1 / math.Sqrt(2.0/3+1e-8), 0, 0}, 1},
		// Baseline: {−1, 1, 0, 0}, mean 0, sample variance 2/3.
		{"reinforce_pp_baseline", "reinforce_pp_baseline", AdvantageInput{Rewards: []float64{0, 2, 3, 3}, GroupSize: 2},
			[]float64{-1 / math.Sqrt(2.0/3+1e-8), 1 / math.Sqrt(2.0/3+1e-8), 0, 0}, 1},
		// Tokens {3, 1, 0, 0}: x = {0, 2} weighted 3:1, μ = 0.5, σ² =
		// (3·0.25 + 2.25)/3 = 1; empty rollouts get 0.
		{"reinforce_pp tokens", "reinforce_pp", AdvantageInput{Rewards: []float64{0, 2, 5, 7}, GroupSize: 2, Tokens: []int{3, 1, 0, 0}},
			[]float64{-0.5 / math.Sqrt(1+1e-8), 1.5 / math.Sqrt(1+1e-8), 0, 0}, 0},
		// GDPO: the answer component {0, 2} and format {0.5, 0} each
		// normalise to ∓1/√2 in the group; weights 1 and 1 cancel them.
		{"gdpo cancels", "gdpo", AdvantageInput{Rewards: []float64{0.5, 2}, GroupSize: 2, Eps: 0,
			Components: [][]float64{{0, 2}, {0.5, 0}}, Weights: []float64{1, 1}}, []float64{0, 0}, 0},
		// A component with no spread adds nothing; the other normalises to
		// ∓1/√2 (ε = 0), whose batch variance is 1.
		{"gdpo constant component", "gdpo", AdvantageInput{Rewards: []float64{3, 4}, GroupSize: 2, Eps: 0,
			Components: [][]float64{{3, 3}, {0, 1}}, Weights: []float64{1, 1}},
			[]float64{-1 / math.Sqrt2 / math.Sqrt(1+1e-8), 1 / math.Sqrt2 / math.Sqrt(1+1e-8)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, zero, err := Estimate(tc.est, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if zero != tc.zero {
				t.Errorf("zero-spread groups = %d, want %d", zero, tc.zero)
			}
			for i, want := range tc.want {
				if !grpoClose(got[i], want, 1e-9) {
					t.Errorf("A[%d] = %.12g, want %.12g", i, got[i], want)
				}
			}
		})
	}
}

func TestEstimatorRegistry(t *testing.T) {
	t.Run("gdpo needs components", func(t *testing.T) {
		if _, err := Advantage("gdpo"); err == nil || !strings.Contains(err.Error(), "components") {
			t.Errorf("Advantage(gdpo) = %v, want an error pointing to Estimate", err)
		}
		if _, _, err := Estimate("gdpo", AdvantageInput{Rewards: []float64{1, 2}, GroupSize: 2}); err == nil {
			t.Error("Estimate(gdpo) without components: no error")
		}
		in := AdvantageInput{Rewards: []float64{1, 2}, GroupSize: 2, Components: [][]float64{{1}}, Weights: []float64{1}}
		if _, _, err := Estimate("gdpo", in); err == nil || !strings.Contains(err.Error(), "component 0 has 1 values") {
			t.Errorf("Estimate(gdpo) with a short component = %v", err)
		}
		if !NeedsComponents("gdpo") || NeedsComponents("grpo") || NeedsComponents("nope") {
			t.Error("NeedsComponents is wrong")
		}
	})
	t.Run("simple form of each estimator", func(t *testing.T) {
		for _, name := range []string{"grpo", "drgrpo", "rloo", "reinforce_pp", "reinforce_pp_baseline"} {
			fn, err := Advantage(name)
			if err != nil {
				t.Fatal(err)
			}
			r := []float64{0, 1, 3, 3}
			a, _ := fn(r, 2, 1e-6)
			b, _, _ := Estimate(name, AdvantageInput{Rewards: r, GroupSize: 2, Eps: 1e-6})
			if !slices.Equal(a, b) {
				t.Errorf("%s: Advantage gives %v, Estimate %v", name, a, b)
			}
		}
	})
	t.Run("names shared", func(t *testing.T) {
		msg := grpoPanics(func() { RegisterComponentEstimator("grpo", GDPOAdvantages) })
		if !strings.Contains(msg, "twice") {
			t.Errorf("panic = %q, want a duplicate-registration panic", msg)
		}
	})
}

// ExampleEstimate runs GDPO on two reward components: the answer (weight
// 1) and the format (weight 0.5), each normalised within its group.
func ExampleEstimate() {
	in := AdvantageInput{
		Rewards:    []float64{2.5, 0.5, 2, 0},
		GroupSize:  4,
		Eps:        1e-6,
		Components: [][]float64{{2, 0, 2, 0}, {1, 1, 0, 0}},
		Weights:    []float64{1, 0.5},
	}
	adv, _, err := Estimate("gdpo", in)
	fmt.Printf("%.3f %v\n", adv, err)
	// Output:
	// [1.162 -0.387 0.387 -1.162] <nil>
}

func TestRewardComponents(t *testing.T) {
	parts := []map[string]float64{{"answer": 2, "format": 0.5}, {"answer": 0, "overlong": -0.5}}
	weights := map[string]float64{"answer": 1, "format": 0.5, "tool_success": 1}
	comps, w := RewardComponents(parts, weights)
	// answer, format, overlong, tool_success.
	if fmt.Sprint(comps) != "[[2 0] [0.5 0] [0 -0.5] [0 0]]" || fmt.Sprint(w) != "[1 0.5 1 1]" {
		t.Errorf("components %v weights %v", comps, w)
	}
	totals := []float64{2 + 0.25, 0 - 0.5}
	for i, want := range totals {
		got := 0.0
		for k := range comps {
			got += w[k] * comps[k][i]
		}
		if got != want {
			t.Errorf("rollout %d: Σ w·c = %g, total %g", i, got, want)
		}
	}
}
