package trainer

import (
	"bytes"
	"context"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// mismatchRun is a run on a small random model with three trajectories
// of a 3-token prompt and 5 sampled tokens each, whose recorded log-probs
// are the model's own moved by delta[i][t] on sampled token t of
// trajectory i: the trainer's ratio π_train/π_sampler there is
// exp(delta).
func mismatchRun(t *testing.T, delta [][]float64) (*Run, []*rollout.Trajectory, [][]float32) {
	t.Helper()
	m, err := policy.New(policy.Config{VocabSize: 30, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 1,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(5)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(11))
	trajs := make([]*rollout.Trajectory, len(delta))
	seqs := make([][]int, len(delta))
	for i := range trajs {
		tr := &rollout.Trajectory{PromptLen: 3}
		tr.Append([]int{rng.Intn(30), rng.Intn(30), rng.Intn(30)}, rollout.KindPrompt, nil)
		toks := make([]int, len(delta[i]))
		for k := range toks {
			toks[k] = rng.Intn(30)
		}
		tr.Append(toks, rollout.KindModel, make([]float32, len(toks)))
		trajs[i], seqs[i] = tr, tr.Tokens
	}
	train := logProbs(t, m, seqs)
	for i, tr := range trajs {
		for k, d := range delta[i] {
			tr.LogProbs[3+k] = train[i][3+k] - float32(d)
		}
	}
	r := &Run{Cfg: DefaultConfig(), Model: m, red: solo{}, out: &bytes.Buffer{}}
	r.Cfg.Rollout.Temperature = 1
	return r, trajs, train
}

// TestCorrectRolloutsStep applies each rollout_correction mode to a batch
// whose first trajectory has one token with ratio e² (outside the default
// band [1/2, 2]), whose second has every ratio e^−0.1 and whose third
// matches, and checks the loss mask, the importance weights, the old
// log-probs and the metrics the update then reads.
func TestCorrectRolloutsStep(t *testing.T) {
	delta := [][]float64{{0, 0, 2, 0, 0}, {-0.1, -0.1, -0.1, -0.1, -0.1}, {0, 0, 0, 0, 0}}
	e := math.Exp
	// want[i] is the weight of each sampled token of trajectory i (nil:
	// no weights), kept[i] whether its sampled tokens stay in the loss.
	cases := []struct {
		name   string
		cfg    RolloutCorrectionConfig
		want   [][]float64
		kept   [][]bool
		masked float64 // mismatch/masked_token_frac
	}{
		{"off", RolloutCorrectionConfig{}, nil, nil, 0},
		{"token is", RolloutCorrectionConfig{IS: "token", ISCap: 2},
			[][]float64{{1, 1, 2, 1, 1}, {e(-0.1), e(-0.1), e(-0.1), e(-0.1), e(-0.1)}, {1, 1, 1, 1, 1}}, nil, 0},
		{"sequence is", RolloutCorrectionConfig{IS: "sequence", ISCap: 2},
			[][]float64{{2, 2, 2, 2, 2}, {e(-0.5), e(-0.5), e(-0.5), e(-0.5), e(-0.5)}, {1, 1, 1, 1, 1}}, nil, 0},
		{"token rs", RolloutCorrectionConfig{RS: RejectToken, RSHigh: 2}, nil,
			[][]bool{{true, true, false, true, true}, {true, true, true, true, true}, {true, true, true, true, true}}, 1.0 / 15},
		{"sequence rs", RolloutCorrectionConfig{RS: RejectSequence, RSHigh: 2}, nil,
			[][]bool{{false, false, false, false, false}, {true, true, true, true, true}, {true, true, true, true, true}}, 5.0 / 15},
		{"geometric rs", RolloutCorrectionConfig{RS: RejectGeometric, RSLow: 0.95, RSHigh: 1.05}, nil,
			[][]bool{{false, false, false, false, false}, {false, false, false, false, false}, {true, true, true, true, true}}, 10.0 / 15},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, trajs, train := mismatchRun(t, delta)
			c.cfg.KLJump = DefaultKLJump
			r.Cfg.GRPO.RolloutCorrection = c.cfg
			keep := []int{0, 1, 2}
			behav, mask, err := r.lossSeqs(trajs, keep)
			if err != nil {
				t.Fatal(err)
			}
			b := &updateBatch{trajs: trajs, seqs: [][]int{trajs[0].Tokens, trajs[1].Tokens, trajs[2].Tokens}, old: behav, first: behav, mask: mask}
			m := Metrics{}
			if err := r.correctRollouts(b, keep, behav, false, m); err != nil {
				t.Fatal(err)
			}
			if c.cfg.Enabled() != (b.measure == nil) || (b.measure != nil && len(m) != 0) {
				t.Fatalf("measure set %v, %d metrics: want the off case left to the first mini-batch", b.measure != nil, len(m))
			}
			if b.measure != nil { // off: measured from the first mini-batch's forward pass
				if m, err = measureFirst(b, keep, pick(train, keep)); err != nil {
					t.Fatal(err)
				}
			}
			checkCorrected(t, b, behav, train, c.cfg.Enabled(), c.want, c.kept)
			if !grpoClose(m["mismatch/max_ratio"], e(2), 1e-5) || !grpoClose(m["mismatch/masked_token_frac"], c.masked, 1e-12) {
				t.Errorf("max_ratio %g masked_token_frac %g, want e² and %g", m["mismatch/max_ratio"], m["mismatch/masked_token_frac"], c.masked)
			}
			if !(m["mismatch/kl_k3"] > 0) || len(m) != len(MismatchStats{}.Metrics()) {
				t.Errorf("metrics %v: want every mismatch/ key and kl_k3 > 0", m)
			}
		})
	}
}

