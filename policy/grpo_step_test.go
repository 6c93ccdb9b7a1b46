package policy

import (
	"math"
	"math/rand"
	"path/filepath"
	"testing"
)

// grpoBatch is one group of G sampled sequences of a prompt: tokens, a loss
// mask (1 on model tokens, 0 on the prompt and on a tool result), and
// group-normalised advantages.
type grpoBatch struct {
	seqs [][]int
	mask [][]bool
	adv  []float64
}

func newGRPOBatch(rng *rand.Rand, V int) grpoBatch {
	prompt := []int{3, 17, 42, 5, 9}
	rewards := []float64{1, 0, 0.5, 0}
	var b grpoBatch
	for i := range rewards {
		seq := append([]int(nil), prompt...)
		mask := make([]bool, len(prompt))
		for t := range 12 + 3*i {
			seq = append(seq, rng.Intn(V))
			mask = append(mask, t < 6 || t >= 9) // tokens 6..8 are a tool result
		}
		b.seqs, b.mask = append(b.seqs, seq), append(b.mask, mask)
	}
	mean, sd := 0.0, 0.0
	for _, r := range rewards {
		mean += r / float64(len(rewards))
	}
	for _, r := range rewards {
		sd += (r - mean) * (r - mean) / float64(len(rewards))
	}
	for _, r := range rewards {
		b.adv = append(b.adv, (r-mean)/(math.Sqrt(sd)+1e-6))
	}
	return b
}

// loss is GRPO's clipped surrogate (ARTIST eq. 1, seq-mean-token-mean,
// no KL): −(1/G) Σ_i (1/n_i) Σ_{t: mask} min(r·A_i, clip(r, 0.8, 1.2)·A_i)
// with r = exp(logp − old). coef is ∂loss/∂logp.
func (b grpoBatch) loss(logp, old [][]float32) (loss float64, coef [][]float32) {
	G := float64(len(b.seqs))
	coef = make([][]float32, len(b.seqs))
	for i, seq := range b.seqs {
		coef[i] = make([]float32, len(seq))
		n := 0
		for _, m := range b.mask[i] {
			if m {
				n++
			}
		}
		for t, m := range b.mask[i] {
			if !m {
				continue
			}
			r := math.Exp(float64(logp[i][t]) - float64(old[i][t]))
			a := b.adv[i]
			clipped := min(max(r, 0.8), 1.2)
			loss -= min(r*a, clipped*a) / float64(n) / G
			if r*a <= clipped*a { // the unclipped branch is active
				coef[i][t] = float32(-r * a / float64(n) / G)
			}
		}
	}
	return loss, coef
}

// TestGRPOStepLowersLoss runs one GRPO update on a Qwen2 checkpoint loaded
// from disk: the gradient from Backward, one SGD step, and the clipped
// surrogate of the same batch recomputed under the new weights. The loss
// must fall by about lr·‖g‖² (first order), which fails if the gradient
// has the wrong sign, scale or direction.
func TestGRPOStepLowersLoss(t *testing.T) {
	m, err := LoadModel(filepath.Join("testdata", "qwen2-ref", "untied-f32"))
	if err != nil {
		t.Fatal(err)
	}
	b := newGRPOBatch(rand.New(rand.NewSource(7)), m.Config.VocabSize)
	old := logProbs(t, m, b.seqs)
	before, coef := b.loss(old, old)
	m.ZeroGrad()
	logp, err := m.Backward(b.seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	for i := range logp {
		if e := relErr(logp[i], old[i]); e > 1e-5 {
			t.Fatalf("sequence %d: Backward log-probs differ from LogProbs by %.2e", i, e)
		}
	}
	norm2 := 0.0
	for _, p := range m.Params {
		for _, g := range p.Grad {
			norm2 += float64(g) * float64(g)
		}
	}
	if norm2 == 0 {
		t.Fatal("zero gradient")
	}
	lr := 1e-3 / norm2 // predicted decrease lr·‖g‖² = 1e-3
	for _, p := range m.Params {
		for j, g := range p.Grad {
			p.Data[j] -= float32(lr) * g
		}
	}
	after, _ := b.loss(logProbs(t, m, b.seqs), old)
	drop := before - after
	t.Logf("loss %.6f → %.6f (drop %.3g, first-order prediction 1e-3)", before, after, drop)
	if drop < 0.5e-3 || drop > 1.5e-3 {
		t.Errorf("loss fell by %.3g, want about 1e-3", drop)
	}
}
