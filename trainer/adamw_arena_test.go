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
// pure Go, and requires the same weights and moments bit for bit.
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
		opt := NewAdamWOn(tc.be, params, AdamWConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1, MaxGradNorm: 1})
		for step := range 4 {
			for _, p := range params {
				for j := range p.Grad {
					p.Grad[j] = float32(rng.NormFloat64()) * float32(step+1)
				}
			}
			adamStep(t, opt, 0.05)
		}
		if i == 0 {
			want, wantState = params, opt.State()
			continue
		}
		st := opt.State()
		for j, p := range params {
			if !sameBits(p.Data, want[j].Data) || !sameBits(st.M[p.Name], wantState.M[p.Name]) || !sameBits(st.V[p.Name], wantState.V[p.Name]) {
				t.Errorf("case %d: %s: weights or moments differ from pure Go's", i, p.Name)
			}
		}
		if arena.Live() == 0 {
			t.Error("the arena holds no tensor: the update did not run on it")
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
