package policy

import (
	"math"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// otherBackends returns every registered backend but pure Go that opens
// here. One that does not open is skipped with its reason, unless
// ARTIST_BACKEND names it: then the test fails.
func otherBackends(t *testing.T) []backend.Backend {
	t.Helper()
	var out []backend.Backend
	for _, name := range backend.Names() {
		if name == "go" {
			continue
		}
		b, err := backend.Open(name)
		if err != nil {
			if os.Getenv(backend.EnvVar) == name {
				t.Fatalf("%s=%s but: %v", backend.EnvVar, name, err)
			}
			t.Logf("skipping backend %s: %v", name, err)
			continue
		}
		out = append(out, b)
	}
	return out
}

// tensorDiff is max |got − want| over the largest |want|, 0 when both are
// all zeros.
func tensorDiff(got, want []float32) float64 {
	var d, scale float64
	for i := range want {
		d = max(d, math.Abs(float64(got[i])-float64(want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	if scale == 0 {
		return d
	}
	return d / scale
}

// TestBackendsAgree runs every backend on the gradient-check models and
// on a model the size of the default one, and compares log-probs
// (Backward, LogProbs, decoding logits) and every gradient with the
// pure-Go backend's, to float32 rounding (libraries sum in other orders).
func TestBackendsAgree(t *testing.T) {
	others := otherBackends(t)
	if len(others) == 0 {
		t.Skip("no backend but pure Go opens here")
	}
	ref := cpu.NewGo()
	cases := []struct {
		name  string
		model func() *Model
		seqs  func(V int) ([][]int, [][]float32)
	}{
		{"tied", func() *Model { return testModel(t, true, 21) }, func(V int) ([][]int, [][]float32) { return batchFor(22, V) }},
		{"untied", func() *Model { return testModel(t, false, 23) }, func(V int) ([][]int, [][]float32) { return batchFor(24, V) }},
		{"default size, long", func() *Model {
			m, err := New(benchConfig(), rand.New(rand.NewSource(25)))
			if err != nil {
				t.Fatal(err)
			}
			return m
		}, func(V int) ([][]int, [][]float32) {
			rng := rand.New(rand.NewSource(26))
			seqs := randomSeqs(rng, V, 2*causalBlock+21, 150, 33, 96, 7)
			coef := make([][]float32, len(seqs))
			for i, s := range seqs {
				coef[i] = make([]float32, len(s))
				for j := range coef[i] {
					coef[i][j] = float32(rng.NormFloat64()) / 100
				}
			}
			return seqs, coef
		}},
	}
	for _, tc := range cases {
		m := tc.model()
		seqs, coef := tc.seqs(m.Config.VocabSize)
		m.UseBackend(ref)
		want := runAll(t, m, seqs, coef)
		for _, be := range others {
			t.Run(tc.name+"/"+be.Info().Name, func(t *testing.T) {
				m.UseBackend(be)
				got := runAll(t, m, seqs, coef)
				worst, at := 0.0, ""
				for name, w := range want {
					if d := tensorDiff(got[name], w); d > worst {
						worst, at = d, name
					}
				}
				if worst > 1e-4 {
					t.Errorf("%s differs from pure Go by %.3g (relative to its largest value)", at, worst)
				}
				t.Logf("largest relative difference %.3g at %s", worst, at)
			})
		}
	}
}

// runAll returns, by name, the log-probs and gradients of one Backward,
// LogProbs, and the logits of a prompt step and two decoding steps.
func runAll(t *testing.T, m *Model, seqs [][]int, coef [][]float32) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	m.ZeroGrad()
	lp, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	out["backward log-probs"] = flatten(lp)
	if err := m.HostGrads(); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params {
		out["grad "+p.Name] = append([]float32(nil), p.Grad...)
	}
	out["LogProbs"] = flatten(logProbs(t, m, seqs))
	s := m.NewSession(len(seqs), 2*causalBlock+32)
	prompts := make([][]int, len(seqs))
	for i, sq := range seqs {
		prompts[i] = sq[:min(len(sq), 2*causalBlock+21)]
	}
	out["prompt logits"] = flatten(mustStep(t, s, prompts))
	for step := range 2 {
		next := make([][]int, len(seqs))
		for i := range next {
			next[i] = []int{(i + step) % m.Config.VocabSize}
		}
		out["decode logits "+string(rune('1'+step))] = flatten(mustStep(t, s, next))
	}
	return out
}

func flatten(rows [][]float32) []float32 {
	var out []float32
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// TestBackendSelection runs the test binary again with the environment of
// each case, where the helper below builds a model and prints its backend
// or its error.
func TestBackendSelection(t *testing.T) {
	if os.Getenv("POLICY_BACKEND_HELPER") == "1" {
		t.Skip("inside the helper process")
	}
	const missing = "libopenblas-not-installed.so.0"
	cases := []struct {
		name    string
		env     []string
		wantErr bool
		want    []string
	}{
		{"forced absent openblas", []string{"ARTIST_BACKEND=openblas", cpu.OpenBLASLibraryEnv + "=" + missing}, true,
			[]string{"policy: backend: ARTIST_BACKEND=openblas", missing, "apt-get install libopenblas0-pthread", "ARTIST_BACKEND=go"}},
		{"unknown name", []string{"ARTIST_BACKEND=tpu"}, true, []string{`no backend named "tpu"`, "go", "openblas"}},
		{"no openblas: pure Go, says why", []string{"ARTIST_BACKEND=", cpu.OpenBLASLibraryEnv + "=" + missing}, false,
			[]string{"backend go", missing, "apt-get install libopenblas0-pthread"}},
		{"forced pure Go", []string{"ARTIST_BACKEND=go"}, false, []string{"backend go", "forced by ARTIST_BACKEND"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBackendSelectionHelper$", "-test.v")
			cmd.Env = append(append(os.Environ(), "POLICY_BACKEND_HELPER=1"), tc.env...)
			b, _ := cmd.CombinedOutput()
			out := string(b)
			if gotErr := strings.Contains(out, "helper error:"); gotErr != tc.wantErr {
				t.Fatalf("error %v, want %v; output:\n%s", gotErr, tc.wantErr, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output does not mention %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestBackendSelectionHelper is the child process of TestBackendSelection.
func TestBackendSelectionHelper(t *testing.T) {
	if os.Getenv("POLICY_BACKEND_HELPER") != "1" {
		t.Skip("run by TestBackendSelection")
	}
	if _, err := New(tinyConfig(true), rand.New(rand.NewSource(1))); err != nil {
		t.Logf("helper error: %v", err)
		return
	}
	sel, err := DefaultBackend()
	if err != nil {
		t.Fatalf("New succeeded but DefaultBackend failed: %v", err)
	}
	t.Logf("backend %v", sel)
}
