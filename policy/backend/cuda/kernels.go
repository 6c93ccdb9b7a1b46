package cuda

// The backend's kernels: MatMul through the device's GEMM (cuBLASLt's
// column-major contract, operands swapped), the others through package
// kernels' launch functions. Each refuses host tensors, derives its sizes
// from the tensors as the cpu backend does, and refuses sizes that do not
// fit them (a device would corrupt memory where the cpu backends panic).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

// fits returns an error naming op unless every (what, have, need)
// triple has have ≥ need.
func (b *Backend) fits(op string, checks ...any) error {
	for i := 0; i+2 < len(checks); i += 3 {
		what, have, need := checks[i].(string), checks[i+1].(int), checks[i+2].(int)
		if have < need || need < 0 {
			return fmt.Errorf("%s: %s: %s holds %d values, needs %d", b.name, op, what, have, need)
		}
	}
	return nil
}

// MatMul computes c [m, n] = op(a)·op(b) + beta·c (backend.Kernels); with
// compute dtype bf16 (SetComputeDType) a and b are rounded to bfloat16
// first and the products and sums are float32.
func (b *Backend) MatMul(ta, tb bool, m, n, k int, a, bm backend.Tensor, beta float32, c backend.Tensor) error {
	if err := b.args("MatMul", a, bm, c); err != nil {
		return err
	}
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("%s: MatMul: negative size %d×%d×%d", b.name, m, n, k)
	}
	if err := b.fits("MatMul", "a", a.Len(), m*k, "b", bm.Len(), k*n, "c", c.Len(), m*n); err != nil {
		return err
	}
	switch {
	case m*n == 0:
		return nil
	case k == 0 && beta == 0: // c = 0, not read
		return b.wrap("MatMul", b.dev.upload(c.Addr(), make([]byte, 4*m*n)))
	case k == 0:
		return b.wrap("MatMul", kernels.Scale(b.dev, c.Addr(), m*n, beta))
	}
	g := ColMajorGEMM(ta, tb, m, n, k)
	if b.bf16.Load() {
		return b.wrap("MatMul", b.gemmBF16(g, bm.Addr(), a.Addr(), beta, c.Addr()))
	}
	return b.wrap("MatMul", b.dev.gemm(g, F32, bm.Addr(), a.Addr(), beta, c.Addr()))
}

// AddBias adds bias [M] to every row of y [rows, M].
func (b *Backend) AddBias(y, bias backend.Tensor) error {
	if err := b.args("AddBias", y, bias); err != nil || bias.Len() == 0 {
		return err
	}
	M := bias.Len()
	return b.wrap("AddBias", kernels.AddBias(b.dev, y.Addr(), bias.Addr(), y.Len()/M, M))
}

// ColSum writes out [M] = Σ_r x[r] over the rows of x [rows, M].
func (b *Backend) ColSum(out, x backend.Tensor) error {
	if err := b.args("ColSum", out, x); err != nil || out.Len() == 0 {
		return err
	}
	M := out.Len()
	return b.wrap("ColSum", kernels.ColSum(b.dev, out.Addr(), x.Addr(), x.Len()/M, M))
}

// Embed copies rows ids[r] of table [V, C] into out [N, C].
func (b *Backend) Embed(out, table, ids backend.Tensor, C int) error {
	if err := b.args("Embed", out, table, ids); err != nil {
		return err
	}
	N := ids.Len()
	if err := b.fits("Embed", "out", out.Len(), N*C); err != nil {
		return err
	}
	return b.wrap("Embed", kernels.Embed(b.dev, out.Addr(), table.Addr(), ids.Addr(), N, C))
}

// EmbedBack writes dtable [V, C], the sums of the rows of dy [N, C] by id.
func (b *Backend) EmbedBack(dtable, ids, dy backend.Tensor, C int) error {
	if err := b.args("EmbedBack", dtable, ids, dy); err != nil || C <= 0 {
		return err
	}
	N := ids.Len()
	if err := b.fits("EmbedBack", "dy", dy.Len(), N*C); err != nil {
		return err
	}
	return b.wrap("EmbedBack", kernels.EmbedBack(b.dev, dtable.Addr(), ids.Addr(), dy.Addr(), N, dtable.Len()/C, C))
}

