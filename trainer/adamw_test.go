package trainer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

func adamCfg(wd, maxNorm float64) AdamWConfig {
	c := DefaultAdamWConfig()
	c.WeightDecay, c.MaxGradNorm = wd, maxNorm
	return c
}

func TestAdamWHandSteps(t *testing.T) {
	// 1-D, so no decay. lr 0.1, β1 0.9, β2 0.999, ε 1e-8, no clipping.
	p := &policy.Param{Name: "b", Shape: []int{2}, Data: []float32{1, -2}, Grad: []float32{0.5, -0.1}}
	o := NewAdamW(cpu.NewGo(), []*policy.Param{p}, adamCfg(0.5, 0))
	// Step 1: m̂ = g, v̂ = g², so p −= 0.1·g/(|g|+ε) ≈ 0.1·sign(g).
	if n := adamStep(t, o, 0.1); !grpoClose(n, math.Hypot(0.5, 0.1), 1e-7) {
		t.Errorf("grad norm = %g, want %g", n, math.Hypot(0.5, 0.1))
	}
	want := []float64{0.9, -1.9}
	for i := range want {
		if !grpoClose(float64(p.Data[i]), want[i], 1e-6) {
			t.Errorf("step 1: data[%d] = %.9g, want %.9g", i, p.Data[i], want[i])
		}
	}
	// Step 2, g0 = 0.25: m = 0.9·0.05 + 0.1·0.25 = 0.07,
	// v = 0.999·0.00025 + 0.001·0.0625 = 0.00031225,
	// m̂ = 0.07/(1−0.81) = 0.368421, √v̂ = √(0.00031225/0.001999) = 0.395225,
	// p0 = 0.9 − 0.1·0.368421/0.395225 = 0.806782.
	p.Grad[0] = 0.25
	adamStep(t, o, 0.1)
	if !grpoClose(float64(p.Data[0]), 0.8067820405, 1e-6) {
		t.Errorf("step 2: data[0] = %.9g, want 0.806782", p.Data[0])
	}
	if st := stateOf(t, o); st.Step != 2 || !grpoClose(float64(st.M["b"][0]), 0.07, 1e-6) || !grpoClose(float64(st.V["b"][0]), 0.00031225, 1e-6) {
		t.Errorf("state = step %d, m %g, v %g; want 2, 0.07, 0.00031225", st.Step, st.M["b"][0], st.V["b"][0])
	}
	if p.Grad[0] != 0.25 || p.Grad[1] != -0.1 {
		t.Errorf("grads changed to %v: Step must not touch them", p.Grad)
	}
}

func TestAdamWWeightDecayOnMatricesOnly(t *testing.T) {
	// Zero grads: the Adam term is 0/(0+ε) = 0, so only decay moves weights.
	w := &policy.Param{Name: "w", Shape: []int{2, 2}, Data: []float32{1, -2, 3, -4}, Grad: make([]float32, 4)}
	b := &policy.Param{Name: "b", Shape: []int{2}, Data: []float32{1, -2}, Grad: make([]float32, 2)}
	o := NewAdamW(cpu.NewGo(), []*policy.Param{w, b}, adamCfg(0.1, 1))
	adamStep(t, o, 0.5) // factor 1 − 0.5·0.1 = 0.95
	for i, x := range []float64{0.95, -1.9, 2.85, -3.8} {
		if !grpoClose(float64(w.Data[i]), x, 1e-6) {
			t.Errorf("w[%d] = %g, want %g", i, w.Data[i], x)
		}
	}
	if b.Data[0] != 1 || b.Data[1] != -2 {
		t.Errorf("bias = %v, want unchanged [1 -2]", b.Data)
	}
}

func TestAdamWClipping(t *testing.T) {
	tests := []struct {
		name    string
		maxNorm float64
		grad    []float32
		wantM   []float64 // (1−β1)·clipped grad after one step
	}{
		{"clipped to 1", 1, []float32{3, 4}, []float64{0.06, 0.08}},
		{"below max", 10, []float32{3, 4}, []float64{0.3, 0.4}},
		{"disabled", 0, []float32{3, 4}, []float64{0.3, 0.4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The norm is global: split the gradient over two params.
			a := &policy.Param{Name: "a", Shape: []int{1, 1}, Data: []float32{0}, Grad: tc.grad[:1]}
			b := &policy.Param{Name: "b", Shape: []int{1}, Data: []float32{0}, Grad: tc.grad[1:]}
			o := NewAdamW(cpu.NewGo(), []*policy.Param{a, b}, adamCfg(0, tc.maxNorm))
			if n := adamStep(t, o, 1e-3); !grpoClose(n, 5, 1e-12) {
				t.Errorf("norm = %g, want 5 (before clipping)", n)
			}
			st := stateOf(t, o)
			got := []float64{float64(st.M["a"][0]), float64(st.M["b"][0])}
			for i := range got {
				if !grpoClose(got[i], tc.wantM[i], 1e-6) {
					t.Errorf("m = %v, want %v", got, tc.wantM)
				}
			}
		})
	}
}

