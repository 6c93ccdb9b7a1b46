//go:build unix

package arenatest

// Every kernel checks its tensors, opens the arena, runs the pure-Go
// backend's kernel on views of it and closes the arena again.

import "github.com/artist-rl/artist/policy/backend"

// MatMul is backend.Kernels.MatMul on the arena.
func (b *Backend) MatMul(ta, tb bool, m, n, k int, a, bm backend.Tensor, beta float32, c backend.Tensor) error {
	v, err := b.enter("MatMul", a, bm, c)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.MatMul(ta, tb, m, n, k, v[0], v[1], beta, v[2])
}

// AddBias is backend.Kernels.AddBias on the arena.
func (b *Backend) AddBias(y, bias backend.Tensor) error {
	v, err := b.enter("AddBias", y, bias)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.AddBias(v[0], v[1])
}

// ColSum is backend.Kernels.ColSum on the arena.
func (b *Backend) ColSum(out, x backend.Tensor) error {
	v, err := b.enter("ColSum", out, x)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.ColSum(v[0], v[1])
}

// Embed is backend.Kernels.Embed on the arena.
func (b *Backend) Embed(out, table, ids backend.Tensor, C int) error {
	v, err := b.enter("Embed", out, table, ids)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Embed(v[0], v[1], v[2], C)
}

// EmbedBack is backend.Kernels.EmbedBack on the arena.
func (b *Backend) EmbedBack(dtable, ids, dy backend.Tensor, C int) error {
	v, err := b.enter("EmbedBack", dtable, ids, dy)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.EmbedBack(v[0], v[1], v[2], C)
}

// RMSNorm is backend.Kernels.RMSNorm on the arena.
func (b *Backend) RMSNorm(y, x, w backend.Tensor, C int, eps float32) error {
	v, err := b.enter("RMSNorm", y, x, w)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.RMSNorm(v[0], v[1], v[2], C, eps)
}

// RMSNormBack is backend.Kernels.RMSNormBack on the arena.
func (b *Backend) RMSNormBack(dx, dw, x, w, dy backend.Tensor, C int, eps float32) error {
	v, err := b.enter("RMSNormBack", dx, dw, x, w, dy)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.RMSNormBack(v[0], v[1], v[2], v[3], v[4], C, eps)
}

// Rope is backend.Kernels.Rope on the arena.
func (b *Backend) Rope(y, x backend.Tensor, nh, D int, pos []int, cos, sin backend.Tensor, inverse bool) error {
	v, err := b.enter("Rope", y, x, cos, sin)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Rope(v[0], v[1], nh, D, pos, v[2], v[3], inverse)
}

// Attention is backend.Kernels.Attention on the arena.
func (b *Backend) Attention(o, saved, q, k, vv backend.Tensor, h backend.Heads, T int) error {
	v, err := b.enter("Attention", o, saved, q, k, vv)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Attention(v[0], v[1], v[2], v[3], v[4], h, T)
}

// AttentionBack is backend.Kernels.AttentionBack on the arena.
func (b *Backend) AttentionBack(dq, dk, dv, q, k, vv, o, saved, do backend.Tensor, h backend.Heads, T int) error {
	v, err := b.enter("AttentionBack", dq, dk, dv, q, k, vv, o, saved, do)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.AttentionBack(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], h, T)
}

// AttendCached is backend.Kernels.AttendCached on the arena.
func (b *Backend) AttendCached(o, q backend.Tensor, keys, vals []backend.Tensor, spans []backend.Span, h backend.Heads) error {
	ts := append(append([]backend.Tensor{o, q}, keys...), vals...)
	v, err := b.enter("AttendCached", ts...)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.AttendCached(v[0], v[1], v[2:2+len(keys)], v[2+len(keys):], spans, h)
}

// SwiGLU is backend.Kernels.SwiGLU on the arena.
func (b *Backend) SwiGLU(y, saved, gate, up backend.Tensor) error {
	v, err := b.enter("SwiGLU", y, saved, gate, up)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.SwiGLU(v[0], v[1], v[2], v[3])
}

// SwiGLUBack is backend.Kernels.SwiGLUBack on the arena.
func (b *Backend) SwiGLUBack(dgate, dup, gate, up, saved, dy backend.Tensor) error {
	v, err := b.enter("SwiGLUBack", dgate, dup, gate, up, saved, dy)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.SwiGLUBack(v[0], v[1], v[2], v[3], v[4], v[5])
}

// TokenLogProb is backend.Kernels.TokenLogProb on the arena.
func (b *Backend) TokenLogProb(out, saved, logits, targets backend.Tensor, V int) error {
	v, err := b.enter("TokenLogProb", out, saved, logits, targets)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.TokenLogProb(v[0], v[1], v[2], v[3], V)
}

// TokenLogProbBack is backend.Kernels.TokenLogProbBack on the arena.
func (b *Backend) TokenLogProbBack(dlogits, logits, targets, saved, dy backend.Tensor, V int) error {
	v, err := b.enter("TokenLogProbBack", dlogits, logits, targets, saved, dy)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.TokenLogProbBack(v[0], v[1], v[2], v[3], v[4], V)
}

// AdamW is backend.Kernels.AdamW on the arena.
func (b *Backend) AdamW(p, g, m, vv backend.Tensor, s backend.AdamWStep) error {
	v, err := b.enter("AdamW", p, g, m, vv)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.AdamW(v[0], v[1], v[2], v[3], s)
}

// Copy is backend.Kernels.Copy on the arena.
func (b *Backend) Copy(dst, src backend.Tensor) error {
	v, err := b.enter("Copy", dst, src)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Copy(v[0], v[1])
}

// Add is backend.Kernels.Add on the arena.
func (b *Backend) Add(y, x backend.Tensor) error {
	v, err := b.enter("Add", y, x)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Add(v[0], v[1])
}

// Mul is backend.Kernels.Mul on the arena.
func (b *Backend) Mul(y, a, c backend.Tensor) error {
	v, err := b.enter("Mul", y, a, c)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Mul(v[0], v[1], v[2])
}

// Scale is backend.Kernels.Scale on the arena.
func (b *Backend) Scale(x backend.Tensor, s float32) error {
	v, err := b.enter("Scale", x)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.Scale(v[0], s)
}

// LinearRows is the pure-Go backend's product with independent rows
// (cpu.Backend.LinearRows), which the decoding path uses where a backend
// has it: the arena decodes with the same numbers as "go".
func (b *Backend) LinearRows(m, n, k int, a, w, y backend.Tensor) error {
	v, err := b.enter("LinearRows", a, w, y)
	if err != nil {
		return err
	}
	defer b.leave()
	return b.ref.LinearRows(m, n, k, v[0], v[1], v[2])
}
