package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func loraConfig(rank int, targets ...string) LoRAConfig {
	c := DefaultLoRAConfig()
	c.Rank, c.Alpha = rank, float64(2*rank)
	if len(targets) > 0 {
		c.Targets = targets
	}
	return c
}

func TestLoRAConfigValidate(t *testing.T) {
	for i, tc := range []struct {
		edit func(*LoRAConfig)
		want string // "" valid
	}{
		{func(c *LoRAConfig) {}, ""},
		{func(c *LoRAConfig) { c.Rank, c.Alpha, c.Targets = 0, -1, nil }, ""}, // off: the rest is not read
		{func(c *LoRAConfig) { c.Rank = -1 }, "model.lora.rank"},
		{func(c *LoRAConfig) { c.Alpha = 0 }, "model.lora.alpha"},
		{func(c *LoRAConfig) { c.Dropout = 1 }, "model.lora.dropout"},
		{func(c *LoRAConfig) { c.Targets = nil }, "model.lora.targets is empty"},
		{func(c *LoRAConfig) { c.Targets = []string{"q", "qkv"} }, `model.lora.targets[1] = "qkv"`},
		{func(c *LoRAConfig) { c.Targets = []string{"q_proj", "q"} }, "listed twice"},
		{func(c *LoRAConfig) { c.Targets = []string{"down_proj", "gate"} }, ""},
		{func(c *LoRAConfig) { c.BaseDType = "bf16" }, ""},
		{func(c *LoRAConfig) { c.BaseDType = "" }, ""}, // f32
		{func(c *LoRAConfig) { c.BaseDType = "fp16" }, `model.lora.base_dtype "fp16"`},
		{func(c *LoRAConfig) { c.Rank, c.BaseDType = 0, "bf8" }, "model.lora.base_dtype"}, // its value is read even when off
	} {
		c := loraConfig(4)
		tc.edit(&c)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("case %d: %v", i, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("case %d: got %v, want an error naming %q", i, err, tc.want)
		}
	}
}

