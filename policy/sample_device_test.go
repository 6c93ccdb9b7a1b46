//go:build unix

package policy

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// samplers returns the backends that sample on the device here: the
// arena (always), the emulated CUDA device where it opens, and the
// backend ARTIST_BACKEND names when it samples on its device (cuda on a
// GPU: the device check runs these tests there).
func samplers(t *testing.T) map[string]backend.Backend {
	t.Helper()
	out := map[string]backend.Backend{"arena": newArena(t)}
	if name := os.Getenv(backend.EnvVar); name != "" && name != "cudaemu" {
		be, err := backend.Open(name)
		if err != nil {
			t.Fatalf("%s=%s: %v", backend.EnvVar, name, err)
		}
		if _, ok := be.(backend.Sampler); ok {
			out[name] = be
		}
	}
	emu, err := backend.Open("cudaemu")
	switch {
	case err == nil:
		out["cudaemu"] = emu
	case os.Getenv(backend.EnvVar) == "cudaemu":
		t.Fatalf("%s=cudaemu but: %v", backend.EnvVar, err)
	default:
		t.Logf("skipping cudaemu: %v", err)
	}
	return out
}

// greedyRef returns the first largest logit and its log softmax.
func greedyRef(logits []float32) (int, float64) {
	top, z := 0, 0.0
	for i, l := range logits {
		if l > logits[top] {
			top = i
		}
	}
	for _, l := range logits {
		z += math.Exp(float64(l) - float64(logits[top]))
	}
	return top, -math.Log(z)
}

// TestStepSampleGreedy decodes greedily twice on each sampling backend,
// once with Step and the host's argmax, once with StepSample: the same
// tokens, the same log-probs to float32 rounding. On the arena the
// decoding reads no device memory outside the backend's calls.
func TestStepSampleGreedy(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for name, be := range samplers(t) {
		t.Run(name, func(t *testing.T) {
			m := testModel(t, false, 61)
			m.UseBackend(be)
			seqs := randomSeqs(rand.New(rand.NewSource(62)), m.Config.VocabSize, 9, 3, 6)
			host, dev := m.NewSession(len(seqs), 40), m.NewSession(len(seqs), 40)
			defer host.Close()
			defer dev.Close()
			if !dev.CanSampleOnDevice() {
				t.Fatalf("%s cannot sample on the device", name)
			}
			hfeed, dfeed := seqs, seqs
			for step := range 10 {
				if step == 4 {
					hfeed[1], dfeed[1] = nil, nil // a row that sits a step out
				}
				logits := mustStep(t, host, hfeed)
				toks, lps, nucs, err := dev.StepSample(dfeed, nil, 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				hfeed, dfeed = make([][]int, len(seqs)), make([][]int, len(seqs))
				for i, l := range logits {
					if l == nil {
						if toks[i] != -1 || lps[i] != 0 {
							t.Fatalf("step %d: row %d fed nothing but drew %d (%v)", step, i, toks[i], lps[i])
						}
						hfeed[i], dfeed[i] = []int{0}, []int{0}
						continue
					}
					want, lp := greedyRef(l)
					if toks[i] != want || math.Abs(float64(lps[i])-lp) > 1e-5 || nucs[i] != lps[i] {
						t.Fatalf("step %d row %d: drew %d (%v, %v), want %d (%v)", step, i, toks[i], lps[i], nucs[i], want, lp)
					}
					hfeed[i], dfeed[i] = []int{want}, []int{toks[i]}
				}
			}
		})
	}
}

// counting counts the values a backend downloads; it samples with the
// backend's own sampler.
type counting struct {
	backend.Backend
	down int
}

func (c *counting) Download(dst []float32, src backend.Tensor) error {
	c.down += len(dst)
	return c.Backend.Download(dst, src)
}

func (c *counting) Sample(tokens, logprobs, nucleus, logits, us backend.Tensor, n, v int, temperature, topP float32) error {
	return c.Backend.(backend.Sampler).Sample(tokens, logprobs, nucleus, logits, us, n, v, temperature, topP)
}

// TestStepSampleDownloads counts the values a decoding step brings back
// to the host: V per fed row with Step, 3 per fed row with StepSample.
func TestStepSampleDownloads(t *testing.T) {
	for name, be := range samplers(t) {
		t.Run(name, func(t *testing.T) {
			c := &counting{Backend: be}
			m := testModel(t, true, 63)
			m.UseBackend(c)
			V, S := m.Config.VocabSize, 4
			s := m.NewSession(S, 40)
			defer s.Close()
			seqs := randomSeqs(rand.New(rand.NewSource(64)), V, 5, 5, 5, 5)
			us := []float64{0.1, 0.5, 0.9, 0.999}
			for step, sample := range []bool{false, true, true, false, true} {
				c.down = 0
				want := S * V
				if sample {
					want = 3 * S
					if _, _, _, err := s.StepSample(seqs, us, 1, 0.9); err != nil {
						t.Fatal(err)
					}
				} else {
					mustStep(t, s, seqs)
				}
				if c.down != want {
					t.Errorf("step %d (device sampling %v): %d values downloaded, want %d", step, sample, c.down, want)
				}
				seqs = [][]int{{1}, {2}, {3}, {4}}
			}
			t.Logf("%d rows, V=%d: Step downloads %d bytes a step, StepSample %d", S, V, 4*S*V, 4*3*S)
		})
	}
}

// TestStepSampleErrors checks StepSample's contract at its edges.
func TestStepSampleErrors(t *testing.T) {
	m := testModel(t, true, 65)
	m.UseBackend(cpu.NewGo())
	s := m.NewSession(2, 20)
	if s.CanSampleOnDevice() {
		t.Error("the pure-Go backend claims to sample on the device")
	}
	if _, _, _, err := s.StepSample([][]int{{1}, {2}}, nil, 0, 1); err == nil || !strings.Contains(err.Error(), "use Step") {
		t.Errorf("StepSample on the pure-Go backend: error %v, want one saying to use Step", err)
	}
	m.UseBackend(newArena(t))
	s = m.NewSession(2, 20)
	defer s.Close()
	for i, c := range []struct {
		us         []float64
		temp, topP float64
		want       string
	}{
		{nil, -1, 1, "temperature -1"}, {nil, 1, 0, "top_p 0"}, {nil, 1, 1.5, "top_p 1.5"},
		{[]float64{0.5, 1}, 1, 1, "sequence 1's uniform 1"}, {[]float64{math.NaN(), 0}, 1, 1, "sequence 0's uniform NaN"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, _, _, err := s.StepSample([][]int{{1, 2}, {3}}, c.us, c.temp, c.topP)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
			if s.Len(0) != 0 || s.Len(1) != 0 {
				t.Errorf("a refused StepSample appended: lengths %d and %d", s.Len(0), s.Len(1))
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("StepSample with one uniform for two feeds did not panic")
		}
	}()
	_, _, _, _ = s.StepSample([][]int{{1}, {2}}, []float64{0.5}, 1, 1)
}
