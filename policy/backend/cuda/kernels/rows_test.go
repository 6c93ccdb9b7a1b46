//go:build linux

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestRMSNorm(t *testing.T) {
	e := newEmu(t)
	const eps = 1e-6
	for i, c := range []struct{ N, C int }{{1, 1}, {7, 37}, {3, 300}, {2, 1031}} {
		t.Run(fmt.Sprintf("case %d N=%d C=%d", i, c.N, c.C), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(i)))
			x, w, dy := randn(rng, c.N*c.C, 1.5), randn(rng, c.C, 1), randn(rng, c.N*c.C, 1)
			want := make([]float32, c.N*c.C)
			must(t, ref().RMSNorm(host(want), host(x), host(w), c.C, eps))
			y := randn(rng, c.N*c.C, 1)
			must(t, RMSNorm(e, addr(y), addr(x), addr(w), c.N, c.C, eps))
			assertClose(t, "y", y, want, tolerance)
			inPlace := clone(x)
			must(t, RMSNorm(e, addr(inPlace), addr(inPlace), addr(w), c.N, c.C, eps))
			assertClose(t, "y=x", inPlace, want, tolerance)

			wdx, wdw := make([]float32, c.N*c.C), make([]float32, c.C)
			must(t, ref().RMSNormBack(host(wdx), host(wdw), host(x), host(w), host(dy), c.C, eps))
			dx, dw, scratch := randn(rng, c.N*c.C, 1), randn(rng, c.C, 1), make([]float32, c.N)
			must(t, RMSNormBack(e, addr(dx), addr(dw), addr(x), addr(w), addr(dy), addr(scratch), c.N, c.C, eps))
			assertClose(t, "dx", dx, wdx, tolerance)
			assertClose(t, "dw", dw, wdw, tolerance)
			dxOnly := make([]float32, c.N*c.C)
			must(t, RMSNormBack(e, addr(dxOnly), 0, addr(x), addr(w), addr(dy), 0, c.N, c.C, eps))
			assertClose(t, "dx alone", dxOnly, wdx, tolerance)
			dwOnly := make([]float32, c.C)
			must(t, RMSNormBack(e, 0, addr(dwOnly), addr(x), addr(w), addr(dy), addr(scratch), c.N, c.C, eps))
			assertClose(t, "dw alone", dwOnly, wdw, tolerance)
		})
	}
}

func TestRope(t *testing.T) {
	e := newEmu(t)
	for i, c := range []struct{ N, nh, D, P int }{{1, 1, 2, 1}, {7, 3, 6, 11}, {5, 2, 64, 40}} {
		for _, inverse := range []bool{false, true} {
			t.Run(fmt.Sprintf("case %d inverse=%v", i, inverse), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(4, uint64(i)))
				half := c.D / 2
				cos, sin := make([]float32, c.P*half), make([]float32, c.P*half)
				for p := range c.P {
					for j := range half {
						a := float64(p) * math.Pow(10000, -float64(2*j)/float64(c.D))
						cos[p*half+j], sin[p*half+j] = float32(math.Cos(a)), float32(math.Sin(a))
					}
				}
				pos, pos32 := make([]int, c.N), make([]int32, c.N)
				for r := range pos {
					pos[r] = rng.IntN(c.P)
					pos32[r] = int32(pos[r])
				}
				x := randn(rng, c.N*c.nh*c.D, 1)
				want := make([]float32, len(x))
				must(t, ref().Rope(host(want), host(x), c.nh, c.D, pos, host(cos), host(sin), inverse))
				y := make([]float32, len(x))
				must(t, Rope(e, addr(y), addr(x), c.N, c.nh, c.D, addr(pos32), addr(cos), addr(sin), inverse))
				assertClose(t, "y", y, want, exactRel)
				must(t, Rope(e, addr(x), addr(x), c.N, c.nh, c.D, addr(pos32), addr(cos), addr(sin), inverse))
				assertClose(t, "y=x", x, want, exactRel)
			})
		}
	}
}

func TestTokenLogProb(t *testing.T) {
	e := newEmu(t)
	for i, c := range []struct{ N, V int }{{1, 1}, {7, 101}, {4, 1000}, {3, 5003}} {
		for _, save := range []bool{false, true} {
			t.Run(fmt.Sprintf("case %d N=%d V=%d save=%v", i, c.N, c.V, save), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, uint64(i)))
				logits, dy := randn(rng, c.N*c.V, 3), randn(rng, c.N, 1)
				targets := make([]float32, c.N)
				for r := range targets {
					targets[r] = float32(rng.IntN(c.V))
				}
				if c.N > 2 {
					targets[1] = -1 // no target: 0, and a zero gradient row
					dy[2] = 0       // a zero gradient row
				}
				var wsaved, saved []float32
				if save {
					wsaved, saved = make([]float32, c.N), make([]float32, c.N)
				}
				want, out := make([]float32, c.N), randn(rng, c.N, 1)
				must(t, ref().TokenLogProb(host(want), host(wsaved), host(logits), host(targets), c.V))
				must(t, TokenLogProb(e, addr(out), addr(saved), addr(logits), addr(targets), c.N, c.V))
				assertClose(t, "log-probs", out, want, tolerance)

				wd, d := make([]float32, c.N*c.V), randn(rng, c.N*c.V, 1)
				must(t, ref().TokenLogProbBack(host(wd), host(logits), host(targets), host(wsaved), host(dy), c.V))
				must(t, TokenLogProbBack(e, addr(d), addr(logits), addr(targets), addr(saved), addr(dy), c.N, c.V))
				assertClose(t, "dlogits", d, wd, tolerance)
			})
		}
	}
}

// BenchmarkEmulatorRMSNorm measures the emulator (not a GPU): rows of
// C=512 normalised per second, at three sizes.
func BenchmarkEmulatorRMSNorm(b *testing.B) {
	e := newEmu(b)
	const C = 512
	for _, N := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("N=%d", N), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(9, uint64(N)))
			x, w, y := randn(rng, N*C, 1), randn(rng, C, 1), make([]float32, N*C)
			for b.Loop() {
				if err := RMSNorm(e, addr(y), addr(x), addr(w), N, C, 1e-6); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(N*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
