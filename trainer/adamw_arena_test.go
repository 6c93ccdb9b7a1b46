//go:build unix

package trainer

import (
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/arenatest"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// TestAdamWOnArena runs AdamW steps with the element update on the arena
// test backend (device tensors only, unreadable between kernels) and on
// pure Go, and requires the same weights and moments bit for bit. Halfway
// the state moves into a new optimizer (State, then SetState: a download
// and an upload on the arena, where the moments have no host copy).
func TestAdamWOnArena(t *testing.T) {
	arena, err := arenatest.New(1 << 24)
	if err != nil {
		t.Fatal(err)
	}
	defer arena.Close()
	cases := []struct {
		name string
		be   backend.Backend
	}{{"go", cpu.NewGo()}, {"arena", arena}}
	var want []*policy.Param
	var wantState AdamWState
	for i, tc := range cases {
		rng := rand.New(rand.NewSource(3))
		params := []*policy.Param{
			{Name: "w", Shape: []int{4, 6}, Data: make([]float32, 24)},
			{Name: "b", Shape: []int{6}, Data: make([]float32, 6)},
		}
		for _, p := range params {
			for j := range p.Data {
				p.Data[j] = float32(rng.NormFloat64())
			}
		}
		cfg := AdamWConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1, MaxGradNorm: 1}
		opt := NewAdamW(tc.be, params, cfg)
		for step := range 4 {
			if step == 2 {
				st := stateOf(t, opt)
				opt = NewAdamW(tc.be, params, cfg)
				if err := opt.SetState(st); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range params {
				for j := range p.Grad {
					p.Grad[j] = float32(rng.NormFloat64()) * float32(step+1)
				}
			}
			adamStep(t, opt, 0.05)
		}
		if i == 0 {
			want, wantState = params, stateOf(t, opt)
			continue
		}
		st := stateOf(t, opt)
		for j, p := range params {
			if !sameBits(p.Data, want[j].Data) || !sameBits(st.M[p.Name], wantState.M[p.Name]) || !sameBits(st.V[p.Name], wantState.V[p.Name]) {
				t.Errorf("case %d: %s: weights or moments differ from pure Go's", i, p.Name)
			}
		}
		if opt.m[0] != nil || opt.v[0] != nil {
			t.Error("on the arena the optimizer holds moments on the host")
		}
		if want := 4 * 4 * (24 + 6); arena.Live() < want {
			t.Errorf("the arena holds %d bytes, less than the weights, gradients and moments (%d)", arena.Live(), want)
		}
	}
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestTrainingStepOnArena runs training steps (forward, backward with
// recomputing blocks, AdamW) on the arena test backend and on pure Go
// from the same weights, and requires the same weights and log-probs
// after them, bit for bit.
func TestTrainingStepOnArena(t *testing.T) {
	cfg := policy.Config{VocabSize: 48, HiddenSize: 32, IntermediateSize: 40, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6}
	base, err := policy.New(cfg, rand.New(rand.NewSource(8)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(9))
	seqs, coef := make([][]int, 3), make([][]float32, 3)
	for i, n := range []int{21, 9, 33} {
		seqs[i], coef[i] = make([]int, n), make([]float32, n)
		for j := range seqs[i] {
			seqs[i][j], coef[i][j] = rng.Intn(cfg.VocabSize), float32(rng.NormFloat64())/10
		}
	}
	arena, err := arenatest.New(1 << 26)
	if err != nil {
		t.Fatal(err)
	}
	defer arena.Close()
	train := func(be backend.Backend) (*policy.Model, [][]float32) {
		m := base.Clone()
		m.UseBackend(be)
		m.SetRecompute(true)
		opt := NewAdamW(be, m.TrainParams(), AdamWConfig{LR: 1e-2, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.01, MaxGradNorm: 1})
		for range 2 {
			m.ZeroGrad()
			if _, err := m.Backward(seqs, coef); err != nil {
				t.Fatal(err)
			}
			adamStep(t, opt, 1e-2)
			if err := m.SyncWeights(); err != nil {
				t.Fatal(err)
			}
		}
		return m, logProbs(t, m, seqs)
	}
	want, wantLP := train(cpu.NewGo())
	got, gotLP := train(arena)
	for i, p := range got.Params {
		if !sameBits(p.Data, want.Params[i].Data) {
			t.Errorf("after the steps %s differs between the arena and pure Go", p.Name)
		}
	}
	for i := range wantLP {
		if !sameBits(gotLP[i], wantLP[i]) {
			t.Errorf("sequence %d: log-probs after the steps differ between the arena and pure Go", i)
		}
	}
	if sameBits(want.Params[1].Data, base.Params[1].Data) {
		t.Error("the steps did not change the weights")
	}
}