// checkCorrected checks b after correctRollouts: off, the sampler's
// log-probs and the trajectory's mask untouched and no weights; on, the
// trainer's log-probs as old and first, weights want (nil: none) on the
// sampled tokens and those of kept (nil: all) left in the mask.
func checkCorrected(t *testing.T, b *updateBatch, behav, train [][]float32, on bool, want [][]float64, kept [][]bool) {
	t.Helper()
	for i, tr := range b.trajs {
		wantOld := behav[i]
		if on {
			wantOld = train[i]
		}
		if !slices.Equal(b.old[i], wantOld) || !slices.Equal(b.first[i], wantOld) {
			t.Errorf("trajectory %d: old/first log-probs are not the %s's", i, map[bool]string{false: "sampler", true: "trainer"}[on])
		}
		if (want == nil) != (b.isw == nil) {
			t.Fatalf("importance weights %v, want %v", b.isw, want)
		}
		for k := range tr.Tokens {
			wantMask, wantW := tr.Mask[k], 0.0
			if k >= 3 && kept != nil && !kept[i][k-3] {
				wantMask = 0
			}
			if k >= 3 && want != nil {
				wantW = want[i][k-3]
			}
			if b.mask[i][k] != wantMask {
				t.Errorf("trajectory %d token %d: mask %d, want %d", i, k, b.mask[i][k], wantMask)
			}
			if want != nil && !grpoClose(float64(b.isw[i][k]), wantW, 1e-5) {
				t.Errorf("trajectory %d token %d: weight %g, want %g", i, k, b.isw[i][k], wantW)
			}
		}
	}
}

