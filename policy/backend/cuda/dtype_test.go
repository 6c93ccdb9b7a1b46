//go:build linux

package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// roundedBF16 returns x with every value rounded to bfloat16 (the host's
// rounding) and widened back to float32, exactly.
func roundedBF16(x []float32) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = math.Float32frombits(uint32(policy.RoundBF16(v)) << 16)
	}
	return out
}

// matMulBF16Cases runs MatMul with compute dtype bf16 on b for every
// pair of transposes, odd sizes and beta 0 and 0.5: c must be the pure-Go
// backend's f32 product of the bfloat16-rounded operands to tol·(1+|c|),
// float32 rounding (products of bfloat16 values are exact in f32, the
// sums are f32). It returns the largest difference from the f32 product
// of the unrounded operands, which must be well above float32 rounding.
func matMulBF16Cases(t *testing.T, b *Backend, tol float64) float64 {
	t.Helper()
	if err := b.SetComputeDType("bf16"); err != nil {
		t.Fatal(err)
	}
	defer b.SetComputeDType("f32")
	ref, rng := cpu.NewGo(), newRand(11)
	var moved float64
	for _, s := range [][3]int{{1, 1, 1}, {3, 5, 7}, {7, 3, 5}, {17, 1, 9}, {33, 29, 65}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, beta := range []float32{0, 0.5} {
				m, n, k := s[0], s[1], s[2]
				t.Run(fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/beta=%g", m, n, k, tr[0], tr[1], beta), func(t *testing.T) {
					a, bm, c0 := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)
					if beta == 0 {
						for i := range c0 {
							c0[i] = float32(math.NaN()) // beta 0 must not read c
						}
					}
					got := deviceMatMul(t, b, tr, m, n, k, a, bm, beta, c0)
					want := hostMatMul(t, ref, tr, m, n, k, roundedBF16(a), roundedBF16(bm), beta, c0)
					closeTo(t, "c", got, want, tol)
					exact := hostMatMul(t, ref, tr, m, n, k, a, bm, beta, c0)
					for i := range got {
						moved = max(moved, math.Abs(float64(got[i]-exact[i])))
					}
				})
			}
		}
	}
	return moved
}

// deviceMatMul runs MatMul on b and downloads c.
func deviceMatMul(t *testing.T, b *Backend, tr [2]bool, m, n, k int, a, bm []float32, beta float32, c0 []float32) []float32 {
	t.Helper()
	var ts [3]backend.Tensor
	for i, x := range [][]float32{a, bm, c0} {
		d, err := b.Mirror(x)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(d)
		ts[i] = d
	}
	if err := b.MatMul(tr[0], tr[1], m, n, k, ts[0], ts[1], beta, ts[2]); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, m*n)
	if err := b.Download(got, ts[2]); err != nil {
		t.Fatal(err)
	}
	return got
}

