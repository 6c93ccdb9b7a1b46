package trainer

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// objectivesGolden is testdata/objectives_golden.json, written by
// objectives_golden.py from verl's formulas (core_algos.py,
// torch_functional.py, rollout_corr_helper.py) re-typed in numpy, with
// loss gradients from central differences that freeze what verl detaches.
type objectivesGolden struct {
	Advantages []struct {
		Name       string      `json:"name"`
		Estimator  string      `json:"estimator"`
		GroupSize  int         `json:"group_size"`
		Eps        float64     `json:"eps"`
		Rewards    []float64   `json:"rewards"`
		Tokens     []int       `json:"tokens"`
		Components [][]float64 `json:"components"`
		Weights    []float64   `json:"weights"`
		Want       []float64   `json:"want"`
	} `json:"advantages"`
	Loss []struct {
		Name   string `json:"name"`
		Config struct {
			Loss      string  `json:"loss"`
			EpsLow    float64 `json:"eps_low"`
			EpsHigh   float64 `json:"eps_high"`
			Beta      float64 `json:"beta"`
			KLClamp   float64 `json:"kl_clamp"`
			Agg       string  `json:"agg"`
			MaxTokens int     `json:"max_tokens"`
		} `json:"config"`
		Seqs []struct {
			LogP []float64 `json:"logp"`
			Old  []float64 `json:"old"`
			Ref  []float64 `json:"ref"`
			ISW  []float64 `json:"isw"`
			Mask []uint8   `json:"mask"`
			Adv  float64   `json:"adv"`
		} `json:"seqs"`
		Want struct {
			Loss       float64     `json:"loss"`
			PolicyLoss float64     `json:"policy_loss"`
			KL         float64     `json:"kl"`
			ClipFrac   float64     `json:"clip_frac"`
			Coef       [][]float64 `json:"coef"`
		} `json:"want"`
	} `json:"loss"`
	Mismatch []mismatchGolden `json:"mismatch"`
}

type mismatchGolden struct {
	Name    string      `json:"name"`
	Train   [][]float64 `json:"train"`
	Sampler [][]float64 `json:"sampler"`
	Mask    [][]uint8   `json:"mask"`
	ISCap   float64     `json:"is_cap"`
	RSLo    float64     `json:"rs_lo"`
	RSHi    float64     `json:"rs_hi"`
	Want    struct {
		TokenWeights    [][]float64 `json:"token_weights"`
		SeqWeights      [][]float64 `json:"seq_weights"`
		KeepToken       [][]uint8   `json:"keep_token"`
		KeepSequence    [][]uint8   `json:"keep_sequence"`
		KeepGeometric   [][]uint8   `json:"keep_geometric"`
		KLK1            float64     `json:"kl_k1"`
		KLK3            float64     `json:"kl_k3"`
		LogPPLDiff      float64     `json:"log_ppl_diff"`
		LogPPLAbsDiff   float64     `json:"log_ppl_abs_diff"`
		ESSToken        float64     `json:"ess_token"`
		ESSSequence     float64     `json:"ess_sequence"`
		MaskedToken     [2]float64  `json:"masked_token"`
		MaskedGeometric [2]float64  `json:"masked_geometric"`
		MaxRatio        float64     `json:"max_ratio"`
	} `json:"want"`
}

func readObjectivesGolden(t *testing.T) objectivesGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "objectives_golden.json"))
	if err != nil {
		t.Fatalf("%v (regenerate with /usr/bin/python3 testdata/objectives_golden.py)", err)
	}
	var g objectivesGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Advantages) < 8 || len(g.Loss) < 12 || len(g.Mismatch) < 3 {
		t.Fatalf("golden file holds %d advantage, %d loss and %d mismatch cases", len(g.Advantages), len(g.Loss), len(g.Mismatch))
	}
	return g
}

// TestAdvantagesMatchVerl checks rloo, reinforce_pp, reinforce_pp_baseline
// and gdpo against verl's estimators to 1e-7.
func TestAdvantagesMatchVerl(t *testing.T) {
	g := readObjectivesGolden(t)
	for _, tc := range g.Advantages {
		t.Run(tc.Name, func(t *testing.T) {
			in := AdvantageInput{Rewards: tc.Rewards, GroupSize: tc.GroupSize, Eps: tc.Eps, Tokens: tc.Tokens,
				Components: tc.Components, Weights: tc.Weights}
			got, _, err := Estimate(tc.Estimator, in)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.Want {
				if !grpoClose(got[i], want, 1e-7) {
					t.Errorf("A[%d] = %.12g, verl %.12g", i, got[i], want)
				}
			}
		})
	}
}