// TestLoRAZeroBIsBase: with B = 0 (a fresh attach) sampling logits,
// LogProbs and the training graph's log-probs are the base model's, bit
// for bit, and only the adapters get gradients.
func TestLoRAZeroBIsBase(t *testing.T) {
	m := testModel(t, false, 1)
	seqs, coef := batchFor(2, m.Config.VocabSize)
	baseLP := logProbs(t, m, seqs)
	baseBW, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	baseStep := sessionLogits(t, m, seqs)
	for _, p := range m.Params {
		p.Grad = nil
	}
	if err := m.AttachLoRA(loraConfig(4), rand.New(rand.NewSource(7))); err != nil {
		t.Fatal(err)
	}
	bw, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2][][]float32{
		"LogProbs": {baseLP, logProbs(t, m, seqs)}, "Backward": {baseBW, bw}, "Session.Step": {baseStep, sessionLogits(t, m, seqs)},
	} {
		if !bitsEqual(pair[0], pair[1]) {
			t.Errorf("%s: the adapted model with B = 0 differs from the base", name)
		}
	}
	for _, p := range m.Params {
		if p.Grad != nil {
			t.Fatalf("base weight %s got a gradient buffer", p.Name)
		}
	}
	nonzero := 0
	for _, a := range m.LoRA().Adapters {
		for _, g := range a.B.Grad {
			if g != 0 {
				nonzero++
			}
		}
		for _, g := range a.A.Grad {
			if g != 0 {
				t.Fatalf("%s: gradient %g with B = 0, want 0", a.A.Name, g)
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("no adapter B got a gradient")
	}
}

func sessionLogits(t *testing.T, m *Model, seqs [][]int) [][]float32 {
	t.Helper()
	s := m.NewSession(len(seqs), 64)
	out, err := s.Step(seqs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bitsEqual reports whether a and b hold the same float32 bits, row by
// row.
func bitsEqual(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, sameBits)
}

// randomB gives every adapter a random B, so A has gradients and the
// adapters change the output.
func randomB(m *Model, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	for _, a := range m.LoRA().Adapters {
		for i := range a.B.Data {
			a.B.Data[i] = float32(0.3 * rng.NormFloat64())
		}
	}
}

// TestLoRAGradCheck compares the adapters' gradients with central
// differences of the float64 reference model over the merged weights
// W + s·B·A (merged in float64, then rounded to the float32 weights the
// reference reads: a rounding of 2⁻²⁴ relative against a perturbation of
// about 1e-3·s·|B|, far below the tolerance of the full-model check,
// which this one shares).
func TestLoRAGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tied    bool
		targets []string
	}{{"all", false, nil}, {"attention-tied", true, []string{"q", "v", "o"}}, {"mlp", false, []string{"gate", "up", "down"}}} {
		t.Run(tc.name, func(t *testing.T) {
			m := testModel(t, tc.tied, 1)
			if err := m.AttachLoRA(loraConfig(3, tc.targets...), rand.New(rand.NewSource(5))); err != nil {
				t.Fatal(err)
			}
			randomB(m, 6)
			seqs, coef := batchFor(2, m.Config.VocabSize)
			if _, err := m.Backward(seqs, coef); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(3))
			worst := 0.0
			for _, p := range m.LoRA().Params() {
				for _, j := range sampleEntries(rng, p, 3) {
					num := loraNumericGrad(m, p, j, seqs, coef)
					ana := float64(p.Grad[j])
					abs := math.Abs(ana - num)
					rel := abs / math.Max(math.Max(math.Abs(ana), math.Abs(num)), 1e-12)
					if abs > 1e-4 && rel > 2e-3 {
						t.Errorf("%s[%d]: analytic %.6g, numeric %.6g (rel %.2g)", p.Name, j, ana, num, rel)
					}
					worst = max(worst, rel)
				}
			}
			t.Logf("worst relative error %.3g", worst)
		})
	}
}

func loraNumericGrad(m *Model, p *Param, j int, seqs [][]int, coef [][]float32) float64 {
	const eps = 1e-3
	x := p.Data[j]
	hi, lo := float32(float64(x)+eps), float32(float64(x)-eps)
	p.Data[j] = hi
	fHi := refObjective(mergedF64(m), seqs, coef)
	p.Data[j] = lo
	fLo := refObjective(mergedF64(m), seqs, coef)
	p.Data[j] = x
	return (fHi - fLo) / (float64(hi) - float64(lo))
}

// mergedF64 is m with W + s·B·A summed in float64 for every adapter.
func mergedF64(m *Model) *Model {
	c := m.Clone()
	l := m.LoRA()
	for _, a := range l.Adapters {
		out, in := m.targetDims(a.t)
		w := c.targetWeight(a.Layer, a.t).Data
		for o := range out {
			for i := range in {
				s := float64(w[o*in+i])
				for k := range l.Config.Rank {
					s += float64(l.scale) * float64(a.B.Data[o*l.Config.Rank+k]) * float64(a.A.Data[k*in+i])
				}
				w[o*in+i] = float32(s)
			}
		}
	}
	return c
}

// TestLoRAMergedAndBase: Merged computes what the adapters compute (to
// float32 rounding), Base what the weights alone compute, and the two
// paths agree with adapters.
func TestLoRAMergedAndBase(t *testing.T) {
	m := testModel(t, false, 1)
	seqs, _ := batchFor(2, m.Config.VocabSize)
	base := logProbs(t, m, seqs)
	if err := m.AttachLoRA(loraConfig(4), rand.New(rand.NewSource(5))); err != nil {
		t.Fatal(err)
	}
	randomB(m, 6)
	adapted := logProbs(t, m, seqs)
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
	}
	graph, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(logProbs(t, m.Base(), seqs), base) {
		t.Error("Base() differs from the model before the attach")
	}
	if d := maxDiff(adapted, base); d < 1e-2 {
		t.Fatalf("random adapters moved the log-probs by only %g", d)
	}
	for name, got := range map[string][][]float32{"Merged": logProbs(t, merged(t, m), seqs), "graph": graph} {
		if d := maxDiff(got, adapted); d > 1e-4 {
			t.Errorf("%s: log-probs differ from the adapters' by %g", name, d)
		}
	}
}

