//go:build linux

package cuda

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// TestModelEmuAndGPU runs a small model on the emulated device, on the
// real device code over the fake driver (see TestFakeGPU), on the GPU
// where there is one, and on the pure-Go backend: log-probs and every
// gradient of one backward pass agree to float32 rounding, and so do the
// logits of a decoding session (attention over the KV cache, sequences
// of different lengths). The model's whole path runs through the CUDA
// backend's code.
func TestModelEmuAndGPU(t *testing.T) {
	devices := modelDevices(t)
	want := runModel(t, cpu.NewGo())
	var sum float64
	for _, g := range want.grads {
		for _, v := range g {
			sum += math.Abs(float64(v))
		}
	}
	if sum == 0 {
		t.Fatal("every gradient is zero: the comparison would prove nothing")
	}
	for name, be := range devices {
		t.Run(name, func(t *testing.T) {
			got := runModel(t, be)
			for _, c := range []struct {
				what      string
				got, want [][]float32
				tol       float64
			}{
				{"LogProbs", got.logp, want.logp, 1e-4}, {"Backward log-probs", got.blogp, want.blogp, 1e-4},
				{"gradient", got.grads, want.grads, 1e-3}, {"decoding logits", got.logits, want.logits, 1e-4},
			} {
				for i := range c.want {
					closeTo(t, fmt.Sprintf("%s %d", c.what, i), c.got[i], c.want[i], c.tol)
				}
			}
		})
	}
}

// modelDevices opens the devices that this machine has.
func modelDevices(t *testing.T) map[string]backend.Backend {
	devices := map[string]backend.Backend{}
	if emu, err := OpenEmulated(); err == nil {
		devices["cudaemu"] = emu
	} else {
		t.Logf("cudaemu: %v", err)
	}
	if fake, ok := fakeGPU(t); ok { // the real device code over testdata/fakecuda
		devices["fake driver"] = fake
	}
	if gpu, err := Open(); err == nil {
		devices["gpu"] = gpu
	}
	if len(devices) == 0 {
		t.Skip("neither cudaemu nor cuda opens")
	}
	return devices
}

// modelResults are what runModel compares.
type modelResults struct {
	logp, blogp, grads, logits [][]float32
}

// runModel builds the test model on be and computes its log-probs, a
// backward pass's gradients and a decoding session's logits.
func runModel(t *testing.T, be backend.Backend) modelResults {
	cfg := policy.Config{VocabSize: 37, HiddenSize: 24, IntermediateSize: 40, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6}
	rng := rand.New(rand.NewSource(7))
	seqs, coef := make([][]int, 3), make([][]float32, 3)
	for i := range seqs {
		for j := 0; j < 5+4*i; j++ {
			seqs[i] = append(seqs[i], rng.Intn(cfg.VocabSize))
			coef[i] = append(coef[i], rng.Float32()-0.5)
		}
	}
	m, err := policy.New(cfg, rand.New(rand.NewSource(8)))
	if err != nil {
		t.Fatal(err)
	}
	m.UseBackend(be)
	var r modelResults
	if r.logp, err = m.LogProbs(seqs); err != nil {
		t.Fatal(err)
	}
	if r.blogp, err = m.Backward(seqs, coef); err != nil {
		t.Fatal(err)
	}
	if err := m.HostGrads(); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.TrainParams() {
		r.grads = append(r.grads, p.Grad)
	}
	r.logits = decode(t, m, seqs)
	return r
}

// decode feeds each sequence's first half as a prompt to a session, then
// the rest one token per step, and returns the logits of every step.
func decode(t *testing.T, m *policy.Model, seqs [][]int) [][]float32 {
	t.Helper()
	s := m.NewSession(len(seqs), 32)
	defer s.Close()
	var out [][]float32
	for pos := 0; ; {
		feed := make([][]int, len(seqs))
		fed := false
		for i, q := range seqs {
			half := len(q) / 2
			switch {
			case pos == 0:
				feed[i] = q[:half]
			case half+pos-1 < len(q):
				feed[i] = q[half+pos-1 : half+pos]
			}
			fed = fed || len(feed[i]) > 0
		}
		if !fed {
			return out
		}
		logits, err := s.Step(feed)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logits {
			if l != nil {
				out = append(out, append([]float32(nil), l...))
			}
		}
		pos++
	}
}
