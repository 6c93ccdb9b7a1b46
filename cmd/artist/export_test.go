package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// TestExportLoRA trains a tiny LoRA run, exports its last checkpoint
// merged (which loads without adapters and scores as the adapters do) and
// as PEFT adapters (which load back equal), and refuses to export
// adapters of a checkpoint that has none.
func TestExportLoRA(t *testing.T) {
	run := t.TempDir()
	code, _, stderr := runCLI("train", "-config", "testdata/tiny.yaml", "-set", "run_dir="+run,
		"-set", "model.lora.rank=4", "-set", "grpo.lr=0.05", "-set", "grpo.steps=1")
	if code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	ck, err := checkpoint.Open(filepath.Join(run, "checkpoints", "step-000001"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Model.LoRA() == nil {
		t.Fatal("the LoRA run's checkpoint has no adapters")
	}
	// One step on a tiny model may leave B at zero (groups without reward
	// spread): give the checkpoint adapters that change the model.
	for i, a := range ck.Model.LoRA().Adapters {
		for j := range a.B.Data {
			a.B.Data[j] = float32((i+j)%7-3) / 10
		}
	}
	dir := filepath.Join(run, "checkpoints", "step-000001")
	if err := policy.SaveAdapter(dir, ck.Model, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if code, _, stderr := runCLI("export", "-checkpoint", run, "-out", merged, "-merge"); code != 0 {
		t.Fatalf("export -merge: exit %d\n%s", code, stderr)
	}
	mk, err := checkpoint.Open(merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mk.Model.LoRA() != nil || policy.HasAdapter(merged) {
		t.Fatal("the merged export still has adapters")
	}
	seqs := [][]int{ck.Tok.Encode("12 + 30 = 42"), ck.Tok.Encode("What is 7 times 6?")}
	want, got, base := logProbs(t, ck.Model, seqs), logProbs(t, mk.Model, seqs), logProbs(t, ck.Model.Base(), seqs)
	moved, off := 0.0, 0.0
	for i := range want {
		for j := range want[i] {
			moved = math.Max(moved, math.Abs(float64(want[i][j]-base[i][j])))
			off = math.Max(off, math.Abs(float64(want[i][j]-got[i][j])))
		}
	}
	if moved < 1e-4 || off > 1e-4 {
		t.Errorf("the adapters move log-probs by %g; the merged weights differ from them by %g", moved, off)
	}

	peft := filepath.Join(t.TempDir(), "peft")
	if code, _, stderr := runCLI("export", "-checkpoint", run, "-out", peft); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	m := ck.Model.Base()
	if err := policy.LoadAdapter(peft, m); err != nil {
		t.Fatal(err)
	}
	for i, p := range m.LoRA().Params() {
		q := ck.Model.LoRA().Params()[i]
		if p.Name != q.Name || len(p.Data) != len(q.Data) || p.Data[0] != q.Data[0] {
			t.Fatalf("%s: exported adapter differs", q.Name)
		}
	}
	code, _, stderr = runCLI("export", "-checkpoint", filepath.Join(run, "checkpoints", "step-000000"), "-out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "no LoRA adapters") || !strings.Contains(stderr, "-merge") {
		t.Errorf("export of a checkpoint without adapters: exit %d\n%s", code, stderr)
	}
}