// RMSNorm normalizes the rows of x [N, C] into y, scaled by w [C].
func (b *Backend) RMSNorm(y, x, w backend.Tensor, C int, eps float32) error {
	if err := b.args("RMSNorm", y, x, w); err != nil || C <= 0 {
		return err
	}
	N := x.Len() / C
	if err := b.fits("RMSNorm", "y", y.Len(), N*C, "w", w.Len(), C); err != nil {
		return err
	}
	return b.wrap("RMSNorm", kernels.RMSNorm(b.dev, y.Addr(), x.Addr(), w.Addr(), N, C, eps))
}

// RMSNormBack writes dx [N, C] and dw [C]; an empty one is not computed.
// dw needs N values of scratch.
func (b *Backend) RMSNormBack(dx, dw, x, w, dy backend.Tensor, C int, eps float32) error {
	if err := b.args("RMSNormBack", dx, dw, x, w, dy); err != nil || C <= 0 {
		return err
	}
	N := x.Len() / C
	if err := b.fits("RMSNormBack", "dy", dy.Len(), N*C, "w", w.Len(), C); err != nil {
		return err
	}
	return b.withScratch(4*N, func(s uintptr) error {
		return b.wrap("RMSNormBack", kernels.RMSNormBack(b.dev, dx.Addr(), dw.Addr(), x.Addr(), w.Addr(), dy.Addr(), s, N, C, eps))
	})
}

// Rope rotates the nh heads of D values of every row of x into y by the
// row's position; the positions are uploaded to scratch with the launch.
func (b *Backend) Rope(y, x backend.Tensor, nh, D int, pos []int, cos, sin backend.Tensor, inverse bool) error {
	if err := b.args("Rope", y, x, cos, sin); err != nil {
		return err
	}
	N := len(pos)
	if err := b.fits("Rope", "x", x.Len(), N*nh*D, "y", y.Len(), N*nh*D); err != nil || N == 0 {
		return err
	}
	p32 := make([]int32, N)
	for i, p := range pos {
		if p < 0 || (p+1)*(D/2) > cos.Len() || (p+1)*(D/2) > sin.Len() {
			return fmt.Errorf("%s: Rope: position %d outside the tables of %d values", b.name, p, cos.Len())
		}
		p32[i] = int32(p)
	}
	return b.withScratch(4*N, func(s uintptr) error {
		if err := b.dev.upload(s, wordBytes(p32)); err != nil {
			return b.wrap("Rope", err)
		}
		return b.wrap("Rope", kernels.Rope(b.dev, y.Addr(), x.Addr(), N, nh, D, s, cos.Addr(), sin.Addr(), inverse))
	})
}

// SwiGLU writes y = silu(gate) ⊙ up; saved (len(gate) values or none)
// receives what SwiGLUBack reads.
func (b *Backend) SwiGLU(y, saved, gate, up backend.Tensor) error {
	if err := b.args("SwiGLU", y, saved, gate, up); err != nil {
		return err
	}
	n := gate.Len()
	if err := b.fits("SwiGLU", "y", y.Len(), n, "up", up.Len(), n); err != nil {
		return err
	}
	return b.wrap("SwiGLU", kernels.SwiGLU(b.dev, y.Addr(), saved.Addr(), gate.Addr(), up.Addr(), n))
}

// SwiGLUBack writes dgate and dup; an empty one is not computed.
func (b *Backend) SwiGLUBack(dgate, dup, gate, up, saved, dy backend.Tensor) error {
	if err := b.args("SwiGLUBack", dgate, dup, gate, up, saved, dy); err != nil {
		return err
	}
	n := gate.Len()
	if err := b.fits("SwiGLUBack", "up", up.Len(), n, "dy", dy.Len(), n); err != nil {
		return err
	}
	return b.wrap("SwiGLUBack", kernels.SwiGLUBack(b.dev, dgate.Addr(), dup.Addr(), gate.Addr(), up.Addr(), saved.Addr(), dy.Addr(), n))
}