func TestAdamWSkipsNonFinite(t *testing.T) {
	tests := []struct {
		name string
		bad  float32
		skip bool
	}{
		{"NaN", float32(math.NaN()), true},
		{"Inf", float32(math.Inf(-1)), true},
		// 3e38 squared overflows float32 but not the float64 sum.
		{"huge but finite", 3e38, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &policy.Param{Name: "w", Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}, Grad: []float32{1, 1, 1, 1}}
			o := NewAdamW(cpu.NewGo(), []*policy.Param{w}, adamCfg(0.01, 1))
			adamStep(t, o, 0.1)
			before, st := slices.Clone(w.Data), stateOf(t, o)
			w.Grad[2] = tc.bad
			n := adamStep(t, o, 0.1)
			if math.IsNaN(n) != tc.skip {
				t.Fatalf("norm = %g, want NaN: %v", n, tc.skip)
			}
			unchanged := slices.Equal(w.Data, before) && fmt.Sprint(stateOf(t, o)) == fmt.Sprint(st)
			if unchanged != tc.skip {
				t.Errorf("weights and state unchanged: %v, want %v", unchanged, tc.skip)
			}
		})
	}
}

func TestAdamWStateRoundTrip(t *testing.T) {
	grads := func(step int) []float32 {
		return []float32{float32(math.Sin(float64(step))), 0.3, float32(step) * 0.01, -0.2}
	}
	mk := func(data []float32) (*AdamW, *policy.Param) {
		p := &policy.Param{Name: "w", Shape: []int{2, 2}, Data: slices.Clone(data), Grad: make([]float32, 4)}
		return NewAdamW(cpu.NewGo(), []*policy.Param{p}, adamCfg(0.01, 0.5)), p
	}
	a, pa := mk([]float32{1, 2, 3, 4})
	for s := range 3 {
		copy(pa.Grad, grads(s))
		adamStep(t, a, CosineLR(s, 2, 10, 0.01, 0.1))
	}
	st := stateOf(t, a)
	b, pb := mk(pa.Data)
	if err := b.SetState(st); err != nil {
		t.Fatal(err)
	}
	st.M["w"][0] = 99 // State must be a copy, not an alias
	for s := 3; s < 6; s++ {
		copy(pa.Grad, grads(s))
		copy(pb.Grad, grads(s))
		lr := CosineLR(s, 2, 10, 0.01, 0.1)
		adamStep(t, a, lr)
		adamStep(t, b, lr)
	}
	if !slices.Equal(pa.Data, pb.Data) || fmt.Sprint(stateOf(t, a)) != fmt.Sprint(stateOf(t, b)) {
		t.Errorf("resumed run diverged: %v vs %v", pa.Data, pb.Data)
	}
}

func TestAdamWSetStateErrors(t *testing.T) {
	p := &policy.Param{Name: "w", Shape: []int{2}, Data: make([]float32, 2), Grad: make([]float32, 2)}
	o := NewAdamW(cpu.NewGo(), []*policy.Param{p}, DefaultAdamWConfig())
	good := stateOf(t, o)
	tests := []struct {
		name string
		st   AdamWState
		want string
	}{
		{"negative step", AdamWState{Step: -1, M: good.M, V: good.V}, "negative"},
		{"wrong name", AdamWState{M: map[string][]float32{"x": {0, 0}}, V: good.V}, `"w"`},
		{"wrong length", AdamWState{M: map[string][]float32{"w": {0}}, V: good.V}, "moments"},
		{"extra param", AdamWState{M: map[string][]float32{"w": {0, 0}, "x": {0}}, V: good.V}, "params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := o.SetState(tc.st)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "trainer: ") {
				t.Errorf("err = %v, want a trainer: error mentioning %s", err, tc.want)
			}
		})
	}
}

// TestNewAdamWAllocatesGradients checks that a param without gradient
// buffers (a model that has only run inference) gets zeroed ones.
func TestNewAdamWAllocatesGradients(t *testing.T) {
	p := &policy.Param{Name: "w", Shape: []int{3}, Data: []float32{1, 2, 3}}
	o := NewAdamW(cpu.NewGo(), []*policy.Param{p}, DefaultAdamWConfig())
	if len(p.Grad) != 3 || p.Grad[0] != 0 {
		t.Fatalf("Grad = %v, want three zeros", p.Grad)
	}
	if norm := adamStep(t, o, 0.1); norm != 0 || p.Data[2] != 3 {
		t.Errorf("a step on zero gradients: norm %g, weights %v; want 0 and unchanged weights", norm, p.Data)
	}
}

