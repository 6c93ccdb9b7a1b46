package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// tinyModel is a one-layer model with seeded weights.
func tinyModel(t testing.TB) *policy.Model {
	t.Helper()
	m, err := policy.New(policy.Config{VocabSize: 260, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 1,
		NumAttentionHeads: 2, NumKeyValueHeads: 1, MaxPositionEmbeddings: 32, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(3)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tinyTokenizer is a byte-level tokenizer with one special token, its EOS.
func tinyTokenizer(t testing.TB) *policy.Tokenizer {
	t.Helper()
	dir := t.TempDir()
	if err := policy.WriteByteLevelTokenizer(dir, []string{"<x>"}, "<x>"); err != nil {
		t.Fatal(err)
	}
	tok, err := policy.LoadTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// flipBit flips one bit in the middle of a file.
func flipBit(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts a file to half its length.
func truncate(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// saved saves a checkpoint step-000002 of a tiny model with an optimizer
// state into a fresh run folder's checkpoints/ and returns its folder.
func saved(t *testing.T, m *policy.Model) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), Dir)
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	opt := OptimizerState{Step: 2, M: map[string][]float32{}, V: map[string][]float32{}}
	for _, p := range m.Params {
		opt.M[p.Name], opt.V[p.Name] = make([]float32, len(p.Data)), make([]float32, len(p.Data))
		opt.M[p.Name][0], opt.V[p.Name][0] = 0.5, 0.25
	}
	c := Contents{Model: m, Tok: tinyTokenizer(t), Config: []byte("seed: 1\n"),
		State: map[string]int{"step": 2}, Optimizer: &opt}
	if err := Save(root, StepDir(2), c, 2); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, StepDir(2))
}

// TestSaveOpenRoundTrip: a saved checkpoint loads verified with the same
// weights, optimizer state and state.json, and latest names it.
func TestSaveOpenRoundTrip(t *testing.T) {
	m := tinyModel(t)
	dir := saved(t, m)
	var warn bytes.Buffer
	f, err := Open(dir, &warn)
	if err != nil || !f.Verified || warn.Len() > 0 {
		t.Fatalf("Open: err %v verified %v warnings %q", err, f != nil && f.Verified, warn.String())
	}
	for i, p := range m.Params {
		if !slices.Equal(f.Model.Params[i].Data, p.Data) {
			t.Fatalf("param %s differs after the round trip", p.Name)
		}
	}
	opt, err := LoadOptimizer(filepath.Join(dir, OptimizerFile))
	if err != nil || opt.Step != 2 || len(opt.M) != len(m.Params) || opt.V[m.Params[0].Name][0] != 0.25 {
		t.Fatalf("optimizer state: step %d, %d moments, err %v", opt.Step, len(opt.M), err)
	}
	var st map[string]int
	if b, err := os.ReadFile(filepath.Join(dir, "state.json")); err != nil || json.Unmarshal(b, &st) != nil || st["step"] != 2 {
		t.Fatalf("state.json: %v %v", st, err)
	}
	latest, err := Latest(filepath.Dir(filepath.Dir(dir)))
	if err != nil || latest != dir {
		t.Fatalf("Latest = %q, %v; want %s", latest, err, dir)
	}
}

// TestVerifyRefusesDamage: loading refuses a file that no longer matches
// the manifest with an *Error naming the file.
func TestVerifyRefusesDamage(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		file   string
		want   string // a substring of the error
	}{
		{"bit flip in the weights", flipBit, "model.safetensors", "sha256"},
		{"truncated optimizer state", truncate, OptimizerFile, "truncated"},
		{"bit flip in the stop ids", flipBit, policy.GenerationConfigFile, "sha256"},
		{"missing tokenizer config", func(t *testing.T, p string) { os.Remove(p) }, policy.TokenizerConfigFile, "missing"},
		{"damaged manifest", truncate, ManifestFile, "manifest itself"},
	}
	m := tinyModel(t)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := saved(t, m)
			c.damage(t, filepath.Join(dir, c.file))
			_, err := Verify(dir)
			var ce *Error
			if !errors.As(err, &ce) || ce.File != c.file || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("case %d: Verify: err = %v, want an *Error naming %s and saying %q", i, err, c.file, c.want)
			}
			if _, err := Open(dir, nil); !errors.As(err, &ce) || ce.File != c.file {
				t.Errorf("case %d: Open: err = %v, want an *Error naming %s", i, err, c.file)
			}
		})
	}
}

// TestOpenWithoutManifestWarns: a folder without manifest.json loads
// unverified, with a warning.
func TestOpenWithoutManifestWarns(t *testing.T) {
	dir := saved(t, tinyModel(t))
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	f, err := Open(dir, &warn)
	if err != nil || f.Verified || !strings.Contains(warn.String(), "no manifest.json") {
		t.Fatalf("err %v verified %v warning %q", err, f != nil && f.Verified, warn.String())
	}
	if _, err := FileSHA256(dir, "model.safetensors"); err != nil {
		t.Errorf("FileSHA256 of an unverified folder: %v", err)
	}
}

// TestListPrune: List orders warm-start checkpoints before GRPO ones and
// skips what is not a checkpoint; Prune keeps step-000000 and the newest.
func TestListPrune(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"step-000010", "warmstart-000200", "step-000000", "warmstart-000040", "step-000002",
		"step-000004.damaged", "step-000006.old", ".tmp-123", "step-12", "warmstart-abcdef"} {
		if err := os.Mkdir(filepath.Join(root, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "step-000099"), nil, 0o644) // a file, not a checkpoint
	got, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"warmstart-000040", "warmstart-000200", "step-000000", "step-000002", "step-000010"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("List = %v, want %v", got, want)
	}
	if err := Prune(root, 2); err != nil {
		t.Fatal(err)
	}
	got, _ = List(root)
	if want := "step-000000 step-000002 step-000010"; strings.Join(got, " ") != want {
		t.Errorf("after pruning to 2: %v, want %s", got, want)
	}
	RemoveStaleTemps(root)
	if _, err := os.Stat(filepath.Join(root, ".tmp-123")); !os.IsNotExist(err) {
		t.Errorf("RemoveStaleTemps left .tmp-123 (%v)", err)
	}
}

// TestResolve: a run folder stands for its latest checkpoint, a model
// folder for itself; a missing folder, a file and a run folder without a
// finished checkpoint are refused with what to name instead.
func TestResolve(t *testing.T) {
	dir := saved(t, tinyModel(t))
	run := filepath.Dir(filepath.Dir(dir))
	empty := t.TempDir()
	unfinished := t.TempDir()
	os.Mkdir(filepath.Join(unfinished, Dir), 0o755)
	cases := []struct {
		name, in, want, err string
	}{
		{"run folder", run, dir, ""},
		{"checkpoint", dir, dir, ""},
		{"model folder", empty, empty, ""},
		{"missing", filepath.Join(empty, "nope"), "", "does not exist"},
		{"file", filepath.Join(dir, "state.json"), "", "is a file"},
		{"unfinished run", unfinished, "", "without a finished checkpoint"},
		{"checkpoints folder", filepath.Dir(dir), "", "did you mean " + dir},
	}
	for i, c := range cases {
		var note bytes.Buffer
		got, err := Resolve(c.in, &note)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d (%s): err = %v, want %q", i, c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("case %d (%s): Resolve = %q, %v; want %q", i, c.name, got, err, c.want)
		}
		if (c.in == run) != (note.Len() > 0) {
			t.Errorf("case %d (%s): note %q", i, c.name, note.String())
		}
	}
}