// TokenLogProb writes out[r] = log softmax(logits[r])[targets[r]].
func (b *Backend) TokenLogProb(out, saved, logits, targets backend.Tensor, V int) error {
	if err := b.args("TokenLogProb", out, saved, logits, targets); err != nil {
		return err
	}
	N := targets.Len()
	if err := b.fits("TokenLogProb", "out", out.Len(), N, "logits", logits.Len(), N*V); err != nil {
		return err
	}
	return b.wrap("TokenLogProb", kernels.TokenLogProb(b.dev, out.Addr(), saved.Addr(), logits.Addr(), targets.Addr(), N, V))
}

// TokenLogProbBack writes dlogits [N, V], the gradient of TokenLogProb.
func (b *Backend) TokenLogProbBack(dlogits, logits, targets, saved, dy backend.Tensor, V int) error {
	if err := b.args("TokenLogProbBack", dlogits, logits, targets, saved, dy); err != nil {
		return err
	}
	N := targets.Len()
	if err := b.fits("TokenLogProbBack", "dlogits", dlogits.Len(), N*V, "logits", logits.Len(), N*V, "dy", dy.Len(), N); err != nil {
		return err
	}
	return b.wrap("TokenLogProbBack", kernels.TokenLogProbBack(b.dev, dlogits.Addr(), logits.Addr(), targets.Addr(), saved.Addr(), dy.Addr(), N, V))
}

// AdamW updates p, m and v in place from g.
func (b *Backend) AdamW(p, g, m, v backend.Tensor, s backend.AdamWStep) error {
	if err := b.args("AdamW", p, g, m, v); err != nil {
		return err
	}
	n := p.Len()
	if err := b.fits("AdamW", "g", g.Len(), n, "m", m.Len(), n, "v", v.Len(), n); err != nil {
		return err
	}
	return b.wrap("AdamW", kernels.AdamW(b.dev, p.Addr(), g.Addr(), m.Addr(), v.Addr(), n, s))
}

// Copy writes dst = src with the device's own copy.
func (b *Backend) Copy(dst, src backend.Tensor) error {
	if err := b.args("Copy", dst, src); err != nil {
		return err
	}
	if dst.Len() != src.Len() {
		return fmt.Errorf("%s: Copy of %d values into a tensor of %d", b.name, src.Len(), dst.Len())
	}
	if dst.Len() == 0 || dst.Addr() == src.Addr() {
		return nil
	}
	return b.wrap("Copy", b.dev.copy(dst.Addr(), src.Addr(), 4*dst.Len()))
}

// Add does y += x.
func (b *Backend) Add(y, x backend.Tensor) error {
	if err := b.args("Add", y, x); err != nil {
		return err
	}
	if y.Len() != x.Len() {
		return fmt.Errorf("%s: Add of %d values to a tensor of %d", b.name, x.Len(), y.Len())
	}
	return b.wrap("Add", kernels.Add(b.dev, y.Addr(), x.Addr(), y.Len()))
}

// Mul writes y = a ⊙ b.
func (b *Backend) Mul(y, a, c backend.Tensor) error {
	if err := b.args("Mul", y, a, c); err != nil {
		return err
	}
	if y.Len() != a.Len() || y.Len() != c.Len() {
		return fmt.Errorf("%s: Mul of %d by %d values into a tensor of %d", b.name, a.Len(), c.Len(), y.Len())
	}
	return b.wrap("Mul", kernels.Mul(b.dev, y.Addr(), a.Addr(), c.Addr(), y.Len()))
}

// Scale does x *= s.
func (b *Backend) Scale(x backend.Tensor, s float32) error {
	if err := b.args("Scale", x); err != nil {
		return err
	}
	return b.wrap("Scale", kernels.Scale(b.dev, x.Addr(), x.Len(), s))
}
