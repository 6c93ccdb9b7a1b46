//go:build linux

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// attentionCases cover one row, grouped heads (H=3, K=1), odd head dims
// and sequences longer than a chunk of keys (blockAttn).
var attentionCases = []attentionCase{
	{1, 1, 1, 1, 2},
	{2, 7, 3, 1, 6},
	{3, 5, 2, 2, 8},
	{1, 131, 2, 1, 37},
	{2, 3, 2, 1, 190}, // one query row per block: tiles of D=190 exceed 48 KiB
}

func heads(H, K, D int) backend.Heads {
	return backend.Heads{H: H, K: K, D: D, Scale: float32(1 / math.Sqrt(float64(D)))}
}

// TestAttention runs every case through the tiled kernels (where the
// head dim allows) and through the one-row kernels.
func TestAttention(t *testing.T) {
	e := newEmu(t)
	defer func() { oneRow = false }()
	for _, rows := range []bool{false, true} {
		oneRow = rows
		for i, c := range attentionCases {
			for _, save := range []bool{false, true} {
				t.Run(fmt.Sprintf("case %d %+v save=%v one-row=%v", i, c, save, rows), func(t *testing.T) {
					testAttention(t, e, i, c, save)
				})
			}
		}
	}
}

// attentionCase is one shape of TestAttention.
type attentionCase struct{ B, T, H, K, D int }

// testAttention checks Attention and AttentionBack of case c (seeded by
// i) against the pure-Go backend.
func testAttention(t *testing.T, e *Emulator, i int, c attentionCase, save bool) {
	rng := rand.New(rand.NewPCG(6, uint64(i)))
	h, N := heads(c.H, c.K, c.D), c.B*c.T
	q, k, v := randn(rng, N*c.H*c.D, 1), randn(rng, N*c.K*c.D, 1), randn(rng, N*c.K*c.D, 1)
	do := randn(rng, N*c.H*c.D, 1)
	var wsaved, saved []float32
	if save {
		wsaved, saved = make([]float32, N*c.H*c.T), randn(rng, N*c.H*c.T, 1)
	}
	wo, o := make([]float32, len(q)), randn(rng, len(q), 1)
	must(t, ref().Attention(host(wo), host(wsaved), host(q), host(k), host(v), h, c.T))
	must(t, Attention(e, addr(o), addr(saved), addr(q), addr(k), addr(v), N, h, c.T))
	assertClose(t, "o", o, wo, tolerance)

	wdq, wdk, wdv := make([]float32, len(q)), make([]float32, len(k)), make([]float32, len(v))
	must(t, ref().AttentionBack(host(wdq), host(wdk), host(wdv), host(q), host(k), host(v), host(wo), host(wsaved), host(do), h, c.T))
	dq, dk, dv := randn(rng, len(q), 1), randn(rng, len(k), 1), randn(rng, len(v), 1)
	scratch := make([]float32, 2*N*c.H)
	must(t, AttentionBack(e, addr(dq), addr(dk), addr(dv), addr(q), addr(k), addr(v), addr(o), addr(saved), addr(do), addr(scratch), N, h, c.T))
	assertClose(t, "dq", dq, wdq, tolerance)
	assertClose(t, "dk", dk, wdk, tolerance)
	assertClose(t, "dv", dv, wdv, tolerance)
}

// TestAttendCached runs every case through the grouped kernel and the
// one-head kernel.
func TestAttendCached(t *testing.T) {
	e := newEmu(t)
	defer func() { oneRow = false }()
	for _, rows := range []bool{false, true} {
		oneRow = rows
		t.Run(fmt.Sprintf("one-row=%v", rows), func(t *testing.T) { testAttendCached(t, e) })
	}
}

func testAttendCached(t *testing.T, e *Emulator) {
	for i, c := range []struct {
		H, K, D int
		spans   []backend.Span
	}{
		{1, 1, 2, []backend.Span{{Row: 0, N: 1, P0: 0}}},
		{3, 1, 6, []backend.Span{{Row: 0, N: 1, P0: 4}, {Row: 1, N: 3, P0: 0}, {Row: 4, N: 2, P0: 9}}},
		{4, 2, 37, []backend.Span{{Row: 2, N: 1, P0: 140}, {Row: 0, N: 2, P0: 127}, {Row: 3, N: 0, P0: 5}}},
		{9, 1, 4, []backend.Span{{Row: 0, N: 2, P0: 3}}}, // a group of 9: one head per block
	} {
		t.Run(fmt.Sprintf("case %d", i), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(i)))
			h, N := heads(c.H, c.K, c.D), 0
			var keys, vals []backend.Tensor
			var kaddr, vaddr []uintptr
			for _, sp := range c.spans {
				N = max(N, sp.Row+sp.N)
				P := sp.P0 + sp.N + 2 // caches longer than needed
				k, v := randn(rng, P*c.K*c.D, 1), randn(rng, P*c.K*c.D, 1)
				keys, vals = append(keys, host(k)), append(vals, host(v))
				kaddr, vaddr = append(kaddr, addr(k)), append(vaddr, addr(v))
			}
			q := randn(rng, N*c.H*c.D, 1)
			wo := make([]float32, len(q))
			must(t, ref().AttendCached(host(wo), host(q), keys, vals, c.spans, h))
			o := clone(wo) // rows outside the spans stay as they are
			for _, sp := range c.spans {
				copy(o[sp.Row*c.H*c.D:(sp.Row+sp.N)*c.H*c.D], randn(rng, sp.N*c.H*c.D, 1))
			}
			desc := PackSpans(nil, kaddr, vaddr, c.spans)
			must(t, AttendCached(e, addr(o), addr(q), addr(desc), c.spans, h))
			assertClose(t, "o", o, wo, tolerance)
		})
	}
}
