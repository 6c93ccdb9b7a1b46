package trainer

import (
	"fmt"
	"math"
)

// AdamConstants are AdamW's constants, the config keys adam_beta1,
// adam_beta2 and adam_eps of grpo and warmstart. The defaults, 0.9, 0.99
// and 1e-8, are those every run used before they were keys.
type AdamConstants struct {
	// Beta1 is the first-moment decay. Default 0.9; in [0, 1).
	Beta1 float64
	// Beta2 is the second-moment decay. Default 0.99 (PyTorch's and TRL's
	// is 0.999: a tiny model from scratch learns faster with 0.99); in
	// [0, 1).
	Beta2 float64
	// Eps is added to the second-moment root. Default 1e-8; > 0.
	Eps float64
}

// defaultAdam is AdamConstants' defaults.
var defaultAdam = AdamConstants{Beta1: 0.9, Beta2: 0.99, Eps: 1e-8}

func (w WarmStartConfig) adam() AdamConstants {
	return AdamConstants{Beta1: w.AdamBeta1, Beta2: w.AdamBeta2, Eps: w.AdamEps}
}

func (g GRPOConfig) adam() AdamConstants {
	return AdamConstants{Beta1: g.AdamBeta1, Beta2: g.AdamBeta2, Eps: g.AdamEps}
}

// validate names section's key that is out of range.
func (a AdamConstants) validate(section string) error {
	switch {
	case !(a.Beta1 >= 0 && a.Beta1 < 1):
		return fmt.Errorf("config: %s.adam_beta1 must be in [0, 1) (usually 0.9), got %v", section, a.Beta1)
	case !(a.Beta2 >= 0 && a.Beta2 < 1):
		return fmt.Errorf("config: %s.adam_beta2 must be in [0, 1) (0.99 by default, 0.999 in PyTorch), got %v", section, a.Beta2)
	case !(a.Eps > 0) || math.IsInf(a.Eps, 0):
		return fmt.Errorf("config: %s.adam_eps must be a finite value > 0 (usually 1e-8), got %v", section, a.Eps)
	}
	return nil
}

// adamW is the optimizer config of a section: its constants, with the
// decay and clipping given.
func (a AdamConstants) adamW(weightDecay, maxGradNorm float64) AdamWConfig {
	return AdamWConfig{Beta1: a.Beta1, Beta2: a.Beta2, Eps: a.Eps, WeightDecay: weightDecay, MaxGradNorm: maxGradNorm}
}
