//go:build unix

package policy

// The inference path on the arena test backend, which holds every tensor
// in memory of its own that is unreadable between its kernels and
// refuses host tensors: the model computes through the backend's Memory
// alone, with the numbers of the pure-Go backend.

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/artist-rl/artist/policy/backend/arenatest"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

func newArena(t *testing.T) *arenatest.Backend {
	t.Helper()
	a, err := arenatest.New(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	return a
}

// TestArenaInferenceIsBitIdentical runs LogProbs, MeanHidden and a
// sampled decode (prompt, then tokens drawn from the logits, with a
// sequence added and one reset on the way) on the pure-Go backend and on
// the arena backend, and requires the same bits.
func TestArenaInferenceIsBitIdentical(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	cases := []struct {
		name  string
		model func(t *testing.T) *Model
	}{
		{"tied", func(t *testing.T) *Model { return testModel(t, true, 41) }},
		{"untied", func(t *testing.T) *Model { return testModel(t, false, 42) }},
		{"mid size", func(t *testing.T) *Model {
			m, err := New(invarianceConfigs()["mid"], rand.New(rand.NewSource(43)))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}},
		{"frozen in bfloat16", func(t *testing.T) *Model {
			m := testModel(t, false, 52)
			m.Freeze16()
			return m
		}},
		{"lora and temperature", func(t *testing.T) *Model {
			m := testModel(t, false, 44)
			if err := m.AttachLoRA(LoRAConfig{Rank: 4, Alpha: 8, Targets: []string{"q", "v", "o", "down"}}, rand.New(rand.NewSource(45))); err != nil {
				t.Fatal(err)
			}
			for _, a := range m.LoRA().Adapters {
				for i := range a.B.Data {
					a.B.Data[i] = 0.05 * float32(i%7-3)
				}
			}
			m.SetTemperature(0.7)
			return m
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model(t)
			seqs := randomSeqs(rand.New(rand.NewSource(int64(i))), m.Config.VocabSize, 23, 5, 40, 1, 17)
			m.UseBackend(cpu.NewGo())
			want := inferAll(t, m, seqs)
			a := newArena(t)
			m.UseBackend(a)
			got := inferAll(t, m, seqs)
			for _, name := range slices.Sorted(maps.Keys(want)) {
				if !slices.EqualFunc(got[name], want[name], func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
					t.Errorf("case %d: %s differs between the arena and pure Go", i, name)
				}
			}
		})
	}
}

// inferAll returns, by name, the log-probs, mean hidden state and the
// logits of a sampled decode.
func inferAll(t *testing.T, m *Model, seqs [][]int) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{"LogProbs": flatten(logProbs(t, m, seqs)), "MeanHidden": meanHidden(t, m, seqs[0])}
	s := m.NewSession(len(seqs), 64)
	defer s.Close()
	rng := rand.New(rand.NewSource(7))
	feed := make([][]int, len(seqs))
	for i, sq := range seqs {
		feed[i] = sq[:min(len(sq), 12)]
	}
	for step := range 8 {
		if step == 3 {
			s.Add()
			feed = append(feed, seqs[2][:4])
		}
		if step == 5 {
			s.Reset(1)
			feed[1] = seqs[4][:3]
		}
		logits := mustStep(t, s, feed)
		out["step "+string(rune('0'+step))] = flatten(logits)
		for i, lg := range logits {
			feed[i] = []int{sampleToken(lg, rng)}
		}
	}
	return out
}

// sampleToken draws a token from softmax(logits).
func sampleToken(logits []float32, rng *rand.Rand) int {
	mx := slices.Max(logits)
	p := make([]float64, len(logits))
	sum := 0.0
	for j, v := range logits {
		p[j] = math.Exp(float64(v - mx))
		sum += p[j]
	}
	u := rng.Float64() * sum
	for j, pj := range p {
		if u -= pj; u <= 0 {
			return j
		}
	}
	return len(p) - 1
}

// TestArenaWeightsAreMirrored checks that the arena computes with its
// own copy of the weights: a write to Param.Data is not seen until
// SyncWeights, and then the results are those of pure Go on the new
// weights.
func TestArenaWeightsAreMirrored(t *testing.T) {
	m := testModel(t, false, 46)
	seqs := randomSeqs(rand.New(rand.NewSource(47)), m.Config.VocabSize, 19, 8)
	a := newArena(t)
	m.UseBackend(a)
	before := logProbs(t, m, seqs)
	for i := range m.Layers[0].Up.Data {
		m.Layers[0].Up.Data[i] *= 1.5
	}
	if !bitsEqual(logProbs(t, m, seqs), before) {
		t.Fatal("the arena saw a write to Param.Data before SyncWeights")
	}
	if err := m.SyncWeights(); err != nil {
		t.Fatal(err)
	}
	synced := logProbs(t, m, seqs)
	m.UseBackend(cpu.NewGo())
	if want := logProbs(t, m, seqs); !bitsEqual(synced, want) || bitsEqual(synced, before) {
		t.Error("after SyncWeights the arena's log-probs are not pure Go's on the new weights")
	}
}

