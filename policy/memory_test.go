package policy

import (
	"math"
	"math/rand"
	"testing"
)

// TestInferenceModelsHoldNoGradients checks that new, cloned and loaded
// models carry no gradient buffers until they compute gradients.
func TestInferenceModelsHoldNoGradients(t *testing.T) {
	m, err := New(tinyConfig(true), rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SaveModel(dir, m); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, mm := range map[string]*Model{"new": m, "clone": m.Clone(), "loaded": loaded} {
		mm.LogProbs([][]int{{1, 2, 3}})
		for _, p := range mm.Params {
			if p.Grad != nil {
				t.Fatalf("%s model: %s has a gradient buffer after inference", name, p.Name)
			}
		}
	}
	if _, err := m.Backward([][]int{{1, 2, 3}}, [][]float32{{0, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params {
		if len(p.Grad) != len(p.Data) {
			t.Fatalf("after Backward %s has %d gradients for %d weights", p.Name, len(p.Grad), len(p.Data))
		}
	}
}

// TestGraphCacheBytes checks the memory bound of the graph cache: with a
// budget of 0 only the graph in use is kept, and a kept graph reports
// its size.
func TestGraphCacheBytes(t *testing.T) {
	m, err := New(tinyConfig(true), rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	m.SetGraphCacheBytes(0)
	for _, T := range []int{5, 20, 40} {
		seq := make([]int, T)
		coef := make([]float32, T)
		for i := range seq {
			seq[i], coef[i] = i%m.Config.VocabSize, 1
		}
		if _, err := m.Backward([][]int{seq}, [][]float32{coef}); err != nil {
			t.Fatal(err)
		}
		if n := len(m.graphs.graphs); n != 1 {
			t.Fatalf("after a batch of %d tokens the cache holds %d graphs, want 1 under a zero budget", T, n)
		}
		for _, tg := range m.graphs.graphs {
			if tg.bytes <= 0 {
				t.Errorf("graph (%d, %d) reports %d bytes", tg.N, tg.T, tg.bytes)
			}
		}
	}
}

// TestMemoryPlanSameBits checks that a planned graph, whose kernels share
// output buffers, gives the same log-probs and gradients bit for bit as
// one where every node has its own, over two runs (buffers reused across
// runs), while holding less memory.
func TestMemoryPlanSameBits(t *testing.T) {
	seqs := [][]int{{1, 5, 9, 2, 7, 3}, {4, 4, 8}, {2, 6, 1, 1, 9, 5, 3, 8, 7}}
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
		for j := range coef[i] {
			coef[i][j] = float32(i+1) * 0.1 * float32(j%3-1)
		}
	}
	run := func(planned bool) (out []float32, plan *memoryPlan, bytes int64) {
		m := testModel(t, false, 3)
		m.gs.plan = planned
		for range 2 {
			m.ZeroGrad()
			lp, err := m.Backward(seqs, coef)
			if err != nil {
				t.Fatal(err)
			}
			out = out[:0]
			for _, row := range lp {
				out = append(out, row...)
			}
			for _, p := range m.Params {
				out = append(out, p.Grad...)
			}
		}
		for _, tg := range m.graphs.graphs {
			plan, bytes = tg.plan, tg.bytes
		}
		return out, plan, bytes
	}
	want, _, whole := run(false)
	got, plan, planned := run(true)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d: planned %v, unplanned %v", i, got[i], want[i])
		}
	}
	if plan.shared == 0 || planned >= whole {
		t.Errorf("plan shares %d buffers and the graph holds %d bytes (%d unplanned); want sharing and less memory", plan.shared, planned, whole)
	}
}
