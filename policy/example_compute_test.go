package policy_test

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/artist-rl/artist/policy"
)

func Example() {
	cfg := policy.Config{
		VocabSize: 40, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64,
		RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true,
	}
	m, err := policy.New(cfg, rand.New(rand.NewSource(1)))
	if err != nil {
		panic(err)
	}

	// Training: the mean negative log-prob of the tokens after the first
	// (supervised fine-tuning) is Σ coef·logp with coef = −1/count.
	seqs := [][]int{{1, 2, 3, 4}, {5, 6}}
	coef := [][]float32{{0, -0.25, -0.25, -0.25}, {0, -0.25}}
	logp, err := m.Backward(seqs, coef)
	if err != nil {
		panic(err)
	}
	fmt.Printf("log p(2 | 1) = %.2f (an untrained model is near −log 40 = %.2f)\n", logp[0][1], -math.Log(40))
	lp, err := m.LogProbs(seqs)
	if err != nil {
		panic(err)
	}
	fmt.Printf("same from LogProbs: %.2f\n", lp[0][1])
	fmt.Println("embedding gradient is set:", m.Embed.Grad[2*16] != 0)

	// Sampling: feed prompts of different lengths, then one token each.
	s := m.NewSession(2, 8)
	logits, err := s.Step([][]int{{1, 2, 3}, {5}})
	if err != nil {
		panic(err)
	}
	fmt.Println("logits per row:", len(logits[0]), len(logits[1]))
	if logits, err = s.Step([][]int{{4}, nil}); err != nil {
		panic(err)
	}
	fmt.Println("skipped row is nil:", logits[1] == nil, "; sequence lengths:", s.Len(0), s.Len(1))
	// Output:
	// log p(2 | 1) = -3.68 (an untrained model is near −log 40 = -3.69)
	// same from LogProbs: -3.68
	// embedding gradient is set: true
	// logits per row: 40 40
	// skipped row is nil: true ; sequence lengths: 4 1
}
