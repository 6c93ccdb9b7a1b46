package policy

import (
	"math"
	"math/rand"
	"testing"
)

// headRun is the log-probs and the trainable parameters' gradients of two
// Backward calls (the second adds to the first's gradients) on one batch.
type headRun struct {
	logp  [][]float32
	grads [][]float32
}

// runHead builds the test model (tied or not, adapters when lora), sets
// its graph settings with set, and runs the batch twice through Backward
// at temperature 0.7.
func runHead(t *testing.T, tied, lora bool, set func(*graphSettings)) headRun {
	t.Helper()
	m := testModel(t, tied, 41)
	if lora {
		if err := m.AttachLoRA(loraConfig(3), rand.New(rand.NewSource(5))); err != nil {
			t.Fatal(err)
		}
		fillZeroAdapters(m)
	}
	m.SetTemperature(0.7)
	set(&m.gs)
	seqs, coef := batchFor(42, m.Config.VocabSize)
	for i := range coef { // rows without weight are left out of the head's backward
		for t := 0; t < len(coef[i]); t += 3 {
			coef[i][t] = 0
		}
	}
	var r headRun
	m.ZeroGrad()
	for range 2 {
		lp, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		r.logp = lp
	}
	for _, p := range m.TrainParams() {
		r.grads = append(r.grads, append([]float32(nil), p.Grad...))
	}
	return r
}

// fillZeroAdapters gives the adapters' zero weights (B at init) small
// nonzero values, so that every adapter has a gradient.
func fillZeroAdapters(m *Model) {
	for _, a := range m.lora.Params() {
		for i := range a.Data {
			if a.Data[i] == 0 {
				a.Data[i] = float32(math.Sin(float64(i))) * 0.1
			}
		}
	}
}

// TestFusedHeadMatchesUnfused checks the chunked, fused LM head against
// the head's linear node and a log-prob node over the whole logits: the
// same log-probs and gradients within float32 rounding, for chunks of
// one row, of sizes that do and do not divide the N = 4·32 rows,
// and one chunk of all rows; tied and untied heads, and adapters (a
// frozen head).
func TestFusedHeadMatchesUnfused(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tied, lora bool
	}{{"tied", true, false}, {"untied", false, false}, {"lora", true, true}} {
		want := runHead(t, tc.tied, tc.lora, func(gs *graphSettings) { gs.headFuseAbove = math.MaxInt })
		for _, rows := range []int{1, 3, 7, 16, 64, 1000} {
			got := runHead(t, tc.tied, tc.lora, func(gs *graphSettings) {
				gs.headFuseAbove, gs.headChunkValues = 0, rows*tinyConfig(true).VocabSize
			})
			for i := range want.logp {
				for j := range want.logp[i] {
					if d := math.Abs(float64(got.logp[i][j] - want.logp[i][j])); d > 1e-5 {
						t.Fatalf("%s, %d rows a chunk: log-prob [%d][%d] = %g, unfused %g", tc.name, rows, i, j, got.logp[i][j], want.logp[i][j])
					}
				}
			}
			for i := range want.grads {
				scale := 0.0
				for _, g := range want.grads[i] {
					scale = max(scale, math.Abs(float64(g)))
				}
				for j := range want.grads[i] {
					if d := math.Abs(float64(got.grads[i][j] - want.grads[i][j])); d > 1e-5*max(scale, 1) {
						t.Fatalf("%s, %d rows a chunk: gradient %d[%d] = %g, unfused %g", tc.name, rows, i, j, got.grads[i][j], want.grads[i][j])
					}
				}
			}
		}
	}
}

