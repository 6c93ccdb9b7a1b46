//go:build unix

package trainer

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
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
// recomputing blocks, AdamW on the model's own tensors) on the arena test
// backend and on pure Go from the same weights. Without clipping the
// weights and log-probs after the steps agree bit for bit; with clipping
// the gradient norm is summed in float32 on the device and in float64 on
// the host, so the weights agree to 1e-5 of the largest. On the arena a step after
// the first moves its inputs in and its log-probs, cost terms and
// gradient norms out, never the weights or their gradients: the values
// it transfers are counted.
func TestTrainingStepOnArena(t *testing.T) {
	base, seqs, coef, arena := arenaFixture(t, 8, 21, 9, 33)
	for _, maxNorm := range []float64{0, 1} {
		t.Run(fmt.Sprintf("max_grad_norm %g", maxNorm), func(t *testing.T) {
			acfg := AdamWConfig{LR: 1e-2, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.01, MaxGradNorm: maxNorm}
			want, wantLP, _ := trainSteps(t, base, cpu.NewGo(), acfg, seqs, coef)
			c := &transfers{Backend: arena}
			got, gotLP, perStep := trainSteps(t, base, c, acfg, seqs, coef)
			if maxNorm == 0 {
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
			} else {
				// The clipping scale differs in its last bits, and a
				// parameter whose gradient is rounding noise (the key
				// biases: softmax ignores a shift) moves by AdamW's eps
				// term, so the weights are compared as one vector, to the
				// device check's float32 bound.
				d := maxRelDiff(flatWeights(got), flatWeights(want))
				t.Logf("with clipping the weights differ by %.3g relative to the largest", d)
				if d > 1e-5 {
					t.Errorf("after the steps the weights differ between the arena and pure Go by %.3g, over 1e-5", d)
				}
			}
			if sameBits(want.Params[1].Data, base.Params[1].Data) {
				t.Error("the steps did not change the weights")
			}
			// Inputs (ids, targets, coefficients), the log-probs and cost
			// terms, the head's targets and dy: a few values a padded row
			// (4 sequences of 33), and one gradient norm a parameter.
			limit := 10*4*33 + len(got.Params)
			t.Logf("a step moves %d values (limit %d; the model has %d weights)", perStep, limit, got.NumParams())
			if perStep > limit {
				t.Errorf("a step moved %d values between host and device, over %d: weights or gradients crossed", perStep, limit)
			}
		})
	}
}

// arenaFixture is a random 2-layer model (seed), sequences of lens tokens
// with random coefficients (seed+1), and an arena closed when t ends.
func arenaFixture(t *testing.T, seed int64, lens ...int) (*policy.Model, [][]int, [][]float32, *arenatest.Backend) {
	t.Helper()
	cfg := policy.Config{VocabSize: 48, HiddenSize: 32, IntermediateSize: 40, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6}
	base, err := policy.New(cfg, rand.New(rand.NewSource(seed)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed + 1))
	seqs, coef := make([][]int, len(lens)), make([][]float32, len(lens))
	for i, n := range lens {
		seqs[i], coef[i] = make([]int, n), make([]float32, n)
		for j := range seqs[i] {
			seqs[i][j], coef[i][j] = rng.Intn(cfg.VocabSize), float32(rng.NormFloat64())/10
		}
	}
	arena, err := arenatest.New(1 << 26)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { arena.Close() })
	return base, seqs, coef, arena
}

// trainSteps takes three training steps of a copy of base on be and
// returns it (weights on the host), its log-probs of seqs after, and the
// values the last step moved when be is a *transfers.
func trainSteps(t *testing.T, base *policy.Model, be backend.Backend, cfg AdamWConfig, seqs [][]int, coef [][]float32) (*policy.Model, [][]float32, int) {
	m := base.Clone()
	m.UseBackend(be)
	m.SetRecompute(true)
	opt := NewModelAdamW(m, m.TrainParams(), cfg)
	c, _ := be.(*transfers)
	for range 3 {
		if c != nil {
			c.n = 0
		}
		if err := m.ZeroGrad(); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Backward(seqs, coef); err != nil {
			t.Fatal(err)
		}
		adamStep(t, opt, 1e-2)
	}
	var moved int
	if c != nil {
		moved = c.n
	}
	lp := logProbs(t, m, seqs)
	if err := m.HostWeights(); err != nil {
		t.Fatal(err)
	}
	return m, lp, moved
}

