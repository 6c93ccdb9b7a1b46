//go:build linux

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// TestRoundBF16 runs the conversion kernel in the emulator on every
// class of float32 value and on random bit patterns: each result must be
// the host's rounding (policy.RoundBF16) and, for the listed values, the
// bfloat16 bits written out here.
func TestRoundBF16(t *testing.T) {
	e := newEmu(t)
	cases := []struct {
		name string
		in   uint32 // float32 bits
		want uint16 // bfloat16 bits
	}{
		{"+0", 0x00000000, 0x0000},
		{"-0", 0x80000000, 0x8000},
		{"1", 0x3f800000, 0x3f80},
		{"-2.5", 0xc0200000, 0xc020},
		{"below a tie rounds down", 0x3f807fff, 0x3f80},
		{"tie to even rounds down", 0x3f808000, 0x3f80},
		{"tie to even rounds up", 0x3f818000, 0x3f82},
		{"above a tie rounds up", 0x3f808001, 0x3f81},
		{"negative tie to even", 0xbf818000, 0xbf82},
		{"carry into the exponent", 0x3fffc000, 0x4000},
		{"largest finite bfloat16", 0x7f7f0000, 0x7f7f},
		{"largest float32 overflows", 0x7f7fffff, 0x7f80},
		{"tie above the largest overflows", 0x7f7f8000, 0x7f80},
		{"negative overflow", 0xff7fffff, 0xff80},
		{"smallest normal", 0x00800000, 0x0080},
		{"smallest subnormal rounds to 0", 0x00000001, 0x0000},
		{"subnormal tie to even 0", 0x00008000, 0x0000},
		{"subnormal tie rounds up to even", 0x00018000, 0x0002},
		{"subnormal rounds up", 0x00008001, 0x0001},
		{"largest subnormal to smallest normal", 0x007fffff, 0x0080},
		{"negative subnormal", 0x80018000, 0x8002},
		{"+Inf", 0x7f800000, 0x7f80},
		{"-Inf", 0xff800000, 0xff80},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"signalling NaN stays NaN", 0x7f800001, 0x7fc0},
		{"NaN with a full payload", 0x7fffffff, 0x7fff},
		{"negative NaN", 0xffc00001, 0xffc0},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(cases) + 4099
	src := make([]float32, n)
	for i := range src {
		if i < len(cases) {
			src[i] = math.Float32frombits(cases[i].in)
		} else {
			src[i] = math.Float32frombits(rng.Uint32())
		}
	}
	dst := make([]uint16, n)
	must(t, RoundBF16(e, addr(dst), addr(src), n))
	for i, c := range cases {
		if dst[i] != c.want {
			t.Errorf("%s: %#08x → %#04x, want %#04x", c.name, c.in, dst[i], c.want)
		}
	}
	for i, v := range src {
		if want := policy.RoundBF16(v); dst[i] != want {
			t.Errorf("value %d (%#08x): kernel %#04x, host %#04x", i, math.Float32bits(v), dst[i], want)
		}
	}
	if err := RoundBF16(e, 0, 0, -1); err == nil {
		t.Error("RoundBF16 of -1 values: no error")
	}
}

// TestWidenBF16 runs the widening kernel in the emulator on every class
// of bfloat16 value and on every bit pattern: each result must be the
// host's widening (policy.FromBF16) bit for bit and, for the listed
// values, the float32 bits written out here.
func TestWidenBF16(t *testing.T) {
	e := newEmu(t)
	cases := []struct {
		name string
		in   uint16 // bfloat16 bits
		want uint32 // float32 bits
	}{
		{"+0", 0x0000, 0x00000000},
		{"-0", 0x8000, 0x80000000},
		{"1", 0x3f80, 0x3f800000},
		{"-2.5", 0xc020, 0xc0200000},
		{"largest finite", 0x7f7f, 0x7f7f0000},
		{"smallest normal", 0x0080, 0x00800000},
		{"smallest subnormal", 0x0001, 0x00010000},
		{"largest subnormal", 0x007f, 0x007f0000},
		{"negative subnormal", 0x8002, 0x80020000},
		{"+Inf", 0x7f80, 0x7f800000},
		{"-Inf", 0xff80, 0xff800000},
		{"quiet NaN", 0x7fc0, 0x7fc00000},
		{"signalling NaN stays signalling", 0x7f81, 0x7f810000},
		{"NaN with a full payload", 0x7fff, 0x7fff0000},
		{"negative NaN", 0xffc1, 0xffc10000},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := len(cases) + 1<<16 + 4099 // the cases, every bit pattern, random ones
	src := make([]uint16, n)
	for i := range src {
		switch {
		case i < len(cases):
			src[i] = cases[i].in
		case i < len(cases)+1<<16:
			src[i] = uint16(i - len(cases))
		default:
			src[i] = uint16(rng.Uint32())
		}
	}
	dst := make([]float32, n+1)
	dst[n] = 42 // past the n values: must stay
	must(t, WidenBF16(e, addr(dst), addr(src), n))
	for i, c := range cases {
		if got := math.Float32bits(dst[i]); got != c.want {
			t.Errorf("%s: %#04x → %#08x, want %#08x", c.name, c.in, got, c.want)
		}
	}
	for i, h := range src {
		if got, want := math.Float32bits(dst[i]), math.Float32bits(policy.FromBF16(h)); got != want {
			t.Errorf("value %d (%#04x): kernel %#08x, host %#08x", i, h, got, want)
		}
	}
	if dst[n] != 42 {
		t.Errorf("the value after the %d widened was overwritten: %v", n, dst[n])
	}
	if err := WidenBF16(e, 0, 0, -1); err == nil {
		t.Error("WidenBF16 of -1 values: no error")
	}
}
