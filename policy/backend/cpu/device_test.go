package cpu

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestDeviceTensorIsAnError checks that every kernel refuses a device
// tensor with an error that names the kernel, and writes nothing.
func TestDeviceTensorIsAnError(t *testing.T) {
	be := NewGo()
	d := backend.Device(0x1000, 4) // never dereferenced: the kernels check first
	h := backend.Host(make([]float32, 4))
	hd := backend.Heads{H: 1, K: 1, D: 2, Scale: 1}
	cases := []struct {
		kernel string
		call   func() error
	}{
		{"MatMul", func() error { return be.MatMul(false, false, 2, 2, 2, h, d, 0, h) }},
		{"AddBias", func() error { return be.AddBias(d, h) }},
		{"ColSum", func() error { return be.ColSum(h, d) }},
		{"Embed", func() error { return be.Embed(h, d, h, 2) }},
		{"EmbedBack", func() error { return be.EmbedBack(d, h, h, 2) }},
		{"RMSNorm", func() error { return be.RMSNorm(h, h, d, 4, 1e-6) }},
		{"RMSNormBack", func() error { return be.RMSNormBack(h, h, d, h, h, 4, 1e-6) }},
		{"Rope", func() error { return be.Rope(h, h, 1, 2, []int{0, 1}, d, h, false) }},
		{"Attention", func() error { return be.Attention(h, backend.Tensor{}, h, d, h, hd, 2) }},
		{"AttentionBack", func() error { return be.AttentionBack(h, h, h, h, h, h, h, backend.Tensor{}, d, hd, 2) }},
		{"AttendCached", func() error {
			return be.AttendCached(h, h, []backend.Tensor{d}, []backend.Tensor{h}, []backend.Span{{N: 1}}, hd)
		}},
		{"SwiGLU", func() error { return be.SwiGLU(h, backend.Tensor{}, d, h) }},
		{"SwiGLUBack", func() error { return be.SwiGLUBack(h, h, h, h, backend.Tensor{}, d) }},
		{"TokenLogProb", func() error { return be.TokenLogProb(h, backend.Tensor{}, d, h, 1) }},
		{"TokenLogProbBack", func() error { return be.TokenLogProbBack(h, d, h, backend.Tensor{}, h, 1) }},
		{"AdamW", func() error { return be.AdamW(h, h, d, h, backend.AdamWStep{}) }},
		{"LinearRows", func() error { return be.LinearRows(2, 2, 1, h, h, d) }},
		{"Copy", func() error { return be.Copy(h, d) }},
		{"Add", func() error { return be.Add(h, d) }},
		{"Mul", func() error { return be.Mul(h, h, d) }},
		{"Scale", func() error { return be.Scale(d, 2) }},
		{"Upload", func() error { return be.Upload(d, make([]float32, 4)) }},
		{"Download", func() error { return be.Download(h.Host(), d) }},
	}
	for i, tc := range cases {
		t.Run(tc.kernel, func(t *testing.T) {
			clear(h.Host())
			h.Host()[0] = 1
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.kernel+" got a device tensor") {
				t.Fatalf("case %d: %s with a device tensor: error %v, want one naming the kernel", i, tc.kernel, err)
			}
			if got := h.Host(); got[0] != 1 || got[1] != 0 || got[2] != 0 || got[3] != 0 {
				t.Errorf("case %d: %s wrote %v before refusing", i, tc.kernel, got)
			}
		})
	}
}
