package cpu

// Row-wise kernels: RMSNorm, rotary positions, SwiGLU, the log-prob of
// target tokens, AdamW. Shape legend: N rows, C channels, D head dim, V
// vocab, P positions.

import (
	"math"

	"github.com/artist-rl/artist/policy/backend"
)

// RMSNorm writes y[r] = x[r] / sqrt(mean(x[r]²) + eps) ⊙ w; y may alias x.
func (b *Backend) RMSNorm(y, x, w backend.Tensor, C int, eps float32) error {
	if err := onHost("RMSNorm", y, x, w); err != nil {
		return err
	}
	rmsNorm(host(y), host(x), host(w), C, eps)
	return nil
}

func rmsNorm(y, x, w []float32, C int, eps float32) {
	parallelFor(len(x)/C, C*4, func(lo, hi int) {
		for r := lo * C; r < hi*C; r += C {
			xr, yr := x[r:r+C], y[r:r+C]
			inv := rmsInv(xr, eps)
			for j, v := range xr {
				yr[j] = v * inv * w[j]
			}
		}
	})
}

// rmsInv is 1/sqrt(mean(x²) + eps), accumulated in float64.
func rmsInv(x []float32, eps float32) float32 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	return float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
}

// RMSNormBack: with r = 1/sqrt(mean(x²)+eps),
// dx_i = r·w_i·dy_i − x_i·r³/C · Σ_j dy_j·w_j·x_j and dw_j = Σ_rows dy_j·x_j·r.
//
// Rows are split among goroutines for dx, columns for dw (each column sums
// its rows in order), so the split changes no result.
func (b *Backend) RMSNormBack(dx, dw, x, w, dy backend.Tensor, C int, eps float32) error {
	if err := onHost("RMSNormBack", dx, dw, x, w, dy); err != nil {
		return err
	}
	xx, ww, d := host(x), host(w), host(dy)
	N := len(xx) / C
	if dx.Len() > 0 {
		out := host(dx)
		parallelFor(N, C*8, func(lo, hi int) {
			for r := lo * C; r < hi*C; r += C {
				xr, dr, or := xx[r:r+C], d[r:r+C], out[r:r+C]
				inv := rmsInv(xr, eps)
				var s float32
				for j, v := range xr {
					s += dr[j] * ww[j] * v
				}
				k := inv * inv * inv * s / float32(C)
				for j, v := range xr {
					or[j] = inv*ww[j]*dr[j] - v*k
				}
			}
		})
	}
	if dw.Len() > 0 {
		out := host(dw)
		inv := make([]float32, N)
		parallelFor(N, C*2, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				inv[r] = rmsInv(xx[r*C:(r+1)*C], eps)
			}
		})
		parallelFor(C, N*3, func(lo, hi int) {
			o := out[lo:hi]
			clear(o)
			for r := 0; r < N; r++ {
				xr, dr := xx[r*C+lo:r*C+hi], d[r*C+lo:r*C+hi]
				for j, v := range xr {
					o[j] += dr[j] * v * inv[r]
				}
			}
		})
	}
	return nil
}

// Rope writes into y the rotation of x (see backend.Kernels); y may alias x.
func (b *Backend) Rope(y, x backend.Tensor, nh, D int, pos []int, cos, sin backend.Tensor, inverse bool) error {
	if err := onHost("Rope", y, x, cos, sin); err != nil {
		return err
	}
	yy, xx := host(y), host(x)
	if len(yy) > 0 && &yy[0] != &xx[0] {
		copy(yy, xx)
	}
	width := nh * D
	parallelFor(len(pos), width*3, func(lo, hi int) {
		rope(yy[lo*width:hi*width], nh, D, pos[lo:hi], host(cos), host(sin), inverse)
	})
	return nil
}

// rope rotates every head of x [N, nh·D] in place by the angle of its row's
// position pos[r], rotate-half convention: with h = D/2,
// out[j] = x[j]·cos - x[j+h]·sin and out[j+h] = x[j+h]·cos + x[j]·sin.
func rope(x []float32, nh, D int, pos []int, cos, sin []float32, inverse bool) {
	half := D / 2
	width := nh * D
	for r, p := range pos {
		c, s := cos[p*half:(p+1)*half], sin[p*half:(p+1)*half]
		row := x[r*width : (r+1)*width]
		for h := 0; h < nh; h++ {
			lo, hi := row[h*D:h*D+half], row[h*D+half:(h+1)*D]
			for j := range lo {
				sj := s[j]
				if inverse {
					sj = -sj
				}
				a, b := lo[j], hi[j]
				lo[j] = a*c[j] - b*sj
				hi[j] = b*c[j] + a*sj
			}
		}
	}
}

// SwiGLU writes y = silu(gate) ⊙ up; y may alias gate. It saves exp(−gate).
func (b *Backend) SwiGLU(y, saved, gate, up backend.Tensor) error {
	if err := onHost("SwiGLU", y, saved, gate, up); err != nil {
		return err
	}
	yy, u, gg, sv := host(y), host(up), host(gate), host(saved)
	parallelFor(len(gg), 24, func(lo, hi int) {
		var buf [expChunk]float32
		for c := lo; c < hi; c += expChunk {
			n := min(expChunk, hi-c)
			e := buf[:n]
			for i := range e {
				e[i] = -gg[c+i]
			}
			expSlice(e)
			if sv != nil {
				copy(sv[c:c+n], e)
			}
			for i, ei := range e {
				yy[c+i] = gg[c+i] / (1 + ei) * u[c+i]
			}
		}
	})
	return nil
}

