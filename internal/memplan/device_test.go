package memplan

import (
	"strings"
	"testing"
)

// TestOnDevice: a device plan keeps every term but the host's runtime
// term, which becomes the backend's reserve, and leaves the host plan
// as it was.
func TestOnDevice(t *testing.T) {
	host := Plan{Terms: []Term{{"weights (f32)", 4 << 30}, {"KV cache (8 x 100 tokens)", 1 << 30}, {hostRuntimeTerm, RuntimeBytes}}}
	for _, c := range []struct {
		reserved int64
		want     []Term
	}{
		{560 << 20, []Term{{"weights (f32)", 4 << 30}, {"KV cache (8 x 100 tokens)", 1 << 30}, {ReservedTerm, 560 << 20}}},
		{0, []Term{{"weights (f32)", 4 << 30}, {"KV cache (8 x 100 tokens)", 1 << 30}}},
	} {
		got := host.OnDevice(c.reserved)
		if len(got.Terms) != len(c.want) {
			t.Fatalf("reserve %d: terms %+v, want %+v", c.reserved, got.Terms, c.want)
		}
		for i := range c.want {
			if got.Terms[i] != c.want[i] {
				t.Errorf("reserve %d: term %d is %+v, want %+v", c.reserved, i, got.Terms[i], c.want[i])
			}
		}
	}
	if host.Terms[2].Name != hostRuntimeTerm {
		t.Errorf("OnDevice changed the host plan: %+v", host.Terms)
	}
	if e := Estimate(tiny(), Run{DecodeSeqs: 1, DecodeLen: 8}); e.Terms[len(e.Terms)-1].Name != hostRuntimeTerm {
		t.Errorf("Estimate's last term is %q, not %q, which OnDevice replaces", e.Terms[len(e.Terms)-1].Name, hostRuntimeTerm)
	}
}

// TestCheckDevice: a device plan over the free memory is refused with
// the device, the estimate, the free bytes, the largest term and the
// config keys that shrink it; one within it, or against unknown free
// memory, is not.
func TestCheckDevice(t *testing.T) {
	p := Plan{Terms: []Term{{"weights (f32)", 4 << 30}, {"KV cache (192 x 12480 tokens)", 12 << 30}, {ReservedTerm, 560 << 20}}}
	for _, c := range []struct {
		free int64
		want []string // nil: fits
	}{
		{80e9, nil},
		{0, nil},
		{8 << 30, []string{"16.5 GiB", "exceeds the memory free on GPU X (device 0), 8192 MiB",
			"its largest term is KV cache (192 x 12480 tokens), 12.0 GiB", "grpo.batch_size x rollout.group_size",
			"model.recompute", "model.lora.rank", "-force"}},
	} {
		err := p.CheckDevice(c.free, "GPU X (device 0)")
		if (err == nil) != (c.want == nil) {
			t.Errorf("free %d: %v", c.free, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("free %d: error lacks %q: %v", c.free, w, err)
			}
		}
	}
}

// TestDeviceFixesOrder: the refusal's first way out shrinks its largest
// term.
func TestDeviceFixesOrder(t *testing.T) {
	for _, c := range []struct{ largest, first string }{
		{"KV cache (192 x 12480 tokens)", fixDecode},
		{"activations (64 x 432 tokens)", fixGraph},
		{"AdamW moments", fixState},
		{"weights (f32)", fixState},
	} {
		if got := deviceFixes(c.largest); len(got) != 3 || got[0] != c.first {
			t.Errorf("%s: ways out %q, want %q first", c.largest, got, c.first)
		}
	}
}
