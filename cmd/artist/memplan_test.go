package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/internal/sysmem"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/trainer"
)

const qwen7BConfig = "../../internal/memplan/testdata/qwen2.5-7b/config.json"

// qwen7BFolder is a checkpoint folder of Qwen2.5-7B shapes: its
// config.json and a model.safetensors that is only a sparse file of the
// weights' size (15 GB of bf16, no data written), which the plan must
// refuse before reading.
func qwen7BFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := os.ReadFile(qwen7BConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(15 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return dir
}

// wantRefused checks a refusal that names the estimate and the memory
// available, within 10 s.
func wantRefused(t *testing.T, began time.Time, code int, stderr string) {
	t.Helper()
	if avail, _, err := sysmem.Available(); err != nil || avail > 400<<30 {
		t.Skipf("memory available unknown or over 400 GiB (%d, %v): the plan is not refused", avail, err)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("refused after %v, want well under 10 s", d)
	}
	for _, want := range []string{"memory plan", "estimated peak", "exceeds the memory available", "micro_batch", "-force"} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

func TestTrainRefusesQwen7BOnThisMachine(t *testing.T) {
	dir := qwen7BFolder(t)
	conf := filepath.Join(t.TempDir(), "7b.yaml")
	yaml := "init: " + dir + "\nrun_dir: " + filepath.Join(t.TempDir(), "run") + "\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	code, _, stderr := runCLI("train", "-config", conf)
	wantRefused(t, began, code, stderr)
	if !strings.Contains(stderr, "reference model") && !strings.Contains(stderr, "AdamW moments") {
		t.Errorf("the plan table is missing:\n%s", stderr)
	}
}

func TestBenchRefusesQwen7BOnThisMachine(t *testing.T) {
	began := time.Now()
	code, _, stderr := runCLI("bench", "-model-config", qwen7BConfig, "-grpo", "-decode-batch", "64", "-prompt", "128", "-new-tokens", "128")
	wantRefused(t, began, code, stderr)
	if !strings.Contains(stderr, "activations (64 x 256 tokens)") || strings.Contains(stderr, "reference model") {
		t.Errorf("bench -grpo plans another graph than its update's, or a second model:\n%s", stderr)
	}
}

// TestForceRunsPastThePlan checks that -force turns the refusal into a
// note.
func TestForceRunsPastThePlan(t *testing.T) {
	if _, _, err := sysmem.Available(); err != nil {
		t.Skipf("memory available unknown: %v", err)
	}
	huge := memplan.Plan{Terms: []memplan.Term{{Name: "weights (f32)", Bytes: 1 << 62}}}
	var b strings.Builder
	if err := checkPlan(&b, huge, false); err == nil || !strings.Contains(err.Error(), "exceeds the memory available") {
		t.Fatalf("without -force: %v", err)
	}
	b.Reset()
	if err := checkPlan(&b, huge, true); err != nil || !strings.Contains(b.String(), "-force: running anyway") {
		t.Fatalf("with -force: %v, output %q", err, b.String())
	}
}

func TestEvalAndServeRefuseQwen7BOnThisMachine(t *testing.T) {
	dir := qwen7BFolder(t)
	for _, args := range [][]string{
		{"eval", "-checkpoint", dir, "-n", "128"},
		{"serve", "-checkpoint", dir, "-max-n", "128", "-addr", "127.0.0.1:0"},
	} {
		began := time.Now()
		code, _, stderr := runCLI(args...)
		t.Run(args[0], func(t *testing.T) { wantRefused(t, began, code, stderr) })
	}
}

// TestPlanLeavesAMissingInitToTheTrainer checks that the plan does not
// hide the trainer's own error for an init folder that does not exist.
func TestPlanLeavesAMissingInitToTheTrainer(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "c.yaml")
	missing := filepath.Join(t.TempDir(), "nope")
	yaml := "init: " + missing + "\nrun_dir: " + filepath.Join(t.TempDir(), "run") + "\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("train", "-config", conf)
	if code != 1 || !strings.Contains(stderr, "folder "+missing+" does not exist: download") || strings.Contains(stderr, "memory plan") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestTrainPlanWithLoRA: a LoRA GRPO run on a 7B init plans the frozen
// weights once with the adapters' gradients and moments (no reference
// copy); with a warm start of the full weights the larger plan is the
// warm start's.
func TestTrainPlanWithLoRA(t *testing.T) {
	dir := qwen7BFolder(t)
	cfg, err := trainer.Parse(nil, "test", []string{"init=" + dir, "warmstart.steps=0", "grpo.beta=0.1", "model.lora.rank=16"})
	if err != nil {
		t.Fatal(err)
	}
	lora, err := trainPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model.LoRA.Rank = 0
	full, err := trainPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	names := func(p memplan.Plan) string {
		var s []string
		for _, t := range p.Terms {
			s = append(s, t.Name)
		}
		return strings.Join(s, ", ")
	}
	for _, term := range lora.Terms {
		if term.Name == "reference model" || term.Name == "gradients" || term.Name == "AdamW moments" {
			t.Errorf("LoRA plan has %q: %s", term.Name, names(lora))
		}
	}
	if !strings.Contains(names(lora), "adapter AdamW moments") || !strings.Contains(names(lora), "weights (f32, frozen)") {
		t.Errorf("LoRA plan terms: %s", names(lora))
	}
	// 7.6B weights: full training holds 16 bytes a weight plus the
	// reference copy, LoRA about 4 bytes a weight; activations alike.
	state := func(p memplan.Plan) int64 {
		var n int64
		for _, t := range p.Terms {
			if !strings.HasPrefix(t.Name, "activations") && !strings.HasPrefix(t.Name, "KV cache") {
				n += t.Bytes
			}
		}
		return n
	}
	if r := float64(state(lora)) / float64(state(full)); r > 0.21 {
		t.Errorf("LoRA plan's weights and optimizer %s are %.2f of the full plan's %s", memplan.MiB(state(lora)), r, memplan.MiB(state(full)))
	}
	cfg.Model.LoRA.Rank, cfg.WarmStart.Steps, cfg.WarmStart.BatchSize = 16, 10, 64 // as large a graph as GRPO's
	warm, err := trainPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(names(warm), "AdamW moments") || strings.Contains(names(warm), "adapter") {
		t.Errorf("with a full warm start the plan is the warm start's: %s", names(warm))
	}
}

// TestHeapLimit checks the Go heap's limit of a plan: the terms other
// than the activations and a tenth more (at least 256 MiB), none under
// 1 GiB.
func TestHeapLimit(t *testing.T) {
	for i, tc := range []struct {
		terms []memplan.Term
		want  int64
	}{
		{[]memplan.Term{{Name: "weights (f32)", Bytes: 500 << 20}, {Name: "activations (8 x 64 tokens)", Bytes: 4 << 30}}, 0},
		{[]memplan.Term{{Name: "weights (f32)", Bytes: 2 << 30}, {Name: "activations (8 x 64 tokens)", Bytes: 4 << 30}}, 2<<30 + 256<<20},
		{[]memplan.Term{{Name: "weights (f32)", Bytes: 6 << 30}, {Name: "gradients", Bytes: 4 << 30}}, 11 << 30},
	} {
		if got := heapLimit(memplan.Plan{Terms: tc.terms}); got != tc.want {
			t.Errorf("case %d: heap limit %d, want %d", i, got, tc.want)
		}
	}
}

// TestTrainPlanReferenceDType: model.reference_dtype bf16 plans the
// reference copy of a 7B init at its bfloat16 layer weights, the rest of
// the plan unchanged.
func TestTrainPlanReferenceDType(t *testing.T) {
	dir := qwen7BFolder(t)
	plans := map[string]memplan.Plan{}
	for _, dtype := range []string{"f32", "bf16"} {
		cfg, err := trainer.Parse(nil, "test", []string{"init=" + dir, "warmstart.steps=0", "grpo.beta=0.1", "model.reference_dtype=" + dtype})
		if err != nil {
			t.Fatal(err)
		}
		if plans[dtype], err = trainPlan(cfg); err != nil {
			t.Fatal(err)
		}
	}
	ref := func(p memplan.Plan) (string, int64) {
		for _, term := range p.Terms {
			if strings.HasPrefix(term.Name, "reference model") {
				return term.Name, term.Bytes
			}
		}
		return "", 0
	}
	c, err := policy.ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	for dtype, want := range map[string]struct {
		name  string
		bytes int64
	}{"f32": {"reference model", memplan.ReferenceBytes(c, false)}, "bf16": {"reference model (bf16 layers)", memplan.ReferenceBytes(c, true)}} {
		if name, b := ref(plans[dtype]); name != want.name || b != want.bytes {
			t.Errorf("%s: reference term %q of %d bytes, want %q of %d", dtype, name, b, want.name, want.bytes)
		}
	}
	_, f32 := ref(plans["f32"])
	_, bf16 := ref(plans["bf16"])
	if d := plans["f32"].Total() - plans["bf16"].Total(); d != f32-bf16 {
		t.Errorf("the plans differ by %d bytes, the reference terms by %d", d, f32-bf16)
	}
}