// SwiGLUBack: dgate = dy·up·σ(g)·(1 + g·(1−σ(g))), dup = dy·silu(gate),
// with exp(−g) from saved when there.
func (b *Backend) SwiGLUBack(dgate, dup, gate, up, saved, dy backend.Tensor) error {
	if err := onHost("SwiGLUBack", dgate, dup, gate, up, saved, dy); err != nil {
		return err
	}
	gg, d, sv := host(gate), host(dy), host(saved)
	expNeg := func(i int) float32 {
		if sv != nil {
			return sv[i]
		}
		return Exp32(-gg[i])
	}
	if dgate.Len() > 0 {
		out, u := host(dgate), host(up)
		parallelFor(len(gg), 24, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g := gg[i]
				sg := 1 / (1 + expNeg(i))
				out[i] = d[i] * u[i] * sg * (1 + g*(1-sg))
			}
		})
	}
	if dup.Len() > 0 {
		out := host(dup)
		parallelFor(len(gg), 24, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = d[i] * gg[i] / (1 + expNeg(i))
			}
		})
	}
	return nil
}

// TokenLogProb writes out[r] = log softmax(logits[r])[targets[r]], 0 for
// a negative target; the log-sum-exp is taken in float64, and saved as
// float32 (rows without a target save nothing).
func (b *Backend) TokenLogProb(out, saved, logits, targets backend.Tensor, V int) error {
	if err := onHost("TokenLogProb", out, saved, logits, targets); err != nil {
		return err
	}
	o, sv, l, tg := host(out), host(saved), host(logits), host(targets)
	parallelFor(len(tg), V*8, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			o[r] = 0
			if t := int(tg[r]); t >= 0 {
				row := l[r*V : (r+1)*V]
				lse := LogSumExp(row)
				if sv != nil {
					sv[r] = float32(lse)
				}
				o[r] = float32(float64(row[t]) - lse)
			}
		}
	})
	return nil
}

// TokenLogProbBack writes dlogits[r] = dy[r]·(onehot(target) − softmax(logits[r])).
func (b *Backend) TokenLogProbBack(dlogits, logits, targets, saved, dy backend.Tensor, V int) error {
	if err := onHost("TokenLogProbBack", dlogits, logits, targets, saved, dy); err != nil {
		return err
	}
	out, l, tg, sv, d := host(dlogits), host(logits), host(targets), host(saved), host(dy)
	parallelFor(len(tg), V*16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, o := l[r*V:(r+1)*V], out[r*V:(r+1)*V]
			t := int(tg[r])
			if t < 0 || d[r] == 0 {
				clear(o)
				continue
			}
			var lse float32
			if sv != nil {
				lse = sv[r]
			} else {
				lse = float32(LogSumExp(row))
			}
			for j, v := range row {
				o[j] = v - lse
			}
			expSlice(o)
			for j, e := range o {
				o[j] = -d[r] * e
			}
			o[t] += d[r]
		}
	})
	return nil
}

// AdamW updates p, m and v in place (see backend.Kernels). Elements are
// independent, so splitting them among goroutines changes no result; the
// AVX2 kernel does each element's operations in the loop's order.
func (b *Backend) AdamW(p, g, m, v backend.Tensor, s backend.AdamWStep) error {
	if err := onHost("AdamW", p, g, m, v); err != nil {
		return err
	}
	pp, gg, mm, vv := host(p), host(g), host(m), host(v)
	c := [9]float32{s.Scale, s.Beta1, 1 - s.Beta1, s.Beta2, 1 - s.Beta2, s.RootBC2, s.Eps, s.Decay, s.StepSize}
	parallelFor(len(pp), 16, func(lo, hi int) {
		if n := (hi - lo) &^ 7; hasAVX2 && n > 0 {
			adamwAVX2(n, &pp[lo], &gg[lo], &mm[lo], &vv[lo], &c)
			lo += n
		}
		for j := lo; j < hi; j++ {
			gj := gg[j] * s.Scale
			mm[j] = s.Beta1*mm[j] + (1-s.Beta1)*gj
			vv[j] = s.Beta2*vv[j] + (1-s.Beta2)*gj*gj
			denom := float32(math.Sqrt(float64(vv[j])))/s.RootBC2 + s.Eps
			pp[j] = pp[j]*s.Decay - s.StepSize*mm[j]/denom
		}
	})
	return nil
}

// softmax replaces x by softmax(x).
func softmax(x []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		mx = max(mx, v)
	}
	for j, v := range x {
		x[j] = v - mx
	}
	expSlice(x)
	var sum float32
	for _, e := range x {
		sum += e
	}
	inv := 1 / sum
	for j := range x {
		x[j] *= inv
	}
}

// LogSumExp returns log Σ exp(x), computed stably in float64.
func LogSumExp(x []float32) float64 {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		mx = max(mx, v)
	}
	var sum float64
	var buf [expChunk]float32
	for c := 0; c < len(x); c += expChunk {
		e := buf[:min(expChunk, len(x)-c)]
		for i := range e {
			e[i] = x[c+i] - mx
		}
		expSlice(e)
		for _, v := range e {
			sum += float64(v)
		}
	}
	return float64(mx) + math.Log(sum)
}

// parallelFor runs fn over [0, n) split into contiguous chunks on up to
// backend.Threads() goroutines. It runs inline when there is one chunk or the work
// (n·cost, in rough flops) is too small to pay for goroutines.
func parallelFor(n, cost int, fn func(lo, hi int)) {
	workers := min(backend.Threads(), n)
	if n*cost < 1<<15 {
		workers = 1
	}
	backend.Split(n, workers, fn)
}