// TestRecomputeMatchesSaving checks that decoder blocks which recompute
// their values in the backward pass give the same bits as the graph that
// keeps them: log-probs and every gradient, over two Backward calls, with
// and without the fused head, tied and untied, with the attention
// probabilities saved and recomputed, and with adapters on a frozen base.
func TestRecomputeMatchesSaving(t *testing.T) {
	for _, tc := range []struct {
		name              string
		tied, fused, lora bool
		probs             int
	}{{"tied", true, false, false, 8 << 20}, {"untied", false, false, false, 8 << 20}, {"fused head", true, true, false, 8 << 20},
		{"attention recomputed", false, false, false, 0}, {"lora", true, false, true, 8 << 20}, {"lora, fused head", false, true, true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			set := func(recompute bool) func(*graphSettings) {
				return func(gs *graphSettings) {
					gs.recompute, gs.maxSavedProbs = recompute, tc.probs
					if tc.fused {
						gs.headFuseAbove, gs.headChunkValues = 0, 5*tinyConfig(true).VocabSize
					}
				}
			}
			want, got := runHead(t, tc.tied, tc.lora, set(false)), runHead(t, tc.tied, tc.lora, set(true))
			for i := range want.logp {
				for j := range want.logp[i] {
					if got.logp[i][j] != want.logp[i][j] {
						t.Fatalf("log-prob [%d][%d] = %g, saving %g", i, j, got.logp[i][j], want.logp[i][j])
					}
				}
			}
			for i := range want.grads {
				for j := range want.grads[i] {
					if got.grads[i][j] != want.grads[i][j] {
						t.Fatalf("gradient %d[%d] = %g, saving %g", i, j, got.grads[i][j], want.grads[i][j])
					}
				}
			}
		})
	}
}

// TestRecomputeMatchesSavingLong repeats the check of
// TestRecomputeMatchesSaving at the default training model's sizes on
// longer batches (several row blocks of attention, products whose sums
// span many rows), where a gradient accumulated in another order would
// show.
func TestRecomputeMatchesSavingLong(t *testing.T) {
	cfg := Config{VocabSize: 521, HiddenSize: 64, IntermediateSize: 176, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true}
	run := func(recompute, lora bool, lens []int) [][]float32 {
		m, err := New(cfg, rand.New(rand.NewSource(3)))
		if err != nil {
			t.Fatal(err)
		}
		if lora {
			if err := m.AttachLoRA(loraConfig(4), rand.New(rand.NewSource(5))); err != nil {
				t.Fatal(err)
			}
			for _, a := range m.lora.Adapters {
				for i := range a.B.Data {
					a.B.Data[i] = float32(math.Cos(float64(i))) * 0.05
				}
			}
		}
		m.SetRecompute(recompute)
		rng := rand.New(rand.NewSource(4))
		seqs := randomSeqs(rng, cfg.VocabSize, lens...)
		coef := make([][]float32, len(seqs))
		for i, s := range seqs {
			coef[i] = make([]float32, len(s))
			for j := range coef[i] {
				coef[i][j] = float32(rng.NormFloat64())
			}
		}
		m.ZeroGrad()
		for range 2 {
			if _, err := m.Backward(seqs, coef); err != nil {
				t.Fatal(err)
			}
		}
		var g [][]float32
		for _, p := range m.TrainParams() {
			g = append(g, append([]float32(nil), p.Grad...))
		}
		return g
	}
	for _, lora := range []bool{false, true} {
		for _, lens := range [][]int{{90, 70, 50}, {200, 30, 30, 30, 30, 30, 30, 30, 30}} {
			want, got := run(false, lora, lens), run(true, lora, lens)
			for i := range want {
				for j := range want[i] {
					if got[i][j] != want[i][j] {
						t.Fatalf("lora %t, lengths %v: gradient %d[%d] = %g recomputed, %g saved", lora, lens, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
}

// TestEmbedScatter checks that the embedding gradient added without a
// [V, C] buffer is the same bits as the backend's EmbedBack followed by
// an addition, with repeated ids, into a gradient that already holds
// values.
func TestEmbedScatter(t *testing.T) {
	const V, C, N = 11, 5, 40
	rng := rand.New(rand.NewSource(9))
	ids, dy, grad := make([]float32, N), make([]float32, N*C), make([]float32, V*C)
	for r := range ids {
		ids[r] = float32(rng.Intn(4) * 2) // few distinct ids, several rows each
	}
	for i := range dy {
		dy[i] = float32(rng.NormFloat64())
	}
	for i := range grad {
		grad[i] = float32(rng.NormFloat64())
	}
	want := append([]float32(nil), grad...)
	table := make([]float32, V*C)
	be, err := DefaultBackend()
	if err != nil {
		t.Fatal(err)
	}
	be.Backend.EmbedBack(host(table), host(ids), host(dy), C)
	add(want, table)
	e := &embedScatter{C: C}
	for range 2 { // the second call reuses the buffers
		got := append([]float32(nil), grad...)
		e.add(got, ids, dy)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("gradient [%d] = %g, EmbedBack and an addition give %g", i, got[i], want[i])
			}
		}
	}
}