// flatWeights is every weight of m, in parameter order.
func flatWeights(m *policy.Model) []float32 {
	var out []float32
	for _, p := range m.Params {
		out = append(out, p.Data...)
	}
	return out
}

// transfers counts the values a backend moves between host and device.
type transfers struct {
	backend.Backend
	n int
}

func (c *transfers) Upload(dst backend.Tensor, src []float32) error {
	c.n += len(src)
	return c.Backend.Upload(dst, src)
}

func (c *transfers) Download(dst []float32, src backend.Tensor) error {
	c.n += len(dst)
	return c.Backend.Download(dst, src)
}

func (c *transfers) Mirror(x []float32) (backend.Tensor, error) {
	c.n += len(x)
	return c.Backend.Mirror(x)
}

// maxRelDiff is the largest |a−b| over the largest |b|, 0 for equal bits.
func maxRelDiff(a, b []float32) float64 {
	if sameBits(a, b) {
		return 0
	}
	if len(a) != len(b) {
		return math.Inf(1)
	}
	worst, scale := 0.0, 0.0
	for i := range a {
		worst = max(worst, math.Abs(float64(a[i])-float64(b[i])))
		scale = max(scale, math.Abs(float64(b[i])))
	}
	return worst / max(scale, 1e-30)
}

// TestLoRAStepOnArena is TestTrainingStepOnArena for rank-2 adapters on
// a frozen base: on the arena the adapters' gradients and AdamW stay on
// the device, so their Param.Data keeps its initial values until
// HostWeights, which then brings pure Go's values bit for bit; the base
// is untouched.
func TestLoRAStepOnArena(t *testing.T) {
	base, seqs, coef, arena := arenaFixture(t, 10, 17, 30)
	var init [][]float32
	train := func(be backend.Backend) *policy.Model {
		m := base.Clone()
		if err := m.AttachLoRA(policy.LoRAConfig{Rank: 2, Alpha: 4, Targets: []string{"q", "v", "down"}}, rand.New(rand.NewSource(12))); err != nil {
			t.Fatal(err)
		}
		init = init[:0]
		for _, p := range m.LoRA().Params() {
			init = append(init, slices.Clone(p.Data))
		}
		m.UseBackend(be)
		opt := NewModelAdamW(m, m.TrainParams(), AdamWConfig{LR: 1e-2, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8})
		for range 3 {
			if err := m.ZeroGrad(); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Backward(seqs, coef); err != nil {
				t.Fatal(err)
			}
			adamStep(t, opt, 1e-2)
		}
		return m
	}
	want, got := train(cpu.NewGo()), train(arena)
	wantA, gotA := want.LoRA().Params(), got.LoRA().Params()
	for i, p := range gotA {
		if !sameBits(p.Data, init[i]) {
			t.Errorf("adapter %s's Param.Data changed on the host before HostWeights", p.Name)
		}
	}
	if err := got.HostWeights(); err != nil {
		t.Fatal(err)
	}
	moved := false
	for i, p := range gotA {
		if !sameBits(p.Data, wantA[i].Data) {
			t.Errorf("adapter %s differs between the arena and pure Go", p.Name)
		}
		moved = moved || !sameBits(wantA[i].Data, init[i])
	}
	if !moved {
		t.Error("the steps moved no adapter")
	}
	for i, p := range got.Params {
		if !sameBits(p.Data, base.Params[i].Data) {
			t.Errorf("the frozen base's %s changed", p.Name)
		}
	}
}
