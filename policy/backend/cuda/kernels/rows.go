package kernels

// Launch functions of the element-wise and row kernels. Addresses are
// device addresses of float32 values unless said otherwise; sizes count
// values. A size of zero launches nothing. Shape legend: N rows, C
// channels, M columns, V vocab, D head dim.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// AddBias adds bias [M] to every row of y [rows, M].
func AddBias(l Launcher, y, bias uintptr, rows, M int) error {
	if err := checkSizes("AddBias", rows, M); err != nil || rows*M == 0 {
		return err
	}
	n := rows * M
	return launch(l, "add_bias", elemGrid(n), threads(blockElems), 0, y, bias, int64(n), int32(M))
}

// ColSum writes out [M] = Σ_r x[r] over the rows of x [rows, M]; each
// column sums its rows in a fixed order, so results repeat bit for bit.
func ColSum(l Launcher, out, x uintptr, rows, M int) error {
	if err := checkSizes("ColSum", rows, M); err != nil || M == 0 {
		return err
	}
	grid := Dim3{X: uint32((M + warp - 1) / warp), Y: 1, Z: 1}
	return launch(l, "col_sum", grid, Dim3{X: warp, Y: 8, Z: 1}, 0, out, x, int32(rows), int32(M))
}

// Embed copies rows ids[r] of table [V, C] into out [N, C]; ids are N
// float32 token ids.
func Embed(l Launcher, out, table, ids uintptr, N, C int) error {
	if err := checkSizes("Embed", N, C); err != nil || N*C == 0 {
		return err
	}
	return launch(l, "embed", elemGrid(N*C), threads(blockElems), 0, out, table, ids, int32(N), int32(C))
}

// EmbedBack writes dtable [V, C] = the sum of the rows of dy [N, C] whose
// ids [N] name each row, zero for the others. It clears dtable, then each
// column adds the rows of dy in order (no atomics: results repeat bit for
// bit and equal the pure-Go backend's).
func EmbedBack(l Launcher, dtable, ids, dy uintptr, N, V, C int) error {
	if err := checkSizes("EmbedBack", N, V, C); err != nil || V*C == 0 {
		return err
	}
	if err := Fill(l, dtable, V*C, 0); err != nil || N == 0 {
		return err
	}
	grid := Dim3{X: uint32((C + blockElems - 1) / blockElems), Y: 1, Z: 1}
	return launch(l, "embed_back", grid, threads(blockElems), 0, dtable, ids, dy, int32(N), int32(C))
}

// Fill sets the n values at x to v (a zeroed Alloc, for one).
func Fill(l Launcher, x uintptr, n int, v float32) error {
	if n <= 0 {
		return checkSizes("Fill", n)
	}
	return launch(l, "fill", elemGrid(n), threads(blockElems), 0, x, int64(n), v)
}

// RMSNorm writes y[r] = x[r] / sqrt(mean(x[r]²) + eps) ⊙ w for the rows of
// x [N, C] and w [C]; y may equal x.
func RMSNorm(l Launcher, y, x, w uintptr, N, C int, eps float32) error {
	if err := checkSizes("RMSNorm", N, C); err != nil || N*C == 0 {
		return err
	}
	return launch(l, "rmsnorm", rowsGrid(N), threads(blockRows), 0, y, x, w, int32(C), eps)
}

// RMSNormBack writes dx [N, C] and dw [C], the gradients of RMSNorm; a
// zero dx or dw is not computed. scratch is N float32 values of device
// memory the kernel may overwrite (each row's 1/rms), needed when dw is
// not zero; it may be 0 otherwise.
func RMSNormBack(l Launcher, dx, dw, x, w, dy, scratch uintptr, N, C int, eps float32) error {
	if err := checkSizes("RMSNormBack", N, C); err != nil || C == 0 {
		return err
	}
	if dw != 0 && scratch == 0 && N > 0 {
		return fmt.Errorf("%w in RMSNormBack: dw needs a scratch of N values", errSize)
	}
	if dw == 0 {
		scratch = 0
	}
	if N > 0 && (dx != 0 || dw != 0) {
		err := launch(l, "rmsnorm_back_dx", rowsGrid(N), threads(blockRows), 0, dx, scratch, x, w, dy, int32(C), eps)
		if err != nil {
			return err
		}
	}
	if dw == 0 {
		return nil
	}
	grid := Dim3{X: uint32((C + warp - 1) / warp), Y: 1, Z: 1}
	return launch(l, "rmsnorm_back_dw", grid, Dim3{X: warp, Y: 8, Z: 1}, 0, dw, scratch, x, dy, int32(N), int32(C))
}

