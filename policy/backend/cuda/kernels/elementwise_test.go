//go:build linux

package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// elementSizes cover one partial block, several blocks and sizes that are
// not multiples of the block.
var elementSizes = []int{1, 37, 259, 4099}

// elementCase runs one element-wise kernel on x, y and z (n values
// each) through the emulator and the pure-Go backend.
type elementCase struct {
	name string
	tol  float64
	run  func(t *testing.T, n int, x, y, z []float32) (got, want []float32)
}

// arithmeticCases are Fill, Copy, Add, Mul and Scale, which must agree
// exactly.
func arithmeticCases(e *Emulator) []elementCase {
	return []elementCase{
		{"Fill", 0, func(t *testing.T, n int, x, _, _ []float32) ([]float32, []float32) {
			must(t, Fill(e, addr(x), n, 0.25))
			want := make([]float32, n)
			for i := range want {
				want[i] = 0.25
			}
			return x, want
		}},
		{"Copy", 0, func(t *testing.T, n int, x, y, _ []float32) ([]float32, []float32) {
			must(t, Copy(e, addr(y), addr(x), n))
			return y, x
		}},
		{"Add", 0, func(t *testing.T, n int, x, y, _ []float32) ([]float32, []float32) {
			want := clone(y)
			must(t, ref().Add(host(want), host(x)))
			must(t, Add(e, addr(y), addr(x), n))
			return y, want
		}},
		{"Mul", 0, func(t *testing.T, n int, x, y, z []float32) ([]float32, []float32) {
			want := make([]float32, n)
			must(t, ref().Mul(host(want), host(x), host(y)))
			must(t, Mul(e, addr(z), addr(x), addr(y), n))
			return z, want
		}},
		{"Mul/y=a", 0, func(t *testing.T, n int, x, y, _ []float32) ([]float32, []float32) {
			want := make([]float32, n)
			must(t, ref().Mul(host(want), host(x), host(y)))
			must(t, Mul(e, addr(x), addr(x), addr(y), n))
			return x, want
		}},
		{"Scale", 0, func(t *testing.T, n int, x, _, _ []float32) ([]float32, []float32) {
			want := clone(x)
			must(t, ref().Scale(host(want), -0.37))
			must(t, Scale(e, addr(x), n, -0.37))
			return x, want
		}},
	}
}

// activationCases are SwiGLU, its gradient and AdamW.
func activationCases(e *Emulator) []elementCase {
	return []elementCase{
		{"SwiGLU", exactRel, func(t *testing.T, n int, x, y, z []float32) ([]float32, []float32) {
			want, wsaved, saved := make([]float32, n), make([]float32, n), make([]float32, n)
			must(t, ref().SwiGLU(host(want), host(wsaved), host(x), host(y)))
			must(t, SwiGLU(e, addr(z), addr(saved), addr(x), addr(y), n))
			assertClose(t, "saved", saved, wsaved, exactRel)
			return z, want
		}},
		{"SwiGLU/y=gate,nosave", exactRel, func(t *testing.T, n int, x, y, _ []float32) ([]float32, []float32) {
			want := make([]float32, n)
			must(t, ref().SwiGLU(host(want), backend.Tensor{}, host(x), host(y)))
			must(t, SwiGLU(e, addr(x), 0, addr(x), addr(y), n))
			return x, want
		}},
		{"SwiGLUBack", exactRel, func(t *testing.T, n int, x, y, z []float32) ([]float32, []float32) {
			saved, dgate, dup, wgate, wup := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			must(t, ref().SwiGLU(host(make([]float32, n)), host(saved), host(x), host(y)))
			must(t, ref().SwiGLUBack(host(wgate), host(wup), host(x), host(y), host(saved), host(z)))
			must(t, SwiGLUBack(e, addr(dgate), addr(dup), addr(x), addr(y), addr(saved), addr(z), n))
			assertClose(t, "dup", dup, wup, exactRel)
			return dgate, wgate
		}},
		{"SwiGLUBack/recompute,dgate only", exactRel, func(t *testing.T, n int, x, y, z []float32) ([]float32, []float32) {
			dgate, wgate := make([]float32, n), make([]float32, n)
			must(t, ref().SwiGLUBack(host(wgate), backend.Tensor{}, host(x), host(y), backend.Tensor{}, host(z)))
			must(t, SwiGLUBack(e, addr(dgate), 0, addr(x), addr(y), 0, addr(z), n))
			return dgate, wgate
		}},
		{"AdamW", exactRel, func(t *testing.T, n int, x, y, z []float32) ([]float32, []float32) {
			s := backend.AdamWStep{Scale: 0.8, Decay: 0.999, StepSize: 1e-3 / (1 - 0.9), RootBC2: 0.0447, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
			m, v := clone(z), make([]float32, n)
			for i := range v {
				v[i] = z[i] * z[i]
			}
			wp, wm, wv := clone(x), clone(m), clone(v)
			must(t, ref().AdamW(host(wp), host(y), host(wm), host(wv), s))
			must(t, AdamW(e, addr(x), addr(y), addr(m), addr(v), n, s))
			assertClose(t, "m", m, wm, exactRel)
			assertClose(t, "v", v, wv, exactRel)
			return x, wp
		}},
	}
}

func TestElementwise(t *testing.T) {
	e := newEmu(t)
	for _, c := range append(arithmeticCases(e), activationCases(e)...) {
		for _, n := range elementSizes {
			t.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				x, y, z := randn(rng, n, 2), randn(rng, n, 2), randn(rng, n, 2)
				got, want := c.run(t, n, x, y, z)
				assertClose(t, c.name, got, want, c.tol)
			})
		}
	}
}

func TestAddBiasEmbed(t *testing.T) {
	e := newEmu(t)
	for i, c := range []struct{ N, C, V int }{{1, 1, 1}, {7, 37, 101}, {33, 300, 5}} {
		t.Run(fmt.Sprintf("case %d", i), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(i)))
			y, bias, table, dy := randn(rng, c.N*c.C, 1), randn(rng, c.C, 1), randn(rng, c.V*c.C, 1), randn(rng, c.N*c.C, 1)
			ids := make([]float32, c.N)
			for r := range ids {
				ids[r] = float32(rng.IntN(c.V))
			}
			want := clone(y)
			must(t, ref().AddBias(host(want), host(bias)))
			must(t, AddBias(e, addr(y), addr(bias), c.N, c.C))
			assertClose(t, "AddBias", y, want, 0)

			out, wout := make([]float32, c.N*c.C), make([]float32, c.N*c.C)
			must(t, ref().Embed(host(wout), host(table), host(ids), c.C))
			must(t, Embed(e, addr(out), addr(table), addr(ids), c.N, c.C))
			assertClose(t, "Embed", out, wout, 0)

			dt, wdt := randn(rng, c.V*c.C, 1), make([]float32, c.V*c.C) // dt's values must be overwritten
			must(t, ref().EmbedBack(host(wdt), host(ids), host(dy), c.C))
			must(t, EmbedBack(e, addr(dt), addr(ids), addr(dy), c.N, c.V, c.C))
			assertClose(t, "EmbedBack", dt, wdt, 0)

			cs, wcs := randn(rng, c.C, 1), make([]float32, c.C)
			must(t, ref().ColSum(host(wcs), host(dy)))
			must(t, ColSum(e, addr(cs), addr(dy), c.N, c.C))
			assertClose(t, "ColSum", cs, wcs, tolerance)
		})
	}
}
