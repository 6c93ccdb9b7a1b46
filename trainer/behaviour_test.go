package trainer

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// byteTok is a tokenizer of bytes, with EOS 256.
type byteTok struct{}

func (byteTok) Encode(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func (byteTok) Decode(ids []int) string {
	b := make([]byte, 0, len(ids))
	for _, id := range ids {
		if id < 256 {
			b = append(b, byte(id))
		}
	}
	return string(b)
}

func (byteTok) EOS() int { return 256 }

// TestBehaviourLogProbs: rollouts at temperature 0.7 with top_p 0.9, and
// at 1 and 1, record log-probs that the training path recomputes at the
// same temperature (Model.SetTemperature, as update sets it): at the
// first update of a step the ratio exp(new − old) is 1 within 1e-5 on
// every sampled token, from Backward's log-probs (the gradient's) and
// from LogProbs (later mini-batches'). The nucleus log-probs are at least
// the full-vocabulary ones.
func TestBehaviourLogProbs(t *testing.T) {
	for _, c := range []struct{ temp, topP float64 }{{0.7, 0.9}, {1, 1}} {
		m, err := policy.New(policy.Config{VocabSize: 257, HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 2,
			NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6},
			rand.New(rand.NewSource(7)))
		if err != nil {
			t.Fatal(err)
		}
		rc := rollout.DefaultConfig()
		rc.GroupSize, rc.MaxResponseTokens, rc.MaxToolCalls, rc.Temperature, rc.TopP = 4, 24, 0, c.temp, c.topP
		e := &rollout.Engine{Policy: PolicyOf(m), Tokenizer: byteTok{}, Format: format.DefaultFormat(), Config: rc}
		trajs, err := e.Run(context.Background(), []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "7*6"}}, rand.New(rand.NewSource(1)))
		if err != nil {
			t.Fatal(err)
		}
		seqs, coef := make([][]int, len(trajs)), make([][]float32, len(trajs))
		for i, tr := range trajs {
			seqs[i], coef[i] = tr.Tokens, make([]float32, len(tr.Tokens))
		}
		m.SetTemperature(c.temp)
		fromGraph, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		fromLogProbs := logProbs(t, m, seqs)
		worst, n := 0.0, 0
		for i, tr := range trajs {
			if got := len(tr.NucleusLogProbs) > 0; got != (c.topP < 1) {
				t.Fatalf("T=%v top_p=%v: nucleus log-probs recorded %v", c.temp, c.topP, got)
			}
			for k, mask := range tr.Mask {
				if mask == 0 {
					continue
				}
				n++
				for _, cur := range []float32{fromGraph[i][k], fromLogProbs[i][k]} {
					worst = math.Max(worst, math.Abs(math.Exp(float64(cur-tr.LogProbs[k]))-1))
				}
				if c.topP < 1 && tr.NucleusLogProbs[k] < tr.LogProbs[k] {
					t.Errorf("token %d of row %d: nucleus log-prob %g below the full %g", k, i, tr.NucleusLogProbs[k], tr.LogProbs[k])
				}
			}
		}
		if n == 0 || worst > 1e-5 {
			t.Errorf("T=%v top_p=%v: %d sampled tokens, worst |ratio − 1| %.3g, want ≤ 1e-5", c.temp, c.topP, n, worst)
		}
		t.Logf("T=%v top_p=%v: %d sampled tokens, worst |ratio − 1| %.3g", c.temp, c.topP, n, worst)
	}
}
