package trainer

// model.lora.base_dtype bf16 loads the base straight into bfloat16, never
// in float32: a resume from a GRPO checkpoint (openResume), and a run
// from an init folder that goes into GRPO without a warm start
// (initLoader). Either gives the model that the float32 load then
// freezeBase gave, bit for bit.

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"weak"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// differingWeight is the name of the first parameter of a whose weights
// (float32 or bfloat16 bits, and how they are stored) are not b's at the
// same index, "" when none.
func differingWeight(a, b []*policy.Param) string {
	if len(a) != len(b) {
		return "(the parameter count)"
	}
	for i, p := range a {
		q := b[i]
		same := p.Name == q.Name && p.Frozen16() == q.Frozen16() && slices.Equal(p.BF16(), q.BF16()) && len(p.Data) == len(q.Data)
		for j := 0; same && j < len(p.Data); j++ {
			same = math.Float32bits(p.Data[j]) == math.Float32bits(q.Data[j])
		}
		if !same {
			return p.Name
		}
	}
	return ""
}

// allWeights is m's parameters, its adapters' after them.
func allWeights(m *policy.Model) []*policy.Param {
	ps := slices.Clone(m.Params)
	if l := m.LoRA(); l != nil {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// checkFrozenLoad requires every decoder-layer linear weight of m to be
// held in bfloat16 with no float32 values or gradients, and the other
// weights in float32.
func checkFrozenLoad(t *testing.T, m *policy.Model, what string) {
	t.Helper()
	frozen := 0
	for _, p := range m.Params {
		switch {
		case p.Frozen16() && (p.Data != nil || p.Grad != nil):
			t.Errorf("%s: %s is frozen but holds %d float32 values, %d gradients", what, p.Name, len(p.Data), len(p.Grad))
		case p.Frozen16():
			frozen++
		case len(p.Data) != p.Len() || p.Len() == 0:
			t.Errorf("%s: %s holds %d float32 values", what, p.Name, len(p.Data))
		}
	}
	if want := 7 * m.Config.NumHiddenLayers; frozen != want {
		t.Errorf("%s: %d parameters frozen in bfloat16, want the %d layer weights", what, frozen, want)
	}
}

// checkResumeLoad resumes cfg's run folder as Run does (Setup, then
// resume) and requires the checkpoint of GRPO step `step` to come back as
// the model policy.LoadModel, its adapters and freezeBase make of it, bit
// for bit. Over a bf16 base the model must be frozen as it comes from the
// load, before freezeBase runs: its base was never in float32. The model
// Setup built must be collected by then (releaseModel): the run never
// holds it beside the checkpoint's.
func checkResumeLoad(t *testing.T, cfg Config, step int) {
	t.Helper()
	r, err := Setup(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	setupModel := weak.Make(r.Model)
	st, err := r.resume()
	if err != nil || st == nil || st.Phase != "" || st.Step != step {
		t.Fatalf("resume: state %+v, %v; want GRPO step %d", st, err, step)
	}
	if setupModel.Value() != nil {
		t.Error("the model Setup built is still held after resume replaced it")
	}
	dir := filepath.Join(r.checkpointsDir(), checkpoint.StepDir(step))
	want, _, err := checkpoint.LoadModel(dir, nil, nil) // the float32 load
	if err != nil {
		t.Fatal(err)
	}
	base16 := cfg.Model.LoRA.Base16()
	if base16 {
		checkFrozenLoad(t, r.Model, "the resumed model, as loaded")
	} else if r.Model.Frozen16() {
		t.Error("a run over a float32 base resumed frozen in bfloat16")
	}
	wantRun := &Run{Cfg: cfg, Model: want, out: io.Discard}
	for _, x := range []*Run{r, wantRun} {
		if err := x.prepareLoRA(); err != nil { // freezeBase for the float32 load
			t.Fatal(err)
		}
	}
	if name := differingWeight(allWeights(r.Model), allWeights(want)); name != "" {
		t.Errorf("%s: the resumed model differs from the float32 load then freezeBase", name)
	}
	if weightsHash(r.Model) != weightsHash(want) {
		t.Error("weightsHash: the resumed model differs from the float32 load then freezeBase")
	}
	for _, p := range r.Model.TrainParams() {
		if !slices.Contains(r.Model.LoRA().Params(), p) {
			t.Errorf("%s trains after resume: want the adapters only", p.Name)
		}
	}
}

// TestResumesBase16: a checkpoint is loaded straight into bfloat16 where
// the run's base is bf16 and its state.json is of the GRPO phase.
func TestResumesBase16(t *testing.T) {
	for _, tc := range []struct {
		name, base, state string // state "": no state.json
		want              bool
	}{
		{"grpo step", "bf16", `{"step": 2, "seed": 3}`, true},
		{"grpo start", "bf16", `{"step": 0, "seed": 3}`, true},
		{"warm start", "bf16", `{"phase": "warmstart", "warmstart_step": 10, "step": 0, "seed": 3}`, false},
		{"no state", "bf16", "", false},
		{"damaged state", "bf16", `{"step": 2,`, false},
		{"f32 base", "f32", `{"step": 2, "seed": 3}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.state != "" {
				if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(tc.state), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := DefaultConfig()
			cfg.Model.LoRA.Rank, cfg.Model.LoRA.BaseDType = 4, tc.base
			r := &Run{Cfg: cfg}
			if got := r.resumesBase16(dir); got != tc.want {
				t.Errorf("resumesBase16 %t, want %t", got, tc.want)
			}
		})
	}
}

// isLoad16 reports whether load is policy.LoadModel16.
func isLoad16(load func(string) (*policy.Model, error)) bool {
	return reflect.ValueOf(load).Pointer() == reflect.ValueOf(policy.LoadModel16).Pointer()
}

// TestInitLoader: the init folder is read straight into bfloat16 by a
// run that trains a LoRA over a bf16 base from it without a warm start,
// where the folder has no adapters; in float32 otherwise.
func TestInitLoader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		trains   bool
		base     string
		warm     int
		adapters bool
		want16   bool
	}{
		{"bf16 base", true, "bf16", 0, false, true},
		{"f32 base", true, "f32", 0, false, false},
		{"warm start", true, "bf16", 10, false, false},
		{"init with adapters", true, "bf16", 0, true, false},
		{"eval (OpenCheckpoint)", false, "bf16", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Init = t.TempDir()
			cfg.Model.LoRA.Rank, cfg.Model.LoRA.BaseDType = 4, tc.base
			cfg.WarmStart.Steps = tc.warm
			if tc.adapters {
				if err := os.WriteFile(filepath.Join(cfg.Init, policy.AdapterConfigFile), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := &Run{Cfg: cfg, trains: tc.trains}
			if got := isLoad16(r.initLoader()); got != tc.want16 {
				t.Errorf("initLoader is LoadModel16: %t, want %t", got, tc.want16)
			}
		})
	}
}

// TestInitBase16Run: a LoRA run over a bf16 base from an init folder,
// without a warm start, holds the init frozen in bfloat16 from the load
// on, and ends where the run that loaded it in float32 and froze it
// before GRPO (the earlier path) ends: the same base and adapters bit for
// bit and the same rewards, from an init whose layer weights are BF16
// tensors (then the evaluation before GRPO is the same too) or F32 ones
// (rounded on load as freezeBase rounds them).
func TestInitBase16Run(t *testing.T) {
	src := t.TempDir()
	first := tinyConfig(t, src)
	first.GRPO.Steps = 0
	if _, err := Train(context.Background(), first, nil); err != nil {
		t.Fatal(err)
	}
	f32 := filepath.Join(src, "checkpoints", "step-000000") // F32 layer weights
	bf16 := filepath.Join(t.TempDir(), "init")
	m, err := policy.LoadModel16(f32)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := checkpoint.LoadTokenizer(filepath.Join(f32, policy.TokenizerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.WriteWeights(bf16, m, tok); err != nil { // BF16 layer weights
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, init string
		sameEval   bool
	}{{"BF16 init", bf16, true}, {"F32 init", f32, false}} {
		t.Run(tc.name, func(t *testing.T) { initBase16Run(t, tc.init, tc.sameEval) })
	}
}

// initBase16Run is one case of TestInitBase16Run.
func initBase16Run(t *testing.T, init string, sameEval bool) {
	cfg := func(dir string) Config {
		c := loraRunConfig(t, dir)
		c.Init, c.Tokenizer = init, filepath.Join(init, policy.TokenizerJSONFile)
		c.WarmStart.Steps, c.Model.LoRA.BaseDType = 0, "bf16"
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	run := func(dir string, float32Init bool) *Summary {
		r, err := Setup(context.Background(), cfg(dir), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if float32Init { // the earlier path: LoadModel, freezeBase before GRPO
			if r.Model, _, err = checkpoint.LoadModel(init, nil, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			checkFrozenLoad(t, r.Model, "the init as Setup loads it")
		}
		sum, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	got, want := t.TempDir(), t.TempDir()
	sg, sw := run(got, false), run(want, true)
	load := func(dir string) *policy.Model {
		m, _, err := checkpoint.LoadModel(filepath.Join(dir, "checkpoints", "step-000004"), nil, policy.LoadModel16)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := load(got), load(want)
	if name := differingWeight(allWeights(a), allWeights(b)); name != "" {
		t.Errorf("%s: the run from the init loaded in bfloat16 differs from the one that froze it after a float32 load", name)
	}
	if weightsHash(a) != weightsHash(b) {
		t.Error("weightsHash: the runs differ")
	}
	sameRewards(t, got, want)
	if !reflect.DeepEqual(sg.Final, sw.Final) {
		t.Errorf("final eval %+v, want %+v", sg.Final, sw.Final)
	}
	if same := reflect.DeepEqual(sg.WarmStart, sw.WarmStart); sameEval && !same {
		t.Errorf("initial eval %+v, want the float32 load's %+v", sg.WarmStart, sw.WarmStart)
	} else if !same {
		t.Logf("initial eval of the rounded base %+v, of the float32 init %+v", sg.WarmStart, sw.WarmStart)
	}
}