// TestObjectiveLossMatchesVerl checks gspo and cispo, with every
// aggregation, the k3 term and importance weights, against verl's
// compute_policy_loss_gspo and compute_policy_loss_cispo: loss, policy
// part, k3, clip fraction to 1e-7, and every token's gradient.
func TestObjectiveLossMatchesVerl(t *testing.T) {
	g := readObjectivesGolden(t)
	for _, tc := range g.Loss {
		t.Run(tc.Name, func(t *testing.T) {
			c := tc.Config
			cfg := LossConfig{Loss: c.Loss, EpsLow: c.EpsLow, EpsHigh: c.EpsHigh, Beta: c.Beta, KLClamp: c.KLClamp,
				Agg: c.Agg, MaxTokens: c.MaxTokens}
			seqs := make([]SeqInput, len(tc.Seqs))
			for i, s := range tc.Seqs {
				seqs[i] = SeqInput{LogP: float32s(s.LogP), OldLogP: float32s(s.Old), RefLogP: float32s(s.Ref),
					ISWeight: float32s(s.ISW), Mask: s.Mask, Adv: s.Adv}
			}
			out := PolicyLoss(cfg, seqs)
			w := tc.Want
			for _, v := range []struct {
				name      string
				got, want float64
			}{{"loss", out.Loss, w.Loss}, {"policy loss", out.PolicyLoss, w.PolicyLoss}, {"kl", out.KL, w.KL},
				{"clip frac", out.ClipFrac, w.ClipFrac}} {
				if !grpoClose(v.got, v.want, 1e-7) {
					t.Errorf("%s = %.12g, verl %.12g", v.name, v.got, v.want)
				}
			}
			for i := range w.Coef {
				for j, want := range w.Coef[i] {
					if got := float64(out.Coef[i][j]); math.Abs(got-want) > 1e-8+1e-6*math.Abs(want) {
						t.Errorf("coef[%d][%d] = %.9g, verl gradient %.9g", i, j, got, want)
					}
				}
			}
		})
	}
}

// TestMismatchMatchesVerl checks the importance weights, the three
// rejection masks and the mismatch metrics against verl's rollout
// correction.
func TestMismatchMatchesVerl(t *testing.T) {
	g := readObjectivesGolden(t)
	for _, tc := range g.Mismatch {
		t.Run(tc.Name, func(t *testing.T) {
			in := MismatchInput{Mask: tc.Mask}
			for i := range tc.Mask {
				in.Train = append(in.Train, float32s(tc.Train[i]))
				in.Sampler = append(in.Sampler, float32s(tc.Sampler[i]))
			}
			w := tc.Want
			tokW, seqW := TokenISWeights(in, tc.ISCap), SequenceISWeights(in, tc.ISCap)
			closeRows(t, "token weights", tokW, w.TokenWeights)
			closeRows(t, "sequence weights", seqW, w.SeqWeights)
			for _, m := range []struct {
				mode string
				want [][]uint8
			}{{RejectToken, w.KeepToken}, {RejectSequence, w.KeepSequence}, {RejectGeometric, w.KeepGeometric}} {
				got := RejectionMask(in, m.mode, tc.RSLo, tc.RSHi)
				for i := range m.want {
					for j := range m.want[i] {
						if got[i][j] != m.want[i][j] {
							t.Errorf("%s mask[%d][%d] = %d, verl %d", m.mode, i, j, got[i][j], m.want[i][j])
						}
					}
				}
			}
			st := Mismatch(in, tokW, RejectionMask(in, RejectToken, tc.RSLo, tc.RSHi))
			geo := Mismatch(in, seqW, RejectionMask(in, RejectGeometric, tc.RSLo, tc.RSHi))
			for _, v := range []struct {
				name      string
				got, want float64
			}{{"kl k1", st.KLK1, w.KLK1}, {"kl k3", st.KLK3, w.KLK3}, {"log ppl diff", st.LogPPLDiff, w.LogPPLDiff},
				{"log ppl abs diff", st.LogPPLAbsDiff, w.LogPPLAbsDiff}, {"ess token", st.ESS, w.ESSToken},
				{"ess sequence", geo.ESS, w.ESSSequence}, {"max ratio", st.MaxRatio, w.MaxRatio},
				{"masked tokens", st.MaskedTokenFrac, w.MaskedToken[0]}, {"masked seqs", st.MaskedSeqFrac, w.MaskedToken[1]},
				{"geometric masked tokens", geo.MaskedTokenFrac, w.MaskedGeometric[0]},
				{"geometric masked seqs", geo.MaskedSeqFrac, w.MaskedGeometric[1]}} {
				if !grpoClose(v.got, v.want, 1e-7) {
					t.Errorf("%s = %.12g, verl %.12g", v.name, v.got, v.want)
				}
			}
		})
	}
}

func closeRows(t *testing.T, name string, got, want [][]float64) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if !grpoClose(got[i][j], want[i][j], 1e-7) {
				t.Errorf("%s[%d][%d] = %.12g, verl %.12g", name, i, j, got[i][j], want[i][j])
			}
		}
	}
}
