package cpu

// Causal grouped-query attention. Training lays the B sequences of a batch
// out as blocks of T rows: q [N, H·D], k and v [N, K·D], N = B·T; decoding
// attends the fed rows of each sequence over its key/value cache [P, K·D].
// Query head h reads key/value head h/(H/K).

import (
	"github.com/artist-rl/artist/policy/backend"
	"gonum.org/v1/gonum/blas"
)

// causalBlock is the row block of causal attention: a block of rows
// r0..r1 only reads the columns j < r1, which skips almost half the work
// of a full T×T product, and its scratch is causalBlock·T values.
const causalBlock = 64

// Attention writes o = softmax(q·kᵀ·Scale + causal mask)·v per sequence
// and head, in parallel over (sequence, head) pairs. saved, when given,
// receives each (sequence, head)'s probabilities as a [T, T] block: row t
// holds its t+1 probabilities, then zeros to the end of its row block.
func (b *Backend) Attention(o, saved, q, k, v backend.Tensor, hd backend.Heads, T int) error {
	if err := onHost("Attention", o, saved, q, k, v); err != nil {
		return err
	}
	oo, sv, qq, kk, vv := host(o), host(saved), host(q), host(k), host(v)
	HD, KD := hd.H*hd.D, hd.K*hd.D
	B := len(qq) / (T * HD)
	parallelFor(B*hd.H, T*T*hd.D*2, func(lo, hi int) {
		var p []float32
		if sv == nil {
			p = make([]float32, causalBlock*T)
		}
		for u := lo; u < hi; u++ {
			s, h := u/hd.H, u%hd.H
			qb, ob := qq[s*T*HD:(s+1)*T*HD], oo[s*T*HD:(s+1)*T*HD]
			kb, vb := kk[s*T*KD:(s+1)*T*KD], vv[s*T*KD:(s+1)*T*KD]
			var ps []float32
			if sv != nil {
				ps = sv[u*T*T : (u+1)*T*T]
			}
			b.attendBlock(hd, ob, qb, kb, vb, T, h, p, ps)
		}
	})
	return nil
}

// attendBlock computes causal attention for query head h over one whole
// sequence of T rows at positions 0 … T-1: q and o are [T, H·D], k and v
// [T, K·D]. It works a block of query rows at a time, start to finish, so
// the probabilities it holds stay small enough for the cache: in p,
// scratch of causalBlock·T values, or when saved [T, T] is given in its
// rows of the block.
func (b *Backend) attendBlock(hd backend.Heads, o, q, k, v []float32, T, h int, p, saved []float32) {
	HD, KD, D := hd.H*hd.D, hd.K*hd.D, hd.D
	kv := h / (hd.H / hd.K)
	for r0 := 0; r0 < T; r0 += causalBlock {
		r1 := min(r0+causalBlock, T)
		if saved != nil {
			p = saved[r0*T:]
		}
		b.blockProbs(hd, p, q[h*D:], k[kv*D:], T, r0, r1)
		b.sgemm(false, false, r1-r0, D, r1, 1, p, T, v[kv*D:], KD, 0, o[r0*HD+h*D:], HD)
	}
}

// blockProbs writes into p, rows of stride T, the attention probabilities
// of query rows r0..r1: row t-r0 holds softmax over j ≤ t of
// scale·q_t·k_j in its first t+1 columns and zeros up to column r1; q and
// k are strided views (row strides H·D and K·D).
func (b *Backend) blockProbs(hd backend.Heads, p, q, k []float32, T, r0, r1 int) {
	b.sgemm(false, true, r1-r0, r1, hd.D, hd.Scale, q[r0*hd.H*hd.D:], hd.H*hd.D, k, hd.K*hd.D, 0, p, T)
	for t := r0; t < r1; t++ {
		row := p[(t-r0)*T:]
		softmax(row[:t+1])
		clear(row[t+1 : r1])
	}
}

// AttentionBack writes dq, dk and dv, per sequence and key/value head, in
// parallel over (sequence, key/value head) pairs. With P the attention
// probabilities (saved, or recomputed): dV += Pᵀ·dO,
// dS = P ⊙ (dO·Vᵀ − rowdot(dO, O))·Scale, dQ = dS·K, dK += dSᵀ·Q.
func (b *Backend) AttentionBack(dq, dk, dv, q, k, v, o, saved, do backend.Tensor, hd backend.Heads, T int) error {
	if err := onHost("AttentionBack", dq, dk, dv, q, k, v, o, saved, do); err != nil {
		return err
	}
	a := attnTensors{q: host(q), k: host(k), v: host(v), o: host(o), do: host(do), dq: host(dq), dk: host(dk), dv: host(dv)}
	sv := host(saved)
	HD, KD := hd.H*hd.D, hd.K*hd.D
	clear(a.dk)
	clear(a.dv)
	B := len(a.q) / (T * HD)
	parallelFor(B*hd.K, T*T*hd.D*8*(hd.H/hd.K), func(lo, hi int) {
		p, ds := make([]float32, causalBlock*T), make([]float32, causalBlock*T)
		for u := lo; u < hi; u++ {
			s, kv := u/hd.K, u%hd.K
			qs, ks := s*T*HD, s*T*KD
			at := attnTensors{
				q: a.q[qs : qs+T*HD], k: a.k[ks : ks+T*KD], v: a.v[ks : ks+T*KD],
				o: a.o[qs : qs+T*HD], do: a.do[qs : qs+T*HD],
				dq: a.dq[qs : qs+T*HD], dk: a.dk[ks : ks+T*KD], dv: a.dv[ks : ks+T*KD],
			}
			if sv != nil {
				at.p = sv[s*hd.H*T*T : (s+1)*hd.H*T*T]
			}
			b.attnBackGroup(hd, kv, T, at, p, ds)
		}
	})
	return nil
}

