package trainer

import (
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// TestMaskToolOutputAblation: with grpo.mask_tool_output false the
// tool-result tokens of a trajectory enter the loss (mask 1, a nonzero
// loss coefficient, log-probs from the policy that sampled); with the
// default they keep mask 0 and coefficient 0. Prompt and user-turn tokens
// stay out either way, tool-call tokens are in either way, and the
// trajectory itself is not changed.
func TestMaskToolOutputAblation(t *testing.T) {
	m, err := policy.New(policy.Config{VocabSize: 30, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(7)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(9))
	tr := &rollout.Trajectory{}
	// prompt 4 | model 2 | call 3 | tool output 6 | model 5 | user 4 | model 3
	P, M, C, R, U := rollout.KindPrompt, rollout.KindModel, rollout.KindToolCall, rollout.KindToolResult, rollout.KindUser
	for _, part := range []struct {
		n    int
		kind rollout.Kind
	}{{4, P}, {2, M}, {3, C}, {6, R}, {5, M}, {4, U}, {3, M}} {
		toks := make([]int, part.n)
		var lps []float32
		for i := range toks {
			toks[i] = rng.Intn(30)
			if part.kind.Sampled() {
				lps = append(lps, -float32(1+rng.Intn(3)))
			}
		}
		if part.kind == P {
			tr.PromptLen += part.n
		}
		tr.Append(toks, part.kind, lps)
	}
	origMask := append([]uint8(nil), tr.Mask...)
	cur := logProbs(t, m, [][]int{tr.Tokens})[0]
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	isTool := func(k int) bool { return k >= 9 && k < 15 }
	isUser := func(k int) bool { return k >= 20 && k < 24 }

	for _, c := range []struct {
		name     string
		maskTool bool
	}{{"masked (default)", true}, {"unmasked ablation", false}} {
		t.Run(c.name, func(t *testing.T) {
			r := &Run{Cfg: DefaultConfig(), Model: m}
			r.Cfg.GRPO.MaskToolOutput = c.maskTool
			logp, mask, err := r.lossSeqs([]*rollout.Trajectory{tr}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: AggSeqMeanTokenMean},
				[]SeqInput{{LogP: logp[0], OldLogP: logp[0], Mask: mask[0], Adv: 1.5}})
			for k := range tr.Tokens {
				inLoss := k >= tr.PromptLen && !isUser(k) && (!c.maskTool || !isTool(k))
				if got := mask[0][k] == 1; got != inLoss {
					t.Errorf("token %d: mask %d, want in loss %v", k, mask[0][k], inLoss)
				}
				if got := out.Coef[0][k] != 0; got != inLoss {
					t.Errorf("token %d: loss coefficient %v, want in loss %v", k, out.Coef[0][k], inLoss)
				}
				want := tr.LogProbs[k]
				if !c.maskTool && isTool(k) {
					want = cur[k]
				}
				if logp[0][k] != want {
					t.Errorf("token %d: log-prob %v, want %v", k, logp[0][k], want)
				}
			}
			for k := range origMask {
				if tr.Mask[k] != origMask[k] {
					t.Fatalf("the trajectory's mask changed at token %d", k)
				}
			}
		})
	}
	if !DefaultConfig().GRPO.MaskToolOutput {
		t.Error("grpo.mask_tool_output defaults to false; the paper masks tool output")
	}
}