func TestNewAdamWPanics(t *testing.T) {
	p := &policy.Param{Name: "w", Shape: []int{1}, Data: []float32{0}, Grad: []float32{0}}
	tests := []struct {
		name   string
		params []*policy.Param
		cfg    AdamWConfig
	}{
		{"duplicate", []*policy.Param{p, p}, DefaultAdamWConfig()},
		{"grad length", []*policy.Param{{Name: "x", Data: []float32{0}, Grad: []float32{0, 0}}}, DefaultAdamWConfig()},
		{"bad beta2", []*policy.Param{p}, AdamWConfig{Beta1: 0.9, Beta2: 1, Eps: 1e-8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if msg := grpoPanics(func() { NewAdamW(cpu.NewGo(), tc.params, tc.cfg) }); !strings.Contains(msg, "trainer:") {
				t.Errorf("panic = %q, want a trainer: panic", msg)
			}
		})
	}
}

func TestAdamWMinimizesQuadratic(t *testing.T) {
	// f(w) = ½ Σ k_i (w_i − c_i)², badly conditioned (k from 0.1 to 100).
	k := []float32{0.1, 1, 10, 100}
	c := []float32{1, -2, 0.5, 3}
	w := &policy.Param{Name: "w", Shape: []int{2, 2}, Data: make([]float32, 4), Grad: make([]float32, 4)}
	o := NewAdamW(cpu.NewGo(), []*policy.Param{w}, adamCfg(0, 10))
	const steps = 600
	for s := range steps {
		for i := range w.Data {
			w.Grad[i] = k[i] * (w.Data[i] - c[i])
		}
		adamStep(t, o, CosineLR(s, 20, steps, 0.1, 0.01))
	}
	for i := range c {
		if math.Abs(float64(w.Data[i]-c[i])) > 1e-2 {
			t.Errorf("w = %v, want ≈ %v", w.Data, c)
			break
		}
	}
}

func TestLRSchedules(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"constant warmup first", ConstantLR(0, 4, 1), 0.25},
		{"constant warmup last", ConstantLR(3, 4, 1), 1},
		{"constant after", ConstantLR(100, 4, 1), 1},
		{"constant no warmup", ConstantLR(0, 0, 2), 2},
		{"cosine warmup", CosineLR(1, 4, 14, 2, 0.1), 1},
		{"cosine peak", CosineLR(4, 4, 14, 2, 0.1), 2},
		// halfway through decay: 2·(0.1 + 0.9·0.5) = 1.1
		{"cosine half", CosineLR(9, 4, 14, 2, 0.1), 1.1},
		{"cosine end", CosineLR(14, 4, 14, 2, 0.1), 0.2},
		{"cosine past end", CosineLR(50, 4, 14, 2, 0.1), 0.2},
		{"cosine total <= warmup", CosineLR(5, 5, 5, 2, 0.5), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !grpoClose(tc.got, tc.want, 1e-12) {
				t.Errorf("lr = %g, want %g", tc.got, tc.want)
			}
		})
	}
}

func ExampleAdamW() {
	// Minimise ½(w − 3)² for 200 steps at a constant rate.
	w := &policy.Param{Name: "w", Shape: []int{1}, Data: []float32{0}, Grad: []float32{0}}
	opt := NewAdamW(cpu.NewGo(), []*policy.Param{w}, AdamWConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, MaxGradNorm: 1})
	var norm float64
	for range 200 {
		w.Grad[0] = w.Data[0] - 3
		var err error
		if norm, err = opt.Step(0.1); err != nil {
			panic(err)
		}
	}
	st, err := opt.State()
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = %.2f, last grad norm < 0.05: %v, steps = %d\n", w.Data[0], norm < 0.05, st.Step)
	// Output:
	// w = 3.00, last grad norm < 0.05: true, steps = 200
}

func ExampleCosineLR() {
	for _, s := range []int{0, 1, 2, 6, 10} {
		fmt.Printf("%d:%.2f ", s, CosineLR(s, 2, 10, 1, 0.1))
	}
	fmt.Println()
	// Output:
	// 0:0.50 1:1.00 2:1.00 6:0.55 10:0.10
}

// stateOf is o.State(), failing the test on its error.
func stateOf(t testing.TB, o *AdamW) AdamWState {
	t.Helper()
	s, err := o.State()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