// TestCorrectedUpdate runs the update of a step with token rejection
// and token importance weights on the batch of TestCorrectRolloutsStep and
// checks that it trains on what is left (a nonzero gradient) and
// measures what it dropped; without the correction the same batch moves
// the weights elsewhere.
func TestCorrectedUpdate(t *testing.T) {
	delta := [][]float64{{0, 0, 2, 0, 0}, {-0.1, -0.1, -0.1, -0.1, -0.1}, {0, 0, 0, 0, 0}}
	weights := map[string][]float32{}
	for _, c := range []struct {
		name string
		cfg  RolloutCorrectionConfig
	}{{"off", DefaultRolloutCorrectionConfig()}, {"token is and rs", RolloutCorrectionConfig{IS: "token", ISCap: 2, RS: RejectToken, RSHigh: 2, KLJump: DefaultKLJump}}} {
		r, trajs, _ := mismatchRun(t, delta)
		r.Cfg.GRPO.RolloutCorrection = c.cfg
		opt := NewAdamW(r.Model.Backend(), r.Model.TrainParams(), DefaultAdamWConfig())
		m, err := r.update(context.Background(), trajs, []float64{1, -0.5, 0.25}, opt, nil, rand.New(rand.NewSource(1)), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !(m["grad/norm"] > 0) {
			t.Errorf("%s: grad/norm %v, want > 0", c.name, m["grad/norm"])
		}
		wantMasked := map[bool]float64{false: 0, true: 1.0 / 15}[c.cfg.Enabled()]
		if m["mismatch/masked_token_frac"] != wantMasked {
			t.Errorf("%s: mismatch/masked_token_frac %v, want %v", c.name, m["mismatch/masked_token_frac"], wantMasked)
		}
		weights[c.name] = append([]float32(nil), r.Model.TrainParams()[0].Data...)
	}
	same := true
	for i, v := range weights["off"] {
		same = same && v == weights["token is and rs"][i]
	}
	if same {
		t.Error("the corrected update moved the weights exactly as the uncorrected one")
	}
}

// TestKLJumpWarning feeds klWatch a run's mismatch/kl_k3 and checks the
// steps it reports: a rise of more than kl_jump over the previous step
// at the same staleness, once.
func TestKLJumpWarning(t *testing.T) {
	cases := []struct {
		name      string
		kl, stale []float64
		jump      float64
		want      []int // steps reported
	}{
		{"steady", []float64{1e-6, 2e-6, 1e-6, 3e-6}, nil, 1e-3, nil},
		{"weights stop syncing", []float64{1e-6, 2e-6, 0.05, 0.06, 0.08}, nil, 1e-3, []int{3}},
		{"synced again, then not", []float64{1e-6, 0.05, 0.07, 2e-6, 1e-6, 0.04}, nil, 1e-3, []int{2, 6}},
		{"off", []float64{1e-6, 0.05}, nil, 0, nil},
		{"staleness grows", []float64{1e-6, 0.01, 0.02, 0.02}, []float64{0, 1, 2, 2}, 1e-3, nil},
		{"jump at steady staleness", []float64{0.01, 0.01, 0.2}, []float64{1, 1, 1}, 1e-3, []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w klWatch
			var out bytes.Buffer
			var got []int
			for s, kl := range c.kl {
				m := Metrics{"mismatch/kl_k3": kl}
				if c.stale != nil {
					m["rollout/staleness/mean"] = c.stale[s]
				}
				before := out.Len()
				w.note(&out, s+1, m, c.jump)
				if out.Len() > before {
					got = append(got, s+1)
				}
			}
			w.note(&out, 99, Metrics{}, c.jump) // a step without the metric
			if !slices.Equal(got, c.want) {
				t.Fatalf("reported steps %v, want %v:\n%s", got, c.want, out.String())
			}
			if len(got) > 0 && (strings.Count(out.String(), "\n") != len(got) || !strings.Contains(out.String(), "weight-sync failure") ||
				!strings.Contains(out.String(), "grpo.rollout_correction.kl_jump")) {
				t.Errorf("report %q: want one line naming the key and a weight-sync failure", out.String())
			}
		})
	}
}