// attnTensors are one sequence's slices of the attention backward pass.
type attnTensors struct {
	q, k, v, o, do []float32 // [T, H·D], [T, K·D], [T, K·D], [T, H·D], [T, H·D]
	dq, dk, dv     []float32 // [T, H·D], [T, K·D], [T, K·D]; dk, dv zeroed by the caller
	p              []float32 // [H, T, T] probabilities Attention saved, or nil
}

// attnBackGroup runs the backward pass of key/value head kv and its query
// heads over one sequence of T rows, a block of query rows r0..r1 at a
// time as attendBlock works: it recomputes the block's probabilities P,
// then dS = P ⊙ (dO·Vᵀ − rowdot(dO, O))·Scale on columns < r1, dQ = dS·K
// for the block's rows and dK, dV += dSᵀ·Q, Pᵀ·dO for rows < r1. p and ds
// are scratch of causalBlock·T values.
func (b *Backend) attnBackGroup(hd backend.Heads, kv, T int, a attnTensors, p, ds []float32) {
	HD, KD, D := hd.H*hd.D, hd.K*hd.D, hd.D
	kk, vv := a.k[kv*D:], a.v[kv*D:]
	for h := kv * (hd.H / hd.K); h < (kv+1)*(hd.H/hd.K); h++ {
		q, o, do := a.q[h*D:], a.o[h*D:], a.do[h*D:]
		for r0 := 0; r0 < T; r0 += causalBlock {
			r1, n := min(r0+causalBlock, T), min(causalBlock, T-r0)
			if a.p != nil {
				p = a.p[(h*T+r0)*T:]
			} else {
				b.blockProbs(hd, p, q, kk, T, r0, r1)
			}
			b.sgemm(false, true, n, r1, D, 1, do[r0*HD:], HD, vv, KD, 0, ds, T) // dP = dO·Vᵀ
			for t := r0; t < r1; t++ {
				var delta float32
				for d, x := range do[t*HD : t*HD+D] {
					delta += x * o[t*HD+d]
				}
				pr, dr := p[(t-r0)*T:(t-r0)*T+t+1], ds[(t-r0)*T:(t-r0)*T+r1]
				for j, pj := range pr {
					dr[j] = pj * (dr[j] - delta) * hd.Scale
				}
				clear(dr[t+1:])
			}
			b.sgemm(false, false, n, D, r1, 1, ds, T, kk, KD, 0, a.dq[r0*HD+h*D:], HD)  // dQ = dS·K
			b.sgemm(true, false, r1, D, n, 1, ds, T, q[r0*HD:], HD, 1, a.dk[kv*D:], KD) // dK += dSᵀ·Q
			b.sgemm(true, false, r1, D, n, 1, p, T, do[r0*HD:], HD, 1, a.dv[kv*D:], KD) // dV += Pᵀ·dO
		}
	}
}

// AttendCached is decoding attention over each span's cache, in parallel
// over (span, key/value head) pairs.
func (b *Backend) AttendCached(o, q backend.Tensor, keys, vals []backend.Tensor, spans []backend.Span, hd backend.Heads) error {
	if err := onHost("AttendCached", o, q); err != nil {
		return err
	}
	if err := onHost("AttendCached", keys...); err != nil {
		return err
	}
	if err := onHost("AttendCached", vals...); err != nil {
		return err
	}
	oo, qq := host(o), host(q)
	HD := hd.H * hd.D
	units := len(spans) * hd.K
	if units == 0 {
		return nil
	}
	cost, longest := 0, 0
	for _, sp := range spans {
		cost += sp.N * (sp.P0 + sp.N) * hd.D * (hd.H / hd.K) * 4
		longest = max(longest, sp.P0+sp.N)
	}
	parallelFor(units, cost/units+1, func(lo, hi int) {
		scores := make([]float32, longest)
		for u := lo; u < hi; u++ {
			i, kv := u/hd.K, u%hd.K
			sp := spans[i]
			rows := oo[sp.Row*HD : (sp.Row+sp.N)*HD]
			qs := qq[sp.Row*HD : (sp.Row+sp.N)*HD]
			b.attendGroup(hd, rows, qs, host(keys[i]), host(vals[i]), sp.N, sp.P0, kv, scores)
		}
	})
	return nil
}

// attendGroup computes causal attention for the G query heads that share
// key/value head kv, for one sequence: q and o are [n, H·D] rows at
// positions p0 … p0+n-1; k and v are [P, K·D] with P ≥ p0+n and hold every
// key and value of the sequence so far. scores is scratch of length ≥ p0+n.
func (b *Backend) attendGroup(hd backend.Heads, o, q, k, v []float32, n, p0, kv int, scores []float32) {
	HD, KD, D := hd.H*hd.D, hd.K*hd.D, hd.D
	for h := kv * (hd.H / hd.K); h < (kv+1)*(hd.H/hd.K); h++ {
		for t := 0; t < n; t++ {
			P := p0 + t + 1
			s := scores[:P]
			at := t*HD + h*D
			// Exact-length x and y: gonum's Sgemv clears all of y when beta is 0.
			b.blas.Sgemv(blas.NoTrans, P, D, hd.Scale, k[kv*D:], KD, q[at:at+D], 1, 0, s, 1)
			softmax(s)
			b.blas.Sgemv(blas.Trans, P, D, 1, v[kv*D:], KD, s, 1, 0, o[at:at+D], 1)
		}
	}
}