// hostMatMul is the pure-Go backend's f32 MatMul on copies.
func hostMatMul(t *testing.T, ref *cpu.Backend, tr [2]bool, m, n, k int, a, bm []float32, beta float32, c0 []float32) []float32 {
	t.Helper()
	c := append([]float32(nil), c0...)
	if err := ref.MatMul(tr[0], tr[1], m, n, k, backend.Host(a), backend.Host(bm), beta, backend.Host(c)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMatMulBF16Emu checks compute dtype bf16 on the emulated device:
// the conversion kernel, the bfloat16 scratch and the emulated
// cuBLASLt's bfloat16 operands.
func TestMatMulBF16Emu(t *testing.T) {
	b, err := OpenEmulated()
	if err != nil {
		t.Skip(err)
	}
	if moved := matMulBF16Cases(t, b, 1e-5); moved < 1e-4 {
		t.Errorf("bf16 products differ from f32 by at most %g: were the operands rounded?", moved)
	}
	if got := b.ComputeDType(); got != "f32" {
		t.Errorf("ComputeDType after the reset = %q", got)
	}
}

// TestMatMulBF16FakeGPU runs the same cases through the real device code
// over the fake cuBLASLt, which refuses layouts of other types than
// f32 or bf16 A and B with f32 C, and counts its bf16 products.
func TestMatMulBF16FakeGPU(t *testing.T) {
	b, _ := openFakeGPU(t)
	defer b.dev.(*gpu).close()
	matMulBF16Cases(t, b, 1e-5)
	fn, err := b.dev.(*gpu).lt.lib.Symbol("fake_bf16_products")
	if err != nil {
		t.Fatal(err)
	}
	if n := int(sys(fn)); n != 5*4*2 {
		t.Errorf("the fake cuBLASLt computed %d products from bf16 operands, want %d", n, 5*4*2)
	}
}

func TestSetComputeDType(t *testing.T) {
	b, err := OpenEmulated()
	if err != nil {
		t.Skip(err)
	}
	cases := []struct {
		dtype, want string
		fails       bool
	}{{"bf16", "bf16", false}, {"f32", "f32", false}, {"fp16", "f32", true}, {"", "f32", true}}
	for _, c := range cases {
		err := backend.SetComputeDType(b, c.dtype)
		if (err != nil) != c.fails {
			t.Errorf("SetComputeDType(%q): error %v, want failure %v", c.dtype, err, c.fails)
		}
		if got := b.ComputeDType(); got != c.want {
			t.Errorf("after SetComputeDType(%q): ComputeDType %q, want %q", c.dtype, got, c.want)
		}
	}
}

// TestGPUMatMulBF16 is TestMatMulBF16Emu on the GPU (cuBLASLt's own
// bf16 kernels; they may sum in another order, hence 1e-4).
func TestGPUMatMulBF16(t *testing.T) {
	b := openGPUOrSkip(t)
	if moved := matMulBF16Cases(t, b, 1e-4); moved < 1e-4 {
		t.Errorf("bf16 products differ from f32 by at most %g: were the operands rounded?", moved)
	}
}

// TestModelBF16 runs the test model (see TestModelEmuAndGPU) on the
// emulated device with compute dtype bf16 and with f32: log-probs, the
// backward pass's log-probs and gradients, and the decoding logits agree
// to relative error 1e-2 (‖bf16 − f32‖₂ / ‖f32‖₂ per tensor), and differ
// (the products were rounded).
func TestModelBF16(t *testing.T) {
	b, err := OpenEmulated()
	if err != nil {
		t.Skip(err)
	}
	modelBF16(t, b)
}

// TestGPUModelBF16 is TestModelBF16 on the GPU.
func TestGPUModelBF16(t *testing.T) { modelBF16(t, openGPUOrSkip(t)) }

// modelBF16 compares the test model's results on b in bf16 and in f32.
func modelBF16(t *testing.T, b *Backend) {
	want := runModel(t, b)
	if err := b.SetComputeDType("bf16"); err != nil {
		t.Fatal(err)
	}
	defer b.SetComputeDType("f32")
	got := runModel(t, b)
	var worst float64
	for _, c := range []struct {
		what      string
		got, want [][]float32
	}{
		{"LogProbs", got.logp, want.logp}, {"Backward log-probs", got.blogp, want.blogp},
		{"gradient", got.grads, want.grads}, {"decoding logits", got.logits, want.logits},
	} {
		for i := range c.want {
			rel := relErr(c.got[i], c.want[i])
			worst = max(worst, rel)
			if rel > 1e-2 || math.IsNaN(rel) {
				t.Errorf("%s %d: relative error %.3g, want ≤ 1e-2", c.what, i, rel)
			}
		}
	}
	t.Logf("largest relative error bf16 vs f32: %.3g", worst)
	if worst == 0 {
		t.Error("bf16 and f32 agree exactly: were the products rounded?")
	}
}

// relErr is ‖got − want‖₂ / ‖want‖₂ (‖got‖₂ when want is zero).
func relErr(got, want []float32) float64 {
	var d, w float64
	for i := range want {
		d += math.Pow(float64(got[i]-want[i]), 2)
		w += math.Pow(float64(want[i]), 2)
	}
	if w == 0 {
		return math.Sqrt(d)
	}
	return math.Sqrt(d / w)
}
