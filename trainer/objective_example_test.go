package trainer_test

import (
	"fmt"
	"math"

	"github.com/artist-rl/artist/trainer"
)

// unclippedPG is the importance-weighted policy gradient without a clip:
// s = r·A per token, r = π/π_old, so ∂(−s)/∂logp = −r·A.
func unclippedPG(_ trainer.LossConfig, s trainer.SeqInput, dst []trainer.Surrogate) {
	for t, m := range s.Mask {
		if m != 0 {
			r := math.Exp(float64(s.LogP[t]) - float64(s.OldLogP[t]))
			dst[t] = trainer.Surrogate{Value: r * s.Adv, Grad: -r * s.Adv}
		}
	}
}

// A program adds its loss once, before it parses configs; the config key
// grpo.loss: unclipped_pg then selects it.
func init() {
	trainer.RegisterLoss("unclipped_pg", unclippedPG)
}

// ExampleRegisterLoss adds a policy loss without forking the trainer: a
// Go function and a name. PolicyLoss adds the KL term, the importance
// weights and the aggregation.
func ExampleRegisterLoss() {
	cfg := trainer.DefaultLossConfig()
	cfg.Loss = "unclipped_pg"
	seq := trainer.SeqInput{LogP: []float32{-0.5, -2}, OldLogP: []float32{-1, -2}, Mask: []uint8{1, 1}, Adv: 1}
	out := trainer.PolicyLoss(cfg, []trainer.SeqInput{seq})
	fmt.Printf("loss %.3f coef %.3f\n", out.Loss, out.Coef[0])
	// Output:
	// loss -1.324 coef [-0.824 -0.500]
}