func maxDiff(a, b [][]float32) float64 {
	d := 0.0
	for i := range a {
		for j := range a[i] {
			d = max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return d
}

// TestLoRAInit: A is U(−1/√in, 1/√in) from the seed, B is zero, and the
// same seed gives the same adapters.
func TestLoRAInit(t *testing.T) {
	m, n := testModel(t, false, 1), testModel(t, false, 1)
	for _, x := range []*Model{m, n} {
		if err := x.AttachLoRA(loraConfig(4), rand.New(rand.NewSource(9))); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range m.LoRA().Adapters {
		bound := float32(1 / math.Sqrt(float64(a.A.Shape[1])))
		lo, hi := slices.Min(a.A.Data), slices.Max(a.A.Data)
		if lo < -bound || hi > bound || hi-lo < bound {
			t.Errorf("%s: A in [%g, %g], want spread over ±%g", a.A.Name, lo, hi, bound)
		}
		if slices.Max(a.B.Data) != 0 || slices.Min(a.B.Data) != 0 {
			t.Errorf("%s is not zero", a.B.Name)
		}
		if !slices.Equal(a.A.Data, n.LoRA().Adapters[i].A.Data) {
			t.Errorf("%s differs between two attaches with one seed", a.A.Name)
		}
	}
	if got, want := len(m.LoRA().Adapters), 7*len(m.Layers); got != want {
		t.Errorf("%d adapters, want %d", got, want)
	}
}

// TestLoRADropout: dropout changes the training graph's forward pass but
// never sampling; the same dropout seed gives the same gradients.
func TestLoRADropout(t *testing.T) {
	m := testModel(t, false, 1)
	seqs, coef := batchFor(2, m.Config.VocabSize)
	c := loraConfig(4)
	c.Dropout = 0.5
	if err := m.AttachLoRA(c, rand.New(rand.NewSource(5))); err != nil {
		t.Fatal(err)
	}
	randomB(m, 6)
	run := func(seed int64) ([][]float32, []float32) {
		m.ZeroGrad()
		m.LoRA().SeedDropout(seed)
		lp, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		return lp, slices.Clone(m.LoRA().Adapters[0].A.Grad)
	}
	lp1, g1 := run(1)
	lp2, g2 := run(1)
	lp3, _ := run(2)
	if !bitsEqual(lp1, lp2) || !slices.Equal(g1, g2) {
		t.Error("one dropout seed gave two results")
	}
	if maxDiff(lp1, lp3) == 0 {
		t.Error("two dropout seeds gave the same log-probs")
	}
	noDrop := logProbs(t, merged(t, m), seqs)
	if d := maxDiff(logProbs(t, m, seqs), noDrop); d > 1e-4 {
		t.Errorf("sampling path moved by %g: dropout must not act there", d)
	}
	if maxDiff(lp1, noDrop) < 1e-3 {
		t.Error("dropout did not act in the training graph")
	}
}

// TestAdapterRoundTrip writes adapters in PEFT's layout, checks the
// names, shapes and config keys PEFT and vLLM read, and loads them back
// equal.
func TestAdapterRoundTrip(t *testing.T) {
	m := testModel(t, false, 1)
	cfg := loraConfig(4, "q", "k", "v", "o", "gate", "up", "down")
	cfg.Dropout = 0.05
	if err := m.AttachLoRA(cfg, rand.New(rand.NewSource(5))); err != nil {
		t.Fatal(err)
	}
	randomB(m, 6)
	dir := t.TempDir()
	if err := SaveAdapter(dir, m, "Qwen/Qwen2.5-0.5B"); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(filepath.Join(dir, AdapterWeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	C, F, KD := 16, 24, 8
	for name, shape := range map[string][]int{
		"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": {4, C},
		"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight": {C, 4},
		"base_model.model.model.layers.1.self_attn.k_proj.lora_B.weight": {KD, 4},
		"base_model.model.model.layers.1.mlp.down_proj.lora_A.weight":    {4, F},
		"base_model.model.model.layers.1.mlp.down_proj.lora_B.weight":    {C, 4},
	} {
		if !slices.Equal(ts[name].Shape, shape) {
			t.Errorf("%s: shape %v, want %v", name, ts[name].Shape, shape)
		}
	}
	if len(ts) != 2*7*2 {
		t.Errorf("%d tensors, want 28", len(ts))
	}
	var pc map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, AdapterConfigFile))
	if err := json.Unmarshal(b, &pc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": 4.0, "lora_alpha": 8.0, "lora_dropout": 0.05,
		"base_model_name_or_path": "Qwen/Qwen2.5-0.5B", "bias": "none",
		"target_modules": []any{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}}
	for k, v := range want {
		if fmt.Sprint(pc[k]) != fmt.Sprint(v) {
			t.Errorf("adapter_config.json %s = %v, want %v", k, pc[k], v)
		}
	}
	n := testModel(t, false, 1)
	if err := LoadAdapter(dir, n); err != nil {
		t.Fatal(err)
	}
	got, exp := n.LoRA(), m.LoRA()
	if got.Config.Rank != exp.Config.Rank || got.Config.Alpha != exp.Config.Alpha || got.Config.Dropout != exp.Config.Dropout {
		t.Errorf("config %+v, want %+v", got.Config, exp.Config)
	}
	for i, a := range exp.Params() {
		if p := got.Params()[i]; p.Name != a.Name || !slices.Equal(p.Data, a.Data) {
			t.Fatalf("%s: read back differs", a.Name)
		}
	}
	seqs, _ := batchFor(2, m.Config.VocabSize)
	if !bitsEqual(logProbs(t, n, seqs), logProbs(t, m, seqs)) {
		t.Error("the loaded adapters compute other log-probs")
	}
}

func TestLoadAdapterErrors(t *testing.T) {
	m := testModel(t, false, 1)
	if err := m.AttachLoRA(loraConfig(4, "q"), rand.New(rand.NewSource(5))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SaveAdapter(dir, m, ""); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) {
		b, _ := os.ReadFile(filepath.Join(dir, AdapterConfigFile))
		var c map[string]any
		json.Unmarshal(b, &c)
		f(c)
		b, _ = json.Marshal(c)
		os.WriteFile(filepath.Join(dir, AdapterConfigFile), b, 0o644)
	}
	for i, tc := range []struct {
		edit func(map[string]any)
		want string
	}{
		{func(c map[string]any) { c["r"] = 8 }, "has shape [4 16], want [8 16]"},
		{func(c map[string]any) { c["r"] = 4; c["use_dora"] = true }, "use_dora"},
		{func(c map[string]any) { c["use_dora"] = false; c["target_modules"] = []string{"q_proj", "lm_head"} }, `"lm_head" is not a target`},
		{func(c map[string]any) { c["target_modules"] = []string{"q_proj", "k_proj"} }, "k_proj.lora_A.weight\" is missing"},
		{func(c map[string]any) { c["target_modules"] = []string{"q_proj"}; c["peft_type"] = "IA3" }, "want LORA"},
	} {
		edit(tc.edit)
		if err := LoadAdapter(dir, testModel(t, false, 1)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("case %d: got %v, want %q", i, err, tc.want)
		}
	}
}
