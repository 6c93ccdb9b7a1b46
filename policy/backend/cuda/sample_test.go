//go:build unix

package cuda

import (
	"math"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestEmuSample draws on the emulated backend: greedy rows give the
// host's argmax and log softmax, u = 0 the first token of the nucleus;
// bad arguments are errors that name the kernel.
func TestEmuSample(t *testing.T) {
	b := openEmu(t)
	const n, v = 5, 11
	logits := randSlice(newRand(5), n*v)
	mirror := func(x []float32) backend.Tensor {
		d, err := b.Mirror(x)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Free(d) })
		return d
	}
	dl, out := mirror(logits), mirror(make([]float32, 3*n))
	tok, lp, nuc := out.Slice(0, n), out.Slice(n, 2*n), out.Slice(2*n, 3*n)
	if err := b.Sample(tok, lp, nuc, dl, backend.Tensor{}, n, v, 0, 1); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 3*n)
	if err := b.Download(got, out); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		row := logits[r*v : (r+1)*v]
		top, z := 0, 0.0
		for i, x := range row {
			if x > row[top] {
				top = i
			}
		}
		for _, x := range row {
			z += math.Exp(float64(x - row[top]))
		}
		if int(got[r]) != top || math.Abs(float64(got[n+r])+math.Log(z)) > 1e-5 || got[2*n+r] != got[n+r] {
			t.Errorf("row %d: token %v, log-probs %v %v; want %d, %.6f twice", r, got[r], got[n+r], got[2*n+r], top, -math.Log(z))
		}
	}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"host tensor", func() error {
			return b.Sample(backend.Host(make([]float32, n)), lp, nuc, dl, backend.Tensor{}, n, v, 0, 1)
		}, "argument 1 is a host tensor"},
		{"no uniforms", func() error { return b.Sample(tok, lp, nuc, dl, backend.Tensor{}, n, v, 1, 1) }, "us holds 0 values"},
		{"short logits", func() error { return b.Sample(tok, lp, nuc, dl, backend.Tensor{}, n, v+1, 0, 1) }, "logits holds"},
		{"top_p 0", func() error { return b.Sample(tok, lp, nuc, dl, tok, n, v, 1, 0) }, "top_p"},
	} {
		if err := c.call(); err == nil || !strings.Contains(err.Error(), "Sample") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming Sample and saying %q", c.name, err, c.want)
		}
	}
}
