package trainer_test

import (
	"fmt"
	"slices"

	"github.com/artist-rl/artist/trainer"
)

// medianBaseline takes the median reward of its group as each rollout's
// baseline: A_i = R_i − median(R_g).
func medianBaseline(r []float64, g int, _ float64) ([]float64, int) {
	adv := make([]float64, len(r))
	zero := 0
	for lo := 0; lo < len(r); lo += g {
		grp := slices.Clone(r[lo : lo+g])
		slices.Sort(grp)
		if grp[0] == grp[g-1] {
			zero++
		}
		med := (grp[(g-1)/2] + grp[g/2]) / 2
		for i := lo; i < lo+g; i++ {
			adv[i] = r[i] - med
		}
	}
	return adv, zero
}

// A program adds its estimator once, before it parses configs; the
// config key grpo.advantage: median then selects it.
func init() {
	trainer.RegisterAdvantage("median", medianBaseline)
}

// ExampleRegisterAdvantage adds an advantage estimator without forking
// the trainer: a Go function and a name.
func ExampleRegisterAdvantage() {
	fn, err := trainer.Advantage("median")
	if err != nil {
		panic(err)
	}
	adv, zero := fn([]float64{0, 1, 4, 2, 2, 2}, 3, 1e-6)
	fmt.Println(adv, zero)
	// Output:
	// [-1 0 3 0 0 0] 1
}