// Rope writes into y [N, nh·D] the heads of x rotated by the angle of each
// row's position (see backend.Kernels.Rope); y may equal x. pos is the
// device address of N int32 positions, which the caller uploads (Rope's
// positions are host values in the backend interface); cos and sin are
// [P, D/2] tables.
func Rope(l Launcher, y, x uintptr, N, nh, D int, pos, cos, sin uintptr, inverse bool) error {
	if err := checkSizes("Rope", N, nh, D); err != nil || N*nh*D == 0 {
		return err
	}
	pairs := N * nh * (D / 2)
	return launch(l, "rope", elemGrid(pairs), threads(blockElems), 0,
		y, x, pos, cos, sin, int32(N), int32(nh), int32(D), b32(inverse))
}

// SwiGLU writes y = silu(gate) ⊙ up for n values; y may equal gate. saved,
// when not 0, receives exp(−gate) (n values).
func SwiGLU(l Launcher, y, saved, gate, up uintptr, n int) error {
	if n <= 0 {
		return checkSizes("SwiGLU", n)
	}
	return launch(l, "swiglu", elemGrid(n), threads(blockElems), 0, y, saved, gate, up, int64(n))
}

// SwiGLUBack writes dgate and dup (either may be 0: not computed), the
// gradients of SwiGLU, reading exp(−gate) from saved when it is not 0.
func SwiGLUBack(l Launcher, dgate, dup, gate, up, saved, dy uintptr, n int) error {
	if n <= 0 || dgate == 0 && dup == 0 {
		return checkSizes("SwiGLUBack", n)
	}
	return launch(l, "swiglu_back", elemGrid(n), threads(blockElems), 0, dgate, dup, gate, up, saved, dy, int64(n))
}

// TokenLogProb writes out[r] = log softmax(logits[r])[targets[r]] for
// logits [N, V] and float32 targets [N]; a negative target gives 0.
// saved, when not 0, receives each row's log-sum-exp (N values; rows with
// a negative target are not written).
func TokenLogProb(l Launcher, out, saved, logits, targets uintptr, N, V int) error {
	if err := checkSizes("TokenLogProb", N, V); err != nil || N == 0 {
		return err
	}
	return launch(l, "token_logprob", rowsGrid(N), threads(blockRows), 0, out, saved, logits, targets, int32(V))
}

// TokenLogProbBack writes dlogits [N, V] = dy[r]·(onehot(targets[r]) −
// softmax(logits[r])), zero rows where the target is negative or dy[r] is
// 0, reading the log-sum-exp from saved when it is not 0.
func TokenLogProbBack(l Launcher, dlogits, logits, targets, saved, dy uintptr, N, V int) error {
	if err := checkSizes("TokenLogProbBack", N, V); err != nil || N*V == 0 {
		return err
	}
	return launch(l, "token_logprob_back", rowsGrid(N), threads(blockRows), 0, dlogits, logits, targets, saved, dy, int32(V))
}

// AdamW updates p, m and v (n values each) in place from the gradient g,
// as backend.Kernels.AdamW says.
func AdamW(l Launcher, p, g, m, v uintptr, n int, s backend.AdamWStep) error {
	if n <= 0 {
		return checkSizes("AdamW", n)
	}
	return launch(l, "adamw", elemGrid(n), threads(blockElems), 0, p, g, m, v, int64(n),
		s.Scale, s.Beta1, s.Beta2, s.RootBC2, s.Eps, s.Decay, s.StepSize)
}

// Copy writes dst = src, n values. A device backend may use a copy of the
// driver instead; this one is a kernel so the emulator covers it.
func Copy(l Launcher, dst, src uintptr, n int) error {
	if n <= 0 {
		return checkSizes("Copy", n)
	}
	return launch(l, "copy", elemGrid(n), threads(blockElems), 0, dst, src, int64(n))
}

// Add does y += x for n values.
func Add(l Launcher, y, x uintptr, n int) error {
	if n <= 0 {
		return checkSizes("Add", n)
	}
	return launch(l, "add", elemGrid(n), threads(blockElems), 0, y, x, int64(n))
}

// Mul writes y = a ⊙ b for n values; y may equal a or b.
func Mul(l Launcher, y, a, b uintptr, n int) error {
	if n <= 0 {
		return checkSizes("Mul", n)
	}
	return launch(l, "mul", elemGrid(n), threads(blockElems), 0, y, a, b, int64(n))
}

// Scale does x *= s for n values.
func Scale(l Launcher, x uintptr, n int, s float32) error {
	if n <= 0 {
		return checkSizes("Scale", n)
	}
	return launch(l, "scale", elemGrid(n), threads(blockElems), 0, x, int64(n), s)
}