// TestMismatchMetricsRun trains the tiny run with and without the
// correction (with gdpo, and with rollouts one update stale) and checks that every GRPO step logs the
// mismatch/ metrics, finite, in metrics.jsonl.
func TestMismatchMetricsRun(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(g *GRPOConfig)
	}{
		{"default", func(*GRPOConfig) {}},
		{"corrected gdpo", func(g *GRPOConfig) {
			g.Advantage = "gdpo"
			g.RolloutCorrection = RolloutCorrectionConfig{IS: "sequence", ISCap: 2, RS: RejectGeometric, RSLow: 0.9999999, RSHigh: 1.0000001, KLJump: DefaultKLJump}
		}},
		{"stale, token is", func(g *GRPOConfig) {
			g.MaxStaleness, g.TISCap = 1, 0
			g.RolloutCorrection = RolloutCorrectionConfig{IS: "token", ISCap: 2, KLJump: DefaultKLJump}
		}},
		{"stale, tis and token rs", func(g *GRPOConfig) {
			g.MaxStaleness = 1
			g.RolloutCorrection = RolloutCorrectionConfig{RS: RejectToken, RSHigh: 1.5, KLJump: DefaultKLJump}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tinyConfig(t, dir)
			c.set(&cfg.GRPO)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if _, err := Train(context.Background(), cfg, nil); err != nil {
				t.Fatal(err)
			}
			recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range recs[1:] {
				if m["rollout/dropped_stale"] > 0 {
					continue
				}
				for k := range (MismatchStats{}).Metrics() {
					if v, ok := m[k]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("step %v: %s = %v (logged %v)", m["step"], k, v, ok)
					}
				}
			}
		})
	}
}

// TestCorrectRolloutsShortRow: a trajectory whose recorded log-probs do
// not cover its tokens is an error of the step, not a panic.
func TestCorrectRolloutsShortRow(t *testing.T) {
	r, trajs, _ := mismatchRun(t, [][]float64{{0, 0}, {0, 0, 0}})
	trajs[1].LogProbs = trajs[1].LogProbs[:4]
	b := &updateBatch{trajs: trajs, seqs: [][]int{trajs[0].Tokens, trajs[1].Tokens},
		old: [][]float32{trajs[0].LogProbs, trajs[1].LogProbs}, mask: [][]uint8{trajs[0].Mask, trajs[1].Mask}}
	b.first = b.old
	r.Cfg.GRPO.MiniBatches = 2 // measured by a forward pass of its own
	err := r.correctRollouts(b, []int{0, 1}, b.old, false, Metrics{})
	if err == nil || !strings.Contains(err.Error(), "trajectory 1 has 6 tokens, 6 trainer and 4 sampler log-probs") {
		t.Errorf("error %v, want one naming trajectory 1 and its counts", err)
	}
	b.measure = b.old // measured from the first mini-batch's forward pass
	_, err = measureFirst(b, []int{0, 1}, [][]float32{make([]float32, 5), make([]float32, 6)})
	if err == nil || !strings.Contains(err.Error(), "trajectory 1 has 6 tokens, 6 trainer and 4 sampler log-probs") {
		t.Errorf("first mini-batch: error %v, want one naming trajectory 1 and its counts", err)
	}
}

// TestMismatchFirstMinibatch: the mismatch measured from the first
// mini-batch's own forward pass (Backward's log-probs) agrees with the one
// a separate forward pass measures (two mini-batches).
func TestMismatchFirstMinibatch(t *testing.T) {
	delta := [][]float64{{0.3, 0, -0.2}, {0.1, 0.1}, {0, -0.5, 0, 0}}
	measure := func(miniBatches int) Metrics {
		r, trajs, _ := mismatchRun(t, delta)
		r.Cfg.GRPO.MiniBatches = miniBatches
		keep := []int{0, 1, 2}
		behav, mask, err := r.lossSeqs(trajs, keep)
		if err != nil {
			t.Fatal(err)
		}
		b := &updateBatch{trajs: trajs, seqs: pick([][]int{trajs[0].Tokens, trajs[1].Tokens, trajs[2].Tokens}, keep), old: behav, first: behav, mask: mask}
		m := Metrics{}
		if err := r.correctRollouts(b, keep, behav, false, m); err != nil {
			t.Fatal(err)
		}
		if b.measure == nil {
			return m
		}
		coef := make([][]float32, len(keep))
		for i := range coef {
			coef[i] = make([]float32, len(b.seqs[i]))
		}
		logp, err := r.backwardOwn(trajs, b.seqs, coef, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = measureFirst(b, keep, logp); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first, own := measure(1), measure(2)
	if len(first) == 0 || len(first) != len(own) {
		t.Fatalf("metrics %v and %v", first, own)
	}
	for k, v := range own {
		if !grpoClose(first[k], v, 1e-6) {
			t.Errorf("%s: first mini-batch %g, own forward pass %g", k, first[k], v)
		}
	}
}