// TestArenaFreesWhatItAllocates checks that LogProbs, MeanHidden and a
// closed Session leave no tensor behind but the weights.
func TestArenaFreesWhatItAllocates(t *testing.T) {
	m := testModel(t, true, 48)
	a := newArena(t)
	m.UseBackend(a)
	seqs := randomSeqs(rand.New(rand.NewSource(49)), m.Config.VocabSize, 30, 9)
	logProbs(t, m, seqs) // mirrors the weights
	weights := a.Live()
	logProbs(t, m, seqs)
	meanHidden(t, m, seqs[0])
	s := m.NewSession(2, 64)
	mustStep(t, s, seqs)
	mustStep(t, s, [][]int{{1}, {2}})
	s.Close()
	if got := a.Live(); got != weights {
		t.Errorf("arena holds %d bytes after the calls, %d before (the weights)", got, weights)
	}
}

// TestArenaBackwardIsBitIdentical runs Backward twice (the second adds to
// the first's gradients) on pure Go and on the arena, and requires the
// same log-probs and gradients bit for bit: full weights, tied, adapters
// (with dropout too), each with and without recomputing blocks, and the
// fused LM head in chunks of 3 rows (which gathers the rows with a
// gradient, some rows having none) on tied, untied and frozen heads.
func TestArenaBackwardIsBitIdentical(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	cases := []struct {
		name                         string
		tied, lora, recompute, fused bool
		dropout                      float64
	}{
		{name: "full weights"}, {name: "tied", tied: true}, {name: "lora", lora: true},
		{name: "lora dropout", lora: true, dropout: 0.3},
		{name: "recompute", recompute: true}, {name: "recompute tied", tied: true, recompute: true},
		{name: "recompute lora", lora: true, recompute: true},
		{name: "fused head", fused: true}, {name: "fused head tied", tied: true, fused: true},
		{name: "fused head lora", tied: true, lora: true, fused: true},
		{name: "fused head recompute tied", tied: true, recompute: true, fused: true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := testModel(t, tc.tied, 53)
			if tc.lora {
				cfg := LoRAConfig{Rank: 2, Alpha: 4, Dropout: tc.dropout, Targets: []string{"q", "k", "v", "o", "gate", "up", "down"}}
				if err := m.AttachLoRA(cfg, rand.New(rand.NewSource(54))); err != nil {
					t.Fatal(err)
				}
				fillZeroAdapters(m)
			}
			m.SetRecompute(tc.recompute)
			if tc.fused {
				m.gs.headFuseAbove, m.gs.headChunkValues = 0, 3*m.Config.VocabSize
			}
			seqs, coef := batchFor(55, m.Config.VocabSize)
			for s := range coef {
				for j := 1; j < len(coef[s]); j += 4 {
					coef[s][j] = 0
				}
			}
			run := func() map[string][]float32 {
				m.ZeroGrad()
				if m.lora != nil {
					m.lora.SeedDropout(56)
				}
				out := map[string][]float32{}
				for k := range 2 {
					lp, err := m.Backward(seqs, coef)
					if err != nil {
						t.Fatal(err)
					}
					out[fmt.Sprintf("log-probs %d", k)] = flatten(lp)
				}
				if err := m.HostGrads(); err != nil {
					t.Fatal(err)
				}
				for _, p := range m.TrainParams() {
					out["grad "+p.Name] = append([]float32(nil), p.Grad...)
				}
				return out
			}
			m.UseBackend(cpu.NewGo())
			want := run()
			m.UseBackend(newArena(t))
			got := run()
			for _, name := range slices.Sorted(maps.Keys(want)) {
				if !slices.EqualFunc(got[name], want[name], func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
					t.Errorf("case %d: %s differs between the arena and pure Go", i, name)
				}
			}
			if tc.dropout > 0 && slices.Equal(want["log-probs 0"], want["log-probs 1"]) {
				t.Error("two runs with dropout gave the same log-probs: the masks did not change")
			}
		})
	}
}
